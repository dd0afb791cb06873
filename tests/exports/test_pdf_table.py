"""Printouts a player can play from alone (issue 24, "correct at the table"): cards that
say which model has what, every rule named explained once, cards that use their space,
and cards with boxes to tick in play. Read off the drawn pages: the text inside each
card's frame, the sizes its characters are drawn at, the boxes drawn."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pdfplumber
import pytest

from armybuilder.armyforge.books.imports import book_import
from factions.selectors import engine_book_get
from tests.conftest import SHARED, require_shared
from tests.exports.test_pdf import card_boxes, card_texts, flat, make_list, pages, render
from tests.support.pdf_pixels import page_images

ARMYFORGE = SHARED / "armyforge"
KEEP = os.environ.get("ARMYBUILDER_KEEP_PDFS")  # a folder: the tests leave their PDFs there to look at


def keep(name: str, data: bytes) -> bytes:
    if KEEP:
        Path(KEEP, name).write_bytes(data)
    return data


def import_armyforge(name: str) -> str:
    system = name.split("--", 1)[0]
    result = book_import(data=require_shared(ARMYFORGE / name).read_bytes(), system=system)
    return result.faction.slug


def army(user, system: str, faction: str, entries: list[dict], *, name: str = "Table Test", points: int = 2000):
    body = {
        "format": "armylist/1",
        "name": name,
        "system": system,
        "faction": faction,
        "points_limit": points,
        "entries": entries,
    }
    return make_list(user, body)


@pytest.fixture
def ratmen(user):
    """Ten Ratmen Warriors, one of them a Weapon Team (Tough(3)), and a second unit of
    Warriors with a Sergeant."""
    faction = import_armyforge("aof--ratmen.json")
    return army(
        user,
        "aof",
        faction,
        [
            {"id": "w1", "unit": "BUbrjeh", "options": {"qflnR": 1}},
            {"id": "w2", "unit": "BUbrjeh", "options": {"zoMovLL": 1}},
        ],
    )


def stat_boxes(data: bytes) -> list[dict[str, str]]:
    """The stat boxes of each card, {label: value}, read off the page: a stat box is a
    filled and stroked rectangle, its label the small text at its top, its value below."""
    found = []
    with pdfplumber.open(io.BytesIO(data)) as document:
        for page in document.pages:
            for x, y, w, h in card_boxes(page):
                top = page.height - y - h
                inside = [
                    r
                    for r in page.rects
                    if r["fill"]
                    and r["stroke"]
                    and x <= r["x0"]
                    and r["x1"] <= x + w
                    and top <= r["top"]
                    and r["bottom"] <= top + h
                    and r["height"] > 12
                ]
                boxes = {}
                for r in inside:
                    words = page.within_bbox((r["x0"], r["top"], r["x1"], r["bottom"] + 1)).extract_words()
                    if len(words) >= 2:
                        boxes[words[0]["text"]] = words[-1]["text"]
                found.append(boxes)
    return found


# -- 6. cards say which model has what -------------------------------------------------------
def test_ten_warriors_with_one_weapon_team_read_as_twelve_wounds_not_thirty(ratmen):
    data = keep("ratmen-cards.pdf", render(ratmen, "cards.pdf"))
    team, sergeant = [flat(text) for text in card_texts(data)]
    boxes = stat_boxes(data)[0]
    assert boxes.get("Models") == "10"
    assert "Tough" not in boxes  # not a unit-wide Tough(3) beside ten models
    assert "1 model (Weapon Team): Tough(3)" in team
    assert not re.search(r"Rules: [^:]*Tough", team)
    assert "1× Heavy Drill" in team and "9× Hand Weapon" in team
    assert "1 model: Sergeant" in sergeant


# -- 7. every rule named is explained once -----------------------------------------------------
@pytest.fixture
def wood_elves(user):
    """A Treeman Elder with Hit & Run Shooter Aura (from the Branch Master), and Yrana, a
    Caster whose spells name Quick Shot, Resistance and Pierce."""
    faction = import_armyforge("aof--wood-elves.json")
    return army(
        user,
        "aof",
        faction,
        [{"id": "t", "unit": "af._ugzUsY", "options": {"EloTGOea": 1}}, {"id": "y", "unit": "7T7GYqY"}],
    )


def column_text(data: bytes) -> str:
    """The list's part of a reference (the last page is the quick reference), read column
    by column as a player reads it."""
    columns = []
    with pdfplumber.open(io.BytesIO(data)) as document:
        for page in document.pages[:-1]:
            half = page.width / 2
            columns += [page.crop((0, 0, half, page.height)), page.crop((half, 0, page.width, page.height))]
        return flat(" ".join(column.extract_text() or "" for column in columns))


def reference_rules(data: bytes) -> dict[str, str]:
    """The list's part of a reference, {heading: what follows it}: a heading is a run of
    bold characters at the start of a paragraph."""
    from armybuilder.exports.pdf_reference import LIST_SIZES
    from tests.exports.test_pdf import bold_headings

    text = column_text(data)
    size = next(size for size in LIST_SIZES if bold_headings(data, size))  # the list's part is set at one size
    headings = bold_headings(data, size)
    found = {}
    for heading in headings:
        start = text.find(heading)
        assert start >= 0, heading
        found[heading] = text[start + len(heading) : start + len(heading) + 200]
    return found


WOOD_ELF_RULES = ("Hit & Run Shooter Aura", "Hit & Run Shooter", "Quick Shot", "Resistance", "Pierce")


def reference_groups(data: bytes) -> dict[str, str]:
    """The list's part of a reference by group, {group title: the text under it}: the army
    book's rules, the core rules it is written for (Army Forge's), the ruleset's, and those
    nothing explains (engine/meanings.py), each under a title that says where it is read."""
    text = column_text(data)
    titles = re.findall(
        r"Army rules · [^·]+? \d[\w.+]*|\w[\w:' ]* core rules \(Army Forge[^)]*\)|Core rules · [^·]+? \d[\w.]*"
        r"|Rules without a text",
        text,
    )
    starts = [text.index(title) for title in titles]
    return {
        title: text[start + len(title) : (starts[i + 1] if i + 1 < len(starts) else len(text))]
        for i, (title, start) in enumerate(zip(titles, starts, strict=True))
    }


def test_the_reference_explains_the_rule_an_aura_gives_and_those_spells_name(wood_elves):
    data = keep("wood-elves-reference.pdf", render(wood_elves, "reference.pdf"))
    rules = reference_rules(data)
    groups = reference_groups(data)
    # The book words some core rules itself (Tough): those are Army Forge's, as the book gives them.
    assert list(groups) == [
        "Army rules · Wood Elves 3.5.2",
        "Age of Fantasy core rules (Army Forge)",
        "Core rules · Age of Fantasy 3.2.0",
        "Rules without a text",  # Bane: no core rules of Army Forge's were held at the import
    ]
    assert "Tough(3) This model must take X wounds" in groups["Age of Fantasy core rules (Army Forge)"]
    for name in WOOD_ELF_RULES:
        assert name in rules, name
        assert any(name in under for under in groups.values()), name  # under where it is read
    assert "Hit & Run Shooter Once per round" in groups["Army rules · Wood Elves 3.5.2"]  # the book's own text


def test_cards_with_rules_explain_what_their_auras_and_spells_lead_to(wood_elves):
    """In the glossary after the cards: the rule an aura gives and the rules the spells of
    a caster name, each once."""
    data = keep("wood-elves-cards-rules.pdf", render(wood_elves, "cards.pdf", rules=1))
    text = flat(" ".join(pages(data)))
    glossary = text[text.index("Glossary · what the rules and spells do") :]
    assert glossary.count("Hit & Run Shooter Aura This model and its unit get Hit & Run Shooter.") == 1
    assert glossary.count("Hit & Run Shooter Once per round") == 1
    for name in ("Quick Shot", "Resistance", "Pierce"):
        assert re.search(rf"(^| ){re.escape(name)} [A-Z]", glossary), name


def test_the_rules_a_casters_spells_give_are_explained_from_the_book(user):
    """Ratmen spells give Scurry Boost and Melee Slayer; the book has their text."""
    faction = import_armyforge("aof--ratmen.json")
    army_list = army(user, "aof", faction, [{"id": "b", "unit": "YCqSF5j"}])  # Brother Hepalit, a Caster
    rules = reference_rules(keep("ratmen-reference.pdf", render(army_list, "reference.pdf")))
    assert rules["Scurry Boost"].startswith(" If this model has Scurry")
    assert rules["Melee Slayer"].startswith(" This model's melee weapons")
    assert (
        "Melee Slayer This model's melee weapons"
        in reference_groups(render(army_list, "reference.pdf"))["Army rules · Ratmen 3.5.2"]
    )
    printout = flat(" ".join(pages(render(army_list, "cards.pdf", rules=1))))
    assert printout.count("Melee Slayer This model's melee weapons") == 1  # in the glossary


def test_a_rule_nothing_explains_is_named_once_and_says_so_once(wood_elves):
    """The Wood Elves' Bane is in neither their book nor our rulebook (3.2.0), and no core
    rules of Army Forge's were held when the book was imported."""
    from armybuilder.engine.meanings import NO_TEXT
    from factions.models import CoreRule

    assert not CoreRule.objects.filter(ruleset__slug="aof", name="Bane").exists()
    data = render(wood_elves, "reference.pdf")
    rules = reference_rules(data)
    assert rules["Bane"].startswith(" " + NO_TEXT[:40])
    assert "Bane" in reference_groups(data)["Rules without a text"]
    text = flat(" ".join(pages(data)))
    assert "Bane Bane" not in text and "Bane:" not in text
    assert text.count(NO_TEXT[:40]) == 1
    printout = flat(" ".join(pages(render(wood_elves, "cards.pdf", rules=1))))
    assert printout.count("Bane " + NO_TEXT[:30]) == 1 and printout.count(NO_TEXT[:40]) == 1


