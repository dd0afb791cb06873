"""Shared data-level checks: unknown units and options, section limits, replacements,
and how picks change loadouts and points."""

import pytest

from armybuilder.engine.choices import section_choices
from tests.support.engine_helpers import book, codes, hero, only, option, run, section, unit, weapon

W = {"kind": "weapon", "name": "Great Weapon", "attacks": 2, "rules": ["AP(1)"]}

BOOK = book(
    "aof",
    [
        hero("captain", equipment=[weapon("Hand Weapon")], upgrades=["HERO"]),
        unit(
            "spears",
            size=10,
            cost=100,
            equipment=[weapon("Spear", 10, rules=["Counter"]), weapon("Shield", 10, attacks=0)],
            upgrades=["TROOP"],
        ),
    ],
    [
        {
            "id": "HERO",
            "sections": [
                section(
                    "H-req",
                    "replace",
                    [option("gw", 5, [W]), option("axe", 3, [{**W, "name": "Axe"}])],
                    targets=["Hand Weapon"],
                    select={"type": "exactly", "value": 1},
                ),
                section(
                    "H-one",
                    "upgrade",
                    [
                        option("horse", 20, [{"kind": "item", "name": "Horse", "rules": ["Fast"]}]),
                        option("cloak", 10, [{"kind": "item", "name": "Cloak", "rules": ["Stealth"]}]),
                    ],
                ),
                section(
                    "H-upto",
                    "upgrade",
                    [
                        option("r1", 5, [{"kind": "rule", "name": "Fearless"}]),
                        option("r2", 5, [{"kind": "rule", "name": "Furious"}]),
                        option("r3", 5, [{"kind": "rule", "name": "Strider"}]),
                    ],
                    select={"type": "up to", "value": 2},
                ),
                section(
                    "H-again",
                    "replace",
                    [option("hw-to-lance", 2, [{**W, "name": "Lance"}])],
                    targets=["Hand Weapon"],
                ),
            ],
        },
        {
            "id": "TROOP",
            "sections": [
                section(
                    "T-all",
                    "replace",
                    [option("halberds", 10, [{**W, "name": "Halberd", "attacks": 1}], costs={"spears": 15})],
                    targets=["Spear"],
                    affects={"type": "all"},
                ),
                section(
                    "T-any",
                    "replace",
                    [
                        option(
                            "bows",
                            2,
                            [{"kind": "weapon", "name": "Bow", "range": 24, "attacks": 1, "rules": []}],
                        )
                    ],
                    targets=["Spear"],
                    affects={"type": "any"},
                    select={"type": "any"},
                ),
                section(
                    "T-two",
                    "upgrade",
                    [option("vets", 4, [{"kind": "item", "name": "Veteran Badge", "rules": ["Relentless"]}])],
                    affects={"type": "exactly", "value": 2},
                    select={"type": "any"},
                ),
                section(
                    "T-upto",
                    "replace",
                    [option("nets", 3, [{"kind": "weapon", "name": "Net", "attacks": 1, "rules": []}])],
                    targets=["Shield"],
                    affects={"type": "up to", "value": 2},
                    select={"type": "up to", "value": 2},
                ),
                section(
                    "T-add",
                    "models",
                    [
                        option(
                            "extra",
                            12,
                            [
                                {
                                    "kind": "model",
                                    "name": "Veteran",
                                    "equipment": [{"name": "Spear", "count": 1, "attacks": 1, "rules": ["Counter"]}],
                                    "rules": [],
                                }
                            ],
                        )
                    ],
                    select={"type": "up to", "value": 2},
                ),
            ],
        },
    ],
)


def check(entry: dict, **kw):
    return run("aof", BOOK, 2000, [entry], **kw)


def test_unknown_unit_is_reported_and_costs_nothing():
    result = check({"id": "x", "unit": "dragon"})
    issue = only(result, "unknown_unit")
    assert issue.message == '"dragon" is not a unit of Test Army'
    assert (issue.entry, result.entries[0].cost, result.entries[0].errors) == ("x", 0, 1)


def test_unknown_option_is_reported_and_ignored():
    result = check({"id": "s", "unit": "spears", "options": {"gw": 1, "nope": 2}})
    assert (
        only(result, "unknown_option").message == 'Spears: Spears does not offer 2 of the options picked ("gw", "nope")'
    )
    assert result.entries[0].cost == 100
    assert only(check({"id": "s", "unit": "spears", "options": {"nope": 1}}), "unknown_option").message == (
        'Spears: Spears has no option "nope"'
    )


