"""Fonts, colours, text styles and text fitting for every PDF: the one place to change
how the printouts look.

Fonts: DejaVu Sans (Latin with its diacritics, Greek, Cyrillic, many symbols) for all
text, and Droid Sans Fallback for Chinese, Japanese and Korean, both from Debian's
packages (fonts-dejavu-core, fonts-dejavu-extra, fonts-droid-fallback; see README),
embedded (subset) in every file. Each string is drawn in runs: a character the text font
lacks is drawn in the CJK font when that has it; a character no font has is drawn as "?"
and logged, never as an empty box. Without the DejaVu files (another system), the Vera
fonts inside ReportLab stand in, with a warning in the log.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import reportlab
from reportlab.lib import colors
from reportlab.lib.colors import Color
from reportlab.lib.pagesizes import A4, LETTER
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

log = logging.getLogger(__name__)

REGULAR = "ArmySans"
BOLD = "ArmySans-Bold"
ITALIC = "ArmySans-Oblique"
BOLD_ITALIC = "ArmySans-BoldOblique"
CJK = "ArmyCJK"

# Where the font packages put their files (ARMYBUILDER_FONT_DIRS, separated by ":", first).
FONT_DIRS = [
    *(Path(p) for p in os.environ.get("ARMYBUILDER_FONT_DIRS", "").split(":") if p),
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/truetype/droid"),
    Path("/usr/share/fonts"),
]
TEXT_FONTS = {
    REGULAR: ("DejaVuSans.ttf", "Vera.ttf"),
    BOLD: ("DejaVuSans-Bold.ttf", "VeraBd.ttf"),
    ITALIC: ("DejaVuSans-Oblique.ttf", "VeraIt.ttf"),
    BOLD_ITALIC: ("DejaVuSans-BoldOblique.ttf", "VeraBI.ttf"),
}
CJK_FONT = "DroidSansFallbackFull.ttf"
MISSING = "?"  # what a character no font has becomes


def _find(filename: str) -> Path | None:
    for folder in FONT_DIRS:
        path = folder / filename
        if path.is_file():
            return path
    for folder in FONT_DIRS:
        if folder.is_dir():
            found = next(folder.rglob(filename), None)
            if found is not None:
                return found
    return None


def _register_fonts() -> dict[str, frozenset[int]]:
    """Register the fonts; the characters each one has."""
    bundled = Path(reportlab.__file__).parent / "fonts"
    registered = set(pdfmetrics.getRegisteredFontNames())
    for name, (wanted, stand_in) in TEXT_FONTS.items():
        if name in registered:
            continue
        path = _find(wanted)
        if path is None:
            log.warning("font %s not found (install fonts-dejavu-core, fonts-dejavu-extra): using %s", wanted, stand_in)
            path = bundled / stand_in
        pdfmetrics.registerFont(TTFont(name, str(path)))
    pdfmetrics.registerFontFamily(REGULAR, normal=REGULAR, bold=BOLD, italic=ITALIC, boldItalic=BOLD_ITALIC)
    if CJK not in registered:
        path = _find(CJK_FONT)
        if path is None:
            log.warning("font %s not found (install fonts-droid-fallback): CJK prints as %s", CJK_FONT, MISSING)
        else:
            pdfmetrics.registerFont(TTFont(CJK, str(path)))
    names = [*TEXT_FONTS, *([CJK] if CJK in pdfmetrics.getRegisteredFontNames() else [])]
    return {name: frozenset(pdfmetrics.getFont(name).face.charToGlyph) for name in names}


COVERAGE = _register_fonts()


@lru_cache(maxsize=65536)
def runs(text: str, font: str) -> tuple[tuple[str, str], ...]:
    """`text` as runs of (text, font) that the fonts can draw: `font` where it has the
    character, the CJK font where that does, "?" (logged) where none does."""
    own, cjk = COVERAGE.get(font, frozenset()), COVERAGE.get(CJK, frozenset())
    out: list[list[str]] = []
    for char in text:
        code = ord(char)
        if code in own or char.isspace():
            use = font
        elif code in cjk:
            use = CJK
        else:
            log.warning("no font has %r (U+%04X): printed as %s", char, code, MISSING)
            char, use = MISSING, font
        if out and out[-1][1] == use:
            out[-1][0] += char
        else:
            out.append([char, use])
    return tuple((text, used) for text, used in out)


def draw_string(canvas, x: float, y: float, text: str, font: str, size: float, align: str = "left") -> None:
    """Draw `text` at `size` in `font` (with fallbacks), left-aligned at `x`, or with
    `align` "right" or "centre" on `x`."""
    if align != "left":
        width = width_of(text, font, size)
        x -= width if align == "right" else width / 2
    for part, used in runs(text, font):
        canvas.setFont(used, size)
        canvas.drawString(x, y, part)
        x += pdfmetrics.stringWidth(part, used, size)


PAPERS = {"a4": A4, "letter": LETTER}
AUTHOR = "Armybuilder"

# Colours: dark ink on white, one accent, red and amber for validation.
INK = colors.HexColor("#1d2327")
MUTED = colors.HexColor("#5f6b73")
LINE = colors.HexColor("#9aa5ad")
SHADE = colors.HexColor("#eef1f3")
ACCENT = colors.HexColor("#2c4a5a")
ON_ACCENT = colors.white
ERROR = colors.HexColor("#b3261e")
WARNING = colors.HexColor("#8a5a00")
OK = colors.HexColor("#2e6b30")
BAR = colors.HexColor("#5b8296")


@dataclass(frozen=True, slots=True)
class Style:
    font: str
    size: float
    color: Color = INK

    @property
    def leading(self) -> float:
        return round(self.size * 1.22, 2)

    def sized(self, size: float) -> Style:
        return replace(self, size=size)


# Pages (roster, reference). A *_MIN is the smallest a style shrinks to before wrapping.
TITLE = Style(BOLD, 18)
TITLE_MIN = 12
SUBTITLE = Style(REGULAR, 10, MUTED)
RUNNING_HEAD = Style(BOLD, 10, MUTED)
HEADING = Style(BOLD, 11, ACCENT)
BODY = Style(REGULAR, 8.5)
BODY_BOLD = Style(BOLD, 8.5)
SMALL = Style(REGULAR, 7, MUTED)
SOURCE = Style(ITALIC, 7, MUTED)  # where a rule is explained, which sections a topic condenses
TABLE_HEAD = Style(BOLD, 7.5, MUTED)
PAGE_FOOTER = Style(REGULAR, 6.5, MUTED)
POINTS = Style(BOLD, 14)  # the roster's "1495 / 1500 pts"
STATUS = Style(BOLD, 10.5)  # the roster's "Legal list", coloured by the outcome
PLAYER = Style(REGULAR, 12, ACCENT)  # an event's roster: "Player: alice" over the list's name
SUMMARY = Style(BOLD, 12)  # an event's cover: how many lists, how many legal
QR_CAPTION = Style(BOLD, 7, MUTED)
QR_LINK = Style(REGULAR, 6, MUTED)
TEXT_MIN = 6  # table cells, chart labels, stat boxes: nothing printed is smaller than 6 pt


@dataclass(frozen=True, slots=True)
class CardStyles:
    """Text sizes of a card; the sheet and the poker-size layouts differ only here."""

    padding: float
    name: Style  # shrinks to name_min before the name wraps
    name_min: float
    cost: Style
    subtitle: Style
    stat_label: Style
    stat_value: Style
    table_head: Style
    cell: Style  # numeric cells shrink to cell_min before they wrap
    cell_min: float
    text: Style
    label: Style  # "Rules:", "Upgrades:" lead-ins
    footer: Style


def _card_styles(
    *,
    padding: float,
    name: float,
    name_min: float,
    cost: float,
    subtitle: float,
    stat_value: float,
    table_head: float,
    text: float,
) -> CardStyles:
    """A card layout's styles from its sizes. Fonts and colours are the same in every
    layout; table cells, text and "Rules:" lead-ins share one size; stat labels and the
    footer are printed at the smallest size, which is also as far as a cell shrinks."""
    return CardStyles(
        padding=padding,
        name=Style(BOLD, name, ON_ACCENT),
        name_min=name_min,
        cost=Style(BOLD, cost, ON_ACCENT),
        subtitle=Style(ITALIC, subtitle, MUTED),
        stat_label=Style(REGULAR, TEXT_MIN, MUTED),
        stat_value=Style(BOLD, stat_value),
        table_head=Style(BOLD, table_head, MUTED),
        cell=Style(REGULAR, text),
        cell_min=TEXT_MIN,
        text=Style(REGULAR, text),
        label=Style(BOLD, text),
        footer=Style(REGULAR, TEXT_MIN, MUTED),
    )


SHEET_CARD = _card_styles(
    padding=7, name=11.5, name_min=8, cost=10, subtitle=7.5, stat_value=10.5, table_head=6.5, text=7.5
)
POKER_CARD = _card_styles(
    padding=6, name=9.5, name_min=6.5, cost=8.5, subtitle=6.5, stat_value=9, table_head=6, text=6.5
)

POKER_SIZE = (63 * mm, 88 * mm)


# -- measuring and wrapping text -----------------------------------------------------
Span = tuple[str, str]  # (text, font): a run of text in one font
Line = list[Span]


def width_of(text: str, font: str, size: float) -> float:
    return sum(pdfmetrics.stringWidth(part, used, size) for part, used in runs(text, font))


def fit_size(text: str, font: str, size: float, width: float, min_size: float) -> float:
    """The largest size from `size` down to `min_size` (half-point steps) at which
    `text` fits on one line of `width`; `min_size` if none does."""
    natural = width_of(text, font, size)
    if natural <= width:
        return size
    # Width grows linearly with size: start from the exact answer, then round down.
    fitted = int(size * width / natural * 2) / 2
    return max(min_size, min(size, fitted))


def wrap(text: str, font: str, size: float, width: float) -> list[str]:
    """`text` in lines no wider than `width`; a word too long for a line is broken."""
    return ["".join(text for text, _font in line) for line in wrap_spans([(text, font)], size, width)]


def wrap_spans(spans: list[Span], size: float, width: float) -> list[Line]:
    """Greedy line filling over runs of text in different fonts (a bold lead-in and
    regular text, say). Words are split on spaces; a word wider than a whole line is
    broken between characters, so that no line is ever wider than `width`."""
    words: list[tuple[str, str, bool]] = []  # (word, font, space before)
    space_pending = False
    for text, font in spans:
        if text[:1].isspace():
            space_pending = True
        for i, word in enumerate(text.split()):
            words.append((word, font, bool(words) and (space_pending or i > 0)))
            space_pending = False
        if text[-1:].isspace():
            space_pending = True

    lines: list[Line] = []
    line: Line = []
    used = 0.0
    for word, font, spaced in words:
        space = width_of(" ", font, size) if spaced and line else 0.0
        word_width = width_of(word, font, size)
        if line and used + space + word_width > width:
            lines.append(line)
            line, used, space = [], 0.0, 0.0
        if word_width > width:
            for piece in _break_word(word, font, size, width - used - space, width):
                if line and used + space + width_of(piece, font, size) > width:
                    lines.append(line)
                    line, used, space = [], 0.0, 0.0
                _append(line, (" " if space else "") + piece, font)
                used += space + width_of(piece, font, size)
                space = 0.0
            continue
        _append(line, (" " if space else "") + word, font)
        used += space + word_width
    if line:
        lines.append(line)
    return lines


def _append(line: Line, text: str, font: str) -> None:
    if line and line[-1][1] == font:
        line[-1] = (line[-1][0] + text, font)
    else:
        line.append((text, font))


def _break_word(word: str, font: str, size: float, first: float, width: float) -> list[str]:
    pieces: list[str] = []
    room = first if first > width / 3 else width
    piece = ""
    for char in word:
        if piece and width_of(piece + char, font, size) > room:
            pieces.append(piece)
            piece, room = "", width
        piece += char
    pieces.append(piece)
    return pieces


def clip(text: str, font: str, size: float, width: float) -> str:
    """`text` cut to `width` with "…" (a footer that must leave room for the page number)."""
    if width_of(text, font, size) <= width:
        return text
    while text and width_of(text + "…", font, size) > width:
        text = text[:-1]
    return text + "…" if text else ""


def line_width(line: Line, size: float) -> float:
    return sum(width_of(text, font, size) for text, font in line)


def draw_line(canvas, line: Line, x: float, y: float, size: float, color: Color = INK) -> None:
    canvas.setFillColor(color)
    for text, font in line:
        draw_string(canvas, x, y, text, font, size)
        x += width_of(text, font, size)


def new_canvas(buffer, *, pagesize: tuple[float, float], title: str, subject: str):
    """A canvas with the document metadata set; `invariant` keeps the bytes the same
    from one run to the next (no timestamp or random document id), which caching and
    tests rely on."""
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(buffer, pagesize=pagesize, pageCompression=1, invariant=1, initialFontName=REGULAR)
    canvas.setTitle(title)
    canvas.setAuthor(AUTHOR)
    canvas.setCreator(AUTHOR)
    canvas.setSubject(subject)
    return canvas
