"""The rules reference: every special rule and spell a list uses, alphabetical, each
with its summary and where to look it up; then the one-page quick reference of the
ruleset. `/rules/<system>/reference.pdf` prints the quick reference alone.
"""

from __future__ import annotations

import io

from armybuilder.exports import pdf_glossary, pdf_style
from armybuilder.exports.pdf_data import Printout
from armybuilder.exports.pdf_layout import Flow
from armybuilder.exports.pdf_quickref import QUICK_REFERENCES, Topic
from armybuilder.exports.pdf_style import (
    BODY,
    HEADING,
    MUTED,
    PAGE_FOOTER,
    PAPERS,
    REGULAR,
    SOURCE,
    SUBTITLE,
    TEXT_MIN,
    TITLE,
    TITLE_MIN,
    clip,
    draw_line,
    draw_string,
    fit_size,
    isolate,
    width_of,
    wrap,
)

MARGIN = 36
QUICK_SIZES = (10, 9.5, 9, 8.5, 8, 7.5, 7, 6.5, 6)  # the quick reference takes the largest that fits a page
LIST_SIZES = (8.5, 8, 7.5, 7)  # the list's rules and spells take the largest that keeps them on one page
OWN_WORDS = (
    "Summaries in Armybuilder's own words, not the rulebook's text; the rulebook decides. "
    '"Rulebook:" lines name the sections to read.'
)


