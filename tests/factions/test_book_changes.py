"""What changed between two versions of an army book (factions/changes.py; the contract is
shared/spec/book-versions.md, "Changes").

First on small books made here, one kind of change at a time. Then on the official Army
Forge books at 3.5.1 (../shared/armyforge/3.5.1/) and 3.5.2 (../shared/armyforge/),
third-party data read from there and never copied here: the changes between the two
conversions must be what a diff of the two Army Forge files, worked out here from the
files alone, says.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from armybuilder.armyforge.books.convert import armybook_from_armyforge
from armybuilder.armyforge.books.imports import book_import
from armybuilder.armyforge.ids import our_id
from armybuilder.engine.meanings import LEGACY_NOTES
from factions.changes import book_changes, changes_summary
from factions.selectors import faction_document, ruleset_infos
from tests.armyforge.test_real_army_books import armyforge_cost, armyforge_options
from tests.conftest import SHARED, aof_book, arena_book, require_shared

# What books imported before core rules were marked wrote for a rule they had no text for.
NEWER_RULE_NOTE, MISSING_RULE_NOTE = LEGACY_NOTES

Book = dict[str, Any]
EMPTY = {"added": [], "removed": [], "changed": []}
ARMYFORGE = SHARED / "armyforge"
OLD_VERSION = "3.5.1"
BOOKS = sorted(p.name for p in ARMYFORGE.glob("*--*.json")) or ["(no books in ../shared/armyforge)"]


def newer(book: Book) -> Book:
    """A copy of `book` as its next version, for a test to change."""
    copy_ = copy.deepcopy(book)
    copy_["version"] = "1.1.0"
    return copy_


def unit(book: Book, ident: str) -> dict[str, Any]:
    return next(u for u in book["units"] if u["id"] == ident)


def option(book: Book, ident: str) -> dict[str, Any]:
    return next(o for p in book["packages"] for s in p["sections"] for o in s["options"] if o["id"] == ident)


def section(book: Book, ident: str) -> dict[str, Any]:
    return next(s for p in book["packages"] for s in p["sections"] if s["id"] == ident)


def unit_changes(old: Book, new: Book) -> dict[str, dict[str, Any]]:
    return {u["id"]: u["changes"] for u in book_changes(old, new)["units"]["changed"]}


def option_changes(old: Book, new: Book) -> dict[str, dict[str, Any]]:
    return {o["id"]: o["changes"] for o in book_changes(old, new)["options"]["changed"]}


# -- nothing changed ---------------------------------------------------------------------
def test_the_same_book_has_no_changes():
    book = aof_book(units=5)
    assert book_changes(book, copy.deepcopy(book)) == {
        "from": "1.0.0",
        "to": "1.0.0",
        "units": EMPTY,
        "armyforge_rules": {"from": None, "to": None},
        "options": EMPTY,
        "rules": EMPTY,
        "core_rules": EMPTY,
        "spells": EMPTY,
        "sections": {"changed": []},
    }


def test_a_new_version_with_nothing_else_changed_names_both_versions_and_nothing_more():
    book = aof_book()
    changes = book_changes(book, newer(book))
    assert (changes["from"], changes["to"]) == ("1.0.0", "1.1.0")
    assert changes_summary(changes)["unchanged"] is True


def test_reordered_rules_weapons_packages_and_gains_are_no_change():
    old = aof_book()
    new = newer(old)
    captain = unit(new, "warden-captain")
    captain["rules"].reverse()
    unit(new, "wardens")["equipment"].reverse()
    captain["upgrades"] = ["HERO", "TROOPS"]
    unit(old, "warden-captain")["upgrades"] = ["TROOPS", "HERO"]
    option(new, "HERO-2a")["gains"][0]["rules"].reverse()
    assert changes_summary(book_changes(old, new))["unchanged"] is True


def test_the_books_given_are_left_as_they_were():
    old = aof_book()
    new = newer(old)
    unit(new, "wardens")["cost"] = 120
    before = copy.deepcopy((old, new))
    book_changes(old, new)
    assert (old, new) == before


# -- units -------------------------------------------------------------------------------
def test_a_unit_whose_cost_alone_changed_lists_only_its_cost():
    old = aof_book()
    new = newer(old)
    unit(new, "wardens")["cost"] = 120
    assert book_changes(old, new)["units"] == {
        "added": [],
        "removed": [],
        "changed": [{"id": "wardens", "name": "Wardens", "changes": {"cost": [110, 120]}}],
    }


def test_size_name_type_and_each_stat_are_listed_by_their_own_keys():
    old = aof_book()
    new = newer(old)
    wardens = unit(new, "wardens")
    wardens.update(size=5, name="Warden Guard", type="cavalry")
    wardens["stats"] = {"quality": 3, "defense": 5}
    assert book_changes(old, new)["units"]["changed"] == [
        {
            "id": "wardens",
            "name": "Warden Guard",
            "changes": {
                "name": ["Wardens", "Warden Guard"],
                "type": ["infantry", "cavalry"],
                "size": [10, 5],
                "quality": [4, 3],
            },
        }
    ]


def test_arena_stats_are_listed_by_their_own_keys():
    old = arena_book()
    new = newer(old)
    unit(new, "thug")["stats"].update(move=4, health=5)
    assert unit_changes(old, new) == {"thug": {"move": [3, 4], "health": [6, 5]}}


def test_a_changed_rating_is_one_rule_removed_and_one_added():
    old = aof_book()
    new = newer(old)
    unit(new, "warden-captain")["rules"] = ["Hero", "Tough(6)", "Caster(1)", "Fearless"]
    assert unit_changes(old, new) == {
        "warden-captain": {"rules": {"added": ["Tough(6)", "Fearless"], "removed": ["Tough(3)"]}}
    }


def test_a_weapon_whose_profile_changed_is_the_old_one_removed_and_the_new_one_added():
    old = aof_book()
    new = newer(old)
    spear, sling = unit(new, "wardens")["equipment"]
    spear["rules"] = ["Counter", "AP(1)"]
    sling["range"] = 18
    assert unit_changes(old, new) == {
        "wardens": {
            "equipment": {
                "added": ["10x Spear (A1, Counter, AP(1))", '10x Sling (18", A1)'],
                "removed": ["10x Spear (A1, Counter)", '10x Sling (12", A1)'],
            }
        }
    }


def test_a_weapon_added_alone_is_listed_alone():
    old = aof_book()
    new = newer(old)
    unit(new, "warden-captain")["equipment"].append(
        {"name": "Pistol", "count": 1, "range": 9, "attacks": 1, "rules": []}
    )
    assert unit_changes(old, new) == {"warden-captain": {"equipment": {"added": ['Pistol (9", A1)']}}}


def test_arena_weapons_say_their_range_in_hexes_and_their_profile():
    old = arena_book()
    new = newer(old)
    unit(new, "boss")["equipment"][0]["damage"] = 3
    assert unit_changes(old, new)["boss"]["equipment"] == {
        "added": ["Rusted Blade (1 hex, ACC 4, STR 3, DAM 3, critical: +1 damage)"],
        "removed": ["Rusted Blade (1 hex, ACC 4, STR 3, DAM 2, critical: +1 damage)"],
    }


def test_starting_items_are_listed_as_items():
    old = aof_book()
    new = newer(old)
    unit(new, "warden-captain")["items"] = [{"name": "Horse", "rules": ["Fast"]}]
    assert unit_changes(old, new) == {"warden-captain": {"items": {"added": ["Horse (Fast)"]}}}


def test_a_package_a_unit_takes_or_no_longer_takes_is_named_by_its_sections_labels():
    old = aof_book()
    new = newer(old)
    unit(new, "warden-captain")["upgrades"] = ["HERO", "TROOPS"]
    unit(new, "wardens")["upgrades"] = []
    assert unit_changes(old, new) == {
        "warden-captain": {"upgrades": {"added": ["Upgrade one model with, Replace all Spears"]}},
        "wardens": {"upgrades": {"removed": ["Upgrade one model with, Replace all Spears"]}},
    }


def test_a_package_taken_without_other_sections_is_named_by_the_sections_taken():
    old = aof_book()
    unit(old, "wardens")["upgrades"] = [{"package": "TROOPS", "without": ["TROOPS-2"]}]
    new = newer(old)
    unit(new, "wardens")["upgrades"] = [{"package": "TROOPS", "without": ["TROOPS-1"]}]
    assert unit_changes(old, new) == {
        "wardens": {"upgrades": {"added": ["Replace all Spears"], "removed": ["Upgrade one model with"]}}
    }


def test_a_package_is_named_by_what_each_book_calls_its_sections_and_by_its_id_only_when_they_have_none():
    old = aof_book()
    old["packages"].append({"id": "EMPTY", "sections": []})
    new = newer(old)
    section(new, "TROOPS-2")["label"] = "Replace all Spears with"
    unit(new, "wardens")["upgrades"] = ["EMPTY"]
    assert unit_changes(old, new) == {
        "wardens": {"upgrades": {"added": ["EMPTY"], "removed": ["Upgrade one model with, Replace all Spears"]}}
    }
    back = unit_changes(new, old)["wardens"]["upgrades"]
    assert back == {"added": ["Upgrade one model with, Replace all Spears"], "removed": ["EMPTY"]}
    unit(old, "warden-captain")["upgrades"] = ["TROOPS"]
    assert unit_changes(old, new)["warden-captain"]["upgrades"] == {
        "added": ["Replace Hand Weapon, Upgrade with one"],
        "removed": ["Upgrade one model with, Replace all Spears"],
    }


def test_a_section_moved_to_another_package_names_both_packages_by_their_sections():
    old = aof_book()
    new = newer(old)
    moved = section(new, "HERO-2")
    new["packages"][0]["sections"].remove(moved)
    new["packages"][1]["sections"].append(moved)
    [changed] = book_changes(old, new)["sections"]["changed"]
    assert changed["changes"] == {
        "package": [
            "Replace Hand Weapon, Upgrade with one",
            "Upgrade one model with, Replace all Spears, Upgrade with one",
        ]
    }


def test_a_package_ref_written_either_way_is_the_same():
    old = aof_book()
    new = newer(old)
    unit(new, "wardens")["upgrades"] = [{"package": "TROOPS", "without": []}]
    assert unit_changes(old, new) == {}


def test_units_added_and_removed_say_id_name_and_cost_in_their_books_order():
    old = aof_book(units=4)
    new = newer(old)
    new["units"] = [u for u in new["units"] if u["id"] not in ("wardens-0", "wardens-1")]
    for ident, name in (("scouts", "Scouts"), ("archers", "Archers")):
        new["units"].insert(1, {**copy.deepcopy(unit(old, "wardens")), "id": ident, "name": name, "cost": 90})
    assert book_changes(old, new)["units"] == {
        "added": [{"id": "archers", "name": "Archers", "cost": 90}, {"id": "scouts", "name": "Scouts", "cost": 90}],
        "removed": [
            {"id": "wardens-0", "name": "Wardens Cohort 0", "cost": 60},
            {"id": "wardens-1", "name": "Wardens Cohort 1", "cost": 61},
        ],
        "changed": [],
    }


def test_changed_units_come_in_the_new_books_order():
    old = aof_book(units=4)
    new = newer(old)
    new["units"].reverse()
    for u in new["units"]:
        u["cost"] += 5
    assert [u["id"] for u in book_changes(old, new)["units"]["changed"]] == [
        "wardens-1",
        "wardens-0",
        "wardens",
        "warden-captain",
    ]


# -- options and sections ----------------------------------------------------------------
def test_an_option_whose_cost_alone_changed_lists_only_its_cost_with_its_label_and_section():
    old = aof_book()
    new = newer(old)
    option(new, "HERO-2a")["cost"] = 25
    assert book_changes(old, new)["options"] == {
        "added": [],
        "removed": [],
        "changed": [
            {
                "id": "HERO-2a",
                "label": "Warhorse",
                "section": "Upgrade with one",
                "section_id": "HERO-2",
                "changes": {"cost": [20, 25]},
            }
        ],
    }


def test_a_unit_own_price_that_changed_is_listed_under_costs():
    old = aof_book()
    new = newer(old)
    option(new, "TROOPS-2a")["costs"] = {"wardens": 20}
    assert option_changes(old, new) == {"TROOPS-2a": {"costs": {"wardens": [15, 20]}}}


def test_a_unit_own_price_on_one_side_only_compares_with_the_plain_cost_of_the_other():
    old = aof_book()
    new = newer(old)
    del option(new, "TROOPS-2a")["costs"]  # wardens now pays the plain 10
    option(new, "HERO-1a")["costs"] = {"warden-captain": 8}
    assert option_changes(old, new) == {
        "TROOPS-2a": {"costs": {"wardens": [15, 10]}},
        "HERO-1a": {"costs": {"warden-captain": [5, 8]}},
    }


def test_a_unit_own_price_that_stays_is_not_listed_when_the_plain_cost_changes():
    old = aof_book()
    new = newer(old)
    option(new, "TROOPS-2a")["cost"] = 12
    assert option_changes(old, new) == {"TROOPS-2a": {"cost": [10, 12]}}


def test_an_own_price_equal_to_the_plain_cost_of_the_other_side_is_no_change():
    old = aof_book()
    new = newer(old)
    halberds = option(new, "TROOPS-2a")
    halberds["cost"] = 15
    del halberds["costs"]
    assert option_changes(old, new) == {"TROOPS-2a": {"cost": [10, 15]}}


def test_a_unit_newly_taking_an_option_is_listed_as_added_to_it_with_its_price_never_as_a_price_change():
    """The captain takes the troops' package now, and the Halberds have a price of their
    own for it: the captain is added to each option of the package, at its price."""
    old = aof_book()
    new = newer(old)
    unit(new, "warden-captain")["upgrades"] = ["HERO", "TROOPS"]
    option(new, "TROOPS-2a")["costs"] = {"wardens": 15, "warden-captain": 30}
    captain = {"id": "warden-captain", "name": "Warden Captain"}
    assert option_changes(old, new) == {
        "TROOPS-1a": {"units": {"added": [{**captain, "cost": 5}]}},
        "TROOPS-1b": {"units": {"added": [{**captain, "cost": 5}]}},
        "TROOPS-2a": {"units": {"added": [{**captain, "cost": 30}]}},
    }


def test_a_unit_no_longer_taking_an_option_is_listed_as_removed_from_it_with_its_old_price():
    """The wardens lose the Halberds' section, and the Halberds their price for them: not a
    price change from 15 to 10, the option is gone from the unit."""
    old = aof_book()
    new = newer(old)
    unit(new, "wardens")["upgrades"] = [{"package": "TROOPS", "without": ["TROOPS-2"]}]
    del option(new, "TROOPS-2a")["costs"]
    assert option_changes(old, new) == {
        "TROOPS-2a": {"units": {"removed": [{"id": "wardens", "name": "Wardens", "cost": 15}]}}
    }


def test_a_unit_new_to_the_book_or_gone_from_it_is_not_listed_on_its_options():
    old = aof_book(units=3)
    new = newer(old)
    new["units"] = [u for u in new["units"] if u["id"] != "wardens-0"]
    new["units"].append({**copy.deepcopy(unit(old, "wardens")), "id": "scouts", "name": "Scouts"})
    changes = book_changes(old, new)
    assert [u["id"] for u in changes["units"]["added"]] == ["scouts"]
    assert [u["id"] for u in changes["units"]["removed"]] == ["wardens-0"]
    assert changes["options"] == EMPTY


def test_an_own_price_given_to_a_unit_that_takes_the_option_in_neither_book_is_no_change():
    old = aof_book()
    new = newer(old)
    option(new, "HERO-2a")["costs"] = {"wardens": 50}
    assert option_changes(old, new) == {}


def test_a_unit_taking_an_option_in_both_books_still_shows_its_real_price_change_beside_units_added():
    old = aof_book()
    new = newer(old)
    unit(new, "wardens-0")["upgrades"] = []
    option(new, "TROOPS-2a")["costs"] = {"wardens": 20}
    assert option_changes(old, new)["TROOPS-2a"] == {
        "costs": {"wardens": [15, 20]},
        "units": {"removed": [{"id": "wardens-0", "name": "Wardens Cohort 0", "cost": 10}]},
    }


def test_a_relabelled_option_lists_its_label():
    old = aof_book()
    new = newer(old)
    option(new, "TROOPS-1b")["label"] = "Standard"
    assert option_changes(old, new) == {"TROOPS-1b": {"label": ["Banner", "Standard"]}}


def test_changed_gains_are_listed_as_readable_labels():
    old = aof_book()
    new = newer(old)
    option(new, "HERO-1a")["gains"] = [
        {"kind": "weapon", "name": "Great Axe", "attacks": 3, "rules": ["AP(2)"]},
        {"kind": "rule", "name": "Furious"},
    ]
    option(new, "HERO-2a")["gains"][0]["equipment"] = [{"name": "Hooves", "attacks": 1, "rules": []}]
    assert option_changes(old, new) == {
        "HERO-1a": {"gains": {"added": ["Great Axe (A3, AP(2))", "Furious"], "removed": ["Great Axe (A3, AP(1))"]}},
        "HERO-2a": {
            "gains": {"added": ["Warhorse (Hooves (A1), Fast, Impact(1))"], "removed": ["Warhorse (Fast, Impact(1))"]}
        },
    }


def test_a_gain_count_of_one_is_the_same_as_none():
    old = aof_book()
    new = newer(old)
    option(new, "HERO-1a")["gains"][0]["count"] = 1
    assert option_changes(old, new) == {}


def test_a_changed_command_group_role_is_listed():
    old = aof_book()
    new = newer(old)
    option(new, "TROOPS-1b")["command"] = "musician"
    assert option_changes(old, new) == {"TROOPS-1b": {"command": ["banner", "musician"]}}


def test_an_option_moved_to_another_section_names_both_sections():
    old = aof_book()
    new = newer(old)
    halberds = option(new, "TROOPS-2a")
    section(new, "TROOPS-2")["options"].remove(halberds)
    section(new, "TROOPS-1")["options"].append(halberds)
    assert option_changes(old, new) == {
        "TROOPS-2a": {
            "section": ["Replace all Spears", "Upgrade one model with"],
            "section_id": ["TROOPS-2", "TROOPS-1"],
        }
    }


def test_options_added_and_removed_say_label_section_and_cost():
    old = aof_book()
    new = newer(old)
    section(new, "HERO-2")["options"] = [
        {"id": "HERO-2b", "label": "Griffon", "cost": 60, "gains": [{"kind": "item", "name": "Griffon", "rules": []}]}
    ]
    section(new, "TROOPS-1")["options"].append(
        {"id": "TROOPS-1c", "label": "Musician", "cost": 5, "costs": {"wardens": 10}, "gains": []}
    )
    assert book_changes(old, new)["options"] == {
        "added": [
            {"id": "HERO-2b", "label": "Griffon", "section": "Upgrade with one", "section_id": "HERO-2", "cost": 60},
            {
                "id": "TROOPS-1c",
                "label": "Musician",
                "section": "Upgrade one model with",
                "section_id": "TROOPS-1",
                "cost": 5,
                "costs": {"wardens": 10},
            },
        ],
        "removed": [
            {"id": "HERO-2a", "label": "Warhorse", "section": "Upgrade with one", "section_id": "HERO-2", "cost": 20}
        ],
        "changed": [],
    }


def test_a_section_whose_limits_changed_is_listed_with_them_in_words():
    old = aof_book()
    section(old, "TROOPS-1")["select"] = {"type": "up to", "value": 2}
    new = newer(old)
    troops = section(new, "TROOPS-1")
    troops.update(label="Upgrade up to two models with", select={"type": "up to", "value": 1, "per": "model"})
    troops["affects"] = {"type": "up to", "value": 2}
    section(new, "TROOPS-2")["targets"] = [{"name": "Spear", "count": 2}]
    section(new, "HERO-2")["optional"] = False
    changes = book_changes(old, new)
    assert changes["sections"] == {
        "changed": [
            {
                "id": "HERO-2",
                "label": "Upgrade with one",
                "changes": {"optional": [True, False]},
            },
            {
                "id": "TROOPS-1",
                "label": "Upgrade up to two models with",
                "changes": {
                    "label": ["Upgrade one model with", "Upgrade up to two models with"],
                    "affects": ["exactly 1", "up to 2"],
                    "select": ["up to 2", "up to 1 per model"],
                },
            },
            {"id": "TROOPS-2", "label": "Replace all Spears", "changes": {"targets": [["Spear"], ["2x Spear"]]}},
        ]
    }
    assert changes["options"] == EMPTY


def test_a_section_limit_given_or_taken_away_is_none_on_the_side_without_it():
    old = aof_book()
    new = newer(old)
    section(new, "HERO-1")["select"] = {"type": "any"}
    assert book_changes(old, new)["sections"]["changed"][0]["changes"] == {"select": [None, "any"]}


# -- the book's rules and spells ---------------------------------------------------------
def test_book_rules_added_removed_and_changed_are_matched_by_name():
    old = aof_book()
    old["rules"].append({"name": "Old Oath", "rated": False, "text": "Gone."})
    new = newer(old)
    new["rules"] = [
        {"name": "New Oath", "rated": True, "text": "New text."},
        {"name": "Shieldbrothers", "rated": False, "text": "Changed text."},
    ]
    assert book_changes(old, new)["rules"] == {
        "added": [{"name": "New Oath", "text": "New text."}],
        "removed": [{"name": "Old Oath", "text": "Gone."}],
        "changed": [{"name": "Shieldbrothers", "text": ["Test rule text.", "Changed text."]}],
    }


def test_a_rule_that_now_takes_a_value_says_so():
    old = aof_book()
    new = newer(old)
    new["rules"][0]["rated"] = True
    assert book_changes(old, new)["rules"]["changed"] == [{"name": "Shieldbrothers", "rated": [False, True]}]


def core(name: str, text: str = "") -> dict[str, Any]:
    return {"name": name, "rated": False, "text": text, "core": True}


def test_core_rules_the_book_names_are_compared_apart_from_its_own_rules():
    old = aof_book()
    old["rules"] += [core("Bane", "Old words."), core("Thrust", "Charge words."), core("Rending")]
    new = newer(old)
    new["rules"] = [old["rules"][0], core("Bane", "New words."), core("Rending", "Army Forge's words."), core("Lance")]
    changes = book_changes(old, new)
    assert changes["rules"] == EMPTY
    assert changes["core_rules"] == {
        "added": [{"name": "Lance", "text": ""}],
        "removed": [{"name": "Thrust", "text": "Charge words."}],
        "changed": [{"name": "Bane", "text": ["Old words.", "New words."]}],
    }


@pytest.mark.parametrize("note", [NEWER_RULE_NOTE, MISSING_RULE_NOTE])
def test_a_placeholder_on_one_side_and_a_core_rule_on_the_other_is_no_change(note):
    old = aof_book()
    old["rules"].append({"name": "Takedown", "rated": False, "text": note.format(name="Takedown")})
    new = newer(old)
    new["rules"][-1] = core("Takedown", "Pick any model of the target unit.")
    assert (book_changes(old, new)["rules"], book_changes(old, new)["core_rules"]) == (EMPTY, EMPTY)
    assert (book_changes(new, old)["rules"], book_changes(new, old)["core_rules"]) == (EMPTY, EMPTY)


def test_a_book_rule_whose_text_became_a_placeholder_is_a_core_rule_added_keeping_the_book_text():
    """Army Forge took the rule into its core rules: the book no longer describes it, and
    the converter wrote its note for it. Not a rule changed to the note."""
    old = aof_book()
    old["rules"].append({"name": "Vanguard", "rated": False, "text": "Move up to 9 inches after deploying."})
    new = newer(old)
    new["rules"][-1] = {"name": "Vanguard", "rated": False, "text": MISSING_RULE_NOTE.format(name="Vanguard")}
    changes = book_changes(old, new)
    assert changes["rules"] == EMPTY
    assert changes["core_rules"] == {
        "added": [{"name": "Vanguard", "text": "", "book_text": "Move up to 9 inches after deploying."}],
        "removed": [],
        "changed": [],
    }
    back = book_changes(new, old)
    assert back["rules"] == EMPTY
    assert back["core_rules"]["removed"] == [
        {"name": "Vanguard", "text": "", "book_text": "Move up to 9 inches after deploying."}
    ]


def test_a_rule_that_merely_reads_like_a_placeholder_of_another_name_is_the_books_own():
    old = aof_book()
    old["rules"].append({"name": "Oath", "rated": False, "text": NEWER_RULE_NOTE.format(name="Vow")})
    new = newer(old)
    new["rules"][-1] = {"name": "Oath", "rated": False, "text": "Sworn."}
    assert book_changes(old, new)["rules"]["changed"] == [
        {"name": "Oath", "text": [NEWER_RULE_NOTE.format(name="Vow"), "Sworn."]}
    ]


def test_spells_list_only_the_cost_or_text_that_changed():
    old = aof_book()
    old["spells"].append({"name": "Mist", "cost": 2, "text": "Test mist."})
    new = newer(old)
    new["spells"] = [
        {"name": "Spark", "cost": 2, "text": "Test spell text."},
        {"name": "Mist", "cost": 2, "text": "Thicker mist."},
        {"name": "Bolt", "cost": 3, "text": "Test bolt."},
    ]
    assert book_changes(old, new)["spells"] == {
        "added": [{"name": "Bolt", "cost": 3, "text": "Test bolt."}],
        "removed": [],
        "changed": [{"name": "Spark", "cost": [1, 2]}, {"name": "Mist", "text": ["Test mist.", "Thicker mist."]}],
    }


# -- the summary -------------------------------------------------------------------------
def test_the_summary_counts_what_a_headline_says():
    old = aof_book(units=5)
    new = newer(old)
    unit(new, "wardens")["cost"] = 100
    unit(new, "wardens-0")["cost"] = 70
    unit(new, "wardens-1")["stats"]["quality"] = 3
    new["units"] = [u for u in new["units"] if u["id"] != "wardens-2"]
    option(new, "HERO-1a")["cost"] = 10
    new["spells"][0]["text"] = "Other text."
    assert changes_summary(book_changes(old, new)) == {
        "from": "1.0.0",
        "to": "1.1.0",
        "units": {"added": 0, "removed": 1, "changed": 3, "cost_changed": 2, "cost_up": 1, "cost_down": 1},
        "armyforge_rules": {"from": None, "to": None},
        "options": {"added": 0, "removed": 0, "changed": 1, "units_added": 0, "units_removed": 0},
        "rules": {"added": 0, "removed": 0, "changed": 0},
        "core_rules": {"added": 0, "removed": 0, "changed": 0},
        "spells": {"added": 0, "removed": 0, "changed": 1},
        "sections": {"changed": 0},
        "unchanged": False,
    }


def test_the_summary_counts_core_rules_units_an_option_gained_and_the_core_rules_versions():
    old = aof_book()
    old["armyforge_rules"] = "2026-11-29"
    new = newer(old)
    new["armyforge_rules"] = "2026-12-20"
    new["rules"].append({"name": "Bane", "rated": False, "text": "", "core": True})
    unit(new, "warden-captain")["upgrades"] = ["HERO", "TROOPS"]
    summary = changes_summary(book_changes(old, new))
    assert summary["armyforge_rules"] == {"from": "2026-11-29", "to": "2026-12-20"}
    assert summary["core_rules"] == {"added": 1, "removed": 0, "changed": 0}
    assert summary["options"] == {"added": 0, "removed": 0, "changed": 3, "units_added": 3, "units_removed": 0}
    assert summary["unchanged"] is False
    only_core = newer(aof_book())
    only_core["rules"].append({"name": "Bane", "rated": False, "text": "", "core": True})
    assert changes_summary(book_changes(aof_book(), only_core))["unchanged"] is False


# -- the official books, 3.5.1 → 3.5.2 ---------------------------------------------------
def system_of(name: str) -> str:
    return name.split("--", 1)[0]


@cache
def armyforge_file(path: Path) -> dict[str, Any]:
    return json.loads(require_shared(path).read_text(encoding="utf-8"))


def raw_pair(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The Army Forge book `name` at 3.5.1 and as it is now (3.5.2)."""
    return armyforge_file(ARMYFORGE / OLD_VERSION / name), armyforge_file(ARMYFORGE / name)


