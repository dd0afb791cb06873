"""Fonts, colours, text styles and text fitting for every PDF: the one place to change
how the printouts look.

Fonts: DejaVu Sans (Latin with its diacritics, Greek, Cyrillic, Arabic, Hebrew, many
symbols) for all text, Loma (Thai, in four styles like DejaVu), Lohit Devanagari and
Droid Sans Fallback (Chinese, Japanese and Korean), all from Debian's packages
(fonts-dejavu-core, fonts-dejavu-extra, fonts-tlwg-loma-ttf, fonts-lohit-deva,
fonts-droid-fallback; see README), embedded (subset) in every file. Each string is drawn
in runs: a character the style's font lacks is drawn in the first font of its fallback
chain that has it (an italic Arabic letter in the upright font, say); a character no font
has is drawn as "?" and logged, never as an empty box. Without the DejaVu files (another
system), the Vera fonts inside ReportLab stand in, with a warning in the log.

Scripts that need more than one glyph per letter: `prepare` puts a string in the order it
is seen (right-to-left runs of Arabic and Hebrew reversed, by python-bidi's Unicode
Bidirectional Algorithm) and has HarfBuzz (uharfbuzz) shape each run (Arabic letters
joined, Devanagari conjuncts and vowel signs, Thai marks placed). Plain strings, most of
them, skip both and are drawn as they are. A right-to-left name put in a sentence is
isolated (`isolate`: "Joined hero: ‹name› · 90 pts" keeps its number by "pts"), and
Chinese, Japanese and Korean, whose font has no bold face, are drawn bold in a bold
style by stroking their glyphs too.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import unicodedata
import weakref
from dataclasses import dataclass
from pathlib import Path

import reportlab
import uharfbuzz

# python-bidi's Python implementation: its Rust one (bidi.get_display) leaves brackets
# unmirrored in right-to-left text, "(Kings)" printed ")Kings(".
from bidi.algorithm import get_display
from reportlab.lib import colors
from reportlab.lib.colors import Color
from reportlab.lib.pagesizes import A4, LETTER
from reportlab.lib.rl_accel import escapePDF, fp_str
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import ShapeData, ShapedStr, TTFont

from armybuilder.memo import memoize

log = logging.getLogger(__name__)

REGULAR = "ArmySans"
BOLD = "ArmySans-Bold"
ITALIC = "ArmySans-Oblique"
BOLD_ITALIC = "ArmySans-BoldOblique"
THAI = "ArmyThai"
THAI_BOLD = "ArmyThai-Bold"
THAI_ITALIC = "ArmyThai-Oblique"
THAI_BOLD_ITALIC = "ArmyThai-BoldOblique"
DEVANAGARI = "ArmyDevanagari"
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
# Fonts for the scripts DejaVu lacks: (file, Debian package).
SCRIPT_FONTS = {
    THAI: ("Loma.ttf", "fonts-tlwg-loma-ttf"),
    THAI_BOLD: ("Loma-Bold.ttf", "fonts-tlwg-loma-ttf"),
    THAI_ITALIC: ("Loma-Oblique.ttf", "fonts-tlwg-loma-ttf"),
    THAI_BOLD_ITALIC: ("Loma-BoldOblique.ttf", "fonts-tlwg-loma-ttf"),
    DEVANAGARI: ("Lohit-Devanagari.ttf", "fonts-lohit-deva"),
    CJK: ("DroidSansFallbackFull.ttf", "fonts-droid-fallback"),
}
# Where each style looks for a character, in order. DejaVu's obliques have no Arabic:
# the upright face of the same weight draws it. Lohit has one weight.
FALLBACKS = {
    REGULAR: (REGULAR, THAI, DEVANAGARI, CJK),
    BOLD: (BOLD, THAI_BOLD, DEVANAGARI, CJK),
    ITALIC: (ITALIC, THAI_ITALIC, REGULAR, DEVANAGARI, CJK),
    BOLD_ITALIC: (BOLD_ITALIC, THAI_BOLD_ITALIC, BOLD, DEVANAGARI, CJK),
}
MISSING = "?"  # what a character no font has becomes
# Droid has one weight: in a bold style its glyphs are drawn bold by stroking their
# outlines as well as filling them (a line this share of the text's size), so that a
# Japanese name is as bold as the Latin one beside it. (Lohit Devanagari has one weight
# too; stroked, its headline bar no longer matches the shaped reference the script tests
# compare it with, so it keeps its one weight until that is checked.)
ONE_WEIGHT = frozenset({CJK})
BOLD_STYLES = frozenset({BOLD, BOLD_ITALIC})
SYNTHETIC_BOLD = 0.04


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
    """Register the fonts; the characters each one has (`coverage`)."""
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
    for name, (wanted, package) in SCRIPT_FONTS.items():
        if name in registered:
            continue
        path = _find(wanted)
        if path is None:
            log.warning("font %s not found (install %s): its script prints as %s", wanted, package, MISSING)
        else:
            pdfmetrics.registerFont(TTFont(name, str(path)))
    have = [name for name in [*TEXT_FONTS, *SCRIPT_FONTS] if name in pdfmetrics.getRegisteredFontNames()]
    return {name: frozenset(pdfmetrics.getFont(name).face.charToGlyph) for name in have}


# The fonts are registered when the first PDF is drawn or measured, not when this module is
# imported: reading them takes some 68 MiB and 2 s, which a worker serving pages pays for
# nothing (tests/exports/test_fonts_lazy.py).
_coverage: dict[str, frozenset[int]] | None = None
_FONTS_LOCK = threading.Lock()


def coverage() -> dict[str, frozenset[int]]:
    """The characters each registered font has: the fonts registered on the first call,
    by one thread while any other waits for them."""
    global _coverage
    if _coverage is None:
        with _FONTS_LOCK:
            if _coverage is None:
                _coverage = _register_fonts()
    return _coverage


# -- preparing text: font runs, bidi order, shaping --------------------------------------
# Characters whose glyphs depend on their neighbours or whose order on the page is not
# the typed order: combining marks, Hebrew to Myanmar and the other Brahmic and Southeast
# Asian scripts, joiners and bidi controls, Arabic and Hebrew presentation forms, the
# scripts of the supplementary plane before its symbols. Text without any is drawn as is.
_COMPLEX = re.compile(
    "[\u0300-\u036f\u0483-\u0489\u0590-\u1dff\u200c-\u200f\u202a-\u202e\u2066-\u2069"
    "\ua800-\uabff\ufb1d-\ufefc\U00010000-\U0001efff]"
)
_RTL = re.compile(
    "[\u0590-\u08ff\u200f\u202b\u202e\u2067\ufb1d-\ufdff\ufe70-\ufefc\U00010800-\U00010fff\U0001e800-\U0001efff]"
)
_RTL_CLASSES = frozenset({"R", "AL"})
_ATTACHED_CLASSES = frozenset({"NSM", "BN"})  # marks and joiners go with the letter they follow


@dataclass(frozen=True, slots=True)
class Piece:
    """A run of text in one font, ready to draw at the current point: `text` is the
    string as typed, or the font's glyphs in drawing order (a ReportLab ShapedStr, which
    carries HarfBuzz's advances and offsets) when shaping changed anything; `actual`
    the typed text a copy should give where the glyphs alone cannot tell it."""

    text: str
    font: str
    advance: float  # width at 1 pt
    actual: str | None = None


# The caches of shaped and measured text live as long as the worker: they keep texts up to
# SHORT_TEXT characters (names, words), and work the longer ones out each time. Bounded in
# count alone, texts of 5,000 characters (a list's notes) could make them hold gigabytes.
SHORT_TEXT = 200


def _short(text: str, *rest: object) -> bool:
    return len(text) <= SHORT_TEXT


@memoize("pdf: texts as pieces to draw", 65536, when=_short)
def prepare(text: str, font: str) -> tuple[Piece, ...]:
    """`text` as pieces to draw left to right in `font` and its fallbacks: right-to-left
    runs in the order they are seen, complex scripts shaped. Linear in the text."""
    if not _COMPLEX.search(text):
        return tuple(Piece(part, used, pdfmetrics.stringWidth(part, used, 1)) for part, used in _font_runs(text, font))
    visual = _display_order(text) if _RTL.search(text) or _ISOLATE_MARKS.search(text) else text
    pieces: list[Piece] = []
    for segment, rtl in _direction_segments(visual):
        logical = segment[::-1] if rtl else segment
        shaped = [_shape(part, used, rtl) for part, used in _font_runs(logical, font)]
        for piece in reversed(shaped) if rtl else shaped:
            last = pieces[-1] if pieces else None
            if last is not None and last.font == piece.font and _plain(last) and _plain(piece):
                pieces[-1] = Piece(last.text + piece.text, piece.font, last.advance + piece.advance)
            else:
                pieces.append(piece)
    return tuple(pieces)


def _plain(piece: Piece) -> bool:
    return piece.actual is None and not isinstance(piece.text, ShapedStr)


def isolate(name: str) -> str:
    """A name typed by a user, set apart for putting in a sentence ("Joined hero: {name}
    · 90 pts"): a right-to-left name in Unicode's isolates (FIRST STRONG ISOLATE … POP
    DIRECTIONAL ISOLATE), so that the numbers and words around it keep their places
    instead of joining its run. A name without right-to-left letters needs none: the
    sentences around it are left to right."""
    return f"{FSI}{name}{PDI}" if _RTL.search(name) else name


FSI, PDI = "\u2068", "\u2069"
_ISOLATE_STARTS = {"\u2066": "L", "\u2067": "R", FSI: None}  # LRI, RLI, FSI: the direction inside
_ISOLATE_CHARS = frozenset("\u2066\u2067\u2068\u2069")
_ISOLATE_MARKS = re.compile("[\u2066-\u2069]")
MAX_ISOLATES = 8  # isolates in isolates: a name in a sentence in a name … is at most this deep
# Stand-ins for the isolated runs while the text around them is put in order: neutral
# characters (bidi class ON, like an isolate seen from outside) that no name uses.
_STAND_INS = "".join(chr(code) for code in range(0x2FF0, 0x2FFC))


def _display_order(text: str) -> str:
    """`text` in the order it is seen. Spaces at its ends stay where they are: the text
    may be one run of a line ("Led by: " in bold, then a name), and the space that
    parts it from its neighbour must not move to the far end of a right-to-left name.
    An isolated run (see `isolate`) is put in order on its own and stands in the text
    around it as one neutral character. An isolate a line break cut short ends at the
    end of the text (as Unicode says), or starts at its start (the line it went on
    to); the isolates' marks are not drawn."""
    core = text.strip()
    if not core:
        return text
    start = text.index(core[0])
    return text[:start] + _visual(core) + text[start + len(core) :]


