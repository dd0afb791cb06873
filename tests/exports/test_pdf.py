"""Printable PDFs (issue 7): unit cards, roster sheet, rules reference and the quick
reference of each ruleset, read back with pdfplumber and pypdf."""

import io
import itertools
import json
import re
from pathlib import Path

import pdfplumber
import pytest
from django.core.cache import cache
from pypdf import PdfReader

from armybuilder import downloads
from armybuilder.armyforge.books.imports import book_import
from armybuilder.exports import pdf, pdf_roster
from armybuilder.exports.pdf_cards import card_grid
from armybuilder.exports.pdf_data import rules_used
from armybuilder.exports.pdf_quickref import QUICK_REFERENCES
from armybuilder.lists import selectors
from armybuilder.lists.format import parse_list_body
from armybuilder.lists.services import army_list_create, army_list_update
from armybuilder.printouts import printout_get
from factions.models import Faction
from factions.selectors import book_handle_find
from tests.factions.test_core_rules import COPY_RUN, ngrams, words

DATA = Path(__file__).resolve().parents[2] / "factions" / "data"
ONE_LIST_PER_RULESET = [
    "aof/human-empire-1500.json",
    "aof-regiments/dwarf-holds-1000.json",
    "aof-skirmish/orc-raiders-250.json",
    "opf/free-cities-750.json",
    "aof-arena/orc-pitfighters-warband.json",
]


pytestmark = pytest.mark.usefixtures("fresh_caches")


def make_list(owner, body: dict):
    data, _handle = parse_list_body(body)
    return army_list_create(data=data, owner=owner)


def bundled_list(owner, name: str):
    body = json.loads((DATA / "lists" / name).read_text())
    book_import(data=json.loads((DATA / "books" / body["system"] / f"{body['faction']}.json").read_text()))
    return make_list(owner, body)


def wardens_list(owner, make_aof_book, **overrides):
    book_import(data=make_aof_book())
    body = {
        "format": "armylist/1",
        "name": "Border Patrol",
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 1500,
        "entries": [
            {"id": "e1", "unit": "warden-captain", "options": {"HERO-2a": 1}, "joined_to": "e2"},
            {"id": "e2", "unit": "wardens", "options": {"TROOPS-1a": 1}},
        ],
    }
    body.update(overrides)
    return make_list(owner, body)


def render(army_list, kind: str, **params) -> bytes:
    response = downloads.list_pdf_response(army_list, kind, {k: str(v) for k, v in params.items()})
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/pdf"
    return response.content


def pages(data: bytes) -> list[str]:
    with pdfplumber.open(io.BytesIO(data)) as document:
        return [page.extract_text() or "" for page in document.pages]


def flat(text: str) -> str:
    return " ".join(text.split())


def card_boxes(page, layout: str = "sheet") -> list[tuple[float, float, float, float]]:
    """(x, y, width, height) of every card drawn on a page, read off the page: a card's
    frame is its stroked, unfilled outline. In print order: sheet cards run down the
    left column, then the right; poker cards go row by row."""
    frames = [c for c in page.curves if c.get("stroke") and not c.get("fill") and c["x1"] - c["x0"] > 100]
    if layout == "poker":
        frames.sort(key=lambda c: (round(c["top"]), c["x0"]))
    else:
        frames.sort(key=lambda c: (round(c["x0"]), c["top"]))
    return [(c["x0"], page.height - c["bottom"], c["x1"] - c["x0"], c["bottom"] - c["top"]) for c in frames]


def card_texts(data: bytes, layout: str = "sheet", paper: str = "a4") -> list[str]:
    """The text of every card, in print order, each read from inside its frame."""
    texts = []
    with pdfplumber.open(io.BytesIO(data)) as document:
        for page in document.pages:
            for x, y, w, h in card_boxes(page, layout):
                text = page.within_bbox((x, page.height - y - h, x + w, page.height - y)).extract_text()
                if text.strip():
                    texts.append(text)
    return texts


# -- unit cards ----------------------------------------------------------------------------
@pytest.mark.parametrize("layout", ["sheet", "poker"])
@pytest.mark.parametrize("name", ONE_LIST_PER_RULESET)
def test_cards_show_every_entry_with_its_name_cost_and_weapons(user, name, layout):
    army_list = bundled_list(user, name)
    validation = selectors.army_list_load(army_list).validation
    cards = card_texts(render(army_list, "cards.pdf", layout=layout), layout)
    ids = {result.entry.id for result in validation.entries}
    joined = [r for r in validation.entries if r.entry.joined_to in ids and r.entry.joined_to != r.entry.id]
    assert len(cards) >= len(validation.entries) - len(joined)  # a joined hero is on its unit's card
    squashed = ["".join(text.split()) for text in cards]
    for result in validation.entries:
        # A hero joined to a unit is on that unit's card, after "Joined hero:".
        label = "".join(result.label.split())
        card = next((c for c in squashed if c.startswith(label) or f"Joinedhero:{label}" in c), None)
        assert card is not None, f"no card for {result.label}"
        if army_list.points_limit is not None:
            assert f"{result.cost}pts" in card
        for weapon in result.loadout.weapons:
            for word in weapon.name.split():  # a long weapon name may wrap within its cell
                assert word in card, f"{weapon.name} missing on the card of {result.label}"


def test_a_joined_hero_is_printed_on_the_card_of_the_unit_it_leads(user, make_aof_book):
    army_list = wardens_list(user, make_aof_book)
    (card,) = [flat(text) for text in card_texts(render(army_list, "cards.pdf"), "sheet")]
    assert card.startswith("Wardens") and "Joined hero: Warden Captain" in card