# -- 11. cards with trackers ------------------------------------------------------------------
def tracker_boxes(data: bytes) -> list[dict[str, int]]:
    """The boxes to tick on each card, {tracker: boxes}, read off the page: a box is a
    small stroked, unfilled square, and belongs to the bold label on its line (or the
    line above, when the boxes wrap)."""
    found = []
    with pdfplumber.open(io.BytesIO(data)) as document:
        for page in document.pages:
            for x, y, w, h in card_boxes(page):
                top = page.height - y - h
                squares = [
                    r
                    for r in page.rects
                    if r["stroke"]
                    and not r["fill"]
                    and abs(r["width"] - r["height"]) < 0.1
                    and r["width"] < 16
                    and x <= r["x0"] <= x + w
                    and top <= r["top"] <= top + h
                ]
                lines: dict[float, list] = {}
                for square in squares:
                    lines.setdefault(round(square["top"], 1), []).append(square)
                counts: dict[str, int] = {}
                label = ""
                for line_top in sorted(lines):
                    first = min(s["x0"] for s in lines[line_top])
                    words = page.within_bbox((x, line_top - 2, first, line_top + 14)).extract_text().strip()
                    # A label too long to share the line stands above its boxes.
                    above = page.within_bbox((x, line_top - 12, x + w, line_top + 0.5)).extract_text().strip()
                    label = words or above.split("\n")[-1] or label
                    counts[label] = counts.get(label, 0) + len(lines[line_top])
                found.append(counts)
    return found