def test_a_flood_of_unknown_options_is_one_short_issue_and_changes_nothing_else():
    # A stored list from before input refused it (issue 37): 185,000 ids its unit does not
    # offer, beside a real pick. One issue for the entry, naming how many and a few of them.
    flood = {f"x{n}": 1 for n in range(185_000)}
    result = check({"id": "s", "unit": "spears", "options": {**flood, "halberds": 1, "y" * 500: 3}})
    issue = only(result, "unknown_option")
    assert issue.entry == "s"
    assert issue.message == 'Spears: Spears does not offer 185,001 of the options picked (e.g. "x0", "x1", "x2")'
    assert [i.code for i in result.issues] == ["unknown_option"]
    assert result.entries[0].cost > 100  # the real pick still counts
    assert result.entries[0].cost == check({"id": "s", "unit": "spears", "options": {"halberds": 1}}).entries[0].cost
    long_id = only(check({"id": "s", "unit": "spears", "options": {"y" * 500: 3}}), "unknown_option").message
    assert len(long_id) < 80 and long_id.endswith('…"')  # a long id is cut short, not printed whole


def test_zero_picks_are_no_picks():
    assert check({"id": "s", "unit": "spears", "options": {"nope": 0, "halberds": 0}}).valid


def test_exactly_one_section_needs_its_pick():
    issue = only(check({"id": "h", "unit": "captain"}), "option_required")
    assert issue.message == 'Captain: "H-req" needs exactly 1 pick, but has 0'
    assert check({"id": "h", "unit": "captain", "options": {"gw": 1}}).valid


def test_exactly_one_section_refuses_two_picks():
    issue = only(check({"id": "h", "unit": "captain", "options": {"gw": 1, "axe": 1}}), "option_limit")
    assert issue.message == 'Captain: "H-req" allows at most 1 pick, but has 2'


def test_a_section_without_select_allows_one_pick():
    assert check({"id": "h", "unit": "captain", "options": {"gw": 1, "horse": 1}}).valid
    result = check({"id": "h", "unit": "captain", "options": {"gw": 1, "horse": 1, "cloak": 1}})
    assert only(result, "option_limit").message == 'Captain: "H-one" allows at most 1 pick, but has 2'


def test_up_to_two_allows_two_and_refuses_three():
    assert check({"id": "h", "unit": "captain", "options": {"gw": 1, "r1": 1, "r2": 1}}).valid
    result = check({"id": "h", "unit": "captain", "options": {"gw": 1, "r1": 1, "r2": 1, "r3": 1}})
    assert codes(result) == ["option_limit"]


def test_a_whole_unit_option_is_taken_once():
    result = check({"id": "s", "unit": "spears", "options": {"halberds": 2}})
    assert "option_limit" in codes(result)


def test_replacing_more_than_the_unit_carries_is_reported():
    assert check({"id": "s", "unit": "spears", "options": {"bows": 10}}).valid
    issue = only(check({"id": "s", "unit": "spears", "options": {"bows": 11}}), "replace_missing")
    assert issue.message == 'Spears: "bows" replaces 11 Spear, but Spears has only 10 left'


def test_two_replacements_of_the_same_item_are_one_too_many():
    result = check({"id": "h", "unit": "captain", "options": {"gw": 1, "hw-to-lance": 1}})
    assert only(result, "replace_missing").message == (
        'Captain: "hw-to-lance" replaces 1 Hand Weapon, but Captain has only 0 left'
    )


def test_picks_apply_in_book_order_whatever_order_the_list_gives():
    # "Replace all Spears" comes first in the book, so nothing is left for the Bows.
    for options in ({"bows": 4, "halberds": 1}, {"halberds": 1, "bows": 4}):
        result = check({"id": "s", "unit": "spears", "options": options})
        assert only(result, "replace_missing").message == 'Spears: "bows" replaces 4 Spear, but Spears has only 0 left'
        weapons = {w.name: w.count for w in result.entries[0].loadout.weapons}
        assert weapons == {"Halberd": 10, "Shield": 10, "Bow": 4}