def _visual(text: str, direction: str | None = None, nesting: int = 0) -> str:
    if not _ISOLATE_MARKS.search(text):
        return get_display(text, base_dir=direction) if _RTL.search(text) else text
    depth = 0
    for char in text:
        depth += 1 if char in _ISOLATE_STARTS else -1 if char == PDI else 0
        if depth < 0:  # the end of an isolate cut at its start: a wrapped name's second line
            text = FSI + text
            break
    # More isolates than stand-ins, or a text with a stand-in of its own: the rest unisolated.
    # Isolates nested past MAX_ISOLATES deep are read as plain text, so that the work (and
    # the depth of this call) stays bounded whatever a text holds.
    room = 0 if nesting >= MAX_ISOLATES or any(char in _STAND_INS for char in text) else len(_STAND_INS)
    outer: list[str] = []
    runs: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char in _ISOLATE_STARTS and len(runs) < room:
            depth, end = 1, i + 1
            while end < len(text) and depth:
                depth += 1 if text[end] in _ISOLATE_STARTS else -1 if text[end] == PDI else 0
                end += 1
            inner = text[i + 1 : end - 1] if not depth else text[i + 1 : end]
            outer.append(_STAND_INS[len(runs)])
            runs.append(_visual(inner, _ISOLATE_STARTS[char], nesting + 1))
            i = end
        else:
            if not _ISOLATE_MARKS.match(char):  # a mark with no partner is dropped
                outer.append(char)
            i += 1
    seen = _visual("".join(outer), direction)
    return "".join(runs[_STAND_INS.index(c)] if c in _STAND_INS[: len(runs)] else c for c in seen)