def tick_squares(data: bytes, layout: str = "sheet") -> list[list[dict]]:
    """The boxes to tick of each card, as drawn: stroked, unfilled squares that start in
    its frame; each also says whether it ends in it (`inside`)."""
    found = []
    with pdfplumber.open(io.BytesIO(data)) as document:
        for page in document.pages:
            for x, y, w, h in card_boxes(page, layout):
                top = page.height - y - h
                found.append(
                    [
                        {**r, "inside": r["x1"] <= x + w and r["bottom"] <= top + h}
                        for r in page.rects
                        if r["stroke"]
                        and not r["fill"]
                        and abs(r["width"] - r["height"]) < 0.1
                        and r["width"] < 16
                        and x <= r["x0"] <= x + w
                        and top <= r["top"] <= top + h
                    ]
                )
    return found


FOUR_MM, ONE_MM = 11.34, 2.83  # points


@pytest.mark.parametrize("layout", ["sheet", "poker"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_boxes_to_tick_are_4_mm_wide_and_1_mm_apart_on_every_card_and_paper(ratmen, layout, paper):
    data = render(ratmen, "cards.pdf", trackers=1, layout=layout, paper=paper)
    keep(f"ratmen-trackers-{layout}-{paper}.pdf", data)
    squares = [square for card in tick_squares(data, layout) for square in card]
    assert len(squares) == 12 + 2 + 10 + 2
    for square in squares:
        assert square["inside"], square  # in its card's frame
        clear = square["width"] - square["linewidth"]  # inside the drawn line
        assert clear >= FOUR_MM and square["height"] - square["linewidth"] >= FOUR_MM, square
    for a in squares:
        for b in squares:
            if a is b:
                continue
            beside = a["top"] < b["bottom"] and b["top"] < a["bottom"]
            above = a["x0"] < b["x1"] and b["x0"] < a["x1"]
            assert not (beside and above), (a, b)  # no two overlap
            if beside and b["x0"] >= a["x1"]:
                assert b["x0"] - a["x1"] - a["linewidth"] >= ONE_MM
            if above and b["top"] >= a["bottom"]:
                assert b["top"] - a["bottom"] - a["linewidth"] >= ONE_MM


def test_each_unit_of_a_combined_card_has_its_own_row_of_boxes(user, make_aof_book):
    from tests.exports.test_pdf import wardens_list

    entries = [{"id": name, "unit": "wardens", "options": {"TROOPS-1a": 1}} for name in "abcd"]
    entries.append({"id": "e", "unit": "wardens", "options": {}})
    army_list = wardens_list(user, make_aof_book, entries=entries, points_limit=3000)  # four copies allowed
    data = keep("wardens-combined-trackers.pdf", render(army_list, "cards.pdf", combine=1, trackers=1))
    texts = [flat(text) for text in card_texts(data)]
    assert texts[0].startswith("4× Wardens") and not texts[1].startswith("4×")
    combined = texts[0]
    headings = [combined.index(f"Unit {n} of 4") for n in range(1, 5)]
    assert headings == sorted(headings)  # one after another
    # Under each heading its own Wounds, Shaken and Activated boxes.
    for start, end in zip(headings, [*headings[1:], len(combined)], strict=True):
        block = combined[start:end]
        assert block.count("Shaken") == 1 and block.count("Activated") == 1 and block.count("Wounds") == 1
    (four, one) = tracker_boxes(data)
    models = one["Wounds"]
    assert four == {"Wounds": 4 * models, "Shaken": 4, "Activated": 4}
    box_lines = {round(r["top"]) for r in tick_squares(data)[0]}
    assert len(box_lines) >= 3 * 4  # four units, each its wounds, Shaken and Activated lines
    assert one == {"Wounds": models, "Shaken": 1, "Activated": 1}


def test_tracker_cards_have_a_wound_box_per_tough_point_of_each_model(ratmen):
    data = keep("ratmen-trackers.pdf", render(ratmen, "cards.pdf", trackers=1))
    team, sergeant = tracker_boxes(data)
    assert team == {"Wounds": 12, "Shaken": 1, "Activated": 1}  # nine of one wound, one of three
    assert sergeant == {"Wounds": 10, "Shaken": 1, "Activated": 1}
    assert tracker_boxes(render(ratmen, "cards.pdf")) == [{}, {}]  # none without ?trackers=1


def test_a_caster_has_six_spell_token_pips_and_a_hero_its_tough_in_wounds(wood_elves):
    data = keep("wood-elves-trackers.pdf", render(wood_elves, "cards.pdf", trackers=1, layout="poker"))
    text = flat(" ".join(card_texts(data, "poker")))
    assert "Spell tokens (+2 a round, 6 at most)" in text
    boxes = tracker_boxes(render(wood_elves, "cards.pdf", trackers=1))
    treeman, yrana = boxes[:2]
    assert treeman["Wounds"] == 3 and yrana["Wounds"] == 3
    assert sum(n for label, n in yrana.items() if "Spell tokens" in label or "6 at most" in label) == 6


def test_an_arena_card_tracks_health_and_stamina(user, make_arena_book):
    book_import(data=make_arena_book())
    entries = [{"id": "e1", "unit": "boss"}]
    body = {"format": "armylist/1", "name": "Pit", "system": "aof-arena", "faction": "test-pit", "points_limit": None}
    army_list = make_list(user, {**body, "entries": entries})
    (boss,) = tracker_boxes(keep("arena-trackers.pdf", render(army_list, "cards.pdf", trackers=1)))
    assert boss == {"Health": 9, "Stamina": 4, "Shaken": 1, "Activated": 1}


# -- 9. cards use their space -------------------------------------------------------------------
def char_sizes(data: bytes) -> list[float]:
    with pdfplumber.open(io.BytesIO(data)) as document:
        return [round(char["size"], 1) for page in document.pages for char in page.chars if char["text"].strip()]


def test_poker_card_text_grows_to_the_largest_size_that_fits(ratmen):
    data = keep("ratmen-poker.pdf", render(ratmen, "cards.pdf", layout="poker"))
    sizes = char_sizes(data)
    body = [size for size in sizes if size > 6]  # all but stat labels, footer and the print note
    assert min(body) >= 8, sorted(set(sizes))
    assert sum(size <= 6 for size in sizes) / len(sizes) < 0.4
    assert len(card_texts(data, "poker")) == 2  # and no card continues


@pytest.fixture
def long_list(user):
    import json

    from tests.exports.test_pdf import DATA

    book_import(data=json.loads((DATA / "books" / "aof" / "human-empire.json").read_text()))
    body = json.loads((DATA / "lists" / "aof" / "human-empire-1500.json").read_text())
    entries = [{**entry, "id": f"{entry['id']}-{n}", "joined_to": None} for n in range(2) for entry in body["entries"]]
    return make_list(user, {**body, "entries": entries[:10]})


def test_sheet_cards_break_only_at_the_foot_of_a_page(long_list):
    data = keep("sheet-10.pdf", render(long_list, "cards.pdf"))
    texts = card_texts(data)
    continued = [text for text in texts if "(continued)" in text.split("\\n", 1)[0]]
    with pdfplumber.open(io.BytesIO(data)) as document:
        boxes = [box for page in document.pages for box in card_boxes(page)]
        last_page = len(document.pages)
    assert len(texts) - len(continued) == 10
    # A card continues only when the column it stands in is full: its first part ends at the page's foot.
    for i, text in enumerate(texts[1:], start=1):
        if "(continued)" in text.split("\\n", 1)[0]:
            x, y, w, h = boxes[i - 1]
            assert y < 24 + 10, (text[:40], y)
    assert last_page <= 3


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_poker_sheets_mark_every_cut_and_keep_notes_5_mm_from_the_edge(ratmen, paper):
    from reportlab.lib.units import mm

    from armybuilder.exports.pdf_cards import card_grid

    data = keep(f"ratmen-poker-{paper}.pdf", render(ratmen, "cards.pdf", layout="poker", paper=paper))
    grid = card_grid("poker", paper)
    left, bottom = grid.origin
    with pdfplumber.open(io.BytesIO(data)) as document:
        page = document.pages[0]
        right, top = left + 3 * grid.card[0], bottom + 3 * grid.card[1]
        marks = [  # in the margins, outside the cards
            line
            for line in page.lines
            if line["x1"] < left
            or line["x0"] > right
            or page.height - line["bottom"] > top
            or page.height - line["top"] < bottom
        ]
        vertical = {round(line["x0"], 1) for line in marks if abs(line["x0"] - line["x1"]) < 0.01}
        assert vertical == {round(left + i * grid.card[0], 1) for i in range(3)}  # two cards: three cuts
        horizontal = {round(page.height - line["top"], 1) for line in marks if abs(line["top"] - line["bottom"]) < 0.01}
        assert horizontal == {round(top - i * grid.card[1], 1) for i in range(2)}
        for char in page.chars:
            assert char["x0"] >= 5 * mm and char["x1"] <= page.width - 5 * mm
            assert char["top"] >= 5 * mm and char["bottom"] <= page.height - 5 * mm, char["text"]
    # and in the pixels: no ink within 5 mm of the paper's edge
    image = page_images(data, dpi=100)[0]
    edge = round(5 * 100 / 25.4) - 1
    width, height = image.size
    for box in (
        (0, 0, width, edge),
        (0, height - edge, width, height),
        (0, 0, edge, height),
        (width - edge, 0, width, height),
    ):
        assert image.crop(box).getextrema() == ((255, 255), (255, 255), (255, 255)), box


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_sheet_print_note_keeps_5_mm_from_the_edge(ratmen, paper):
    data = render(ratmen, "cards.pdf", paper=paper)
    image = page_images(data, dpi=100)[0]
    edge = round(5 * 100 / 25.4) - 1
    width, height = image.size
    assert image.crop((0, height - edge, width, height)).getextrema() == ((255, 255),) * 3
    assert "Print at 100%" in flat(pages(data)[0])


def test_each_card_names_the_book_and_rules_with_their_versions(ratmen, user):
    ratmen_cards = card_texts(render(ratmen, "cards.pdf"))
    assert all("Ratmen 3.5.2 · Age of Fantasy 3.2.0" in flat(text) for text in ratmen_cards)
    faction = import_armyforge("aof-skirmish--dwarves.json")
    book, _ruleset = engine_book_get(system="aof-skirmish", slug=faction)
    caster = next(u for u in book.units.values() if any("(Caster(" in o.label for _s, o in u.options.values()))
    option = next(o for _s, o in caster.options.values() if "(Caster(" in o.label)
    skirmish = army(
        user, "aof-skirmish", faction, [{"id": "c", "unit": caster.id, "options": {option.id: 1}}], points=500
    )
    (card,) = [flat(text) for text in card_texts(keep("skirmish-cards.pdf", render(skirmish, "cards.pdf")))]
    assert f"Dwarves {book.version} · Age of Fantasy: Skirmish" in card
    # One name per rule: the card's upgrades say the Wizard its rules print, not Army Forge's "Caster".
    assert "Caster(" not in card and "Wizard(" in card


# -- 9. roster issues name the unit once; running heads fit the page -------------------------------
@pytest.fixture
def hundred_entries(user):
    import json
    import sys

    from tests.exports.test_pdf import DATA

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from benchenv import bench_list

    book_import(data=json.loads((DATA / "books" / "aof" / "human-empire.json").read_text()))
    book, _ruleset = engine_book_get(system="aof", slug="human-empire")
    return make_list(user, bench_list(book, 100, name="Long " * 40))


def test_a_100_entry_roster_names_each_unit_once_per_issue(hundred_entries, user):
    from armybuilder.lists import selectors

    body = {
        "format": "armylist/1",
        "name": hundred_entries.name,
        "system": "aof",
        "faction": "human-empire",
        "points_limit": 15000,
    }
    marshal = hundred_entries.entries[0]  # a Marshal whose Sun-Forged Edge has no Knightly Blade to go on
    entries = [{"id": f"m{i}", "unit": marshal["unit"], "options": marshal["options"]} for i in range(100)]
    army_list = make_list(user, {**body, "entries": entries})
    validation = selectors.army_list_load(army_list).validation
    assert all(issue.entry for issue in validation.issues[:100])
    data = keep("roster-100-issues.pdf", render(army_list, "roster.pdf"))
    with pdfplumber.open(io.BytesIO(data)) as document:
        page = document.pages[0]
        notes_left = next(w for w in page.extract_words() if w["text"] == "Notes")["x0"]
        notes = flat(page.crop((notes_left - 1, 0, page.width - 40, page.height)).extract_text())
        rows = len([w for w in page.extract_words() if w["text"] == "Marshal" and w["x0"] < notes_left])
        count = len(document.pages)
        # The running head of a long name stays on the page.
        for later in document.pages[1:]:
            assert all(char["x1"] <= later.width - 36 + 0.5 for char in later.chars), "a running head runs off"
    assert "Marshal" not in notes, notes[:300]
    assert rows >= 10 and count <= 15, (rows, count)


def test_trackers_flow_through_the_api_like_rules_and_are_cached_apart(ratmen, client):
    client.force_login(ratmen.owner)
    url = f"/api/lists/{ratmen.pk}/export/cards.pdf"
    plain, tracked = client.get(url), client.get(url, {"trackers": "1"})
    assert plain.status_code == tracked.status_code == 200
    assert tracker_boxes(tracked.content)[0]["Wounds"] == 12
    assert tracker_boxes(plain.content) == [{}, {}]  # not the file cached for the other
    bad = client.get(url, {"trackers": "maybe"})
    assert bad.status_code == 400 and b'trackers must be 1 or 0, not "maybe"' in bad.content


def test_a_200_character_list_name_stays_on_every_page_and_keeps_the_page_number(user, make_aof_book):
    from tests.exports.test_pdf import wardens_list

    army_list = wardens_list(user, make_aof_book, name="Very long name " * 13 + "end")  # 200 characters
    assert len(army_list.name) >= 198
    for kind in ("reference.pdf", "roster.pdf", "cards.pdf"):
        data = render(army_list, kind)
        with pdfplumber.open(io.BytesIO(data)) as document:
            for page in document.pages:
                assert all(0 <= char["x0"] and char["x1"] <= page.width - 36 + 0.5 for char in page.chars), kind
        if kind == "reference.pdf":
            assert "· page 1" in flat(pages(data)[0])


def test_a_joined_caster_brings_its_stats_weapons_wounds_and_spells_to_its_units_card(user):
    import json

    from tests.exports.test_pdf import bundled_list

    army_list = bundled_list(user, "aof/human-empire-1500.json")
    body = json.loads(
        (Path(__file__).resolve().parents[2] / "factions/data/lists/aof/human-empire-1500.json").read_text()
    )
    magister = next(entry for entry in body["entries"] if entry["unit"] == "court-magister")
    data = keep("human-empire-joined.pdf", render(army_list, "cards.pdf", trackers=1))
    cards = [flat(text) for text in card_texts(data)]
    (card,) = [text for text in cards if "Joined hero: Court Magister" in text]
    assert not any(text.startswith("Court Magister") for text in cards)  # no card of its own
    assert "Quality 4+ · Defense 5+ · Tough 3" in card and "Runed Staff" in card
    assert "Spells: Caster(3) · 5 spells, glossary, page 2" in card  # printed once, after the cards
    assert magister["joined_to"]
    boxes = tracker_boxes(data)[cards.index(card)]
    assert boxes["Wounds"] == 20 + 3  # the unit's and the hero's (both counted under one label)
    assert boxes["Shaken"] == boxes["Activated"] == 1  # one unit on the table
    assert "Joined to:" not in card
