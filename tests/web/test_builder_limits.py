"""The builder's upgrade controls hold only what a section allows: number fields with
their limit (and the server refusing more, in the validator's words), options that cannot
be taken disabled with the reason, and limit hints that say what the controls allow."""

import copy
import html

import pytest

from armybuilder.armyforge.books.imports import book_import
from armybuilder.lists.models import ArmyList
from armybuilder.memo import clear_all
from tests.conftest import aof_book


def weapon_gain(name: str) -> dict:
    return {"kind": "weapon", "name": name, "attacks": 1, "rules": []}


def limits_book() -> dict:
    """Test Wardens with a militia of 20 carrying Pitchforks, a lone orc whose only Spear
    a fixed replacement takes before "Replace all Spears", and a war wagon with Fearless."""
    book = aof_book()
    base = book["units"][1]
    book["units"] += [
        {
            **copy.deepcopy(base),
            "id": "militia",
            "name": "Militia",
            "size": 20,
            "upgrades": ["FORKS"],
            "equipment": [{"name": "Pitchfork", "count": 20, "attacks": 1, "rules": []}],
        },
        {
            **copy.deepcopy(base),
            "id": "lone-orc",
            "name": "Lone Orc",
            "size": 1,
            "upgrades": ["ORC"],
            "equipment": [{"name": "Spear", "count": 1, "attacks": 1, "rules": []}],
        },
        {
            **copy.deepcopy(base),
            "id": "war-wagon",
            "name": "War Wagon",
            "size": 1,
            "rules": ["Fearless"],
            "upgrades": ["WAGON"],
        },
    ]
    book["packages"] += [
        {
            "id": "FORKS",
            "sections": [
                {
                    "id": "FORKS-1",
                    "label": "Replace any Pitchfork",
                    "variant": "replace",
                    "targets": ["Pitchfork"],
                    "affects": {"type": "any"},
                    "options": [{"id": "FORKS-1a", "label": "Crossbow", "cost": 2, "gains": [weapon_gain("Crossbow")]}],
                },
            ],
        },
        {
            "id": "ORC",
            "sections": [
                {
                    "id": "ORC-all",
                    "label": "Replace all Spears",
                    "variant": "replace",
                    "targets": ["Spear"],
                    "affects": {"type": "all"},
                    "options": [
                        {
                            "id": "ORC-all-a",
                            "label": "Dual Hand Weapons",
                            "cost": 5,
                            "gains": [weapon_gain("Dual Hand Weapons")],
                        }
                    ],
                },
                {
                    "id": "ORC-one",
                    "label": "Replace one Spear",
                    "variant": "replace",
                    "targets": ["Spear"],
                    "affects": {"type": "exactly", "value": 1},
                    "options": [
                        {
                            "id": "ORC-one-a",
                            "label": "Great Impaler",
                            "cost": 10,
                            "gains": [weapon_gain("Great Impaler")],
                        }
                    ],
                },
            ],
        },
        {
            "id": "WAGON",
            "sections": [
                {
                    "id": "WAGON-1",
                    "label": "Upgrade with up to two",
                    "variant": "upgrade",
                    "select": {"type": "up to", "value": 2},
                    "options": [
                        {
                            "id": "WAGON-1a",
                            "label": "Scythed Wheels",
                            "cost": 90,
                            "gains": [{"kind": "item", "name": "Scythed Wheels", "rules": ["Impact(3)"]}],
                        },
                        {
                            "id": "WAGON-1b",
                            "label": "War Banner",
                            "cost": 10,
                            "gains": [{"kind": "item", "name": "War Banner", "rules": ["Fearless"]}],
                        },
                    ],
                },
            ],
        },
    ]
    return book


@pytest.fixture
def army_list(db, client) -> ArmyList:
    clear_all()
    book_import(data=limits_book())
    response = client.post("/new/aof/", {"faction": "test-wardens", "points": "3000", "name": "Limits"})
    assert response.status_code == 302
    return ArmyList.objects.get()


def act(client, army_list, follow: bool = False, **fields):
    army_list.refresh_from_db()
    return client.post(f"/lists/{army_list.pk}/act/", {"version": army_list.version, **fields}, follow=follow)


def add(client, army_list, unit: str) -> str:
    act(client, army_list, action="add", unit=unit)
    army_list.refresh_from_db()
    return army_list.entries[-1]["id"]


def editor(client, army_list, entry: str) -> str:
    return html.unescape(client.get(f"/lists/{army_list.pk}/?entry={entry}").content.decode())


def test_a_number_field_holds_at_most_what_its_section_allows(client, army_list):
    entry = add(client, army_list, "militia")
    page = editor(client, army_list, entry)
    assert 'name="o:FORKS-1a" value="0" min="0" max="20"' in page
    assert 'Replace any Pitchfork <span class="muted">(up to 20 (1 per Pitchfork carried))</span>' in page


def test_typing_past_a_sections_limit_is_refused_in_the_validators_words(client, army_list):
    entry = add(client, army_list, "militia")
    response = act(client, army_list, action="options", entry=entry, **{"o:FORKS-1a": "99"}, follow=True)
    page = html.unescape(response.content.decode())
    assert (
        'That change could not be made: Militia: "Crossbow" replaces 99 Pitchfork, but Militia has only 20 left.'
        in page
    )
    army_list.refresh_from_db()
    assert army_list.entries[-1]["options"] == {}
    act(client, army_list, action="options", entry=entry, **{"o:FORKS-1a": "20"})
    army_list.refresh_from_db()
    assert army_list.entries[-1]["options"] == {"FORKS-1a": 20}


def test_taking_picks_away_is_never_refused(client, army_list):
    entry = add(client, army_list, "militia")
    act(client, army_list, action="options", entry=entry, **{"o:FORKS-1a": "20"})
    act(client, army_list, action="options", entry=entry, **{"o:FORKS-1a": "3"})
    army_list.refresh_from_db()
    assert army_list.entries[-1]["options"] == {"FORKS-1a": 3}


def test_a_replacement_with_nothing_left_is_disabled_with_the_reason(client, army_list):
    entry = add(client, army_list, "lone-orc")
    act(client, army_list, action="options", entry=entry, **{"s:ORC-one": "ORC-one-a"})
    page = editor(client, army_list, entry)
    reason = '"Dual Hand Weapons" replaces 1 Spear, but Lone Orc has only 0 left'
    assert f'<label class="option" title="{reason}"><input type="radio" id="pick-ORC-all-a"' in page
    assert 'value="ORC-all-a"  disabled>' in page
    assert 'Replace all Spears <span class="muted">(no Spear left)</span>' in page


def test_an_upgrade_that_adds_nothing_is_disabled_and_refused(client, army_list):
    entry = add(client, army_list, "war-wagon")
    page = editor(client, army_list, entry)
    reason = '"War Banner" adds nothing: War Wagon has Fearless already, which does not stack'
    assert f'<label class="option" title="{reason}"><input type="checkbox" id="pick-WAGON-1b"' in page
    response = act(client, army_list, action="options", entry=entry, c="WAGON-1b", follow=True)
    assert f"That change could not be made: War Wagon: {reason}." in html.unescape(response.content.decode())


def test_the_hint_over_check_boxes_says_each_option_once(client, army_list):
    # "Upgrade one model with" any of two rules, on ten models: two boxes, not "up to 10".
    entry = add(client, army_list, "wardens")
    page = editor(client, army_list, entry)
    assert 'Upgrade one model with <span class="muted">(each option once)</span>' in page
