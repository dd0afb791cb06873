"""The roster sheet: the list on one page (or more) for the opponent and the organiser.

The list, ruleset, faction and book version, points used against the limit, one row
per entry, the validation status with its issues, a QR code of the share link and a
small chart of points (Arena: models) by unit type. Each entry's first ISSUES_SHOWN
issues are printed in its row (and the list's own first ISSUES_SHOWN under
"Validation", with the first ISSUES_LISTED of the entries'), then how many more.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from reportlab.graphics import renderPDF
from reportlab.graphics.barcode.qr import QrCodeWidget
from reportlab.graphics.shapes import Drawing
from reportlab.lib.colors import Color

from armybuilder.engine.results import EntryResult, Issue, Validation
from armybuilder.exports import pdf_style
from armybuilder.exports.pdf_data import Printout
from armybuilder.exports.pdf_layout import Flow
from armybuilder.exports.pdf_style import (
    BAR,
    BODY,
    BODY_BOLD,
    BOLD,
    ERROR,
    HEADING,
    ITALIC,
    LINE,
    MUTED,
    OK,
    PAGE_FOOTER,
    PAPERS,
    PLAYER,
    POINTS,
    QR_CAPTION,
    QR_LINK,
    REGULAR,
    RUNNING_HEAD,
    SHADE,
    SMALL,
    STATUS,
    SUBTITLE,
    TABLE_HEAD,
    TEXT_MIN,
    TITLE,
    TITLE_MIN,
    WARNING,
    Line,
    Style,
    isolate,
)

MARGIN = 36
FOOTER_ROOM = 14  # kept under the flowing text for the page footer
QR_SIZE = 92
QR_COLUMN = 112  # the QR code, its caption and the link under it
SEVERITY_COLOURS = {"error": ERROR, "warning": WARNING}
ISSUES_SHOWN = 5  # of each entry, and of the list as a whole: a roster's work stays bounded
ISSUES_LISTED = 50  # lines of entries' issues under "Validation" (each entry's row has its own)

CellLines = list[tuple[Line, Style]]


@dataclass(frozen=True, slots=True)
class Column:
    title: str
    width: float  # points; 0 = what the others leave
    align: str = "left"


class TablePages:
    """Pages around a table, as the roster and an event's cover draw them: a header on the
    first page, a running head on the others, a footer with the page's number on each,
    and the table's head row again at the top of every page the table goes on to.

    A subclass sets `canvas`, `page_size`, `width` and `columns`, draws its header in
    `_draw_header()` (returning its height) and says `_running_head()` and `_footer()`."""

    canvas: Any  # a reportlab Canvas
    page_size: tuple[float, float]
    width: float
    columns: list[Column]
    first_page = 1  # the number printed on the first page
    footer_style = PAGE_FOOTER
    _in_table = False

    def _draw_header(self) -> float:
        raise NotImplementedError

    def _running_head(self) -> str:
        raise NotImplementedError

    def _footer(self) -> str:
        raise NotImplementedError

    def _fit_columns(self, columns: list[Column], *, points: bool) -> None:
        """The table's columns: a points column last when the ruleset uses points, and the
        column of width 0 given what the others leave of the page's width."""
        if points:
            columns = [*columns, Column("Pts", 40, "right")]
        rest = self.width - sum(column.width for column in columns)
        self.columns = [Column(c.title, c.width or rest, c.align) for c in columns]

    def _new_canvas(self, buffer, printout: Printout, what: str):
        return pdf_style.new_canvas(
            buffer,
            pagesize=self.page_size,
            title=f"{printout.title} — {what}",
            subject=f"{printout.ruleset_title} · {printout.faction_name}",
        )

    def _new_flow(self, canvas) -> Flow:
        margins = (MARGIN, MARGIN, MARGIN, MARGIN + FOOTER_ROOM)
        return Flow(canvas, page_size=self.page_size, margins=margins, on_page=self._on_page)

    def _on_page(self, number: int) -> float:
        self._draw_footer(number)
        offset = self._draw_header() if number == 1 else self._draw_running_head()
        if self._in_table:
            row = self._head_row()
            row.draw(MARGIN, self.page_size[1] - MARGIN - offset, self.width)
            offset += row.height
        return offset

    def _draw_footer(self, number: int) -> None:
        canvas, style = self.canvas, self.footer_style
        canvas.setFillColor(style.color)
        page = f"page {self.first_page + number - 1}"
        pdf_style.draw_string(canvas, self.page_size[0] - MARGIN, MARGIN, page, style.font, style.size, "right")
        room = self.width - pdf_style.width_of(page, style.font, style.size) - 12
        footer = pdf_style.clip(self._footer(), style.font, style.size, room)
        pdf_style.draw_string(canvas, MARGIN, MARGIN, footer, style.font, style.size)

    def _draw_running_head(self) -> float:
        text = self._running_head()
        style = RUNNING_HEAD.sized(pdf_style.fit_size(text, RUNNING_HEAD.font, RUNNING_HEAD.size, self.width, TEXT_MIN))
        text = pdf_style.clip(text, style.font, style.size, self.width)  # a name too long even at 6 pt is cut short
        pdf_style.draw_line(
            self.canvas, [(text, style.font)], MARGIN, self.page_size[1] - MARGIN - style.size, style.size, style.color
        )
        return style.leading + 8

    def _head_row(self) -> TableRow:
        cells = [[([(column.title, TABLE_HEAD.font)], TABLE_HEAD)] for column in self.columns]
        return TableRow(self, cells, TABLE_HEAD.leading + 4, shade=False, head=True)

    def _cell(self, spans: list[tuple[str, str]], style: Style, column: str) -> CellLines:
        width = next(c.width for c in self.columns if c.title == column) - 6
        return [(line, style) for line in pdf_style.wrap_spans(spans, style.size, width)]