def converted(data: dict[str, Any], name: str) -> Book:
    result = armybook_from_armyforge(data, rulesets=ruleset_infos(), system=system_of(name))
    assert result.errors == []
    return result.book


def real_changes(name: str) -> dict[str, Any]:
    old, new = raw_pair(name)
    return book_changes(converted(old, name), converted(new, name))


def by_id(things: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {thing["id"]: thing for thing in things}


# What the two Army Forge files say, worked out from the files alone.
def raw_unit_fields(old: dict[str, Any], new: dict[str, Any]) -> dict[tuple[str, str], list[Any]]:
    """{(unit id, field): [old, new]} of each unit in both whose cost, size, name, Quality
    or Defense differs."""
    before = {u["id"]: u for u in old["units"]}
    out = {}
    for after in new["units"]:
        was = before.get(after["id"])
        for key in ("name", "cost", "size", "quality", "defense"):
            if was is not None and was[key] != after[key]:
                out[(our_id(after["id"]), key)] = [was[key], after[key]]
    return out


def raw_rule_strings(unit: dict[str, Any]) -> list[str]:
    return [r["name"] if r.get("rating") is None else f"{r['name']}({r['rating']})" for r in unit["rules"]]


def raw_options(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        our_id(o["uid"]): o for package in data["upgradePackages"] for s in package["sections"] for o in s["options"]
    }


def raw_prices(data: dict[str, Any]) -> dict[tuple[str, str], int]:
    """{(option id, unit id): what Army Forge charges the unit for one pick}."""
    return {
        (our_id(af_option["uid"]), our_id(af_unit["id"])): armyforge_cost(af_unit, af_option)
        for af_unit in data["units"]
        for _section, af_option in armyforge_options(data, af_unit)
    }


def raw_spells(data: dict[str, Any], system: str) -> dict[str, tuple[int, str]]:
    spells = {}
    for spell in data.get("spells") or []:
        text = spell.get("effect")
        if system == "aof-skirmish" and (spell.get("effectSkirmish") or "").strip():
            text = spell["effectSkirmish"]
        spells[spell["name"].strip()] = (spell["threshold"], text.strip())
    return spells


# What book_changes says, read back into the same terms.
def price_changes(changes: dict[str, Any], old: Book, new: Book) -> dict[tuple[str, str], list[int]]:
    """{(option id, unit id): [old, new]} of what each unit taking a changed option in both
    books pays, read from the changes: the unit's price under `costs`, else the option's
    `cost`, except for a unit with a price of its own on either side, which `costs` lists
    when, and only when, it changed."""
    takers = option_takers(old) & option_takers(new)
    before, after = by_id(all_options(old)), by_id(all_options(new))
    out = {}
    for entry in changes["options"]["changed"]:
        ident, what = entry["id"], entry["changes"]
        own = {*(before[ident].get("costs") or {}), *(after[ident].get("costs") or {})}
        for option_id, unit_id in takers:
            if option_id != ident:
                continue
            if unit_id in what.get("costs", {}):
                out[(option_id, unit_id)] = what["costs"][unit_id]
            elif "cost" in what and unit_id not in own:
                out[(option_id, unit_id)] = what["cost"]
    return out


def all_options(book: Book) -> list[dict[str, Any]]:
    return [o for p in book["packages"] for s in p["sections"] for o in s["options"]]


def option_takers(book: Book) -> set[tuple[str, str]]:
    """(option id, unit id) of every option a unit of the converted book may take."""
    packages = {p["id"]: p for p in book["packages"]}
    pairs = set()
    for u in book["units"]:
        for ref in u["upgrades"]:
            package, without = (ref, []) if isinstance(ref, str) else (ref["package"], ref["without"])
            for s in packages[package]["sections"]:
                if s["id"] not in without:
                    pairs.update((o["id"], u["id"]) for o in s["options"])
    return pairs


@pytest.mark.django_db
@pytest.mark.parametrize("name", BOOKS)
def test_unit_changes_are_what_the_army_forge_files_say(name):
    old, new = raw_pair(name)
    changes = real_changes(name)
    assert changes["from"] == OLD_VERSION and changes["to"] == new["versionString"]
    old_ids, new_ids = [our_id(u["id"]) for u in old["units"]], [our_id(u["id"]) for u in new["units"]]
    assert [u["id"] for u in changes["units"]["added"]] == [i for i in new_ids if i not in old_ids]
    assert [u["id"] for u in changes["units"]["removed"]] == [i for i in old_ids if i not in new_ids]
    reported = {
        (u["id"], key): pair
        for u in changes["units"]["changed"]
        for key, pair in u["changes"].items()
        if key in ("name", "cost", "size", "quality", "defense")
    }
    assert reported == raw_unit_fields(old, new)
    raw_rules = {}
    before = {u["id"]: u for u in old["units"]}
    for after in new["units"]:
        if after["id"] not in before:
            continue
        was, now = Counter(raw_rule_strings(before[after["id"]])), Counter(raw_rule_strings(after))
        if was != now:
            raw_rules[our_id(after["id"])] = (sorted((now - was).elements()), sorted((was - now).elements()))
    reported_rules = {
        u["id"]: (sorted(u["changes"]["rules"].get("added", [])), sorted(u["changes"]["rules"].get("removed", [])))
        for u in changes["units"]["changed"]
        if "rules" in u["changes"]
    }
    assert reported_rules == raw_rules


@pytest.mark.django_db
@pytest.mark.parametrize("name", BOOKS)
def test_option_changes_are_what_the_army_forge_files_say(name):
    old, new = raw_pair(name)
    old_book, new_book = converted(old, name), converted(new, name)
    changes = book_changes(old_book, new_book)
    old_options, new_options = raw_options(old), raw_options(new)
    assert [o["id"] for o in changes["options"]["added"]] == [i for i in new_options if i not in old_options]
    assert [o["id"] for o in changes["options"]["removed"]] == [i for i in old_options if i not in new_options]
    old_prices, new_prices = raw_prices(old), raw_prices(new)
    raw_price_changes = {
        pair: [old_prices[pair], price]
        for pair, price in new_prices.items()
        if pair in old_prices and old_prices[pair] != price
    }
    assert price_changes(changes, old_book, new_book) == raw_price_changes
    relabelled = {
        ident: [" ".join(old_options[ident]["label"].split()), " ".join(o["label"].split())]
        for ident, o in new_options.items()
        if ident in old_options and old_options[ident]["label"] != o["label"]
    }
    assert {o["id"]: o["changes"]["label"] for o in changes["options"]["changed"] if "label" in o["changes"]} == (
        relabelled
    )


@pytest.mark.django_db
@pytest.mark.parametrize("name", BOOKS)
def test_rule_and_spell_changes_are_what_the_army_forge_files_say(name):
    old, new = raw_pair(name)
    old_book, new_book = converted(old, name), converted(new, name)
    changes = book_changes(old_book, new_book)
    held = {r["name"] for r in old_book["rules"]} & {r["name"] for r in new_book["rules"]}
    old_texts = {r["name"]: r.get("description") for r in old["specialRules"]}
    rewritten = [
        r["name"] for r in new["specialRules"] if r["name"] in held and old_texts[r["name"]] != r["description"]
    ]
    assert [r["name"] for r in changes["rules"]["changed"] if "text" in r] == rewritten
    old_spells, new_spells = raw_spells(old, system_of(name)), raw_spells(new, system_of(name))
    spell_changes = []
    for spell, (cost, text) in new_spells.items():
        was = old_spells.get(spell)
        if was is not None and was != (cost, text):
            spell_changes.append(
                {"name": spell}
                | ({"cost": [was[0], cost]} if was[0] != cost else {})
                | ({"text": [was[1], text]} if was[1] != text else {})
            )
    assert changes["spells"] == {
        "added": [{"name": s, "cost": c, "text": t} for s, (c, t) in new_spells.items() if s not in old_spells],
        "removed": [{"name": s, "cost": c, "text": t} for s, (c, t) in old_spells.items() if s not in new_spells],
        "changed": spell_changes,
    }


@pytest.mark.django_db
@pytest.mark.parametrize("name", BOOKS)
def test_going_back_a_version_swaps_added_and_removed(name):
    old, new = raw_pair(name)
    old_book, new_book = converted(old, name), converted(new, name)
    forward, back = book_changes(old_book, new_book), book_changes(new_book, old_book)
    for kind in ("units", "options", "rules", "core_rules", "spells"):
        assert (back[kind]["added"], back[kind]["removed"]) == (forward[kind]["removed"], forward[kind]["added"])
        assert {c.get("id", c.get("name")) for c in back[kind]["changed"]} == {
            c.get("id", c.get("name")) for c in forward[kind]["changed"]
        }
    assert book_changes(new_book, copy.deepcopy(new_book))["units"] == EMPTY


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["aof--ratmen.json", "aof--wood-elves.json"])
def test_the_books_as_the_site_exports_them_give_the_same_changes(name):
    """The site holds versions as it keeps them (`armybook.kept_form`), not as the converter
    made them: both must give the same changes."""
    old, new = raw_pair(name)
    exported = []
    for data in (old, new):
        faction = book_import(data=data, system=system_of(name)).faction
        exported.append(faction_document(faction=faction))
    assert book_changes(*exported) == real_changes(name)


