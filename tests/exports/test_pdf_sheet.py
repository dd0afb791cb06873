"""The army sheet (`roster.pdf?sheet=1`, armybuilder/exports/pdf_sheet.py): a page to play
from, a row per unit with its weapons, rules and upgrades and the spells once at the foot,
read off the drawn page: where each row is, what it says, how large it is set, and that
nothing is cut off or drawn past the margins. Lists of official Army Forge books (read
from ../shared/armyforge, never copied here) show that a real list fits the paper."""

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
from armybuilder.downloads import MAX_PRINTED_ENTRIES
from armybuilder.engine import list_from_dict, validate_list
from armybuilder.exports.pdf_roster import MARGIN
from armybuilder.exports.pdf_sheet import ArmySheetPdf
from armybuilder.exports.text import weapon_text
from armybuilder.lists import selectors
from armybuilder.printouts import printout_get
from factions.selectors import engine_book_get
from tests.conftest import SHARED, require_shared
from tests.exports.test_pdf import ONE_LIST_PER_RULESET, bundled_list, flat, make_list, pages, render
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
    """(page, top, words) of every numbered row of the table (a number in the "#" column),
    words left to right."""
    rows = []
    with pdfplumber.open(io.BytesIO(data)) as document:
        for number, page in enumerate(document.pages, 1):
            words = page.extract_words()
            heads = [w["bottom"] for w in words if w["text"] in ("Quality", "Evasion")]  # the head row
            if not heads:
                continue  # a page of spells only
            lines = groupby(sorted(words, key=lambda w: (round(w["top"]), w["x0"])), lambda w: round(w["top"]))
            for top, line in lines:
                found = list(line)
                texts = [w["text"] for w in found]
                if top > heads[0] and texts[0].isdigit() and found[0]["x1"] <= MARGIN + 20:
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
def test_a_40_entry_list_has_a_row_per_unit_in_list_order(user, paper):
    army_list = army(user, 40)
    data = sheet(army_list, paper)
    reader = PdfReader(io.BytesIO(data))
    assert len(reader.pages) <= 3  # 6,000 points: their weapons and rules too
    for page in reader.pages:
        box = page.mediabox
        assert (float(box.width), float(box.height)) == pytest.approx(PAPERS[paper], abs=0.5)
    rows = table_rows(data)
    assert [int(words[0]) for _page, _top, words in rows] == list(range(1, 41))
    positions = [(page, top) for page, top, _words in rows]
    assert positions == sorted(positions)
    assert min(b[1] - a[1] for a, b in pairwise(positions) if a[0] == b[0]) >= 10  # one under the other
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
        found = seen(data, result.label, images=images)
        assert found and all(s.legible for s in found), (result.label, found)
        # Drawn at the top of each row that names it (the row's words, the page's pixels).
        rows_naming = [(p, top) for p, top, words in rows if f" {result.label} " in f" {' '.join(words)} "]
        assert rows_naming
        for page, top in rows_naming:
            assert any(s.page == page and abs(s.top - top) <= 1 for s in found), (result.label, page, top, found)
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
        # The name, above the row's weapons.
        details = min(w["top"] for w in page.extract_words() if w["text"] == "Weapons:" and w["top"] > top)
        name = [c for c in page.chars if top - 1 <= c["top"] < details - 1 and unit_left <= c["x0"] < unit_right]
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
    army_list = army(user, MAX_PRINTED_ENTRIES, long_name=True)
    data = sheet(army_list, paper)
    dpi = 50
    inset = round((MARGIN - 4) * dpi / 72)
    for image in page_images(data, dpi=dpi):
        width, height = image.size
        grey = image.convert("L")
        for box in ((0, 0, width, inset), (0, height - inset, width, height), (0, 0, inset, height)):
            assert grey.crop(box).getextrema()[0] > 250, box
        assert grey.crop((width - inset, 0, width, height)).getextrema()[0] > 250


def test_a_list_of_the_most_entries_printed_goes_on_to_more_pages_with_the_head_row_on_each(user):
    army_list = army(user, MAX_PRINTED_ENTRIES)
    data = sheet(army_list)
    rows = table_rows(data)
    assert [int(words[0]) for _page, _top, words in rows] == list(range(1, MAX_PRINTED_ENTRIES + 1))
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


# -- lists of official books -----------------------------------------------------------
ARMYFORGE = SHARED / "armyforge"
HEROES = {  # (a hero to join to the first unit of several models, the book's casters)
    "aof--wood-elves.json": ("Grove Champion", ("Yrana", "Forest Ancient")),
    "aof--ratmen.json": ("Champion", ("Brother Hepalit",)),
    "3.5.3/aof--ratmen.json": ("Champion", ("Brother Hepalit",)),
    "aof--chivalrous-kingdoms.json": ("High Champion", ()),
}


