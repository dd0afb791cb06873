"""The army sheet (`roster.pdf?sheet=1`, armybuilder/exports/pdf_sheet.py): a row per unit
on one page, read off the drawn page: where each row is, what it says, and that nothing
is cut off or drawn past the margins."""

from __future__ import annotations

import io
import json
from itertools import groupby, pairwise
from pathlib import Path

import pdfplumber
import pytest
from pypdf import PdfReader
from reportlab.lib.pagesizes import A4, LETTER

from armybuilder.armyforge.books.imports import book_import
from armybuilder.exports.pdf_roster import MARGIN
from armybuilder.exports.pdf_sheet import ArmySheetPdf
from armybuilder.lists import selectors
from armybuilder.printouts import printout_get
from tests.exports.test_pdf import ONE_LIST_PER_RULESET, bundled_list, make_list, render
from tests.support.pdf_legibility import unreadable
from tests.support.pdf_pixels import page_images, seen

BOOK = Path(__file__).resolve().parents[2] / "factions" / "data" / "books" / "aof" / "human-empire.json"
UNITS = [
    "militia-rabble",
    "household-guard",
    "greatswords",
    "longbowmen",
    "forest-wardens",
    "sworn-knights",
    "pistoliers",
    "war-gryphon",
    "hired-giant",
    "field-cannon",
    "volley-organ",
    "relic-wagon",
    "war-wagon",
    "court-magister",
]
PAPERS = {"a4": A4, "letter": LETTER}
LONG_NAME = "Thunderer of the Seventh Bastion Gate That Never Misses Its Mark, Not Even Once"


pytestmark = pytest.mark.usefixtures("fresh_caches")


def army(owner, size: int, *, name: str = "Border Patrol", long_name: bool = False):
    """A Human Empire list of `size` entries: a Marshal joined to a combined Pike Levy
    first, then the book's other units in turn (one named at length, if asked)."""
    book_import(data=json.loads(BOOK.read_text()))
    entries = [
        {"id": "e1", "unit": "pike-levy", "combined": True},
        {"id": "e2", "unit": "marshal", "joined_to": "e1"},
    ]
    entries += [{"id": f"e{n}", "unit": UNITS[(n - 3) % len(UNITS)]} for n in range(3, size + 1)]
    if long_name:
        entries[5]["name"] = LONG_NAME
    body = {
        "format": "armylist/1",
        "name": name,
        "system": "aof",
        "faction": "human-empire",
        "points_limit": 150 * size,
        "entries": entries,
    }
    return make_list(owner, body)


def sheet(army_list, paper: str = "a4") -> bytes:
    return render(army_list, "roster.pdf", sheet=1, paper=paper)


def table_rows(data: bytes) -> list[tuple[int, float, list[str]]]:
    """(page, top, words) of every numbered row of the table, words left to right."""
    rows = []
    with pdfplumber.open(io.BytesIO(data)) as document:
        for number, page in enumerate(document.pages, 1):
            words = page.extract_words()
            head = next(w["bottom"] for w in words if w["text"] in ("Quality", "Evasion"))  # the head row
            lines = groupby(sorted(words, key=lambda w: (round(w["top"]), w["x0"])), lambda w: round(w["top"]))
            for top, line in lines:
                texts = [w["text"] for w in line]
                if top > head and texts[0].isdigit():
                    rows.append((number, top, texts))
    return rows


def columns(army_list, paper: str = "a4") -> dict[str, tuple[float, float]]:
    """Each column's left and right edge, in points, as the renderer lays them out."""
    printout = printout_get(army_list=army_list, share_url="", handle=None)
    edges, left = {}, MARGIN
    for column in ArmySheetPdf(printout, paper=paper).columns:
        edges[column.title] = (left, left + column.width)
        left += column.width
    return edges


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_40_entry_list_fits_one_page_a_row_per_unit_in_list_order(user, paper):
    army_list = army(user, 40)
    data = sheet(army_list, paper)
    reader = PdfReader(io.BytesIO(data))
    assert len(reader.pages) == 1
    box = reader.pages[0].mediabox
    assert (float(box.width), float(box.height)) == pytest.approx(PAPERS[paper], abs=0.5)
    rows = table_rows(data)
    assert [int(words[0]) for _page, _top, words in rows] == list(range(1, 41))
    tops = [top for _page, top, _words in rows]
    assert tops == sorted(tops) and min(b - a for a, b in pairwise(tops)) >= 10  # one under the other
    results = selectors.army_list_load(army_list).validation.entries
    for (_page, _top, words), result in zip(rows, results, strict=True):
        line = " ".join(words)
        assert result.label in line
        assert line.endswith(f"{result.models} {result.cost}")  # models, then points, on the same line