def test_combine_prints_one_card_per_distinct_unit_with_its_count(user, make_aof_book):
    entries = [
        {"id": "a", "unit": "wardens", "options": {"TROOPS-1a": 1}},
        {"id": "b", "unit": "wardens", "options": {"TROOPS-1a": 1}},
        {"id": "c", "unit": "wardens", "options": {}},
    ]
    army_list = wardens_list(user, make_aof_book, entries=entries)
    separate = [flat(t) for t in card_texts(render(army_list, "cards.pdf"), "sheet")]
    combined = [flat(t) for t in card_texts(render(army_list, "cards.pdf", combine=1), "sheet")]
    assert [card.split(" pts")[0] for card in separate] == ["Wardens 115", "Wardens 115", "Wardens 110"]
    assert [card.split(" pts")[0] for card in combined] == ["2× Wardens 115", "Wardens 110"]
    assert "115 pts each" in combined[0]


def test_a_captain_on_a_griffon_shows_tough_9_on_its_card(user):
    body = {
        "format": "armylist/1",
        "name": "Sky Captain",
        "system": "opf",
        "faction": "free-cities",
        "points_limit": 750,
        "entries": [{"id": "e1", "unit": "guild-captain", "options": {"FB1c": 1}}],
    }
    book_import(data=json.loads((DATA / "books" / "opf" / "free-cities.json").read_text()))
    army_list = make_list(user, body)
    (card,) = card_texts(render(army_list, "cards.pdf"), "sheet")
    assert "Tough(9)" in card
    assert "Tough(3)" not in card
    assert re.search(r"Tough\s+(\S+\s+)*9\b", card)  # the stat box
    assert "Griffon Claws" in card


def test_an_arena_card_shows_the_arena_stats_and_weapon_profile(user, make_arena_book):
    book_import(data=make_arena_book())
    body = {
        "format": "armylist/1",
        "name": "Pit Crew",
        "system": "aof-arena",
        "faction": "test-pit",
        "points_limit": None,
        "entries": [{"id": "e1", "unit": "boss"}, {"id": "e2", "unit": "thug"}, {"id": "e3", "unit": "thug"}],
    }
    army_list = make_list(user, body)
    boss = flat(card_texts(render(army_list, "cards.pdf"), "sheet")[0])
    for label in ("Move/Rush", "Evasion", "Toughness", "Stamina", "Health"):
        assert label in boss
    assert "3/5 3 3 4 9" in boss  # move/rush, evasion, toughness, stamina, health
    for column in ("Range", "Acc", "Str", "Dmg", "Critical"):
        assert column in boss
    assert "Rusted Blade 1 4 3 2 +1 damage" in boss  # range, accuracy, strength, damage, critical
    assert "pts" not in boss


def test_a_unit_the_book_no_longer_has_still_gets_a_card(user, make_aof_book):
    army_list = wardens_list(user, make_aof_book)
    book = make_aof_book()
    book["version"] = "2.0.0"
    del book["units"][1]
    book["packages"][1]["sections"][1]["options"][0].pop("costs")
    book_import(data=book)
    # Moved to that version as it is (PUT naming it): its Wardens are unknown there.
    data, _handle = parse_list_body({**army_list.as_armylist(), "book_version": "2.0.0"})
    army_list = army_list_update(army_list=army_list, data=data, based_on=army_list.version)
    cards = [flat(t) for t in card_texts(render(army_list, "cards.pdf"), "sheet")]
    assert any(card.startswith("wardens") and "Not in the Test Wardens army book" in card for card in cards)


# -- roster --------------------------------------------------------------------------------
def test_the_roster_shows_the_list_its_total_and_every_issue(user, make_aof_book):
    entries = [{"id": f"h{i}", "unit": "warden-captain"} for i in range(3)]
    entries.append({"id": "w", "unit": "wardens", "options": {"TROOPS-1a": 2}})
    army_list = wardens_list(user, make_aof_book, points_limit=300, entries=entries)
    validation = selectors.army_list_load(army_list).validation
    assert len({issue.code for issue in validation.issues}) >= 3
    text = flat(" ".join(pages(render(army_list, "roster.pdf"))))
    assert "Border Patrol" in text
    assert "Age of Fantasy 3.2.0 · Test Wardens · army book 1.0.0" in text
    assert f"{validation.total_points} / 300 pts" in text
    assert "Not legal:" in text
    for issue in validation.issues:
        assert issue.message[1:] in text  # as a sentence (a capital first)
        assert issue.code not in text  # codes are for programs, not for the table
    for result in validation.entries:
        assert result.label in text


def test_the_roster_qr_code_holds_the_share_link(user, make_aof_book, monkeypatch):
    encoded = []
    real = pdf_roster.QrCodeWidget

    def spy(value, **kwargs):
        encoded.append(value)
        return real(value, **kwargs)

    monkeypatch.setattr(pdf_roster, "QrCodeWidget", spy)
    army_list = wardens_list(user, make_aof_book)
    url = f"http://testserver/s/{army_list.share_key}/"
    data = render(army_list, "roster.pdf", base_url="http://testserver")
    assert encoded == [url]
    assert "".join(url.split()) in "".join(pages(data)[0].split())  # printed under the code too
    with pdfplumber.open(io.BytesIO(data)) as document:
        assert len(document.pages[0].rects) > 100  # the code's modules


def test_a_share_link_for_another_site_is_refused(user, make_aof_book):
    army_list = wardens_list(user, make_aof_book)
    response = downloads.list_pdf_response(army_list, "roster.pdf", {"base_url": "https://phish.example"})
    assert response.status_code == 400


