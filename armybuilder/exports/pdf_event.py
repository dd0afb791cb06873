"""An event's combined roster: one file for the organiser to print or keep.

A cover page (the event, its ruleset and points, the deadline, which versions of their
army books the lists may use, and a table of every submission: player, army, the version
of its book, points, legal or not, how many issues), then each submission's
roster as the list's own roster.pdf draws it (`RosterPdf`), each from a new page with the
player's name at its head. The file's outline (the reader's bookmarks) and the cover's
rows lead to each roster.
"""

from __future__ import annotations

import io
from datetime import datetime

from armybuilder.exports import pdf_style
from armybuilder.exports.pdf_data import EventPrintout, SubmittedRoster
from armybuilder.exports.pdf_layout import DrawFn
from armybuilder.exports.pdf_roster import (
    MARGIN,
    Column,
    RosterPdf,
    TablePages,
    TableRow,
    counted_issues,
    issue_counts,
)
from armybuilder.exports.pdf_style import (
    BODY,
    BODY_BOLD,
    BOLD,
    ERROR,
    MUTED,
    OK,
    PAPERS,
    SMALL,
    SUBTITLE,
    SUMMARY,
    TITLE,
    TITLE_MIN,
    Style,
    isolate,
)


def when(moment: datetime) -> str:
    """ "3 May 2026, 18:00 UTC": a date and time as the printouts say it."""
    return f"{moment.day} {moment:%B %Y, %H:%M} {moment.tzname() or ''}".strip()