def test_the_rows_show_quality_defense_tough_models_and_cost(user):
    army_list = army(user, 10)
    costs = {r.entry.id: r.cost for r in selectors.army_list_load(army_list).validation.entries}
    rows = {words[0]: " ".join(words) for _page, _top, words in table_rows(sheet(army_list))}
    # Two units of 10 combined: 20 models, no Tough; the Marshal under the unit it leads.
    assert rows["1"] == f"1 Pike Levy · combined 5+ 5+ – 20 {costs['e1']}"
    assert rows["2"] == f"2 ↳ Marshal · joined to Pike Levy 4+ 4+ 3 1 {costs['e2']}"
    assert rows["5"] == f"5 Greatswords 3+ 4+ – 5 {costs['e5']}"
    assert rows["10"] == f"10 Tamed War Gryphon 4+ 4+ 6 1 {costs['e10']}"


def test_a_hero_joined_to_a_later_unit_is_printed_right_after_it(user):
    army_list = army(user, 5)
    entries = army_list.entries
    entries[0], entries[1] = entries[1], entries[0]  # the Marshal first in the list
    army_list.entries = entries
    army_list.save()
    names = [" ".join(words[1:3]) for _page, _top, words in table_rows(sheet(army_list))]
    assert names[:2] == ["Pike Levy", "↳ Marshal"]


def test_the_header_names_the_list_its_book_version_total_and_status(user):
    army_list = army(user, 8, name="Border Patrol of the North")
    data = sheet(army_list)
    with pdfplumber.open(io.BytesIO(data)) as document:
        text = " ".join(document.pages[0].extract_text().split())
    total = selectors.army_list_load(army_list).validation.total_points
    assert text.startswith("Border Patrol of the North Age of Fantasy")
    assert "Human Empire · army book 1.1.0" in text
    assert f"{total} / 1200 pts 8 units" in text
    assert "Armybuilder army sheet · Age of Fantasy" in text and "Human Empire 1.1.0 page 1" in text
    assert PdfReader(io.BytesIO(data)).metadata.title == "Border Patrol of the North — army sheet"


def test_every_row_is_drawn_where_the_text_layer_has_it_and_legible(user):
    """Each unit's name shows on the drawn page at its row (not hidden under a shade or
    drawn in the paper's colour), and every character is 6 pt or more at 4.5:1."""
    army_list = army(user, 40, long_name=True)
    data = sheet(army_list)
    images = page_images(data)
    rows = table_rows(data)
    for result in selectors.army_list_load(army_list).validation.entries:
        if result.label == LONG_NAME:
            continue  # set smaller, on its own: below
        found = [s for s in seen(data, result.label, images=images) if s.page == 1]
        assert found and all(s.legible for s in found), (result.label, found)
        # Drawn at the top of each row that names it (the row's words, the page's pixels).
        rows_naming = [top for _p, top, words in rows if f" {result.label} " in f" {' '.join(words)} "]
        assert rows_naming
        for top in rows_naming:
            assert any(abs(s.top - top) <= 1 for s in found), (result.label, top, [s.top for s in found])
    assert [str(u) for u in unreadable(data)] == []