def test_the_roster_charts_points_by_unit_type(user, make_aof_book):
    text = flat(pages(render(wardens_list(user, make_aof_book), "roster.pdf"))[0])
    assert "Points by unit type" in text
    assert "Infantry 115 pts (56%)" in text
    assert "Hero 90 pts (44%)" in text


def test_a_list_whose_book_is_gone_still_prints_its_roster(user, make_aof_book):
    army_list = wardens_list(user, make_aof_book)
    Faction.objects.filter(slug="test-wardens").delete()
    text = flat(pages(render(army_list, "roster.pdf"))[0])
    assert 'Error: The army book "test-wardens" is no longer in the catalogue of Age of Fantasy 3.2.0.' in text


# -- rules reference -----------------------------------------------------------------------
def bold_headings(data: bytes, size: float = 8.5) -> list[str]:
    """Runs of bold text at body size on every page but the quick reference (the last)."""
    runs: list[str] = []
    with pdfplumber.open(io.BytesIO(data)) as document:
        for page in document.pages[:-1]:
            current, top = "", None
            for char in page.chars:
                bold = "Bold" in char["fontname"] and abs(char["size"] - size) < 0.1
                if bold and (top is None or abs(char["top"] - top) < 1):
                    current += char["text"]
                    top = char["top"]
                    continue
                if current.strip():
                    runs.append(current.strip())
                current, top = (char["text"], char["top"]) if bold else ("", None)
            if current.strip():
                runs.append(current.strip())
    return runs


def test_the_reference_has_exactly_the_rules_and_spells_the_list_uses(user, make_aof_book):
    army_list = wardens_list(user, make_aof_book)
    headings = bold_headings(render(army_list, "reference.pdf"))
    # As Army Forge groups them: the army's own rules, the spells, then the core rules, each
    # group alphabetical.
    rules = ["Caster(1)", "Counter", "Fast", "Hero", "Impact(1)", "Sergeant", "Tough(3)"]
    assert headings == ["Shieldbrothers", "Spark (1)", *rules]
    text = flat(" ".join(pages(render(army_list, "reference.pdf"))))
    assert "Test rule text." in text and "Test spell text." in text
    assert "Army rules · Test Wardens 1.0.0" in text  # where a faction rule is explained, in which version
    assert "Core rules · Age of Fantasy 3.2.0" in text
    assert "Age of Fantasy 3.2.0 — Special Rules" in text  # where a core rule is


def test_a_list_without_casters_prints_no_spells(user, make_aof_book):
    army_list = wardens_list(user, make_aof_book, entries=[{"id": "w", "unit": "wardens"}])
    # Impact too: the summary of Counter names it.
    assert bold_headings(render(army_list, "reference.pdf")) == ["Shieldbrothers", "Counter", "Impact"]


def test_a_rated_rule_is_listed_once_with_every_rating_used(user):
    body = {
        "format": "armylist/1",
        "name": "Two Captains",
        "system": "opf",
        "faction": "free-cities",
        "points_limit": 750,
        "entries": [
            {"id": "e1", "unit": "guild-captain", "options": {"FB1c": 1}},
            {"id": "e2", "unit": "guild-arcanist"},
        ],
    }
    book_import(data=json.loads((DATA / "books" / "opf" / "free-cities.json").read_text()))
    headings = bold_headings(render(make_list(user, body), "reference.pdf"))
    assert [h for h in headings if h.startswith("Tough")] == ["Tough(3, 9)"]
    assert "Wizard(1)" in headings
    rules = [h for h in headings if not re.search(r" \(\d+\)$", h)]  # spells end in " (cost)"
    assert rules == sorted(rules, key=str.casefold)


def test_rules_used_collects_unit_and_weapon_rules_with_their_ratings(user, make_aof_book):
    validation = selectors.army_list_load(wardens_list(user, make_aof_book)).validation
    assert rules_used(validation) == {
        "Caster": ["1"],
        "Counter": [],
        "Fast": [],
        "Hero": [],
        "Impact": ["1"],
        "Sergeant": [],
        "Shieldbrothers": [],
        "Tough": ["3"],
    }


def test_the_list_reference_ends_with_the_rulesets_quick_reference(user, make_aof_book):
    last = flat(pages(render(wardens_list(user, make_aof_book), "reference.pdf"))[-1])
    assert last.startswith("Age of Fantasy 3.2.0 — quick reference")
    assert "Rulebook: Activating Units" in last


@pytest.mark.parametrize("system", list(QUICK_REFERENCES))
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_each_ruleset_has_a_one_page_quick_reference(client, db, system, paper):
    response = client.get(f"/rules/{system}/reference.pdf", {"paper": paper})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == f'attachment; filename="{system}-quick-reference.pdf"'
    (text,) = pages(response.content)
    text = flat(text)
    for topic in QUICK_REFERENCES[system].topics:
        assert topic.title in text
        assert "Rulebook: " + topic.sections[0] in text


def test_an_unknown_ruleset_has_no_quick_reference(client, db):
    assert client.get("/rules/warhammer/reference.pdf").status_code == 404


def test_the_quick_references_are_in_our_own_words(rulebook_ngrams):
    for system, reference in QUICK_REFERENCES.items():
        for text in [reference.intro, *(point for topic in reference.topics for point in topic.points)]:
            copied = ngrams(words(text), COPY_RUN) & rulebook_ngrams
            assert not copied, f"{system}: {' '.join(min(copied))}"