class RosterPdf(TablePages):
    """The roster of one list. A submission's roster names its `player` (and when they
    submitted) above the list, and has no QR code when the printout has no share link: a
    frozen copy has no page of its own."""

    def __init__(
        self, printout: Printout, *, paper: str = "a4", player: str = "", submitted: str = "", footer: str = ""
    ):
        self.printout = printout
        self.player = player
        self.submitted = submitted
        self.footer = footer or "Armybuilder roster"
        self.page_size = PAPERS[paper]
        self.width = self.page_size[0] - 2 * MARGIN
        columns = [
            Column("#", 18),
            Column("Unit", 0),
            Column("Type", 62),
            Column("Models", 40, "right"),
            Column("Notes", 122),
        ]
        self._fit_columns(columns, points=printout.uses_points)
        self.issues_of: dict[str | None, list[Issue | MoreIssues]] = {}  # what each row prints
        for shown in issues_shown(printout.validation.issues):
            self.issues_of.setdefault(shown.entry, []).append(shown)

    def render(self) -> bytes:
        buffer = io.BytesIO()
        canvas = self._new_canvas(buffer, self.printout, "roster")
        self.draw(canvas)
        canvas.save()
        return buffer.getvalue()

    def draw(self, canvas, *, first_page: int = 1) -> int:
        """Draw the roster on `canvas`, starting on its current page (an empty one) and
        numbering pages from `first_page` (an event's roster holds many lists); returns
        how many pages it took."""
        self.canvas = canvas
        self.first_page = first_page
        self.flow = self._new_flow(canvas)
        self._draw_entries()
        self._draw_validation()
        self._draw_chart()
        self._draw_notes()
        return self.flow.pages

    # -- page furniture ----------------------------------------------------------------
    def _footer(self) -> str:
        return self.footer

    def _running_head(self) -> str:
        text = f"{isolate(self.printout.title)} — roster (continued)"
        return f"{isolate(self.player)} — {text}" if self.player else text

    def _draw_header(self) -> float:
        """Title block on the left, the QR code of the share link on the right;
        returns its height."""
        printout, canvas = self.printout, self.canvas
        top = self.page_size[1] - MARGIN
        room = self.width - QR_COLUMN if printout.share_url else self.width
        y = self._draw_player(top, room) if self.player else top
        size = pdf_style.fit_size(printout.title, TITLE.font, TITLE.size, room, TITLE_MIN)
        for title_line in pdf_style.wrap(printout.title, TITLE.font, size, room):
            pdf_style.draw_line(canvas, [(title_line, TITLE.font)], MARGIN, y - size, size, TITLE.color)
            y -= TITLE.sized(size).leading
        y -= 2
        for line in pdf_style.wrap_spans([(self._book_line(), SUBTITLE.font)], SUBTITLE.size, room):
            pdf_style.draw_line(canvas, line, MARGIN, y - SUBTITLE.size, SUBTITLE.size, SUBTITLE.color)
            y -= SUBTITLE.leading
        y -= 6
        for line in pdf_style.wrap_spans(
            [(self._points_text(), POINTS.font), ("  " + self._count_text(), REGULAR)], POINTS.size, room
        ):
            pdf_style.draw_line(canvas, line, MARGIN, y - POINTS.size, POINTS.size, POINTS.color)
            y -= POINTS.leading
        y -= 2
        status, colour = self._status()
        for status_line in pdf_style.wrap(status, STATUS.font, STATUS.size, room):
            pdf_style.draw_line(canvas, [(status_line, STATUS.font)], MARGIN, y - STATUS.size, STATUS.size, colour)
            y -= STATUS.leading
        if printout.share_url:
            y = min(y, self._draw_qr(self.page_size[0] - MARGIN - QR_COLUMN, top))
        return top - y + 14

    def _draw_player(self, top: float, room: float) -> float:
        """The player's name over the list's, and when they submitted it; returns where
        the list's name goes."""
        spans = [("Player: ", PLAYER.font), (self.player, BOLD)]
        if self.submitted:
            spans.append((f" · submitted {self.submitted}", PLAYER.font))
        y = top
        for line in pdf_style.wrap_spans(spans, PLAYER.size, room):
            pdf_style.draw_line(self.canvas, line, MARGIN, y - PLAYER.size, PLAYER.size, PLAYER.color)
            y -= PLAYER.leading
        return y - 4

    def _draw_qr(self, x: float, top: float) -> float:
        canvas = self.canvas
        url = self.printout.share_url
        # Sized on creation: asking a QR widget for its bounds encodes the code a second time.
        drawing = Drawing(QR_SIZE, QR_SIZE, initialFontName=REGULAR)  # else it sets Helvetica, not embedded
        drawing.add(QrCodeWidget(url, barLevel="M", barWidth=QR_SIZE, barHeight=QR_SIZE))
        left = x + (QR_COLUMN - QR_SIZE) / 2
        renderPDF.draw(drawing, canvas, left, top - QR_SIZE)
        y = top - QR_SIZE - 2
        caption = QR_CAPTION
        canvas.setFillColor(caption.color)
        pdf_style.draw_string(
            canvas, x + QR_COLUMN / 2, y - caption.size, "Scan to open this list", caption.font, caption.size, "centre"
        )
        y -= caption.leading + 1
        link = QR_LINK
        for line in pdf_style.wrap(url, link.font, link.size, QR_COLUMN):
            pdf_style.draw_string(canvas, x + QR_COLUMN / 2, y - link.size, line, link.font, link.size, "centre")
            y -= link.leading
        return y

    # -- texts ----------------------------------------------------------------------------
    def _book_line(self) -> str:
        printout = self.printout
        book = f"army book {printout.book_version}"
        if printout.current_book_version is None:
            book += " (no longer in the catalogue)"
        elif printout.book_changed:
            book += f" ({printout.current_book_version} is out: this list keeps the costs and rules of its own)"
        return f"{printout.ruleset_title} · {isolate(printout.faction_name)} · {book}"

    def _points_text(self) -> str:
        validation = self.printout.validation
        if not self.printout.uses_points or validation.points_limit is None:
            return "Warband" if not self.printout.uses_points else f"{validation.total_points} pts"
        return f"{validation.total_points} / {validation.points_limit} pts"

    def _count_text(self) -> str:
        entries = self.printout.validation.entries
        units = len(entries)
        models = sum(result.models for result in entries)
        return f"{units} {'unit' if units == 1 else 'units'} · {models} {'model' if models == 1 else 'models'}"

    def _status(self) -> tuple[str, Color]:
        return list_status(self.printout.validation)

    # -- the entries table ------------------------------------------------------------------
    def _draw_entries(self) -> None:
        results = self.printout.validation.entries
        labels = {result.entry.id: result.label for result in results}
        flow = self.flow
        head = self._head_row()
        first = self._entry_row(1, results[0], labels) if results else None
        flow.ensure(head.height + (first.height if first else 0))
        flow.block(head.height, head.draw)
        self._in_table = True
        for number, result in enumerate(results, 1):
            row = first if number == 1 and first is not None else self._entry_row(number, result, labels)
            row.shade = number % 2 == 0
            flow.block(row.height, row.draw)
        self._in_table = False
        total = f"Total: {self._points_text()} · {self._count_text()}" if self.printout.uses_points else ""
        total = total or f"Total: {self._count_text()}"
        flow.block(BODY_BOLD.leading + 6, lambda x, top, width: self._draw_total(total, x, top, width))

    def _entry_row(self, number: int, result: EntryResult, labels: dict[str, str]) -> TableRow:
        entry, unit = result.entry, result.unit
        name: list[tuple[str, str]] = [(result.label, BODY_BOLD.font)]
        if entry.name and unit is not None:
            name.append((f" ({isolate(unit.name)})", BODY.font))
        details = ""
        if result.loadout is not None and result.loadout.upgrades:
            details = ", ".join(
                label if picks == 1 else f"{isolate(label)} ×{picks}" for label, picks in result.loadout.upgrades
            )
        notes = []
        if unit is None:
            notes.append("not in the army book")
        if entry.combined:
            notes.append("combined")
        if result.joined is not None:
            notes.append(f"joined to {isolate(labels[result.joined])}")
        values = {
            "#": [([(str(number), BODY.font)], BODY)],
            "Unit": self._cell(name, BODY, "Unit")
            + (self._cell([(details, SMALL.font)], SMALL, "Unit") if details else []),
            "Type": self._cell([(unit.type.replace("-", " ").title() if unit else "?", BODY.font)], BODY, "Type"),
            "Models": [([(str(result.models), BODY.font)], BODY)],
            "Notes": self._cell([(", ".join(notes), BODY.font)], BODY, "Notes") if notes else [],
            "Pts": [([(str(result.cost), BODY.font)], BODY)],
        }
        for issue in self.issues_of.get(entry.id, ()):  # each as its sentence; the codes are for programs
            if isinstance(issue, MoreIssues):
                values["Notes"] += self._cell([(f"… and {issue.more}", BOLD)], replace(BODY_BOLD, color=MUTED), "Notes")
                continue
            colour = SEVERITY_COLOURS.get(issue.severity, MUTED)
            names = (result.label, unit.name if unit else result.label)
            message = _sentence(_unnamed(issue.message, names))  # the row names the unit already
            values["Notes"] += self._cell([(message, BOLD)], replace(BODY_BOLD, color=colour), "Notes")
        cells = [values[column.title] for column in self.columns]
        height = max(sum(style.leading for _line, style in cell) for cell in cells) + 5
        return TableRow(self, cells, height)

    def _draw_total(self, text: str, x: float, top: float, width: float) -> None:
        self.canvas.setStrokeColor(LINE)
        self.canvas.setLineWidth(0.8)
        self.canvas.line(x, top, x + width, top)
        size = pdf_style.fit_size(text, BODY_BOLD.font, BODY_BOLD.size, width - 6, TEXT_MIN)
        self.canvas.setFillColor(BODY_BOLD.color)
        pdf_style.draw_string(self.canvas, x + width - 3, top - 4 - size, text, BODY_BOLD.font, size, "right")

    # -- validation, chart, notes --------------------------------------------------------------
    def _heading(self, text: str, *, then: float | None = None) -> None:
        """A section heading, kept on the page with what follows it: `then` points of it
        (an unsplittable block such as the chart), or two lines of text."""
        flow = self.flow
        flow.space(12)
        flow.ensure(HEADING.leading + 3 + (BODY.leading * 2 + 1 if then is None else then))
        flow.text(text, HEADING, after=3)

    def _draw_validation(self) -> None:
        printout = self.printout
        issues = printout.validation.issues
        self._heading("Validation")
        status, colour = self._status()
        self.flow.paragraph([(status, BOLD)], replace(BODY_BOLD, color=colour), after=3)
        if not issues:
            self.flow.text(f"Every check Armybuilder makes for {printout.ruleset_title} passes.", BODY)
        labels = {result.entry.id: result.label for result in printout.validation.entries}
        listed, unlisted = issues_listed(issues)
        for issue in listed:
            if isinstance(issue, MoreIssues):
                whose = labels.get(issue.entry, issue.entry) if issue.entry else "the list"
                self._draw_more(f"… and {issue.more} of {whose}.")
            else:
                self._draw_issue(issue, labels)
        if unlisted:
            self._draw_more(f"… and {MoreIssues(None, unlisted).more} of entries: see their rows above.")

    def _draw_more(self, text: str) -> None:
        self.flow.paragraph([(text, ITALIC)], replace(BODY, color=MUTED), indent=9, after=2)

    def _draw_issue(self, issue: Issue, labels: dict[str, str]) -> None:
        spans = [(f"{issue.severity.capitalize()}: ", BOLD), (_sentence(issue.message), REGULAR)]
        label = labels.get(issue.entry, issue.entry) if issue.entry else ""
        if label and label not in issue.message:  # the unit named once
            spans.append((f" Entry: {isolate(label)}.", REGULAR))
        spans.append((f" ({issue.rule})", ITALIC))
        colour = SEVERITY_COLOURS.get(issue.severity, MUTED)
        self.flow.paragraph(spans, BODY, indent=9, after=2, marker=("•", replace(BODY_BOLD, color=colour)))

    def _draw_chart(self) -> None:
        uses_points = self.printout.uses_points
        totals: dict[str, int] = {}
        for result in self.printout.validation.entries:
            kind = result.unit.type.replace("-", " ").title() if result.unit else "Not in the book"
            totals[kind] = totals.get(kind, 0) + (result.cost if uses_points else result.models)
        bars = sorted(((value, kind) for kind, value in totals.items() if value), reverse=True)
        if not bars:
            return
        height = len(bars) * 13 + 2
        self._heading("Points by unit type" if uses_points else "Models by unit type", then=height)
        self.flow.block(height, lambda x, top, width: self._draw_bars(bars, x, top, min(width, 400)))

    def _draw_bars(self, bars: list[tuple[int, str]], x: float, top: float, width: float) -> None:
        canvas = self.canvas
        label_width, value_width = 90, 80
        longest = width - label_width - value_width - 8
        whole = sum(value for value, _kind in bars)
        y = top
        for value, kind in bars:
            size = pdf_style.fit_size(kind, BODY.font, BODY.size, label_width - 4, TEXT_MIN)
            canvas.setFillColor(BODY.color)
            pdf_style.draw_string(canvas, x + label_width - 4, y - 9, kind, BODY.font, size, "right")
            length = max(1.0, longest * value / bars[0][0])
            canvas.setFillColor(BAR)
            canvas.rect(x + label_width, y - 10.5, length, 9, stroke=0, fill=1)
            canvas.setFillColor(MUTED)
            unit = "pts" if self.printout.uses_points else "model" if value == 1 else "models"
            share = f"{value} {unit} ({round(100 * value / whole)}%)"
            pdf_style.draw_string(canvas, x + label_width + length + 4, y - 9, share, SMALL.font, SMALL.size)
            y -= 13

    def _draw_notes(self) -> None:
        notes = self.printout.notes.strip()
        if not notes:
            return
        self._heading("Notes")
        for paragraph in notes.splitlines():
            if paragraph.strip():
                self.flow.text(paragraph.strip(), BODY, after=2)