def test_a_long_name_wraps_inside_its_column_and_pushes_the_next_row_down(user):
    army_list = army(user, 10, long_name=True)
    data = sheet(army_list)
    unit_left, unit_right = columns(army_list)["Unit"]
    rows = table_rows(data)
    (long_row,) = [i for i, (_p, _top, words) in enumerate(rows) if "Thunderer" in words]
    top, below = rows[long_row][1], rows[long_row + 1][1]
    with pdfplumber.open(io.BytesIO(data)) as document:
        page = document.pages[0]
        name = [c for c in page.chars if top - 1 <= c["top"] < below - 1 and unit_left <= c["x0"] < unit_right]
        lines = sorted({round(c["top"]) for c in name})
        assert len(lines) == 2, "wrapped on two lines"
        assert "".join(c["text"] for c in name).replace(" ", "") == (LONG_NAME + "(Longbowmen)").replace(" ", "")
        for char in name:
            assert char["x1"] <= unit_right - 2 and char["size"] >= 6, char["text"]
        assert max(c["bottom"] for c in name) < below  # the next row starts under it
    for word in ("Thunderer", "Once", "(Longbowmen)"):
        (shown,) = [s for s in seen(data, word) if s.page == 1]
        assert shown.legible, word


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_nothing_is_drawn_past_the_margins(user, paper):
    """Read from the pixels: outside the margins (less 4 pt for descenders) the page is blank."""
    army_list = army(user, 200, long_name=True)
    data = sheet(army_list, paper)
    dpi = 50
    inset = round((MARGIN - 4) * dpi / 72)
    for image in page_images(data, dpi=dpi):
        width, height = image.size
        grey = image.convert("L")
        for box in ((0, 0, width, inset), (0, height - inset, width, height), (0, 0, inset, height)):
            assert grey.crop(box).getextrema()[0] > 250, box
        assert grey.crop((width - inset, 0, width, height)).getextrema()[0] > 250


def test_a_200_entry_list_goes_on_to_more_pages_with_the_head_row_on_each(user):
    army_list = army(user, 200)
    data = sheet(army_list)
    rows = table_rows(data)
    assert [int(words[0]) for _page, _top, words in rows] == list(range(1, 201))
    pages = sorted({page for page, _top, _words in rows})
    assert len(pages) > 1 and pages == list(range(1, len(pages) + 1))
    with pdfplumber.open(io.BytesIO(data)) as document:
        for number, page in enumerate(document.pages, 1):
            text = " ".join(page.extract_text().split())
            assert "# Unit Quality Defense Tough Models Pts" in text
            assert text.endswith(f"page {number}")
            if number > 1:
                assert text.startswith("Border Patrol — army sheet (continued)")
            # The last row ends above the footer.
            last = max(top for p, top, _w in rows if p == number)
            assert last < page.height - MARGIN - 14


def test_the_sheet_is_served_for_a_list_and_its_share_link_and_refuses_a_bad_value(user, client):
    army_list = army(user, 3)
    client.force_login(user)
    for base in (f"/api/lists/{army_list.pk}", f"/api/shared/{army_list.share_key}"):
        path = f"{base}/export/roster.pdf"
        response = client.get(path, {"sheet": "1", "paper": "letter"})
        assert response.status_code == 200
        assert response["Content-Disposition"] == 'attachment; filename="Border-Patrol-sheet.pdf"'
        assert PdfReader(io.BytesIO(response.content)).metadata.title == "Border Patrol — army sheet"
        assert client.get(path).content != response.content  # without it: the roster
        response = client.get(path, {"sheet": "maybe"})
        assert response.status_code == 400
        assert response.content.decode() == 'sheet must be 1 or 0, not "maybe"'


@pytest.mark.parametrize("name", ONE_LIST_PER_RULESET)
def test_every_ruleset_prints_a_legible_sheet_with_its_own_stats(user, name):
    army_list = bundled_list(user, name)
    data = sheet(army_list)
    assert [str(u) for u in unreadable(data)] == []
    with pdfplumber.open(io.BytesIO(data)) as document:
        text = " ".join(document.pages[0].extract_text().split())
    arena = name.startswith("aof-arena")
    stats = "Move/Rush Evasion Toughness Stamina Health Models" if arena else "Quality Defense Tough Models Pts"
    assert f"# Unit {stats}" in text
    rows = table_rows(data)
    results = selectors.army_list_load(army_list).validation.entries
    assert len(rows) == len(results)
    if arena:  # Move/Rush, Evasion, Toughness, Stamina, Health, models; no points
        for (_page, _top, words), result in zip(rows, results, strict=True):
            stats = result.unit.stats
            numbers = [f"{stats['move']}/{stats['rush']}", *(str(stats[k]) for k in ("evasion", "toughness"))]
            assert " ".join(words).endswith(" ".join([*numbers, str(stats["stamina"]), str(stats["health"]), "1"]))