def test_the_quick_references_cite_sections_the_rulebooks_have():
    from tests.conftest import require_shared
    from tests.factions.test_core_rules import RULEBOOK_FILES, RULEBOOKS_DIR

    for system, reference in QUICK_REFERENCES.items():
        path = require_shared(RULEBOOKS_DIR / RULEBOOK_FILES[system])
        book = path.read_text(encoding="utf-8")
        for topic in reference.topics:
            for section in topic.sections:
                assert section in book, f"{system}: no section {section!r}"


# -- the files: served, named, cached ------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "title"),
    [("cards.pdf", "unit cards"), ("roster.pdf", "roster"), ("reference.pdf", "rules reference")],
)
def test_pdf_exports_are_served_by_the_api_with_a_file_name_and_metadata(user, make_aof_book, kind, title):
    from rest_framework.test import APIClient

    army_list = wardens_list(user, make_aof_book, name="Border Patrol: Nörth")
    client = APIClient()
    client.force_authenticate(user)
    for path in (f"/api/lists/{army_list.pk}/export/{kind}", f"/api/shared/{army_list.share_key}/export/{kind}"):
        response = client.get(path)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/pdf"
        suffix = {"cards.pdf": "cards", "roster.pdf": "roster", "reference.pdf": "rules"}[kind]
        assert response["Content-Disposition"] == (
            f'attachment; filename="Border-Patrol-North-{suffix}.pdf"; '
            f"filename*=UTF-8''Border-Patrol-N%C3%B6rth-{suffix}.pdf"
        )
        metadata = PdfReader(io.BytesIO(response.content)).metadata
        assert metadata.title == f"Border Patrol: Nörth — {title}"
        assert metadata.author == "Armybuilder"
        assert metadata.subject == "Age of Fantasy 3.2.0 · Test Wardens"


@pytest.mark.parametrize("kind", pdf.PDF_KINDS)
def test_every_font_is_embedded(user, make_aof_book, kind):
    reader = PdfReader(io.BytesIO(render(wardens_list(user, make_aof_book), kind)))
    fonts = {}
    for page in reader.pages:
        for font in page["/Resources"].get("/Font", {}).values():
            font = font.get_object()
            fonts[font["/BaseFont"]] = font
    assert fonts
    for name, font in fonts.items():
        descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"] if "/DescendantFonts" in font else None
        descriptor = descriptor or font.get("/FontDescriptor")
        assert descriptor is not None, f"{name} is not embedded"
        assert "/FontFile2" in descriptor.get_object(), f"{name} is not embedded"


def test_paper_size_and_layout_follow_the_query(user, make_aof_book):
    army_list = wardens_list(user, make_aof_book)
    letter = PdfReader(io.BytesIO(render(army_list, "cards.pdf", paper="letter"))).pages[0].mediabox
    a4 = PdfReader(io.BytesIO(render(army_list, "roster.pdf"))).pages[0].mediabox
    assert (round(float(letter.width)), round(float(letter.height))) == (612, 792)
    assert (round(float(a4.width)), round(float(a4.height))) == (595, 842)


@pytest.mark.parametrize("params", [{"paper": "a3"}, {"layout": "tarot"}, {"combine": "maybe"}, {"trackers": "2"}])
def test_bad_print_options_are_a_400(user, make_aof_book, params):
    response = downloads.list_pdf_response(wardens_list(user, make_aof_book), "cards.pdf", params)
    assert response.status_code == 400


def test_a_second_download_is_served_from_the_cache_until_the_list_changes(user, make_aof_book, monkeypatch):
    calls = []
    real = pdf.render_list_pdf
    monkeypatch.setattr(pdf, "render_list_pdf", lambda *args: calls.append(args[1]) or real(*args))
    army_list = wardens_list(user, make_aof_book)
    first = render(army_list, "cards.pdf")
    assert render(army_list, "cards.pdf") == first
    assert calls == ["cards.pdf"]
    render(army_list, "cards.pdf", layout="poker")
    assert calls == ["cards.pdf", "cards.pdf"]

    data = army_list.as_armylist() | {"name": "Border Patrol II"}
    army_list = army_list_update(army_list=army_list, data=data, based_on=army_list.version)
    assert render(army_list, "cards.pdf") != first
    assert len(calls) == 3


def test_the_same_content_is_drawn_once_whatever_list_it_is_in(user, make_aof_book, monkeypatch):
    """Issue 37: the cache is keyed by what is printed and how, not by the list's id,
    version or share link: a clone (or the same list saved back as it was) is not drawn
    again. The roster, which prints the share link, is drawn for each link."""
    from armybuilder.lists.services import army_list_clone

    calls = []
    real = pdf.render_list_pdf
    monkeypatch.setattr(pdf, "render_list_pdf", lambda *args: calls.append(args[1]) or real(*args))
    army_list = wardens_list(user, make_aof_book)
    copy = army_list_clone(army_list=army_list, owner=user)
    copy.name = army_list.name
    copy.save()
    assert render(copy, "cards.pdf", rules=1) == render(army_list, "cards.pdf", rules=1)
    assert calls == ["cards.pdf"]
    render(army_list, "roster.pdf")
    render(copy, "roster.pdf")
    assert calls == ["cards.pdf", "roster.pdf", "roster.pdf"]  # each with its own share link