def _direction_segments(visual: str) -> list[tuple[str, bool]]:
    """A string in display order cut into right-to-left runs (Arabic and Hebrew letters,
    their marks and the spaces between them; reversed on the page, so to be put back in
    typed order for the shaper) and the rest."""
    kinds = [unicodedata.bidirectional(char) for char in visual]
    rtl = [kind in _RTL_CLASSES for kind in kinds]
    # Seen right to left, a mark comes before its letter: it joins the letter's run.
    following = False
    for i in range(len(visual) - 1, -1, -1):
        if rtl[i]:
            following = True
        elif kinds[i] in _ATTACHED_CLASSES:
            rtl[i] = following
        else:
            following = False
    # A space between two right-to-left letters stays in their run (one shaped word group).
    for i, char in enumerate(visual):
        if char == " " and 0 < i < len(visual) - 1 and rtl[i - 1] and rtl[i + 1]:
            rtl[i] = True
    segments: list[tuple[str, bool]] = []
    start = 0
    for i in range(1, len(visual) + 1):
        if i == len(visual) or rtl[i] != rtl[start]:
            segments.append((visual[start:i], rtl[start]))
            start = i
    return segments


def _font_runs(text: str, font: str) -> list[tuple[str, str]]:
    """`text` as (text, font) runs that the fonts can draw: each character in the first
    font of `font`'s fallbacks that has it, a mark in its letter's font, "?" (logged)
    where no font has it."""
    chain, covered = _chain(font), coverage()
    first, first_has = chain[0], covered.get(chain[0], frozenset())
    out: list[tuple[list[str], str]] = []  # characters gathered in lists: joining is linear
    use: str | None
    for char in text:
        code = ord(char)
        current = out[-1][1] if out else first
        if current == first and code in first_has:  # most characters: the answer of either rule below
            use = first
        elif char.isspace() or _attached(char) and code in covered.get(current, ()) or char in _ISOLATE_CHARS:
            use = current  # an isolate's marks (measured, never drawn) go with their neighbours
        else:
            use = next((name for name in chain if code in covered[name]), None)
            if use is None:
                log.warning("no font has %r (U+%04X): printed as %s", char, code, MISSING)
                char, use = MISSING, current
        if out and out[-1][1] == use:
            out[-1][0].append(char)
        else:
            out.append(([char], use))
    return [("".join(chars), used) for chars, used in out]


