"""Nothing printed ever leaves its box: an overfull unit (a 60-character name, 12
weapons, 20 rules, a caster's spells) shrinks, wraps and goes on "(continued)" cards,
and every character drawn lies inside its card (pdfplumber's character positions)."""

import copy
import io

import pdfplumber
import pytest
from django.core.cache import cache

from armybuilder import downloads
from armybuilder.armyforge.books.imports import book_import
from armybuilder.exports.pdf_cards import POKER_NOTE, PRINT_NOTE
from armybuilder.lists.format import parse_list_body
from armybuilder.lists.services import army_list_create
from armybuilder.memo import clear_all
from tests.exports.test_pdf import card_boxes

SPACED_NAME = "Grand Exalted High Commander of the Thousand Burning Suns IV"
UNBROKEN_NAME = "Supercalifragilisticexpialidociousandthensomemorelettersinit"
RULES = [
    "Ambush",
    "Caster(3)",
    "Entrenched",
    "Fast",
    "Fear(2)",
    "Fearless",
    "Flying",
    "Furious",
    "Hero",
    "Immobile",
    "Regeneration",
    "Scout",
    "Slow",
    "Stealth",
    "Strider",
    "Tough(12)",
    "Transport(6)",
    "Unbelievably Stubborn Defenders of the Ancient Realm",
    "Oathbound",
    "Relentless",
]
WEAPON_RULES = ["AP(2)", "Blast(3)", "Deadly(6)", "Indirect", "Limited", "Poison", "Reliable", "Rending", "Sniper"]


def overfull_book(name: str) -> dict:
    assert len(name) == 60 and len(RULES) == 20
    weapons = [
        {
            "name": f"Extraordinarily Long Ceremonial Weapon of Doom No. {i}",
            "count": 1,
            "range": 36 if i % 2 else None,
            "attacks": "D6+3" if i % 3 == 0 else 4,
            "rules": WEAPON_RULES[: i % len(WEAPON_RULES) + 1],
        }
        for i in range(12)
    ]
    for weapon in weapons:
        if weapon["range"] is None:
            del weapon["range"]
    return {
        "format": "armybook/1",
        "system": "aof",
        "slug": "overfull",
        "name": "The Overfull Host of Very Long Names",
        "version": "1.0.0",
        "rules": [
            {"name": "Unbelievably Stubborn Defenders of the Ancient Realm", "rated": False, "text": "Long. " * 40},
            {"name": "Oathbound", "rated": False, "text": "An oath rule with a fairly long explanation. " * 5},
        ],
        "spells": [
            {"name": f"Spell of Unreasonably Lengthy Naming {i}", "cost": i + 1, "text": "Does a great deal. " * 12}
            for i in range(6)
        ],
        "units": [
            {
                "id": "commander",
                "name": name,
                "type": "hero",
                "size": 1,
                "cost": 999,
                "stats": {"quality": 2, "defense": 2},
                "rules": RULES,
                "equipment": weapons,
                "upgrades": [],
            }
        ],
        "packages": [],
    }


@pytest.fixture
def overfull_list(db, user):
    def make(name: str):
        cache.clear()
        clear_all()
        book_import(data=overfull_book(name))
        body = {
            "format": "armylist/1",
            "name": name,
            "system": "aof",
            "faction": "overfull",
            "points_limit": 500,
            "entries": [{"id": "e1", "unit": "commander"}, {"id": "e2", "unit": "commander", "name": name[::-1]}],
        }
        data, _handle = parse_list_body(copy.deepcopy(body))
        return army_list_create(data=data, owner=user)

    yield make
    cache.clear()


def outside(chars, boxes, page_height: float, tolerance: float = 0.01) -> list[str]:
    """The characters that do not lie wholly inside one of the boxes (x, y, w, h)."""
    stray = []
    for char in chars:
        if not char["text"].strip():
            continue
        inside = any(
            char["x0"] >= x - tolerance
            and char["x1"] <= x + w + tolerance
            and char["top"] >= page_height - (y + h) - tolerance
            and char["bottom"] <= page_height - y + tolerance
            for x, y, w, h in boxes
        )
        if not inside:
            stray.append(char["text"])
    return stray


@pytest.mark.parametrize("name", [SPACED_NAME, UNBROKEN_NAME])
@pytest.mark.parametrize(("layout", "paper"), [("sheet", "a4"), ("sheet", "letter"), ("poker", "a4")])
def test_every_character_of_an_overfull_card_lies_inside_its_card(overfull_list, name, layout, paper):
    army_list = overfull_list(name)
    response = downloads.list_pdf_response(army_list, "cards.pdf", {"layout": layout, "paper": paper})
    text = ""
    with pdfplumber.open(io.BytesIO(response.content)) as document:
        for page in document.pages:
            boxes = card_boxes(page, layout)  # the frames as drawn
            assert page.chars and (boxes or layout == "sheet")  # a page of the glossary alone
            # Outside the cards only the page's own line (print at 100%), and after the
            # last card of sheet cards the glossary of the spells, inside the margins.
            note = "".join((POKER_NOTE if layout == "poker" else PRINT_NOTE).split())
            stray = "".join(outside(page.chars, boxes, page.height))
            if boxes:
                assert stray.startswith(note)
                stray = stray[len(note) :]
            assert not stray or layout == "sheet"  # the glossary follows the last card
            above_note = [char for char in page.chars if char["bottom"] < page.height - 20]
            assert outside(above_note, [(24, 24, page.width - 48, page.height - 48)], page.height) == []
            for x, y, w, h in boxes:  # card by card: cards side by side share lines of the page
                card = page.within_bbox((x, page.height - y - h, x + w, page.height - y))
                text += (card.extract_text() or "") + "\n"
    squashed = "".join(text.split()).replace("999pts", "")  # the cost sits on the name's first line
    # A sheet card is as tall as a page: only a poker card runs out of room.
    assert ("(continued)" in text) == (layout == "poker")
    assert squashed.count("".join(name.split())) >= (2 if layout == "poker" else 1)
    for i in range(12):
        assert f"No.{i}" in squashed
    for rule in RULES:
        assert "".join(rule.split()) in squashed


@pytest.mark.parametrize("kind", ["roster.pdf", "reference.pdf"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_roster_and_reference_text_stays_inside_the_page_margins(overfull_list, kind, paper):
    army_list = overfull_list(SPACED_NAME)
    response = downloads.list_pdf_response(army_list, kind, {"paper": paper})
    with pdfplumber.open(io.BytesIO(response.content)) as document:
        for page in document.pages:
            margin = 36
            box = (margin, margin - 6, page.width - 2 * margin, page.height - 2 * margin + 6)
            assert outside(page.chars, [box], page.height) == []