class TableRow:
    """A table row: a list of cells, each a list of wrapped lines with their styles. The
    `table` is the document drawing it: it has the `canvas` and the `columns`."""

    def __init__(self, table: TablePages, cells: list[CellLines], height: float, *, shade=False, head=False):
        self.table = table
        self.cells = cells
        self.height = height
        self.shade = shade
        self.head = head

    def draw(self, x: float, top: float, width: float) -> None:
        canvas = self.table.canvas
        if self.shade or self.head:
            canvas.setFillColor(SHADE)
            canvas.rect(x, top - self.height, width, self.height, stroke=0, fill=1)
        left = x
        for column, cell in zip(self.table.columns, self.cells, strict=True):
            y = top - 2.5
            for line, style in cell:
                if column.align == "right":
                    text_width = sum(pdf_style.width_of(text, font, style.size) for text, font in line)
                    pdf_style.draw_line(
                        canvas, line, left + column.width - 3 - text_width, y - style.size, style.size, style.color
                    )
                else:
                    pdf_style.draw_line(canvas, line, left + 3, y - style.size, style.size, style.color)
                y -= style.leading
            left += column.width
        canvas.setStrokeColor(LINE)
        canvas.setLineWidth(0.6 if self.head else 0.3)
        canvas.line(x, top - self.height, x + width, top - self.height)