@memoize("pdf: fallback fonts of a font", 16)
def _chain(font: str) -> tuple[str, ...]:
    """The fonts `font` looks in for a character, in order: those the system has."""
    return tuple(name for name in FALLBACKS.get(font, (font,)) if name in coverage()) or (font,)


@memoize("pdf: HarfBuzz fonts", 16)
def _hb_font(font: str) -> uharfbuzz.Font:
    coverage()  # the fonts registered
    ttf = pdfmetrics.getFont(font)
    ttf.hbFont(10)  # readies ReportLab's own mapping of glyphs the font has no character for
    return uharfbuzz.Font(ttf.hbFace)


@memoize("pdf: shaped runs of text", 16384, when=_short)
def _shape(text: str, font: str, rtl: bool) -> Piece:
    """One run of one font and direction, shaped by HarfBuzz; `text` in typed order."""
    ttf = pdfmetrics.getFont(font)
    if not getattr(ttf, "shapable", False):
        return Piece(text[::-1] if rtl else text, font, pdfmetrics.stringWidth(text, font, 1))
    hb_font = _hb_font(font)
    buffer = uharfbuzz.Buffer()
    buffer.add_str(text)
    buffer.guess_segment_properties()
    buffer.direction = "rtl" if rtl else "ltr"
    uharfbuzz.shape(hb_font, buffer, {"kern": True, "liga": True})
    face, scale = ttf.face, ttf.pdfScale
    glyphs: list[str] = []
    data: list[ShapeData] = []
    faithful = True  # every glyph stands for exactly the characters it was shaped from
    for info, position in zip(buffer.glyph_infos, buffer.glyph_positions, strict=True):
        gid = info.codepoint
        chars = face.glyphToChar.get(gid)
        if chars:
            code = chars[0]
        else:  # a conjunct, a mark moved aside: ReportLab gives it a private-use character
            code = ttf.hbAddPrivate(hb_font.glyph_to_string(gid), gid, scale(position.x_advance))
        faithful = faithful and not 0xE000 <= code <= 0xF8FF
        glyphs.append(chr(code))
        data.append(
            ShapeData(
                info.cluster,
                scale(position.x_advance),
                scale(position.y_advance),
                scale(position.x_offset),
                scale(position.y_offset),
                face.charWidths[code],
            )
        )
    if faithful and all(_nominal(item) for item in data):
        # Each glyph a character's own, at its own width (Arabic's joined forms are
        # characters too): plain text, drawn and measured as such, and joined with the
        # plain text around it (`prepare`).
        plain = "".join(glyphs)
        return Piece(plain, font, pdfmetrics.stringWidth(plain, font, 1))
    drawn = ShapedStr("".join(glyphs), shapeData=data)
    advance = sum(item.x_advance for item in data) / 1000
    # Reversed, the glyphs of a right-to-left run read back in typed order (a viewer
    # puts them back); glyphs with no character of their own need the text said again.
    return Piece(drawn, font, advance, None if faithful else text)