class EventRosterPdf(TablePages):
    def __init__(self, event: EventPrintout, *, paper: str = "a4"):
        self.event = event
        self.paper = paper
        self.page_size = PAPERS[paper]
        self.width = self.page_size[0] - 2 * MARGIN
        points = Column("Points" if event.uses_points else "Models", 72, "right")
        columns = [Column("#", 20), Column("Player", 104), Column("Army", 0), Column("Book", 52), points]
        columns += [Column("Status", 56), Column("Issues", 92)]
        rest = self.width - sum(column.width for column in columns)
        self.columns = [Column(c.title, c.width or rest, c.align) for c in columns]

    def render(self) -> bytes:
        buffer = io.BytesIO()
        event = self.event
        self.canvas = pdf_style.new_canvas(
            buffer,
            pagesize=self.page_size,
            title=f"{event.name} — rosters",
            subject=f"{event.ruleset_title} · {len(event.submissions)} lists submitted",
        )
        self.canvas.bookmarkPage("cover")
        self.canvas.addOutlineEntry("Submissions", "cover", level=0)
        pages = self._draw_cover()
        for number, submitted in enumerate(event.submissions, 1):
            self.canvas.showPage()
            self.canvas.bookmarkPage(_roster_key(number))
            self.canvas.addOutlineEntry(f"{submitted.player} — {submitted.printout.title}", _roster_key(number))
            roster = RosterPdf(
                submitted.printout,
                paper=self.paper,
                player=submitted.player,
                submitted=when(submitted.submitted_at),
                footer=f"{isolate(event.name)} · roster {number} of {len(event.submissions)}",
            )
            pages += roster.draw(self.canvas, first_page=pages + 1)
        self.canvas.save()
        return buffer.getvalue()

    # -- the cover ---------------------------------------------------------------------------
    def _draw_cover(self) -> int:
        """The cover and its table of submissions (over more pages if need be); returns
        how many pages it took."""
        self.flow = self._new_flow(self.canvas)
        if not self.event.submissions:
            self.flow.text("No list has been submitted yet.", BODY)
            return self.flow.pages
        head = self._head_row()
        self.flow.ensure(head.height * 2)
        self.flow.block(head.height, head.draw)
        self._in_table = True
        for number, submitted in enumerate(self.event.submissions, 1):
            row = self._row(number, submitted)
            row.shade = number % 2 == 0
            self.flow.block(row.height, self._linked(row, number))
        self._in_table = False
        return self.flow.pages

    def _footer(self) -> str:
        return f"{isolate(self.event.name)} · submissions"

    def _running_head(self) -> str:
        return f"{isolate(self.event.name)} — submissions (continued)"

    def _draw_header(self) -> float:
        """The event's name, its game, points and deadline, and how many lists are
        legal; returns its height."""
        event, canvas = self.event, self.canvas
        top = self.page_size[1] - MARGIN
        y = top
        size = pdf_style.fit_size(event.name, TITLE.font, TITLE.size, self.width, TITLE_MIN)
        for line in pdf_style.wrap(event.name, TITLE.font, size, self.width):
            pdf_style.draw_line(canvas, [(line, TITLE.font)], MARGIN, y - size, size, TITLE.color)
            y -= TITLE.sized(size).leading
        y -= 2
        points = f"{event.points_limit} pts" if event.points_limit is not None else "warbands, no points"
        for text in (
            f"{event.ruleset_title} · {points}",
            f"Deadline for lists: {when(event.deadline)}",
            event.books_rule,
        ):
            for line in pdf_style.wrap(text, SUBTITLE.font, SUBTITLE.size, self.width):
                pdf_style.draw_line(canvas, [(line, SUBTITLE.font)], MARGIN, y - SUBTITLE.size, SUBTITLE.size, MUTED)
                y -= SUBTITLE.leading
        y -= 6
        for line in pdf_style.wrap(self._summary(), SUMMARY.font, SUMMARY.size, self.width):
            pdf_style.draw_line(canvas, [(line, SUMMARY.font)], MARGIN, y - SUMMARY.size, SUMMARY.size, SUMMARY.color)
            y -= SUMMARY.leading
        return top - y + 12

    def _summary(self) -> str:
        lists = self.event.submissions
        legal = sum(1 for submitted in lists if submitted.printout.validation.valid)
        submitted = f"{len(lists)} {'list' if len(lists) == 1 else 'lists'} submitted"
        return f"{submitted} · {legal} legal · {len(lists) - legal} not legal" if lists else submitted

    # -- the table of submissions ---------------------------------------------------------------
    def _row(self, number: int, submitted: SubmittedRoster) -> TableRow:
        printout = submitted.printout
        validation = printout.validation
        errors, warnings = issue_counts(validation)
        models = sum(result.models for result in validation.entries)
        if printout.uses_points and validation.points_limit is not None:
            size = f"{validation.total_points} / {validation.points_limit}"
        else:
            size = str(validation.total_points if printout.uses_points else models)
        status = ("Legal", OK) if validation.valid else ("Not legal", ERROR)
        # In the colour of an error when the event plays another version of the book.
        moved_on = any(issue.code == "event_book_version" for issue in validation.issues)
        book = Style(BODY.font, BODY.size, ERROR) if moved_on else BODY
        size_column = "Points" if self.event.uses_points else "Models"
        values = {
            "#": self._cell([(str(number), BODY.font)], BODY, "#"),
            "Player": self._cell([(submitted.player, BOLD)], BODY_BOLD, "Player"),
            "Army": self._cell([(printout.faction_name, BODY.font)], BODY, "Army")
            + self._cell([(printout.title, SMALL.font)], SMALL, "Army"),
            "Book": self._cell([(printout.book_version or "—", BODY.font)], book, "Book"),
            size_column: self._cell([(size, BODY.font)], BODY, size_column),
            "Status": self._cell([(status[0], BOLD)], Style(BOLD, BODY.size, status[1]), "Status"),
            "Issues": self._cell([(counted_issues(errors, warnings) or "none", BODY.font)], BODY, "Issues"),
        }
        cells = [values[column.title] for column in self.columns]
        height = max(sum(style.leading for _line, style in cell) for cell in cells) + 5
        return TableRow(self, cells, height)

    def _linked(self, row: TableRow, number: int) -> DrawFn:
        """Draws the row, with a link from it to the submission's roster."""

        def draw(x: float, top: float, width: float) -> None:
            row.draw(x, top, width)
            self.canvas.linkRect("", _roster_key(number), (x, top - row.height, x + width, top), relative=0)

        return draw


def _roster_key(number: int) -> str:
    return f"roster-{number}"