@pytest.mark.django_db
def test_chivalrous_kingdoms_knights_change_cost():
    changes = real_changes("aof--chivalrous-kingdoms.json")
    costs = {u["name"]: u["changes"]["cost"] for u in changes["units"]["changed"] if "cost" in u["changes"]}
    assert costs == {"Pledge Knights": [120, 125], "Grail Knights": [135, 125], "Pegasus Knights": [205, 210]}
    pegasus = next(u for u in changes["units"]["changed"] if u["name"] == "Pegasus Knights")
    assert pegasus["changes"]["rules"] == {"added": ["Heavy Impact(2)"], "removed": ["Impact(2)", "Heavy Impact"]}
    assert changes_summary(changes)["units"]["cost_changed"] == 3


@pytest.mark.django_db
def test_wood_elves_units_as_a_whole():
    changes = real_changes("aof--wood-elves.json")
    # Army Forge now calls its riders Cavalry, not Knights: both read as cavalry, no change.
    assert changes["units"] == {
        "added": [],
        "removed": [],
        "changed": [
            {"id": "j6eudp0", "name": "Giant Beetle", "changes": {"cost": [225, 230]}},
            {"id": "WkwWHKK", "name": "Forest Ancient", "changes": {"cost": [750, 755]}},
        ],
    }
    beetle_options = {o["label"]: o["changes"] for o in changes["options"]["changed"] if o["section_id"] == "qjzrw"}
    assert beetle_options == {
        'Shortbow Crew (18", A6)': {"cost": [10, 5]},
        "Beetle Nest (Spawn(Beetle Swarms [3]))": {"cost": [50, 45]},
        'Ballista (24", A2, AP(2), Deadly(3))': {"cost": [50, 45]},
    }