def test_replacing_some_models_keeps_the_rest():
    result = check({"id": "s", "unit": "spears", "options": {"bows": 4, "nets": 2}})
    assert result.valid
    weapons = {w.name: w.count for w in result.entries[0].loadout.weapons}
    assert weapons == {"Spear": 6, "Shield": 8, "Bow": 4, "Net": 2}


def test_affects_exactly_two_covers_two_models_a_pick():
    assert check({"id": "s", "unit": "spears", "options": {"vets": 5}}).valid
    issue = only(check({"id": "s", "unit": "spears", "options": {"vets": 6}}), "option_limit")
    assert issue.message == 'Spears: "T-two" allows at most 5 picks (2 models a pick, of 10), but has 6'


def test_affects_up_to_two_bounds_the_section():
    assert check({"id": "s", "unit": "spears", "options": {"nets": 2}}).valid
    assert "option_limit" in codes(check({"id": "s", "unit": "spears", "options": {"nets": 3}}))


def test_added_models_count_and_carry_their_weapons():
    result = check({"id": "s", "unit": "spears", "options": {"extra": 2}})
    assert result.valid
    entry = result.entries[0]
    assert (entry.models, entry.cost) == (12, 124)
    assert {w.name: w.count for w in entry.loadout.weapons}["Spear"] == 12


def test_loadout_lists_items_rules_and_upgrades():
    entry = check({"id": "h", "unit": "captain", "options": {"gw": 1, "horse": 1, "r1": 1}}).entries[0]
    assert [w.name for w in entry.loadout.weapons] == ["Great Weapon"]
    assert entry.loadout.items == ("Horse",)
    assert [str(r) for r in entry.loadout.rules] == ["Hero", "Tough(3)", "Fearless", "Fast"]
    assert entry.loadout.upgrades == (("gw", 1), ("horse", 1), ("r1", 1))


# -- points --------------------------------------------------------------------------
def test_cost_is_base_plus_picks_times_option_cost():
    assert check({"id": "h", "unit": "captain", "options": {"gw": 1, "horse": 1, "r1": 1}}).entries[0].cost == 90


def test_a_per_unit_cost_override_wins():
    assert check({"id": "s", "unit": "spears", "options": {"halberds": 1}}).entries[0].cost == 115


@pytest.mark.parametrize(
    ("options", "single", "combined"),
    [
        ({}, 100, 200),  # twice the base cost
        ({"halberds": 1}, 115, 230),  # whole-unit option: bought for both copies
        ({"bows": 3}, 106, 206),  # per-model picks: once per pick
        ({"vets": 1}, 104, 204),
        ({"extra": 1}, 112, 212),  # added models: once per pick
    ],
)
def test_combining_doubles_base_and_whole_unit_options_only(options, single, combined):
    alone = check({"id": "s", "unit": "spears", "options": options})
    both = check({"id": "s", "unit": "spears", "options": options, "combined": True})
    assert (alone.entries[0].cost, both.entries[0].cost) == (single, combined)


def test_a_combined_unit_doubles_per_model_section_limits():
    assert check({"id": "s", "unit": "spears", "options": {"bows": 20}, "combined": True}).valid
    assert check({"id": "s", "unit": "spears", "options": {"nets": 4}, "combined": True}).valid
    assert check({"id": "s", "unit": "spears", "options": {"extra": 4}, "combined": True}).valid
    assert "option_limit" in codes(check({"id": "s", "unit": "spears", "options": {"extra": 5}, "combined": True}))


def test_all_issues_are_collected():
    result = run(
        "aof",
        BOOK,
        100,
        [
            {"id": "h", "unit": "captain", "options": {"nope": 1}},
            {"id": "x", "unit": "dragon"},
            {"id": "s", "unit": "spears", "options": {"bows": 11}},
        ],
        force_org=False,
    )
    assert sorted(codes(result)) == sorted(
        ["unknown_option", "option_required", "unknown_unit", "replace_missing", "points_over_limit"]
    )
    assert [e.errors for e in result.entries] == [2, 1, 1]


ATTACH = book(
    "aof",
    [unit("knights", size=5, equipment=[weapon("Lance", 5, rules=["AP(1)"]), weapon("Sword", 5)], upgrades=["ATT"])],
    [
        {
            "id": "ATT",
            "sections": [
                section(
                    "edge",
                    "attachment",
                    [option("runes", 10, [{"kind": "item", "name": "Rune Edge", "rules": ["AP(+1)", "Rending"]}])],
                    targets=["Lance"],
                    affects={"type": "exactly", "value": 1},
                    select={"type": "up to", "value": 2},
                ),
                section(
                    "add",
                    "models",
                    [
                        option(
                            "squire", 15, [{"kind": "model", "name": "Squire", "equipment": [], "rules": ["Tough(3)"]}]
                        )
                    ],
                ),
            ],
        }
    ],
)