def _nominal(item: ShapeData) -> bool:
    """Whether HarfBuzz put a glyph where plain text would: at its own width, unmoved."""
    return item.x_offset == item.y_offset == item.y_advance == 0 and abs(item.x_advance - item.width) < 1e-6


def _actual_text(text: str) -> str:
    return "<FEFF" + text.encode("utf-16-be").hex().upper() + ">"


# -- drawing text ---------------------------------------------------------------------
# Drawing a string through a ReportLab text object of its own (beginText, setFont,
# textOut, drawText) was two fifths of the time a page of cards takes, most of it spent
# writing the same operators again for each name, label and number. They are written
# here instead, the way ReportLab's ttfonts module documents for its subset fonts (each
# chunk of `splitString` with its subset's `getSubsetInternalName`), and kept for the
# document: a string drawn again at the same size costs placing its pieces and a join.
# The operators are those a text object writes, so the pages are the same, byte for byte
# where no piece is shaped: the text object is still used for HarfBuzz's positioned
# glyphs (a `ShapedStr`), which ReportLab writes with its offsets.


@dataclass(frozen=True, slots=True)
class _Plan:
    """How a string is drawn at one size in one document: its width, and where every
    piece is plain (unshaped glyphs, drawn filled) the operators of each piece with the
    distance to the next; `steps` is None for a string with a piece that needs more,
    whose `pieces` are then drawn one by one."""

    width: float
    steps: tuple[tuple[float, str], ...] | None
    pieces: tuple[Piece, ...] = ()


class _Drawn:
    """What one document has drawn: the plans of its strings, the operators of its pieces
    (by text, font and size), and its text matrix (1 0 0 1 on the usual bottom-up page)."""

    __slots__ = ("plans", "operators", "matrix")

    def __init__(self, canvas) -> None:
        self.plans: dict[tuple[str, str, float], _Plan] = {}
        self.operators: dict[tuple[str, str, float], str] = {}
        self.matrix = "1 0 0 1" if canvas.bottomup else "1 0 0 -1"


# Kept as long as their canvas: a file's strings, whose operators name its own subsets.
_DRAWN: weakref.WeakKeyDictionary[object, _Drawn] = weakref.WeakKeyDictionary()


def _drawn(canvas) -> _Drawn:
    drawn = _DRAWN.get(canvas)
    if drawn is None:
        drawn = _DRAWN[canvas] = _Drawn(canvas)
    return drawn


def draw_string(canvas, x: float, y: float, text: str, font: str, size: float, align: str = "left") -> None:
    """Draw `text` at `size` in `font` (with fallbacks, in display order, shaped),
    left-aligned at `x`, or with `align` "right" or "centre" on `x`."""
    _draw(canvas, x, y, text, font, size, align)


def _draw(canvas, x: float, y: float, text: str, font: str, size: float, align: str = "left") -> float:
    """`draw_string`, giving the width drawn. The pieces of a string share a text object
    (a string mixing scripts may be a piece a character)."""
    drawn = _drawn(canvas)
    key = (text, font, size)
    plan = drawn.plans.get(key)
    if plan is None:
        plan = drawn.plans[key] = _plan(canvas, drawn, text, font, size)
    if align != "left":
        x -= plan.width if align == "right" else plan.width / 2
    if plan.steps is None:
        _draw_pieces(canvas, drawn, x, y, plan.pieces, font, size)
    elif plan.steps:
        placed = []
        for advance, operators in plan.steps:
            placed.append(f"{drawn.matrix} {fp_str(x, y)} Tm {operators}")
            x += advance
        canvas.addLiteral(f"BT {' '.join(placed)} ET")
    return plan.width


