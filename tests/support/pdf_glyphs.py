"""What a PDF really draws: for each character, whether an embedded font program holds
a real glyph for it (an outline, not the empty ".notdef" box). Read from the font files
inside the PDF and their ToUnicode maps, not from the text layer."""

from __future__ import annotations

import io
import re

from fontTools.ttLib import TTFont
from pypdf import PdfReader

_BFCHAR = re.compile(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>")


def _to_unicode(stream: bytes) -> dict[int, str]:
    codes = {}
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", stream, re.S):
        for code, text in _BFCHAR.findall(block):
            codes[int(code, 16)] = bytes.fromhex(text.decode()).decode("utf-16-be")
    return codes


def drawn_characters(data: bytes) -> dict[str, set[str]]:
    """Each character an embedded font draws with a real glyph -> the fonts it is in."""
    found: dict[str, set[str]] = {}
    reader = PdfReader(io.BytesIO(data))
    seen = set()
    for page in reader.pages:
        fonts = page.get("/Resources", {}).get("/Font", {})
        for ref in fonts.values():
            font = ref.get_object()
            key = (font.get("/BaseFont"), id(font))
            if key in seen or "/ToUnicode" not in font or "/FontDescriptor" not in font:
                continue
            seen.add(key)
            program = font["/FontDescriptor"].get_object().get("/FontFile2")
            if program is None:
                continue
            face = TTFont(io.BytesIO(program.get_object().get_data()))
            cmap = face.getBestCmap() or {}
            if not cmap:
                for table in face["cmap"].tables:
                    cmap.update(table.cmap)
            glyf = face["glyf"]
            for code, text in _to_unicode(font["/ToUnicode"].get_object().get_data()).items():
                glyph = cmap.get(code)
                if glyph is None or glyph == ".notdef":
                    continue
                outline = glyf[glyph]
                if outline.numberOfContours != 0:  # composite glyphs count as drawn too (-1)
                    found.setdefault(text, set()).add(str(font["/BaseFont"]))
    return found