@pytest.mark.django_db
def test_ratmen_options_replaced_relabelled_and_repriced():
    changes = real_changes("aof--ratmen.json")
    options = changes["options"]
    assert [(o["id"], o["label"], o["section"]) for o in options["removed"]] == [
        ("cByHKhW62Q", "Scout Master (Scout, Stealth, Strider)", "Upgrade with one"),
        ("31nsoKzC", "Assassin (Takedown Strike)", "Upgrade with one"),
    ]
    assert [(o["id"], o["label"], o["cost"]) for o in options["added"]] == [
        ("tYrIhbQKOm", "Scout Master (Scout, Stealth, Strider)", 15),
        ("0qZGXPnwZ3", "Master Assassin (Takedown Strike)", 15),
    ]
    assert by_id(options["changed"])["AcIzp"] == {
        "id": "AcIzp",
        "label": "Bladed Wheels (Heavy Impact(8))",
        "section": "Replace Twin Gatling Guns and Heavy Wheels",
        "section_id": "hpnKLMu",
        "changes": {
            "label": ["Bladed Wheels (Heavy Impact, Impact(5))", "Bladed Wheels (Heavy Impact(8))"],
            "cost": [10, 15],
            "gains": {
                "added": ["Bladed Wheels (Heavy Impact(8))"],
                "removed": ["Bladed Wheels (Heavy Impact, Impact(5))"],
            },
        },
    }
    assert by_id(options["changed"])["H2NPD8I2DK"]["changes"]["gains"] == {"added": ["Heavy Wheels (Impact(3))"]}
    sections = by_id(changes["sections"]["changed"])
    assert sections["b56i15q"]["changes"]["select"] == ["up to 1 per option", "exactly 1"]
    assert sections["hpnKLMu"]["changes"]["targets"] == [["Twin Gatling Guns"], ["Twin Gatling Guns", "Heavy Wheels"]]
    roller = by_id(changes["units"]["changed"])["nlL4SRE"]
    assert roller["changes"] == {"rules": {"removed": ["Impact(3)"]}, "items": {"added": ["Heavy Wheels (Impact(3))"]}}