def _plan(canvas, drawn: _Drawn, text: str, font: str, size: float) -> _Plan:
    pieces = prepare(text, font)
    width = sum(piece.advance for piece in pieces) * size  # as `width_of` has it
    if any(_special(piece, font) for piece in pieces):
        return _Plan(width, None, pieces)
    return _Plan(width, tuple((piece.advance * size, _operators(canvas, drawn, piece, size)) for piece in pieces))


def _special(piece: Piece, font: str) -> bool:
    """Whether `piece` needs more than its glyphs' operators: positioned glyphs, its typed
    text said again, or a stroke to draw it bold."""
    return piece.actual is not None or isinstance(piece.text, ShapedStr) or _synthetic(piece, font)


def _synthetic(piece: Piece, font: str) -> bool:
    return font in BOLD_STYLES and piece.font in ONE_WEIGHT


def _operators(canvas, drawn: _Drawn, piece: Piece, size: float) -> str:
    """The operators that draw plain `piece` at `size` from the current point: each run
    of its glyphs in one subset of its font (256 glyphs a subset, numbered as the document
    first meets them) set and shown, with the leading a text object sets (1.2 times the
    size; no line is moved by it, but the operators are then a text object's own)."""
    key = (piece.text, piece.font, size)
    operators = drawn.operators.get(key)
    if operators is None:
        ttf = pdfmetrics.getFont(piece.font)
        document = canvas._doc  # ReportLab numbers a font's subsets per document
        sizes = f"{fp_str(size)} Tf {fp_str(size * 1.2)} TL"
        operators = drawn.operators[key] = " ".join(
            f"{ttf.getSubsetInternalName(subset, document)} {sizes} ({escapePDF(chunk)}) Tj"
            for subset, chunk in ttf.splitString(piece.text, document)
        )
    return operators


def _draw_pieces(canvas, drawn: _Drawn, x: float, y: float, pieces: tuple[Piece, ...], font: str, size: float) -> None:
    """`_draw` for a string with a piece that needs more than its glyphs. Plain pieces
    in a row share a text object; a piece that says its typed text again (ActualText)
    has one of its own, inside the marked span, and so has a piece drawn bold by
    stroking its glyphs (text render mode 2, then back to 0) and a shaped one; the
    stroke's colour (the text's) and width are set once for the string."""
    group: list[str] = []  # the plain pieces' placed operators, waiting for a text object
    bold = any(_synthetic(piece, font) for piece in pieces)
    if bold:  # one outline colour and width for every piece drawn bold by stroking
        canvas.saveState()
        canvas.setStrokeColor(canvas._fillColorObj)  # the outline in the text's colour
        canvas.setLineWidth(size * SYNTHETIC_BOLD)
    for piece in pieces:
        if not _special(piece, font):
            group.append(f"{drawn.matrix} {fp_str(x, y)} Tm {_operators(canvas, drawn, piece, size)}")
            x += piece.advance * size
            continue
        if group:
            canvas.addLiteral(f"BT {' '.join(group)} ET")
            group = []
        synthetic = _synthetic(piece, font)
        if piece.actual is not None:
            canvas.addLiteral(f"/Span <</ActualText {_actual_text(piece.actual)}>> BDC")
        if isinstance(piece.text, ShapedStr):
            canvas.drawText(_text_object(canvas, x, y, piece, size, stroked=synthetic))
            if synthetic:
                canvas.addLiteral("0 Tr")  # the render mode is the graphics state's: back to filling
        else:
            operators = _operators(canvas, drawn, piece, size)
            if synthetic:
                operators = f"2 Tr {operators} 0 Tr"
            canvas.addLiteral(f"BT {drawn.matrix} {fp_str(x, y)} Tm {operators} ET")
        if piece.actual is not None:
            canvas.addLiteral("EMC")
        x += piece.advance * size
    if group:
        canvas.addLiteral(f"BT {' '.join(group)} ET")
    if bold:
        canvas.restoreState()