class RulesReferencePdf:
    def __init__(
        self,
        *,
        title: str,
        subject: str,
        ruleset_slug: str,
        ruleset_title: str,
        groups: tuple[pdf_glossary.Group, ...] = (),
        paper: str = "a4",
        list_part: bool = True,
    ):
        self.title = title
        self.subject = subject
        self.ruleset_slug = ruleset_slug
        self.ruleset_title = ruleset_title
        self.groups = groups
        self.page_size = PAPERS[paper]
        self.list_part = list_part

    @classmethod
    def for_list(cls, printout: Printout, *, paper: str = "a4") -> RulesReferencePdf:
        return cls(
            title=f"{isolate(printout.title)} — rules reference",
            subject=f"{printout.ruleset_title} · {printout.faction_name}",
            ruleset_slug=printout.family,
            ruleset_title=printout.ruleset_title,
            groups=pdf_glossary.glossary(printout),
            paper=paper,
        )

    @classmethod
    def for_ruleset(cls, *, slug: str, title: str, paper: str = "a4") -> RulesReferencePdf:
        return cls(
            title=f"{title} — quick reference",
            subject=title,
            ruleset_slug=slug,
            ruleset_title=title,
            paper=paper,
            list_part=False,
        )

    def render(self) -> bytes:
        buffer = io.BytesIO()
        self.canvas = pdf_style.new_canvas(buffer, pagesize=self.page_size, title=self.title, subject=self.subject)
        if self.list_part:
            # A few lines over a page are set a little smaller rather than left alone on a
            # second one; a list with more to say flows on at the normal size.
            size = next((s for s in LIST_SIZES if self._lay_out_list(s, canvas=None).pages == 1), LIST_SIZES[0])
            self._lay_out_list(size, canvas=self.canvas)
            self.canvas.showPage()
        self._draw_quick_reference()
        self.canvas.save()
        return buffer.getvalue()

    def _lay_out_list(self, size: float, *, canvas) -> Flow:
        draw = canvas is not None

        def on_page(number: int) -> float:
            if draw:
                self._draw_footer(self.title, f" · page {number}")
            if number > 1:
                return 0
            return self._draw_title(
                self.title, f"{self.subject} · the special rules and spells this list uses", draw=draw
            )

        self.flow = self._flow(canvas, columns=2, on_page=on_page)
        self._draw_rules(size)
        return self.flow

    def _flow(self, canvas, *, columns: int, on_page) -> Flow:
        return Flow(
            canvas,
            page_size=self.page_size,
            margins=(MARGIN, MARGIN, MARGIN, MARGIN + 12),
            columns=columns,
            gap=18,
            on_page=on_page,
        )

    # -- the list's rules and spells -------------------------------------------------------
    def _draw_title(self, title: str, subtitle: str, *, draw: bool = True) -> float:
        width = self.page_size[0] - 2 * MARGIN
        y = self.page_size[1] - MARGIN
        size = fit_size(title, TITLE.font, TITLE.size, width, TITLE_MIN)
        for line in wrap(title, TITLE.font, size, width):
            if draw:
                draw_line(self.canvas, [(line, TITLE.font)], MARGIN, y - size, size, TITLE.color)
            y -= TITLE.sized(size).leading
        for line in wrap(subtitle, SUBTITLE.font, SUBTITLE.size, width):
            if draw:
                draw_line(self.canvas, [(line, SUBTITLE.font)], MARGIN, y - SUBTITLE.size, SUBTITLE.size, MUTED)
            y -= SUBTITLE.leading
        return self.page_size[1] - MARGIN - y + 12

    def _draw_footer(self, text: str, suffix: str = "") -> None:
        """The page's footer on one line: a text too long even at 6 pt is cut short
        with "…", and the `suffix` (the page's number) is always kept."""
        canvas, style = self.canvas, PAGE_FOOTER
        width = self.page_size[0] - 2 * MARGIN
        size = fit_size(text + suffix, style.font, style.size, width, TEXT_MIN)
        text = clip(text, style.font, size, width - width_of(suffix, style.font, size)) + suffix
        canvas.setFillColor(style.color)
        draw_string(canvas, MARGIN, MARGIN, text, style.font, size)

    def _draw_rules(self, size: float = BODY.size) -> None:
        """The list's rules and spells, grouped as Army Forge groups them (pdf_glossary.py)."""
        if not any(group.kind == pdf_glossary.RULES for group in self.groups):
            self.flow.space(6)
            self.flow.text("Special rules", HEADING, after=4)
            self.flow.text("No unit in this list has a special rule.", BODY.sized(size))
        pdf_glossary.draw(self.flow, self.groups, BODY.sized(size))

    # -- the one-page quick reference --------------------------------------------------------
    def _draw_quick_reference(self) -> None:
        reference = QUICK_REFERENCES.get(self.ruleset_slug)
        title = f"{self.ruleset_title} — quick reference"
        if reference is None:
            self.flow = self._flow(self.canvas, columns=1, on_page=lambda n: self._draw_title(title, ""))
            self.flow.text("There is no quick reference for this ruleset yet.", BODY)
            return
        size = next((s for s in QUICK_SIZES if self._quick_pages(reference, title, s) == 1), QUICK_SIZES[-1])
        self._lay_out_quick_reference(reference, title, size, canvas=self.canvas)

    def _quick_pages(self, reference, title: str, size: float) -> int:
        return self._lay_out_quick_reference(reference, title, size, canvas=None).pages

    def _lay_out_quick_reference(self, reference, title: str, size: float, *, canvas) -> Flow:
        draw = canvas is not None

        def on_page(number: int) -> float:
            if draw:
                self._draw_footer(OWN_WORDS)
            return self._draw_title(title, reference.intro, draw=draw)

        self.flow = self._flow(canvas, columns=2, on_page=on_page)
        heights = [self._topic_height(topic, size) for topic in reference.topics]
        # Both columns used, as evenly as whole topics allow.
        split = min(range(1, len(heights) + 1), key=lambda k: max(sum(heights[:k]), sum(heights[k:])))
        for i, topic in enumerate(reference.topics):
            if i == split and self.flow.column == 0 and self.flow.pages == 1:
                self.flow.break_column()
            self._draw_topic(topic, size)
        return self.flow

    def _topic_height(self, topic: Topic, size: float) -> float:
        heading, body, cite = HEADING.sized(size + 1.5), BODY.sized(size), SOURCE.sized(max(TEXT_MIN, size - 1))
        sections = "Rulebook: " + " · ".join(topic.sections)
        height = size * 0.8 + heading.leading + self.flow.height_of([(sections, cite.font)], cite) + 2
        return height + sum(self.flow.height_of([(p, REGULAR)], body, indent=size) + size * 0.25 for p in topic.points)

    def _draw_topic(self, topic: Topic, size: float) -> None:
        """A topic stays in one column: they are short, and a split one reads badly."""
        flow = self.flow
        # The quick reference scales every style with its body size to fill one page.
        heading = HEADING.sized(size + 1.5)
        body = BODY.sized(size)
        cite = SOURCE.sized(max(TEXT_MIN, size - 1))
        sections = "Rulebook: " + " · ".join(topic.sections)
        height = heading.leading + flow.height_of([(sections, cite.font)], cite) + 2
        height += sum(flow.height_of([(p, REGULAR)], body, indent=size) + size * 0.25 for p in topic.points)
        flow.space(size * 0.8)
        flow.ensure(height)
        flow.text(topic.title, heading)
        flow.text(sections, cite, after=2)
        for point in topic.points:
            numbered = point[:1].isdigit()  # steps of a sequence carry their own numbers
            marker = None if numbered else ("•", body)
            flow.paragraph([(point, REGULAR)], body, indent=size, after=size * 0.25, marker=marker)
