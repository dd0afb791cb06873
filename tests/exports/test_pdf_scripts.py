"""Any script prints right (issue 24): names in Arabic, Hebrew, Devanagari, Thai, CJK,
Cyrillic and Greek on the cards and the roster, read off the drawn page and compared with
the same name laid out by a known-good engine (Pillow with libraqm: FriBiDi and HarfBuzz),
and read back in typed order by poppler's `pdftotext`."""

import io
import re
import subprocess
import tempfile
import unicodedata
from pathlib import Path

import pytest
from django.core.cache import cache
from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont, features
from reportlab.pdfgen.canvas import Canvas

from armybuilder import downloads
from armybuilder.armyforge.books.imports import book_import
from armybuilder.exports import pdf_style
from armybuilder.lists.format import parse_list_body
from armybuilder.lists.services import army_list_create
from armybuilder.memo import clear_all

DPI = 200
NAMES = {
    "arabic": "جيش الملك",
    "hebrew": "צבא המלך",
    "devanagari": "शक्तिशाली सेना",
    "thai": "กองทัพหลวง",
    "cjk": "王の軍隊",
    "cyrillic": "Дружина",
    "greek": "Φάλαγξ",
}
RIGHT_TO_LEFT = {"arabic", "hebrew"}
FONT_FILES = {  # the font each script should be drawn in, by style (Debian's file names)
    "arabic": {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf"},
    "hebrew": {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf", "italic": "DejaVuSans-Oblique.ttf"},
    "devanagari": {"regular": "Lohit-Devanagari.ttf", "bold": "Lohit-Devanagari.ttf"},
    "thai": {"regular": "Loma.ttf", "bold": "Loma-Bold.ttf", "italic": "Loma-Oblique.ttf"},
    "cjk": {"regular": "DroidSansFallbackFull.ttf", "bold": "DroidSansFallbackFull.ttf"},
    "cyrillic": {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf", "italic": "DejaVuSans-Oblique.ttf"},
    "greek": {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf", "italic": "DejaVuSans-Oblique.ttf"},
}
# DejaVu's obliques have no Arabic: italic Arabic borrows the upright face; Lohit has one
# weight and Droid one style.
ITALIC_FALLBACK = {"arabic": "regular", "devanagari": "regular", "cjk": "regular"}
STYLES = {
    "regular": pdf_style.REGULAR,
    "bold": pdf_style.BOLD,
    "italic": pdf_style.ITALIC,
}
BIDI_MARKS = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")


pytestmark = pytest.mark.usefixtures("fresh_caches")


def font_file(script: str, style: str) -> str:
    files = FONT_FILES[script]
    chosen = files.get(style) or files[ITALIC_FALLBACK.get(script, "regular")]
    path = pdf_style._find(chosen)
    assert path is not None, f"{chosen} is not installed (see the apt line in README.md)"
    return str(path)


# -- reading a page -----------------------------------------------------------------------
def typed_text(data: bytes) -> str:
    """What pdftotext gives, as a reader would compare it: compatibility forms (Arabic
    presentation forms) folded to their letters (NFKC), bidi marks left out."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "file.pdf"
        source.write_bytes(data)
        text = subprocess.run(["pdftotext", str(source), "-"], check=True, capture_output=True).stdout.decode()
    return " ".join(BIDI_MARKS.sub("", unicodedata.normalize("NFKC", text)).split())


def word_boxes(data: bytes) -> list[tuple[int, str, tuple[float, float, float, float]]]:
    """(page, word, box in points) of every word pdftotext finds, in its reading order."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "file.pdf"
        source.write_bytes(data)
        html = subprocess.run(["pdftotext", "-bbox", str(source), "-"], check=True, capture_output=True).stdout.decode()
    words = []
    for number, page in enumerate(html.split("<page ")[1:], start=1):
        for x0, y0, x1, y1, word in re.findall(
            r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>', page
        ):
            words.append((number, unicodedata.normalize("NFKC", word), (float(x0), float(y0), float(x1), float(y1))))
    return words


def name_boxes(data: bytes, name: str) -> list[tuple[int, tuple[float, float, float, float]]]:
    """Where `name` is printed: the box around its words, for each line that has them
    side by side. pdftotext -bbox lists a right-to-left line's words as they stand, left
    to right, each read from the left (the whole name reversed); a shaped Devanagari
    name is one word (its ActualText); a following " ·" may cling to it."""
    words = word_boxes(data)
    found = []
    for i, (page, _word, first) in enumerate(words):
        for j in range(i + 1, min(i + len(name.split()) + 1, len(words)) + 1):
            run = words[i:j]
            if any(p != page or abs(box[1] - first[1]) > 2 for p, _w, box in run):
                break
            text = " ".join(w for _p, w, _b in run).removesuffix(" ·")
            if name in (text, text[::-1]):
                boxes = [box for *_pw, box in run]
                found.append((page, (boxes[0][0], min(b[1] for b in boxes), boxes[-1][2], max(b[3] for b in boxes))))
                break
    return found


def pages_drawn(data: bytes) -> list[Image.Image]:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "file.pdf"
        source.write_bytes(data)
        subprocess.run(["pdftoppm", "-r", str(DPI), "-png", str(source), f"{folder}/page"], check=True)
        return [Image.open(path).convert("RGB") for path in sorted(Path(folder).glob("page-*.png"))]


def ink(image: Image.Image) -> Image.Image:
    """The strokes of a crop as white on black, cut to their extent: ink is whatever
    differs from the commonest colour (the paper, or a card's coloured band). A row or
    column inked from end to end is no letter (a rule, a frame, the edge of the band the
    text sits on) and is left out."""
    grey = image.convert("L")
    paper = max(grey.getcolors(1 << 16) or [(0, 255)])[1]
    strokes = ImageChops.difference(grey, Image.new("L", grey.size, paper)).point(lambda v: v if v > 60 else 0)
    width, height = strokes.size
    pixels = strokes.load()
    full_rows = [y for y in range(height) if sum(1 for x in range(width) if pixels[x, y]) >= 0.9 * width]
    full_columns = [x for x in range(width) if sum(1 for y in range(height) if pixels[x, y]) >= 0.9 * height]
    draw = ImageDraw.Draw(strokes)
    for y in full_rows:
        draw.line([(0, y), (width, y)], fill=0)
    for x in full_columns:
        draw.line([(x, 0), (x, height)], fill=0)
    box = strokes.getbbox()
    assert box is not None, "nothing drawn there"
    return strokes.crop(box)


def reference(text: str, font_path: str, *, shaped: bool = True) -> Image.Image:
    """`text` laid out by libraqm (bidi and shaping), or by Pillow's basic layout (one
    glyph per character, left to right: how the PDFs printed Arabic before)."""
    assert features.check("raqm"), "Pillow without libraqm (its wheels have it): no reference layout"
    size = 48
    layout = ImageFont.Layout.RAQM if shaped else ImageFont.Layout.BASIC
    font = ImageFont.truetype(font_path, size, layout_engine=layout)
    image = Image.new("L", (size * (len(text) + 4), size * 3), 255)
    ImageDraw.Draw(image).text((size, size), text, font=font, fill=0)
    return ink(image)


def likeness(drawn: Image.Image, expected: Image.Image) -> float:
    """Correlation of the two ink images brought to one size and softened (anti-aliasing
    and hinting differ between renderers): 1 for the same picture."""
    size = (320, 64)
    a = list(drawn.resize(size).filter(ImageFilter.GaussianBlur(2)).get_flattened_data())
    b = list(expected.resize(size).filter(ImageFilter.GaussianBlur(2)).get_flattened_data())
    mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
    cov = sum((x - mean_a) * (y - mean_b) for x, y in zip(a, b, strict=True))
    spread = (sum((x - mean_a) ** 2 for x in a) * sum((y - mean_b) ** 2 for y in b)) ** 0.5
    return cov / spread if spread else 0.0


def assert_looks_like(drawn: Image.Image, script: str, style: str) -> None:
    text, font_path = NAMES[script], font_file(script, style)
    right = likeness(drawn, reference(text, font_path))
    assert right >= 0.7, f"{script} {style}: drawn unlike the reference layout ({right:.2f})"
    if script in RIGHT_TO_LEFT:
        wrong = likeness(drawn, reference(text, font_path, shaped=False))
        assert right >= wrong + 0.4, f"{script} {style}: as like the unshaped layout ({wrong:.2f}) as the shaped"


# -- cards and roster -------------------------------------------------------------------
def script_list(owner, make_aof_book, name: str):
    """A list called `name`, whose units are called `name` in the book (the card's italic
    subtitle) and on the list (the card's bold title, the roster's rows)."""
    book = make_aof_book()
    for unit in book["units"]:
        unit["name"] = name
    book_import(data=book)
    body = {
        "format": "armylist/1",
        "name": name,
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 1500,
        "entries": [
            {"id": "e1", "unit": "warden-captain", "name": name},
            {"id": "e2", "unit": "wardens", "name": name},
        ],
    }
    data, _handle = parse_list_body(body)
    return army_list_create(data=data, owner=owner)


def render(army_list, kind: str) -> bytes:
    response = downloads.list_pdf_response(army_list, kind, {})
    assert response.status_code == 200
    return response.content


@pytest.mark.parametrize("kind", ["cards.pdf", "roster.pdf"])
@pytest.mark.parametrize("script", list(NAMES))
def test_a_name_in_any_script_is_drawn_as_its_script_is_written(user, make_aof_book, script, kind):
    name = NAMES[script]
    data = render(script_list(user, make_aof_book, name), kind)
    places = name_boxes(data, name)
    assert places, f"pdftotext finds no {name!r} in the {kind}"
    # The first place is the bold title (the first card's, the roster's); the smaller
    # italic and regular uses are compared in the test of every style below.
    page, (x0, y0, x1, y1) = places[0]
    scale = DPI / 72
    image = pages_drawn(data)[page - 1]
    drawn = ink(image.crop((round(x0 * scale), round(y0 * scale), round(x1 * scale), round(y1 * scale))))
    font_path = font_file(script, "bold")
    right = likeness(drawn, reference(name, font_path))
    assert right >= 0.7, f"{script} in the {kind}: unlike the reference layout ({right:.2f})"
    if script in RIGHT_TO_LEFT:
        wrong = likeness(drawn, reference(name, font_path, shaped=False))
        assert right >= wrong + 0.4, f"{script} in the {kind}: as like the unshaped layout ({wrong:.2f})"


@pytest.mark.parametrize("kind", ["cards.pdf", "roster.pdf"])
def test_pdftotext_reads_every_script_back_in_typed_order(user, make_aof_book, kind):
    for script, name in NAMES.items():
        data = render(script_list(user, make_aof_book, name), kind)
        text = typed_text(data)
        assert name in text, f"{script}: {name!r} not in {text[:200]!r}"
        assert name[::-1] not in text or name == name[::-1]
        cache.clear()
        clear_all()


# -- every style ------------------------------------------------------------------------
def drawn_alone(text: str, font: str, size: float = 14) -> tuple[Image.Image, bytes]:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(420, 60))
    pdf_style.draw_string(canvas, 10, 22, text, font, size)
    canvas.save()
    data = buffer.getvalue()
    return ink(pages_drawn(data)[0]), data


@pytest.mark.parametrize("style", list(STYLES))
@pytest.mark.parametrize("script", list(NAMES))
def test_every_style_draws_every_script_or_borrows_a_style_that_has_it(script, style, caplog):
    with caplog.at_level("WARNING", logger="armybuilder.exports.pdf_style"):
        drawn, data = drawn_alone(NAMES[script], STYLES[style])
    assert "no font has" not in caplog.text
    assert_looks_like(drawn, script, style)
    assert NAMES[script] in typed_text(data)


def test_a_right_to_left_name_with_latin_and_digits_keeps_each_run_in_its_direction():
    text = "جيش 12 (Kings)"
    drawn, data = drawn_alone(text, pdf_style.REGULAR)
    expected = reference(text, font_file("arabic", "regular"))
    assert likeness(drawn, expected) >= 0.7  # digits and Latin left to right, brackets mirrored
    assert "Kings" in typed_text(data) and "12" in typed_text(data)


def test_a_space_at_either_end_of_a_right_to_left_run_stays_at_that_end():
    # "Led by: " in bold, then the name: the space must stay between them.
    before = "".join(str(piece.text) for piece in pdf_style.prepare(" صلاح الدين", pdf_style.REGULAR))
    after = "".join(str(piece.text) for piece in pdf_style.prepare("صلاح الدين ", pdf_style.REGULAR))
    assert before.startswith(" ") and not before.endswith(" ")
    assert after.endswith(" ") and not after.startswith(" ")


def test_a_word_too_long_for_its_line_is_never_broken_between_a_letter_and_its_mark():
    word = "กองทัพหลวง" * 20 + "शक्तिशाली" * 10
    lines = pdf_style.wrap(word, pdf_style.REGULAR, 8, 50)
    assert "".join(lines) == word and len(lines) > 5
    assert [line for line in lines if unicodedata.category(line[0]).startswith("M")] == []


# -- work linear in the text --------------------------------------------------------------
def test_breaking_a_long_word_shapes_a_bounded_multiple_of_its_length(monkeypatch):
    shaped = []
    real = pdf_style._shape

    def counting(text, font, rtl):
        shaped.append(len(text))
        return real(text, font, rtl)

    monkeypatch.setattr(pdf_style, "_shape", counting)
    totals = {}
    for length in (500, 2000):
        shaped.clear()
        pdf_style.prepare.memo.clear()
        word = ("جيشالملك" * length)[:length]
        lines = pdf_style.wrap(word, pdf_style.REGULAR, 8, 120)
        assert "".join(lines) == word
        totals[length] = sum(shaped)
    assert totals[2000] <= 30 * 2000
    assert totals[2000] / totals[500] < 6  # four times the text: about four times the work, not sixteen


# -- a name in a sentence ---------------------------------------------------------------
def line_words(data: bytes, first: str) -> list[tuple[str, float]]:
    """The words of the line that starts with `first`, left to right, with where each
    starts (pdftotext's boxes)."""
    words = word_boxes(data)
    page, _word, box = next(w for w in words if w[1] == first)
    line = [(word, b[0]) for p, word, b in words if p == page and abs(b[1] - box[1]) < 2 and b[0] >= box[0]]
    return sorted(line, key=lambda word: word[1])


@pytest.mark.parametrize("script", sorted(RIGHT_TO_LEFT))
def test_a_right_to_left_hero_name_keeps_its_cost_after_it_and_the_label_before(user, make_aof_book, script):
    name = NAMES[script]
    book_import(data=make_aof_book())
    body = {
        "format": "armylist/1",
        "name": "Border Patrol",
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 1500,
        "entries": [
            {"id": "e1", "unit": "warden-captain", "name": name, "joined_to": "e2"},
            {"id": "e2", "unit": "wardens"},
        ],
    }
    data, _handle = parse_list_body(body)
    cards = render(army_list_create(data=data, owner=user), "cards.pdf")
    line = line_words(cards, "Joined")
    words = [word for word, _x in line]
    assert words[:2] == ["Joined", "hero:"] and words[-1] == "pts", words
    x = dict(line)
    parts = set(name.split())
    named = [x[word] for word in words if {word.strip("·"), word.strip("·")[::-1]} & parts]
    assert len(named) == len(name.split())
    # "Joined hero: ‹name› · 70 pts": the cost stays between the name and its "pts".
    assert x["hero:"] < min(named) and max(named) < x["70"] < x["pts"], words


def test_a_cjk_name_in_a_bold_style_is_drawn_as_bold_as_latin_beside_it():
    regular, _data = drawn_alone(NAMES["cjk"], pdf_style.REGULAR)
    bold, data = drawn_alone("Warden " + NAMES["cjk"], pdf_style.BOLD)
    cjk_bold = bold.crop((bold.width - regular.width, 0, bold.width, bold.height))  # the CJK end of the line
    darkness = [sum(image.get_flattened_data()) / (image.width * image.height) for image in (regular, cjk_bold)]
    assert darkness[1] >= 1.15 * darkness[0], darkness  # Droid has one weight: without more, equal
    assert NAMES["cjk"] in typed_text(data)


def test_isolates_nested_past_any_name_are_read_as_plain_text_not_without_end():
    """A text that opens thousands of isolates inside each other (typed on purpose) is put
    in display order as plain text past MAX_ISOLATES deep: no error, the letters kept,
    the marks not drawn; a name isolated in a sentence still keeps its place."""
    deep = "\u2068" * 3000 + "حرس 12" + "\u2069" * 3000
    shown = pdf_style._visual(deep)
    assert not re.search("[\u2066-\u2069]", shown)
    assert sorted(shown) == sorted("حرس 12")
    sentence = "Joined hero: " + pdf_style.isolate("حرس") + " · 70 pts"
    assert pdf_style._visual(sentence) == "Joined hero: " + "حرس"[::-1] + " · 70 pts"


def test_strings_are_drawn_with_the_operators_reportlabs_text_objects_write():
    """`draw_string` writes the text operators itself and keeps them for the document;
    the files are the ones ReportLab's text objects make (a text object a string, its
    pieces placed one by one), byte for byte: strings drawn again, characters to escape,
    a piece of more than one font subset (256 glyphs each), and two files drawn at once,
    each numbering its own subsets."""
    many = "".join(chr(0x4E00 + i) for i in range(300))  # two subsets of Droid's glyphs
    strings = [
        ("Knight Captain", pdf_style.BOLD, 11.5),
        ("Knight Captain", pdf_style.BOLD, 11.5),
        ("Knight Captain", pdf_style.BOLD, 8),
        (r"(Shield) \ 6+", pdf_style.REGULAR, 7),
        ("Дружина " + NAMES["arabic"] + " " + NAMES["cjk"], pdf_style.REGULAR, 9),
        (many, pdf_style.REGULAR, 6),
        ("Knight Captain", pdf_style.ITALIC, 11.5),
    ]

    def by_text_objects(canvas, x, y, text, font, size):
        drawn = None
        for piece in pdf_style.prepare(text, font):
            assert piece.actual is None and not isinstance(piece.text, pdf_style.ShapedStr)
            if drawn is None:
                drawn = canvas.beginText(x, y)
            else:
                drawn.setTextOrigin(x, y)
            drawn.setFont(piece.font, size)
            drawn.textOut(piece.text)
            x += piece.advance * size
        canvas.drawText(drawn)

    files = []
    for draw in (pdf_style.draw_string, by_text_objects):
        buffers = [io.BytesIO(), io.BytesIO()]
        canvases = [Canvas(buffer, pagesize=(420, 200), invariant=1) for buffer in buffers]
        for i, (text, font, size) in enumerate(strings):
            # The two files meet the strings in opposite orders.
            draw(canvases[0], 10, 10 + 20 * i, text, font, size)
            draw(canvases[1], 10, 10 + 20 * i, *strings[-1 - i])
        for canvas in canvases:
            canvas.save()
        files.append([buffer.getvalue() for buffer in buffers])
    assert files[0] == files[1]