def _text_object(canvas, x: float, y: float, piece: Piece, size: float, *, stroked: bool = False):
    """Shaped `piece` at (x, y) in a text object of ReportLab's, which writes HarfBuzz's
    offsets; with `stroked`, its glyphs filled and stroked (text render mode 2)."""
    drawn = canvas.beginText(x, y)
    drawn.setFont(piece.font, size)
    if stroked:
        drawn.setTextRenderMode(2)
    drawn.textOut(piece.text)
    return drawn


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
        # Not dataclasses.replace, which looks the fields up on every call: a page of
        # cards asks for thousands of sizes.
        return Style(self.font, size, self.color)


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
    cell: float | None = None,
    stat_label: float = TEXT_MIN,
) -> CardStyles:
    """A card layout's styles from its sizes. Fonts and colours are the same in every
    layout; text and "Rules:" lead-ins share one size, table cells that size unless
    given theirs; the footer is printed at the smallest size, which is also as far as a
    cell shrinks."""
    return CardStyles(
        padding=padding,
        name=Style(BOLD, name, ON_ACCENT),
        name_min=name_min,
        cost=Style(BOLD, cost, ON_ACCENT),
        subtitle=Style(ITALIC, subtitle, MUTED),
        stat_label=Style(REGULAR, stat_label, MUTED),
        stat_value=Style(BOLD, stat_value),
        table_head=Style(BOLD, table_head, MUTED),
        cell=Style(REGULAR, text if cell is None else cell),
        cell_min=TEXT_MIN,
        text=Style(REGULAR, text),
        label=Style(BOLD, text),
        footer=Style(REGULAR, TEXT_MIN, MUTED),
    )


SHEET_CARD = _card_styles(
    padding=7, name=11.5, name_min=8, cost=10, subtitle=7.5, stat_value=10.5, table_head=6.5, text=7.5
)
# A poker card is read at arm's length: stats and weapons at 8 pt or more, rules at 7 pt or
# more (its text grows from there to fill the card: pdf_cards.POKER_STEPS).
POKER_CARD = _card_styles(
    padding=6,
    name=9.5,
    name_min=7,
    cost=8.5,
    subtitle=7,
    stat_value=9,
    table_head=8,
    text=7,
    cell=8,
    stat_label=8,
)

POKER_SIZE = (63 * mm, 88 * mm)


# -- measuring and wrapping text -----------------------------------------------------
Span = tuple[str, str]  # (text, font): a run of text in one font
Line = list[Span]


def width_of(text: str, font: str, size: float) -> float:
    return _advance(text, font) * size


@memoize("pdf: widths of texts", 65536, when=_short)
def _advance(text: str, font: str) -> float:
    """The width of `text` at 1 pt."""
    return sum(piece.advance for piece in prepare(text, font))


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
    shares = _shares(word, font)
    start = 0
    while start < len(word):
        end = _fitting(word, start, font, size, room, shares)
        if end == start:  # not even one letter fits: it goes alone, with its marks
            end = _letter_end(word, start + 1)
        pieces.append(word[start:end])
        start = end
        room = width
    return pieces


def clip(text: str, font: str, size: float, width: float) -> str:
    """`text` cut to `width` with "…" (a footer that must leave room for the page number)."""
    if width_of(text, font, size) <= width:
        return text
    end = _fitting(text, 0, font, size, width, _shares(text, font), suffix="…")
    return text[:end] + "…" if end else ""


# Breaking and cutting measure each character a fixed number of times, whatever the
# length of the text: its characters' widths once (`_shares`), then the piece chosen by
# adding them up (`_fitting`), which the shaper may draw a little wider or narrower.
MAX_RETRIES = 4  # pieces measured too wide in a row before the search by halving


def _fitting(
    text: str, start: int, font: str, size: float, room: float, shares: tuple[float, ...], suffix: str = ""
) -> int:
    """Where the longest piece of `text` from `start` ends whose width, with `suffix`
    after it, is within `room`; `start` when not one letter fits. Never between a letter
    and its marks."""
    room_left = room - width_of(suffix, font, size) if suffix else room
    end, used = start, 0.0
    while end < len(text) and used + shares[end] * size <= room_left:
        used += shares[end] * size
        end += 1
    end = _letter_start(text, start, end)
    for _retry in range(MAX_RETRIES):
        if end == start or width_of(text[start:end] + suffix, font, size) <= room:
            return end
        end = _letter_start(text, start, end - 1)
    return _halving(text, start, end, font, size, room, suffix)