def test_a_client_has_only_so_many_files_drawn_a_minute_and_is_told_when_to_come_back(wardens, settings):
    """Heavy drawings are limited per address (DJANGO_THROTTLE_PDF); a file drawn already is
    still served."""
    from rest_framework.test import APIClient

    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "pdf": "2/min"}
    visitor = APIClient()
    body = {"name": "Patrol", "system": "aof", "faction": "test-wardens", "points_limit": 1000, "entries": []}
    pk = visitor.post("/api/lists/", body, format="json").json()["id"]
    url = f"/api/lists/{pk}/export/cards.pdf"
    assert visitor.get(url).status_code == 200
    assert visitor.get(url, {"layout": "poker"}).status_code == 200
    refused = visitor.get(url, {"rules": "1", "trackers": "1"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many files drawn for this address" in refused.json()["detail"]
    assert visitor.get(url).status_code == 200  # drawn already: served from the cache


@pytest.mark.parametrize(
    ("kind", "params"),
    [
        ("cards.pdf", {}),
        ("cards.pdf", {"layout": "poker", "combine": "1"}),
        ("cards.pdf", {"rules": "1", "trackers": "1"}),
        ("roster.pdf", {"paper": "letter"}),
        ("reference.pdf", {}),
    ],
)
def test_drawing_runs_no_queries(user, make_aof_book, django_assert_num_queries, kind, params):
    army_list = wardens_list(user, make_aof_book)
    handle = book_handle_find(system=army_list.system, slug=army_list.faction)
    printout = printout_get(army_list=army_list, share_url="https://example.org/s/x/", handle=handle)
    options = pdf.print_options(params)
    with django_assert_num_queries(0):
        data = pdf.render_list_pdf(printout, kind, options)
    assert data.startswith(b"%PDF")


def test_a_pdf_download_takes_a_fixed_number_of_queries(user, make_aof_book, django_assert_num_queries):
    small = wardens_list(user, make_aof_book)
    entries = [{"id": f"e{i}", "unit": "wardens", "options": {"TROOPS-1a": 1}} for i in range(40)]
    large = wardens_list(user, make_aof_book, points_limit=10000, entries=entries)
    downloads.list_pdf_response(small, "roster.pdf", {})  # the engine's book is built and cached
    cache.clear()
    with django_assert_num_queries(2):  # book handle (for the cache key and the list state), core rules
        downloads.list_pdf_response(small, "roster.pdf", {})
    with django_assert_num_queries(2):
        downloads.list_pdf_response(large, "roster.pdf", {})
    with django_assert_num_queries(1):  # cached: only the book handle
        downloads.list_pdf_response(large, "roster.pdf", {})


@pytest.mark.parametrize("kind", pdf.PDF_KINDS)
def test_an_empty_list_still_prints(user, make_aof_book, kind):
    data = render(wardens_list(user, make_aof_book, entries=[]), kind)
    assert PdfReader(io.BytesIO(data)).pages


# -- legible by construction: read from the drawn page ----------------------------------------
PRINTOUTS = [
    ("cards.pdf", {}),
    ("cards.pdf", {"layout": "poker"}),
    ("cards.pdf", {"combine": 1}),
    ("cards.pdf", {"rules": 1}),
    ("cards.pdf", {"rules": 1, "layout": "poker"}),
    ("cards.pdf", {"trackers": 1}),
    ("cards.pdf", {"trackers": 1, "layout": "poker"}),
    ("roster.pdf", {}),
    ("reference.pdf", {}),
]
PRINTOUT_IDS = [
    "sheet",
    "poker",
    "combine",
    "rules",
    "poker-rules",
    "trackers",
    "poker-trackers",
    "roster",
    "reference",
]


@pytest.mark.parametrize(("kind", "params"), PRINTOUTS, ids=PRINTOUT_IDS)
@pytest.mark.parametrize("name", ONE_LIST_PER_RULESET)
def test_every_character_printed_is_at_least_6_pt_with_4_5_to_1_contrast(user, name, kind, params):
    from tests.support.pdf_legibility import unreadable

    army_list = bundled_list(user, name)
    assert [str(u) for u in unreadable(render(army_list, kind, **params))] == []


TWO_CARDS = [  # the captain on a card of its own: joined to none
    {"id": "e1", "unit": "warden-captain", "options": {"HERO-2a": 1}},
    {"id": "e2", "unit": "wardens", "options": {"TROOPS-1a": 1}},
]


def test_the_legibility_check_sees_a_cost_drawn_in_its_bands_colour(user, make_aof_book, monkeypatch):
    """The check reads colours off the drawn page: the bug it exists for (every card's
    cost drawn in the header band's own colour) is caught when put back."""
    from dataclasses import replace

    from armybuilder.exports import pdf_cards
    from armybuilder.exports.pdf_style import ACCENT
    from tests.support.pdf_legibility import unreadable

    army_list = wardens_list(user, make_aof_book, entries=TWO_CARDS)
    assert unreadable(render(army_list, "cards.pdf")) == []
    cache.clear()
    monkeypatch.setattr(
        pdf_cards,
        "SHEET_CARD",
        replace(
            pdf_cards.SHEET_CARD,
            cost=pdf_cards.SHEET_CARD.cost.__class__(
                pdf_cards.SHEET_CARD.cost.font, pdf_cards.SHEET_CARD.cost.size, ACCENT
            ),
        ),
    )
    flagged = unreadable(render(army_list, "cards.pdf"))
    # Both cards' costs (the captain's 115 pts, the wardens' 90 pts), and nothing else.
    assert sorted(u.text for u in flagged) == ["115pts", "90pts"]
    assert {round(u.contrast, 2) for u in flagged} == {1.0}


def test_an_arena_warband_as_text_counts_hexes_keeps_criticals_and_no_points(user, client):
    army_list = bundled_list(user, "aof-arena/orc-pitfighters-warband.json")
    client.force_login(user)
    text = client.get(f"/api/lists/{army_list.pk}/export/text").content.decode()
    assert " pts" not in text and "warband" in text
    assert '"' not in text.split("\n", 1)[1]  # no inches on any entry
    assert "hexes" in text or "adjacent" in text
    book = json.loads((DATA / "books" / "aof-arena" / "orc-pitfighters.json").read_text())
    criticals = {w["critical"] for u in book["units"] for w in u["equipment"] if w.get("critical")}
    validation = selectors.army_list_load(army_list).validation
    used = {w.profile["critical"] for e in validation.entries for w in e.loadout.weapons if w.profile.get("critical")}
    assert used and used <= criticals
    for critical in used:
        assert f"critical: {critical}" in text


@pytest.mark.parametrize("kind", ["cards.pdf", "roster.pdf", "reference.pdf", "text", "json"])
def test_a_download_keeps_the_letters_of_its_list_name(user, make_aof_book, client, kind):
    from urllib.parse import unquote

    name = "Дружина Ἀθῆναι Żółw 東京 ⚔"
    army_list = wardens_list(user, make_aof_book, name=name)
    client.force_login(user)
    response = client.get(f"/api/lists/{army_list.pk}/export/{kind}")
    assert response.status_code == 200
    header = response["Content-Disposition"]
    fallback, encoded = header.split("; filename*=UTF-8''")
    assert fallback.startswith('attachment; filename="') and fallback.isascii()
    stem = unquote(encoded).rsplit("-", 1)[0] if kind.endswith(".pdf") else unquote(encoded).rsplit(".", 1)[0]
    assert stem == "Дружина-Ἀθῆναι-Żółw-東京-⚔"


# -- any script a player types ------------------------------------------------------------
SCRIPTS = "Дружина Ἀθῆναι Żółw 東京 ⚔"


@pytest.mark.parametrize("kind", ["cards.pdf", "roster.pdf", "reference.pdf"])
def test_a_name_in_any_script_prints_with_real_glyphs(user, make_aof_book, kind):
    from tests.support.pdf_glyphs import drawn_characters

    book_import(data=make_aof_book())
    body = {
        "format": "armylist/1",
        "name": SCRIPTS,
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 1500,
        "notes": SCRIPTS,
        "entries": [{"id": "e1", "unit": "warden-captain"}, {"id": "e2", "unit": "wardens", "name": SCRIPTS}],
    }
    army_list = make_list(user, body)
    drawn = drawn_characters(render(army_list, kind))
    missing = [char for char in SCRIPTS if not char.isspace() and char not in drawn]
    assert missing == []
    assert any("DroidSansFallback" in font for font in drawn["東"])  # CJK from the CJK font


def test_a_character_no_font_has_prints_as_a_question_mark_and_is_logged(user, make_aof_book, caplog):
    from tests.support.pdf_glyphs import drawn_characters

    army_list = wardens_list(user, make_aof_book, name="Dragons \U0001f409")
    with caplog.at_level("WARNING", logger="armybuilder.exports.pdf_style"):
        data = render(army_list, "roster.pdf")
    assert "no font has '\U0001f409' (U+1F409)" in caplog.text
    assert "?" in drawn_characters(data)
    assert "Dragons ?" in flat(" ".join(pages(data)))


def test_the_reference_orders_spells_by_their_cost(user):
    army_list = bundled_list(user, "aof/human-empire-1500.json")
    headings = bold_headings(render(army_list, "reference.pdf"))
    costs = [int(m.group(1)) for h in headings if (m := re.search(r" \((\d+)\)$", h))]
    assert len(costs) >= 3 and costs == sorted(costs)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_crop_marks_frame_only_the_cards_printed_and_keep_5_mm_from_the_edge(user, make_aof_book, paper):
    from reportlab.lib.units import mm

    # Two cards, no caster (so no spell card): the first row, two columns.
    entries = [{"id": "e1", "unit": "wardens"}, {"id": "e2", "unit": "wardens", "options": {"TROOPS-1a": 1}}]
    army_list = wardens_list(user, make_aof_book, entries=entries)
    data = render(army_list, "cards.pdf", layout="poker", paper=paper)
    grid = card_grid("poker", paper)
    left, bottom = grid.origin
    with pdfplumber.open(io.BytesIO(data)) as document:
        page = document.pages[0]
        lines = [ln for ln in page.lines if ln["stroking_color"] is not None and ln["linewidth"] < 0.5]
        assert lines
        for line in lines:
            for x in (line["x0"], line["x1"]):
                assert 5 * mm - 0.01 <= x <= page.width - 5 * mm + 0.01
            for y in (line["top"], line["bottom"]):
                assert 5 * mm - 0.01 <= y <= page.height - 5 * mm + 0.01
        # Vertical marks stand on the three cutting lines of two cards, not on the fourth.
        xs = {round(ln["x0"], 1) for ln in lines if abs(ln["x0"] - ln["x1"]) < 0.01}
        assert xs == {round(left + i * grid.card[0], 1) for i in range(3)}


# -- what a unit's type and its weapons' types give it, on its card ----------------------------
def _book(system: str, units: list[dict]) -> dict:
    return {
        "format": "armybook/1",
        "system": system,
        "slug": "type-test",
        "name": "Type Test",
        "version": "1.0.0",
        "rules": [],
        "spells": [],
        "units": units,
        "packages": [],
    }


def _unit(uid, type_, equipment, system, size=1, stats=None, rules=None):
    return {
        "id": uid,
        "name": uid.replace("-", " ").title(),
        "type": type_,
        "size": size,
        "cost": 50,
        "stats": stats or ({"quality": 4} if system == "opf" else {"quality": 4, "defense": 4}),
        "rules": rules or [],
        "equipment": equipment,
        "upgrades": [],
    }


def _cards_of(user, system: str, units: list[dict], points: int) -> dict[str, str]:
    book_import(data=_book(system, units))
    body = {
        "format": "armylist/1",
        "name": "Types",
        "system": system,
        "faction": "type-test",
        "points_limit": points,
        "entries": [{"id": f"e{i}", "unit": u["id"]} for i, u in enumerate(units)],
    }
    texts = card_texts(render(make_list(user, body), "cards.pdf"), "sheet")
    return {u["name"]: flat(next(t for t in texts if t.startswith(u["name"]))) for u in units}


def test_regiments_cards_show_what_a_unit_type_gives_and_the_default_attack(user):
    bolt = {"name": "Bolt Thrower", "count": 1, "range": 36, "attacks": 1, "rules": ["AP(3)"]}
    claws = {"name": "Claws", "count": 1, "attacks": 3, "rules": []}
    units = [
        _unit("thane", "hero", [claws], "aof-regiments", rules=["Tough(3)"]),
        _unit("bolt-thrower", "artillery", [bolt], "aof-regiments"),
        _unit("troll", "monster", [claws], "aof-regiments"),
        _unit("war-cart", "chariot", [claws], "aof-regiments"),
        _unit(
            "archers", "infantry", [{**bolt, "name": "Bow", "count": 5, "range": 24, "rules": []}], "aof-regiments", 5
        ),
    ]
    cards = _cards_of(user, "aof-regiments", units, 1000)
    assert "Rules: Slow" in cards["Bolt Thrower"]
    assert (
        "Type: Artillery: Fires only when it Holds; Enemies in melee with it count as having AP(+2)"
        in cards["Bolt Thrower"]
    )
    assert "Rules: Fear, Impact(3)" in cards["Troll"]
    assert "Rules: Fast, Impact(3)" in cards["War Cart"]
    # No melee weapon: one attack in melee, per model (no weapon has rules: no Rules column).
    assert "No melee weapon – 1 –" in cards["Bolt Thrower"]
    assert "5× No melee weapon – 1 –" in cards["Archers"]
    assert "No melee weapon" not in cards["Troll"]


def test_opf_cards_show_ordnance_weapon_types_and_light_swords_by_default(user):
    def melee(name, weapon_type):
        return {"name": name, "count": 5, "attacks": 1, "strength": "light", "weapon_type": weapon_type, "rules": []}

    cannon = {"name": "Cannon", "count": 1, "range": 36, "attacks": "D3+3", "rules": []}
    units = [
        _unit("great-cannon", "ordnance", [cannon], "opf"),
        _unit("maces", "infantry", [melee("Light Mace", "mace")], "opf", 5),
        _unit("halberds", "infantry", [melee("Light Halberd", "halberd")], "opf", 5),
        _unit("lances", "infantry", [melee("Light Lance", "lance")], "opf", 5),
        _unit("spears", "infantry", [melee("Light Spear", "spear")], "opf", 5),
        _unit("swords", "infantry", [melee("Light Sword", "sword")], "opf", 5),
    ]
    cards = _cards_of(user, "opf", units, 750)
    assert "Type: Ordnance: May not March or Charge; Shoots only when it Holds" in cards["Great Cannon"]
    assert "Light Swords/Claws – 1" in cards["Great Cannon"]
    assert "5× Light Mace – 1 Piercing, Poison" in cards["Maces"]
    assert "5× Light Halberd – 1 Piercing" in cards["Halberds"]
    assert "5× Light Lance – 1 Impact(1)" in cards["Lances"]
    assert "5× Light Spear – 1 +1 Attack when charged in its front" in cards["Spears"]
    assert "5× Light Sword – 1" in cards["Swords"]


def test_cards_with_rules_say_what_each_special_rule_does(user, make_aof_book):
    """Sheet cards with rules end with a glossary: each rule explained once, after the
    cards, and each card points to it."""
    from factions.models import CoreRule

    army_list = wardens_list(user, make_aof_book)
    plain = flat(" ".join(pages(render(army_list, "cards.pdf"))))
    data = render(army_list, "cards.pdf", rules=1)
    with_rules = flat(" ".join(pages(data)))
    on_cards = flat(" ".join(card_texts(data, "sheet")))
    assert "What the rules do" not in plain and "Glossary" in with_rules
    assert on_cards.count("What the rules do: glossary, page 1") == 1  # the captain is on the wardens' card
    tough = CoreRule.objects.get(ruleset__slug="aof", name="Tough").summary
    shieldbrothers = "Test rule text."  # the book's own rule, from the book
    assert with_rules.count(flat(f"Tough(3) {tough}")) == 1
    assert with_rules.count(f"Shieldbrothers {shieldbrothers}") == 1
    assert tough[:30] not in on_cards and shieldbrothers not in on_cards


def test_a_bad_rules_option_is_refused(user, make_aof_book):
    army_list = wardens_list(user, make_aof_book)
    response = downloads.list_pdf_response(army_list, "cards.pdf", {"rules": "maybe"})
    assert response.status_code == 400 and b'rules must be 1 or 0, not "maybe"' in response.content


# -- cards that use their space --------------------------------------------------------------
def test_a_100_entry_list_prints_its_sheet_cards_on_at_most_13_pages(user):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from benchenv import bench_list

    from factions.selectors import engine_book_get

    book_import(data=json.loads((DATA / "books" / "aof" / "human-empire.json").read_text()))
    book, _ruleset = engine_book_get(system="aof", slug="human-empire")
    army_list = make_list(user, bench_list(book, 100))
    data = render(army_list, "cards.pdf")
    assert len(PdfReader(io.BytesIO(data)).pages) <= 13
    assert len(card_texts(data)) >= 100  # every entry has its card


@pytest.mark.parametrize("layout", ["sheet", "poker"])
def test_each_spell_is_printed_once_and_each_caster_points_to_it(user, layout):
    army_list = bundled_list(user, "aof/human-empire-1500.json")
    data = render(army_list, "cards.pdf", layout=layout)
    text = flat(" ".join(pages(data)))
    spells = json.loads((DATA / "books" / "aof" / "human-empire.json").read_text())["spells"]
    for spell in spells:
        assert text.count(f"{spell['name']} ({spell['cost']})") == 1, spell["name"]
    where = "on the spell card" if layout == "poker" else "glossary, page 1"
    magister = next(t for t in card_texts(data, layout) if "Court Magister" in t)
    assert f"Spells: Caster(3) · {len(spells)} spells, {where}" in flat(magister)


def test_a_poker_card_takes_the_largest_text_that_keeps_it_on_one_card(user):
    """The Court Magister on its own keeps to one poker card, its spells on the spell
    card, its text no smaller than it needs to be."""
    body = json.loads((DATA / "lists" / "aof/human-empire-1500.json").read_text())
    body["entries"] = [{**entry, "joined_to": None} for entry in body["entries"]]  # the Magister on its own card
    book_import(data=json.loads((DATA / "books" / "aof" / "human-empire.json").read_text()))
    data = render(make_list(user, body), "cards.pdf", layout="poker")
    texts = card_texts(data, "poker")
    assert not any("Court Magister (continued)" in t for t in texts)
    assert any(t.startswith("Spells · Human Empire") and "Dawnburst (3)" in t for t in texts)
    with pdfplumber.open(io.BytesIO(data)) as document:
        sizes = {round(c["size"], 1) for page in document.pages for c in page.chars if c["text"] == "Q"}
    assert max(sizes) > 8  # a sparse card's stats grow past the smallest step


def test_no_roster_heading_is_left_alone_at_a_page_foot(user, make_aof_book):
    """Lists of 1 to 45 entries move the later sections down the pages: whatever their
    length, a heading always has what it heads under it on the same page."""
    from armybuilder.exports.pdf_style import ACCENT, HEADING
    from tests.support.pdf_legibility import headings_at_page_foot

    book_import(data=make_aof_book(units=12))
    unit_ids = [f"wardens-{i}" for i in range(10)] + ["wardens", "warden-captain"]
    lonely = {}
    for n in range(1, 46):
        body = {
            "format": "armylist/1",
            "name": f"Roster {n}",
            "system": "aof",
            "faction": "test-wardens",
            "points_limit": 5000,
            "notes": "Notes to print. " * 20,
            "entries": [{"id": f"e{i}", "unit": unit_ids[i % len(unit_ids)]} for i in range(n)],
        }
        found = headings_at_page_foot(render(make_list(user, body), "roster.pdf"), size=HEADING.size, color=ACCENT)
        if found:
            lonely[n] = found
    assert lonely == {}


@pytest.mark.parametrize("system", ["aof", "aof-regiments", "aof-skirmish", "opf", "aof-arena"])
def test_the_quick_reference_fills_both_columns(client, db, system):
    response = client.get(f"/rules/{system}/reference.pdf")
    assert response.status_code == 200
    with pdfplumber.open(io.BytesIO(response.content)) as document:
        assert len(document.pages) == 1
        page = document.pages[0]
        body = [c for c in page.chars if c["size"] > 6.6 and c["top"] > 120]  # below the title block
        left = sum(1 for c in body if c["x1"] < page.width / 2)
        right = sum(1 for c in body if c["x0"] > page.width / 2)
        assert left and right and min(left, right) / max(left, right) > 0.5  # evenly, not one full column


@pytest.mark.parametrize("name", ONE_LIST_PER_RULESET)
@pytest.mark.parametrize("layout", ["sheet", "poker"])
def test_no_two_words_on_a_card_overlap(user, name, layout):
    """Text squeezed to 6 pt must still fit its column: no character is drawn over the
    next one on its line (read off the page, character boxes)."""
    army_list = bundled_list(user, name)
    with pdfplumber.open(io.BytesIO(render(army_list, "cards.pdf", layout=layout))) as document:
        for page in document.pages:
            lines: dict[int, list] = {}
            for char in page.chars:
                if char["text"].strip():
                    lines.setdefault(round(char["bottom"]), []).append(char)
            for line in lines.values():
                line.sort(key=lambda c: c["x0"])
                for a, b in itertools.pairwise(line):
                    assert b["x0"] >= a["x1"] - 0.3, (a["text"], b["text"], "".join(c["text"] for c in line))


def test_the_port_or_base_url_of_a_request_does_not_make_a_new_file(user, make_aof_book, settings):
    from unittest import mock

    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["armybuilder.example", "testserver"]
    army_list = wardens_list(user, make_aof_book)
    with mock.patch.object(pdf, "render_list_pdf", wraps=pdf.render_list_pdf) as drawn:
        for port in (443, 8443, 9999, 12345):
            for kind in ("cards.pdf", "reference.pdf", "roster.pdf"):
                params = {"base_url": f"https://armybuilder.example:{port}/"}
                assert downloads.list_pdf_response(army_list, kind, params).status_code == 200
    assert drawn.call_count == 3  # each file drawn once, whatever the port
    roster = render(army_list, "roster.pdf", base_url="https://armybuilder.example:9999/")
    assert "https://armybuilder.example/s/" in flat(" ".join(pages(roster))).replace(" ", "")
