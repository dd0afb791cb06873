"""Reading a PDF off its rendered pages: each page drawn to PNG by poppler's `pdftoppm`
(as a reader's viewer or a printer driver draws it), and a text's place on the page
found in the text layer, then looked at in the pixels. Text the text layer has but the
page does not show (covered by a shape, drawn in the paper's colour, off the page) is
caught here, where the text layer alone would pass it."""

from __future__ import annotations

import io
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pdfplumber
from PIL import Image

from tests.support.pdf_legibility import contrast

DPI = 150


def page_images(data: bytes, *, dpi: int = DPI) -> list[Image.Image]:
    """Every page of the PDF as pdftoppm draws it, in order."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "file.pdf"
        source.write_bytes(data)
        subprocess.run(["pdftoppm", "-r", str(dpi), "-png", str(source), f"{folder}/page"], check=True)
        # pdftoppm pads the page numbers to one width: their names sort in page order.
        return [Image.open(path).convert("RGB") for path in sorted(Path(folder).glob("page-*.png"))]


@dataclass(frozen=True)
class Seen:
    """A text as it shows on a rendered page."""

    page: int  # from 1
    text: str
    top: float  # points from the top of the page
    height: float  # points: the size it is drawn at, about
    ink: tuple[int, int, int]  # the colour of its strokes
    paper: tuple[int, int, int]  # the colour around them
    coverage: float  # the share of its box the strokes cover

    @property
    def contrast(self) -> float:
        return contrast(tuple(c / 255 for c in self.ink), tuple(c / 255 for c in self.paper))

    @property
    def legible(self) -> bool:
        """Drawn (strokes cover some of its box, not all) at 6 pt or more, 4.5:1 against its ground."""
        return self.height >= 6 and self.contrast >= 4.5 and 0.02 <= self.coverage <= 0.7


def seen(data: bytes, text: str, *, images: list[Image.Image] | None = None, dpi: int = DPI) -> list[Seen]:
    """Every place the text layer has `text`, as the rendered page shows it there."""
    images = images or page_images(data, dpi=dpi)
    scale = dpi / 72
    found = []
    with pdfplumber.open(io.BytesIO(data)) as document:
        for number, page in enumerate(document.pages, start=1):
            for match in page.search(text, regex=False):
                box = tuple(round(v * scale) for v in (match["x0"], match["top"], match["x1"], match["bottom"]))
                found.append(_look(images[number - 1].crop(box), number, text, match))
    return found


def _look(crop: Image.Image, page: int, text: str, match: dict) -> Seen:
    """The ground is the commonest colour of the box, the ink the colour furthest from it."""
    pixels = list(crop.get_flattened_data())
    paper = max(set(pixels), key=pixels.count)

    def distance(pixel: tuple[int, int, int]) -> int:
        return sum(abs(a - b) for a, b in zip(pixel, paper, strict=True))

    ink = max(pixels, key=distance)
    strokes = sum(1 for pixel in pixels if distance(pixel) > 96)
    return Seen(page, text, match["top"], match["bottom"] - match["top"], ink, paper, strokes / max(1, len(pixels)))


def colour_near(ink: tuple[int, int, int], colour, tolerance: int = 48) -> bool:
    """Whether a rendered ink is the ReportLab `colour` it was drawn in (anti-aliasing
    and colour management move it a little)."""
    wanted = (round(colour.red * 255), round(colour.green * 255), round(colour.blue * 255))
    return all(abs(a - b) <= tolerance for a, b in zip(ink, wanted, strict=True))