def _halving(text: str, start: int, end: int, font: str, size: float, room: float, suffix: str) -> int:
    """`_fitting` by halving, for a text whose pieces the sum of their letters' widths
    keeps misjudging (O(n log n) measured, where `_fitting` measures O(n))."""
    good, bad = start, end
    while bad - good > 1:
        middle = (good + bad) // 2
        if width_of(text[start:middle] + suffix, font, size) <= room:
            good = middle
        else:
            bad = middle
    return _letter_start(text, start, good)


def _letter_start(text: str, start: int, end: int) -> int:
    """`end`, moved back before the marks of the letter it would cut from them."""
    while start < end < len(text) and _attached(text[end]):
        end -= 1
    return end


def _letter_end(text: str, end: int) -> int:
    """`end`, moved on past the marks that go with the letter before it."""
    while end < len(text) and _attached(text[end]):
        end += 1
    return end


def _attached(char: str) -> bool:
    return unicodedata.category(char)[0] == "M" or char in "\u200c\u200d"


# Words too long for a line, texts cut short: few, and up to 5,000 characters.
@memoize("pdf: widths of the characters of a text", 256)
def _shares(text: str, font: str) -> tuple[float, ...]:
    """Each character's share of the width of `text` at 1 pt, in typed order: its own
    width, or in a shaped run the width of the glyphs of its cluster (given to the first
    character of the cluster). Shaped once, so linear in the text."""
    shares: list[float] = []
    for part, used in _font_runs(text, font):
        ttf = pdfmetrics.getFont(used)
        if _COMPLEX.search(part) and getattr(ttf, "shapable", False):
            shares.extend(_shaped_shares(part, used))
        else:
            widths, default = ttf.face.charWidths, ttf.face.defaultWidth
            shares.extend(0.0 if char in _ISOLATE_CHARS else widths.get(ord(char), default) / 1000 for char in part)
    return tuple(shares)


@memoize("pdf: widths of the characters of a shaped run", 4096, when=_short)
def _shaped_shares(text: str, font: str) -> tuple[float, ...]:
    """`_shares` of a run in one font with complex scripts, shaped in its typed order a
    direction at a time (right-to-left letters with their marks, and the spaces between
    them, as `prepare` shapes them)."""
    ttf = pdfmetrics.getFont(font)
    shares = [0.0] * len(text)
    rtl = [unicodedata.bidirectional(char) in _RTL_CLASSES for char in text]
    for i in range(1, len(text)):
        if unicodedata.bidirectional(text[i]) in _ATTACHED_CLASSES:
            rtl[i] = rtl[i - 1]
        elif text[i] == " " and rtl[i - 1] and i + 1 < len(text) and rtl[i + 1]:
            rtl[i] = True
    start = 0
    for end in range(1, len(text) + 1):
        if end == len(text) or rtl[end] != rtl[start]:
            buffer = uharfbuzz.Buffer()
            buffer.add_str(text[start:end])
            buffer.guess_segment_properties()
            buffer.direction = "rtl" if rtl[start] else "ltr"
            uharfbuzz.shape(_hb_font(font), buffer, {"kern": True, "liga": True})
            for info, position in zip(buffer.glyph_infos, buffer.glyph_positions, strict=True):
                shares[start + info.cluster] += ttf.pdfScale(position.x_advance) / 1000
            start = end
    return tuple(shares)


def line_width(line: Line, size: float) -> float:
    return sum(width_of(text, font, size) for text, font in line)


def draw_line(canvas, line: Line, x: float, y: float, size: float, color: Color = INK) -> None:
    canvas.setFillColor(color)
    for text, font in line:
        x += _draw(canvas, x, y, text, font, size)


def new_canvas(buffer, *, pagesize: tuple[float, float], title: str, subject: str):
    """A canvas with the document metadata set; `invariant` keeps the bytes the same
    from one run to the next (no timestamp or random document id), which caching and
    tests rely on."""
    from reportlab.pdfgen.canvas import Canvas

    coverage()  # the fonts registered: the canvas starts in one of them
    canvas = Canvas(buffer, pagesize=pagesize, pageCompression=1, invariant=1, initialFontName=REGULAR)
    canvas.setTitle(title)
    canvas.setAuthor(AUTHOR)
    canvas.setCreator(AUTHOR)
    canvas.setSubject(subject)
    return canvas
