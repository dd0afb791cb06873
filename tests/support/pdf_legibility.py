"""Reading a drawn PDF page the way a person sees it: every character's colour against
what lies beneath it, and its size. For the legibility tests of the printouts."""

from __future__ import annotations

import io
from dataclasses import dataclass

import pdfplumber

MIN_CONTRAST = 4.5  # WCAG 2 AA for body text
MIN_SIZE = 6.0  # points


@dataclass(frozen=True)
class Unreadable:
    page: int
    text: str
    size: float
    contrast: float
    why: str

    def __str__(self) -> str:
        return f"page {self.page}: {self.text!r} at {self.size:.1f} pt, contrast {self.contrast:.2f}:1 ({self.why})"


def rgb(color) -> tuple[float, float, float]:
    """A pdfplumber colour (grey, RGB or CMYK, 0..1) as RGB."""
    if color is None:
        return (0.0, 0.0, 0.0)
    if isinstance(color, (int, float)):
        color = (color,)
    color = tuple(float(c) for c in color)
    if len(color) == 1:
        return (color[0],) * 3
    if len(color) == 4:
        c, m, y, k = color
        return ((1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k))
    return color[:3]  # type: ignore[return-value]


def luminance(color: tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in color)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def unreadable(data: bytes) -> list[Unreadable]:
    """Every run of characters on every page drawn smaller than 6 pt, or with less than
    4.5:1 contrast against the filled shape beneath it (white where there is none). The
    shape beneath is the smallest filled rectangle or path around the character: on a
    printout the smaller shapes (a card's header band, a stat box) lie on the bigger ones."""
    import io

    found: list[Unreadable] = []
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        for number, page in enumerate(pdf.pages, start=1):
            fills = sorted(
                (s for s in [*page.rects, *page.curves] if s.get("fill")),
                key=lambda s: (s["x1"] - s["x0"]) * (s["bottom"] - s["top"]),
            )
            runs: dict[tuple, list] = {}
            for char in page.chars:
                if not char["text"].strip():
                    continue
                x = (char["x0"] + char["x1"]) / 2
                y = (char["top"] + char["bottom"]) / 2
                beneath = next(
                    (
                        rgb(s["non_stroking_color"])
                        for s in fills
                        if s["x0"] <= x <= s["x1"] and s["top"] <= y <= s["bottom"]
                    ),
                    (1.0, 1.0, 1.0),
                )
                ink = rgb(char["non_stroking_color"])
                ratio = contrast(ink, beneath)
                size = round(char["size"], 2)
                problems = []
                if size < MIN_SIZE - 0.01:
                    problems.append(f"smaller than {MIN_SIZE:g} pt")
                if ratio < MIN_CONTRAST:
                    problems.append(f"contrast under {MIN_CONTRAST}:1")
                if problems:
                    key = (round(char["top"]), ink, beneath, size, tuple(problems))
                    runs.setdefault(key, []).append(char)
            for (_top, _ink, beneath, size, problems), chars in runs.items():
                ink = rgb(chars[0]["non_stroking_color"])
                found.append(
                    Unreadable(
                        number, "".join(c["text"] for c in chars), size, contrast(ink, beneath), "; ".join(problems)
                    )
                )
    return found


def headings_at_page_foot(data: bytes, *, size: float, color) -> list[str]:
    """Headings (text drawn at `size` in `color`) that are the last thing on their page
    above the footer: a heading left alone at a page foot."""
    found = []
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        for page in pdf.pages:
            lines: dict[int, list] = {}
            for char in page.chars:
                if char["text"].strip() and char["size"] > 6.6:  # not the page footer
                    lines.setdefault(round(char["bottom"]), []).append(char)
            if not lines:
                continue
            last = lines[max(lines)]
            wanted = (color.red, color.green, color.blue) if hasattr(color, "red") else rgb(color)
            if all(abs(c["size"] - size) < 0.05 and _close(rgb(c["non_stroking_color"]), wanted) for c in last):
                found.append("".join(c["text"] for c in sorted(last, key=lambda c: c["x0"])))
    return found


def _close(a, b) -> bool:
    return all(abs(x - y) < 0.01 for x, y in zip(a, b, strict=True))