@dataclass(frozen=True, slots=True)
class MoreIssues:
    """Stands for the issues of an entry (None: of the list) past the ones printed."""

    entry: str | None
    count: int

    @property
    def more(self) -> str:
        return f"{self.count} more {'issue' if self.count == 1 else 'issues'}"


def issues_shown(issues: list[Issue]) -> list[Issue | MoreIssues]:
    """The issues a roster prints, in their order: the first ISSUES_SHOWN of each entry
    and of the list, and in place of the next one a MoreIssues counting the rest."""
    totals = Counter(issue.entry for issue in issues)
    seen: Counter[str | None] = Counter()
    shown: list[Issue | MoreIssues] = []
    for issue in issues:
        seen[issue.entry] += 1
        if seen[issue.entry] <= ISSUES_SHOWN:
            shown.append(issue)
        elif seen[issue.entry] == ISSUES_SHOWN + 1:
            shown.append(MoreIssues(issue.entry, totals[issue.entry] - ISSUES_SHOWN))
    return shown


def issues_listed(issues: list[Issue]) -> tuple[list[Issue | MoreIssues], int]:
    """What the roster's Validation lists: the issues_shown of the list as a whole, and
    of its entries the first ISSUES_LISTED lines; and how many issues of entries that
    leaves out (their rows have them)."""
    listed: list[Issue | MoreIssues] = []
    of_entries = unlisted = 0
    for shown in issues_shown(issues):
        if shown.entry is None or of_entries < ISSUES_LISTED:
            listed.append(shown)
            of_entries += shown.entry is not None
        else:
            unlisted += shown.count if isinstance(shown, MoreIssues) else 1
    return listed, unlisted