def test_an_attachment_changes_the_weapon_it_is_attached_to():
    result = run("aof", ATTACH, 1500, [{"id": "k", "unit": "knights", "options": {"runes": 2}}])
    loadout = result.entries[0].loadout
    assert result.valid
    assert [(w.name, w.count, w.rules) for w in loadout.weapons] == [
        ("Lance", 3, ("AP(1)",)),
        ("Sword", 5, ()),
        ("Lance", 2, ("AP(2)", "Rending")),
    ]
    assert [str(r) for r in loadout.rules] == []
    assert loadout.items == ("2x Rune Edge (Lance)",)


def test_an_added_model_does_not_add_its_rules_ratings_again():
    knights = book(
        "aof",
        [unit("knights", size=5, rules=["Tough(3)"], upgrades=["ATT"])],
        [
            {
                "id": "ATT",
                "sections": [
                    section(
                        "add",
                        "models",
                        [
                            option(
                                "squire",
                                15,
                                [
                                    {
                                        "kind": "model",
                                        "name": "Squire",
                                        "equipment": [],
                                        "rules": ["Tough(3)", "Fearless"],
                                    }
                                ],
                            )
                        ],
                    )
                ],
            }
        ],
    )
    loadout = run("aof", knights, 1500, [{"id": "k", "unit": "knights", "options": {"squire": 1}}]).entries[0].loadout
    assert [str(r) for r in loadout.rules] == ["Tough(3)", "Fearless"]


def wild_orcs(one_first: bool, size: int = 5):
    """Wild Orcs' shape: five Spears, "Replace all Spears" and "Replace one Spear", in
    either book order."""
    every = section(
        "all",
        "replace",
        [option("dual", 5, [{"kind": "weapon", "name": "Dual Hand Weapons", "attacks": 1, "rules": []}])],
        label="Replace all Spears",
        targets=["Spear"],
        affects={"type": "all"},
    )
    one = section(
        "one",
        "replace",
        [option("impaler", 10, [{"kind": "weapon", "name": "Great Impaler", "attacks": 3, "rules": []}])],
        label="Replace one Spear",
        targets=["Spear"],
        affects={"type": "exactly", "value": 1},
    )
    sections = [one, every] if one_first else [every, one]
    orcs = unit("wild-orcs", size=size, equipment=[weapon("Spear", size)], upgrades=["W"])
    return book("aof", [orcs], [{"id": "W", "sections": sections}])


@pytest.mark.parametrize("one_first", [True, False], ids=["one-first", "all-first"])
def test_a_fixed_replacement_goes_before_one_of_all_whatever_the_book_order(one_first):
    entry = {"id": "w", "unit": "wild-orcs", "options": {"dual": 1, "impaler": 1}}
    result = run("aof", wild_orcs(one_first), 2000, [entry])
    assert result.valid, result.issues
    weapons = {w.name: w.count for w in result.entries[0].loadout.weapons}
    assert weapons == {"Dual Hand Weapons": 4, "Great Impaler": 1}


@pytest.mark.parametrize("one_first", [True, False], ids=["one-first", "all-first"])
def test_a_replacement_of_all_with_nothing_left_is_refused_in_the_validators_words(one_first):
    # One model: "Replace one Spear" takes its only Spear, and nothing is left for "all".
    the_book = wild_orcs(one_first, size=1)
    picks = {"impaler": 1}
    every = {c.section.id: c for c in section_choices(the_book.units["wild-orcs"], picks, copies=1)}["all"]
    assert every.full and every.note == "no Spear left"
    (dual,) = every.options
    assert not dual.open
    entry = {"id": "w", "unit": "wild-orcs", "options": {**picks, "dual": 1}}
    issue = only(run("aof", the_book, 2000, [entry]), "replace_missing")
    assert issue.message == f"Wild Orcs: {dual.reason}"
    assert dual.reason == '"dual" replaces 1 Spear, but Wild Orcs has only 0 left'
