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

from factions.services import armybook_import
from tests.conftest import SHARED, require_shared
from tests.test_pdf import card_boxes, card_texts, flat, make_list, render

ARMYFORGE = SHARED / "armyforge"
KEEP = os.environ.get("ARMYBUILDER_KEEP_PDFS")  # a folder: the tests leave their PDFs there to look at


def keep(name: str, data: bytes) -> bytes:
    if KEEP:
        Path(KEEP, name).write_bytes(data)
    return data


def import_armyforge(name: str) -> str:
    system = name.split("--", 1)[0]
    result = armybook_import(data=require_shared(ARMYFORGE / name).read_bytes(), system=system)
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


def test_a_joined_hero_is_printed_on_the_card_of_its_unit(user, make_aof_book):
    from tests.test_pdf import wardens_list

    army_list = wardens_list(user, make_aof_book)
    cards = [flat(text) for text in card_texts(render(army_list, "cards.pdf"), "sheet")]
    assert len(cards) == 1
    (card,) = cards
    assert card.startswith("Wardens") and "Joined hero: Warden Captain" in card