def issue_counts(validation: Validation) -> tuple[int, int]:
    """(errors, warnings) of a validation."""
    errors = sum(1 for issue in validation.issues if issue.severity == "error")
    return errors, len(validation.issues) - errors


def counted_issues(errors: int, warnings: int) -> str:
    """ "2 errors, 1 warning"; empty for none."""
    counts = ((errors, "error"), (warnings, "warning"))
    return ", ".join(f"{n} {word}{'' if n == 1 else 's'}" for n, word in counts if n)


def list_status(validation: Validation) -> tuple[str, Color]:
    """What the roster says of a list's validation, and in which colour."""
    errors, warnings = issue_counts(validation)
    if errors:
        return f"Not legal: {counted_issues(errors, warnings)}", ERROR
    if warnings:
        return f"Legal, with {counted_issues(errors, warnings)}", WARNING
    return "Legal list: no issues", OK


def _sentence(message: str) -> str:
    """An issue's message as a sentence: a capital first, a full stop last."""
    text = message[:1].upper() + message[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _unnamed(message: str, names: tuple[str, str]) -> str:
    """An issue's message in its unit's row, which names the unit: without the name
    before it ("Marshal: …"), and "it" where it names the unit again ("…, but Marshal
    carries none" is "…, but it carries none")."""
    for name in dict.fromkeys(names):
        prefix = f"{name}: "
        if message.startswith(prefix) and len(message) > len(prefix):
            message = message[len(prefix) :]
        message = re.sub(rf"(?<![\w\"“]){re.escape(name)}(?![\w\"”])", "it", message)
    return message