def official_list(owner, book: str, points: int):
    """A list of an official Army Forge book of about `points`: the hero joined to the
    book's first unit of several models, its casters, then the book's other units in turn,
    each with the first upgrade it offers, while they fit under `points`."""
    imported = book_import(data=require_shared(ARMYFORGE / book).read_bytes(), system="aof")
    engine_book, ruleset = engine_book_get(system="aof", slug=imported.faction.slug)
    by_name = {unit.name: unit for unit in engine_book.units.values()}
    hero, casters = HEROES[book]
    troop = next(unit for unit in engine_book.units.values() if unit.size > 1)
    entries = [
        {"id": "e1", "unit": troop.id, "options": {}},
        {"id": "e2", "unit": by_name[hero].id, "joined_to": "e1"},
        *({"id": f"c{n}", "unit": by_name[name].id} for n, name in enumerate(casters)),
    ]
    others = [u for u in engine_book.units.values() if u.name not in (hero, *casters) and u.id != troop.id]

    def total(entries) -> int:
        body = {"format": "armylist/1", "system": "aof", "faction": imported.faction.slug, "entries": entries}
        return validate_list(engine_book, ruleset, list_from_dict(body | {"points_limit": points})).total_points

    for unit in others * 4:
        option = next(iter(unit.options), None)
        entry = {"id": f"e{len(entries) + 1}", "unit": unit.id, "options": {option: 1} if option else {}}
        if total([*entries, entry]) <= points:
            entries.append(entry)
    body = {
        "format": "armylist/1",
        "name": f"{imported.faction.name} at {points}",
        "system": "aof",
        "faction": imported.faction.slug,
        "points_limit": points,
        "entries": entries,
    }
    return make_list(owner, body)


def sizes(data: bytes) -> set[float]:
    """The size of every character drawn, in points."""
    with pdfplumber.open(io.BytesIO(data)) as document:
        return {round(char["size"], 2) for page in document.pages for char in page.chars if char["text"].strip()}


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("book", ["aof--wood-elves.json", "aof--ratmen.json"])
def test_2000_points_of_an_official_book_fit_one_page_at_7_pt_or_more(user, book, paper):
    army_list = official_list(user, book, 2000)
    validation = selectors.army_list_load(army_list).validation
    assert validation.total_points > 1900 and len(validation.entries) >= 12
    data = sheet(army_list, paper)
    assert len(PdfReader(io.BytesIO(data)).pages) == 1
    assert min(sizes(data)) >= 7
    assert [str(u) for u in unreadable(data)] == []
    assert len(table_rows(data)) == len(validation.entries)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_4000_points_of_an_official_book_fit_two_pages(user, paper):
    army_list = official_list(user, "aof--wood-elves.json", 4000)
    validation = selectors.army_list_load(army_list).validation
    assert validation.total_points > 3900
    data = sheet(army_list, paper)
    assert len(PdfReader(io.BytesIO(data)).pages) <= 2
    assert min(sizes(data)) >= 7
    assert [str(u) for u in unreadable(data)] == []
    assert len(table_rows(data)) == len(validation.entries)


@pytest.mark.parametrize("book", ["aof--wood-elves.json", "aof--ratmen.json"])
def test_each_unit_shows_its_weapons_as_army_forge_labels_them_its_rules_and_upgrades(user, book):
    """Under each unit's name, in its row: "Weapons:" and each weapon's label (count,
    name, range, attacks, rules: the labels tests/armyforge/test_labels.py holds to Army
    Forge's), then its special rules and the upgrades taken."""
    army_list = official_list(user, book, 2000)
    validation = selectors.army_list_load(army_list).validation
    (text,) = [flat(page) for page in pages(sheet(army_list))]
    at = 0
    upgraded = 0
    for result in validation.in_print_order:
        at = text.index(f" {result.label} ", at)
        weapons = ", ".join(weapon_text(weapon) for weapon in result.loadout.weapons)
        rules = ", ".join(str(rule) for rule in result.loadout.rules)
        shown = f"Weapons: {weapons} · Rules: {rules}"
        assert 0 <= text.find(shown, at) - at < 80, (result.label, shown, text[at : at + 300])  # under its name
        at = text.index(shown, at) + len(shown)
        if result.loadout.upgrades:
            following = text.find("Weapons: ", at)
            assert 0 <= text.find(" · Upgrades: ", at) < (following if following >= 0 else len(text)), result.label
            upgraded += 1
    assert upgraded >= 5


def test_the_spells_are_printed_once_at_the_foot_naming_the_casters(user):
    army_list = official_list(user, "aof--wood-elves.json", 2000)
    data = sheet(army_list)
    spells = json.loads(require_shared(ARMYFORGE / "aof--wood-elves.json").read_text())["spells"]
    rows = table_rows(data)
    with pdfplumber.open(io.BytesIO(data)) as document:
        page = document.pages[0]
        text = flat(page.extract_text())
        words = page.extract_words()
    assert text.count("Spells ") == 1
    assert "Spells Cast by Yrana (Caster(2)), Forest Ancient (Caster(4))" in text
    heading = next(w for w in words if w["text"] == "Spells")
    assert heading["top"] > max(top for _page, top, _words in rows)  # under the last unit
    for spell in spells:
        assert text.count(f"{spell['name']} ({spell['threshold']}):") == 1, spell["name"]


def test_a_joined_hero_is_printed_under_its_unit_with_its_own_weapons(user):
    army_list = official_list(user, "aof--wood-elves.json", 2000)
    validation = selectors.army_list_load(army_list).validation
    data = sheet(army_list)
    rows = table_rows(data)
    (hero,) = [result for result in validation.entries if result.entry.id == "e2"]
    (unit,) = [result for result in validation.entries if result.entry.id == "e1"]
    assert " ".join(rows[0][2]).startswith(f"1 {unit.label} ")
    assert " ".join(rows[1][2]).startswith(f"2 ↳ {hero.label} · joined to {unit.label} ")
    with pdfplumber.open(io.BytesIO(data)) as document:
        page = document.pages[0]
        lines = page.extract_text_lines()
    # Between the hero's row and the next: the hero's weapons.
    between = flat(" ".join(line["text"] for line in lines if rows[1][1] + 2 < line["top"] < rows[2][1] - 1))
    hero_weapons = ", ".join(weapon_text(weapon) for weapon in hero.loadout.weapons)
    assert between.startswith(f"Weapons: {hero_weapons} · Rules: ")
