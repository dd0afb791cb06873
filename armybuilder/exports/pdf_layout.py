"""Flowing text down the columns of pages (the roster and the rules reference).

A `Flow` places blocks of known height top to bottom, moving to the next column or page
when a block does not fit; wrapped paragraphs break between lines. With no canvas it
only measures, so that a document can try sizes until its text fits a page.
"""

from __future__ import annotations

from collections.abc import Callable

from armybuilder.exports.pdf_style import Line, Span, Style, draw_line, wrap_spans

DrawFn = Callable[[float, float, float], None]  # (x, top, width)
Marker = tuple[str, Style]  # text drawn before a paragraph's first line, in its own style


class Flow:
    def __init__(
        self,
        canvas,
        *,
        page_size: tuple[float, float],
        margins: tuple[float, float, float, float],  # left, top, right, bottom
        columns: int = 1,
        gap: float = 16,
        on_page: Callable[[int], float] | None = None,
    ):
        """`on_page(page_number)` draws a new page's furniture and returns how far below
        the top margin the flow starts on it."""
        self.canvas = canvas
        self.page_width, self.page_height = page_size
        self.left, self.top_margin, self.right, self.bottom = margins
        self.columns = columns
        self.gap = gap
        self.on_page = on_page
        self.column_width = (self.page_width - self.left - self.right - gap * (columns - 1)) / columns
        self.pages = 0
        self.column = 0
        self.top = 0.0
        self.y = 0.0
        self._new_page()

    # -- where the next block goes ---------------------------------------------------
    @property
    def x(self) -> float:
        return self.left + self.column * (self.column_width + self.gap)

    @property
    def room(self) -> float:
        return self.y - self.bottom

    def _new_page(self) -> None:
        if self.pages and self.canvas is not None:
            self.canvas.showPage()
        self.pages += 1
        offset = self.on_page(self.pages) if self.on_page else 0.0
        self.top = self.page_height - self.top_margin - offset
        self.column = 0
        self.y = self.top

    def break_column(self) -> None:
        if self.column + 1 < self.columns:
            self.column += 1
            self.y = self.top
        else:
            self._new_page()

    def new_page(self) -> None:
        self._new_page()

    def at_top(self) -> bool:
        return self.y == self.top

    def ensure(self, height: float) -> None:
        if height > self.room and not self.at_top():
            self.break_column()

    # -- placing blocks ----------------------------------------------------------------
    def space(self, height: float) -> None:
        if not self.at_top():
            self.y -= min(height, self.room)

    def block(self, height: float, draw: DrawFn) -> None:
        self.ensure(height)
        if self.canvas is not None:
            draw(self.x, self.y, self.column_width)
        self.y -= height

    def lines(
        self, lines: list[Line], style: Style, *, indent: float = 0, keep: int = 2, marker: Marker | None = None
    ) -> None:
        """Wrapped lines, breaking between them at the foot of a column; the first
        `keep` lines stay together so that a paragraph never starts with a lone line.
        A `marker` (a bullet, a severity) is drawn in the indent of the first line."""
        leading = style.leading
        self.ensure(leading * min(keep, len(lines)))
        for i, line in enumerate(lines):
            self.ensure(leading)
            if self.canvas is not None:
                baseline = self.y - style.size
                if i == 0 and marker is not None:
                    text, marker_style = marker
                    draw_line(
                        self.canvas, [(text, marker_style.font)], self.x, baseline, style.size, marker_style.color
                    )
                draw_line(self.canvas, line, self.x + indent, baseline, style.size, style.color)
            self.y -= leading

    def paragraph(
        self, spans: list[Span], style: Style, *, indent: float = 0, after: float = 0, marker: Marker | None = None
    ) -> None:
        self.lines(wrap_spans(spans, style.size, self.column_width - indent), style, indent=indent, marker=marker)
        self.space(after)

    def height_of(self, spans: list[Span], style: Style, *, indent: float = 0) -> float:
        return len(wrap_spans(spans, style.size, self.column_width - indent)) * style.leading

    def text(self, text: str, style: Style, **kwargs) -> None:
        self.paragraph([(text, style.font)], style, **kwargs)