@pytest.mark.django_db
def test_ratmen_3_5_3_describes_takedown_which_3_5_2_named_without_a_text():
    """Ratmen 3.5.2 used Takedown without describing it (the converter wrote its note for a
    rule from a newer rulebook); 3.5.3 describes it. No rule changed to or from the note."""
    changes = book_changes(*(converted(data, "aof--ratmen.json") for data in ratmen_3_5_2_and_3_5_3()))
    assert "Takedown" not in {r["name"] for kind in ("added", "removed", "changed") for r in changes["rules"][kind]}
    # Both read Takedown as a core rule of Army Forge's; 3.5.2 had no text for it: no change.
    assert "Takedown" not in {
        r["name"] for kind in ("added", "removed", "changed") for r in changes["core_rules"][kind]
    }


def ratmen_3_5_2_and_3_5_3() -> tuple[dict[str, Any], dict[str, Any]]:
    return armyforge_file(ARMYFORGE / "aof--ratmen.json"), armyforge_file(ARMYFORGE / "3.5.3" / "aof--ratmen.json")


@pytest.mark.django_db
def test_volcanic_dwarves_grudge_bearer_is_a_new_option():
    changes = real_changes("aof-skirmish--volcanic-dwarves.json")
    assert changes["options"] == {
        "added": [
            {
                "id": "FisnLxT7DL",
                "label": "Grudge Bearer (Takedown Strike)",
                "section": "Upgrade with one",
                "section_id": "J0HqF1rw",
                "cost": 15,
            }
        ],
        "removed": [
            {
                "id": "i6mHBGfnKD",
                "label": "Grudge Bearer (Takedown Strike)",
                "section": "Upgrade with one",
                "section_id": "J0HqF1rw",
                "cost": 15,
            }
        ],
        "changed": [],
    }
    assert [r["name"] for r in changes["rules"]["changed"]] == ["Reinforcement"]
    assert changes["units"] == EMPTY
