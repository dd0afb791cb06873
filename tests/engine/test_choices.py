"""What each upgrade section of an entry allows next (`engine.choices.section_choices`):
how it is picked from, which options take one more pick, and why not, in the words of
the validator's issue for the pick past that limit."""

import json
import random

import pytest

from armybuilder.engine import book_from_dict, list_from_dict, validate_list
from armybuilder.engine.choices import COUNT, EACH, ONE, section_choices
from factions.services import bundled_book_paths
from tests.support.engine_helpers import book, hero, only, option, ruleset_with_core_rules, run, section, unit, weapon


def item(name: str) -> list[dict]:
    return [{"kind": "item", "name": name}]


def rule(name: str) -> list[dict]:
    return [{"kind": "rule", "name": name}]


BOOK = book(
    "aof",
    [
        hero("captain", equipment=[weapon("Hand Weapon")], upgrades=["HERO"]),
        unit("warriors", size=5, equipment=[weapon("Hand Weapon", 5)], upgrades=["TROOP"]),
    ],
    [
        {
            "id": "HERO",
            "sections": [
                section("one", "upgrade", [option("horse", gains=item("Horse")), option("cloak", gains=item("Cloak"))]),
                section(
                    "two",
                    "upgrade",
                    [option(r, gains=rule(r.title()), label=r.title()) for r in ("fearless", "furious", "strider")],
                    label="Up to two",
                    select={"type": "up to", "value": 2},
                ),
                section(
                    "mixed",
                    "upgrade",
                    [option("fear", gains=rule("Fear"), label="Fear"), option("banner", gains=item("Banner"))],
                    select={"type": "up to", "value": 3},
                ),
                section(
                    "twice",
                    "upgrade",
                    [option("potion", gains=item("Potion")), option("scroll", gains=item("Scroll"))],
                    label="Twice each",
                    select={"type": "up to", "value": 2, "per": "option"},
                ),
                section(
                    "needed",
                    "replace",
                    [option("axe", gains=[{"kind": "weapon", "name": "Axe", "attacks": 2}])],
                    targets=["Hand Weapon"],
                    select={"type": "exactly", "value": 1},
                ),
            ],
        },
        {
            "id": "TROOP",
            "sections": [
                section(
                    "command",
                    "upgrade",
                    [option("sergeant", command="sergeant"), option("musician", command="musician")],
                    label="Command group",
                ),
                section(
                    "any",
                    "upgrade",
                    [option("badge", gains=item("Badge"))],
                    label="Any model",
                    affects={"type": "any"},
                    select={"type": "any"},
                ),
            ],
        },
    ],
)


def choices(unit_id: str, options: dict[str, int] | None = None, copies: int = 1) -> dict:
    return {c.section.id: c for c in section_choices(BOOK.units[unit_id], options or {}, copies=copies)}


def issue_for(unit_id: str, options: dict[str, int], copies: int = 1) -> str:
    if unit_id == "captain":
        options = {"axe": 1, **options}
    entry = {"id": "e", "unit": unit_id, "options": options, "combined": copies == 2}
    return only(run("aof", BOOK, 2000, [entry]), "option_limit").message


def test_every_section_is_given_in_book_order_with_how_it_is_picked_from():
    sections = choices("captain")
    assert {s: (c.kind, c.note) for s, c in sections.items()} == {
        "one": (ONE, "pick one"),
        "two": (EACH, "up to 2"),  # options that give a rule: each taken once or not
        "mixed": (COUNT, "up to 3"),  # a rule, and an item without rules (kit: more may be carried)
        "twice": (COUNT, "up to 4 (twice each)"),
        "needed": (ONE, "pick exactly 1"),
    }
    assert [o.most for o in sections["mixed"].options] == [1, 3]


def test_a_section_with_room_leaves_every_option_open():
    for choice in choices("captain", {"horse": 0, "potion": 1}).values():
        assert not choice.full and choice.reason == ""
        assert all(o.open and o.reason == "" for o in choice.options)
    assert choices("captain", {"potion": 1})["twice"].total == 1


def test_a_full_section_says_why_in_the_words_of_the_issue_for_one_pick_more():
    two = choices("captain", {"fearless": 1, "furious": 1})["two"]
    assert two.full and two.reason == '"Up to two" allows at most 2 picks'
    assert [(o.picks, o.open, o.reason) for o in two.options] == [(1, False, two.reason)] * 2 + [(0, False, two.reason)]
    assert issue_for("captain", {"fearless": 1, "furious": 1, "strider": 1}) == f"Captain: {two.reason}, but has 3"


def test_a_section_past_its_limit_is_full_and_says_the_same():
    one = choices("captain", {"horse": 1, "cloak": 1})["one"]
    assert one.full and one.total == 2
    assert issue_for("captain", {"horse": 1, "cloak": 1}) == f"Captain: {one.reason}, but has 2"


def test_an_option_at_its_own_limit_is_closed_with_the_issues_words():
    twice = choices("captain", {"potion": 2})["twice"]
    potion, scroll = twice.options
    assert not twice.full and scroll.open
    assert not potion.open and potion.reason == '"Twice each" allows each option at most twice'
    assert issue_for("captain", {"potion": 3}) == f'Captain: {potion.reason}, but "potion" is taken 3 times'


def test_an_option_that_gives_a_rule_is_taken_once():
    fear, banner = choices("captain", {"fear": 1})["mixed"].options
    assert banner.open
    assert not fear.open and fear.reason == '"Fear" gives a rule, which a unit has once'
    assert issue_for("captain", {"fear": 2}) == f"Captain: {fear.reason}; it is taken 2 times"


def test_a_per_model_limit_counts_the_models_of_both_copies_of_a_combined_unit():
    assert choices("warriors")["any"].note == "up to 5 (1 per model)"
    combined = choices("warriors", {"badge": 10}, copies=2)["any"]
    assert combined.full and combined.reason == '"Any model" allows at most 10 picks (1 per model)'
    assert issue_for("warriors", {"badge": 11}, copies=2) == f"Warriors: {combined.reason}, but has 11"


@pytest.mark.parametrize("copies", [1, 2])
def test_command_group_upgrades_are_each_taken_or_not_also_where_one_is_allowed(copies):
    command = choices("warriors", {"sergeant": 1}, copies=copies)["command"]
    assert command.kind == EACH and command.allowance.most == 1  # one unit's limit, combined or not
    sergeant, musician = command.options
    assert musician.reason == '"Command group" allows at most 1 pick' and not musician.open
    assert sergeant.picks == 1


BOOKS = bundled_book_paths()


@pytest.mark.parametrize("path", BOOKS, ids=[f"{p.parent.name}/{p.stem}" for p in BOOKS])
def test_the_builder_closes_exactly_the_picks_the_validator_reports(path):
    """For each unit, with no picks and with a few at random: an open option taken once
    more gives no new issue on its section's limits; a closed one gives an issue in the
    words of the reason (unless the limit is what the unit carries: then the issue is
    about replacing what is not there)."""
    data = json.loads(path.read_text())
    the_book, ruleset = book_from_dict(data), ruleset_with_core_rules(data["system"])
    rng = random.Random(path.stem)

    def limit_issues(the_unit, options: dict[str, int], copies: int) -> set[str]:
        entry = {"id": "e", "unit": the_unit.id, "options": options, "combined": copies == 2}
        army = list_from_dict({"system": data["system"], "faction": data["slug"], "entries": [entry]})
        issues = validate_list(the_book, ruleset, army).issues
        return {i.message for i in issues if i.code == "option_limit"}

    for the_unit in the_book.units.values():
        for options in ({}, {o: 1 for o in rng.sample(sorted(the_unit.options), min(2, len(the_unit.options)))}):
            copies = 1 if the_unit.is_hero else 2
            before = limit_issues(the_unit, options, copies)
            for choice in section_choices(the_unit, options, copies=copies):
                words = [f'{the_unit.name}: "{choice.section.label}"']
                for pick in choice.options:
                    more = {**options, pick.option.id: pick.picks + 1}
                    mine = words + [f'{the_unit.name}: "{pick.option.label}"']
                    new = {m for m in limit_issues(the_unit, more, copies) - before if m.startswith(tuple(mine))}
                    if pick.open:
                        assert new == set(), (the_unit.id, pick.option.id)
                    elif not choice.allowance.by_items:
                        assert any(m.startswith(f"{the_unit.name}: {pick.reason}") for m in new), (the_unit.id, new)


# -- picks that add nothing ------------------------------------------------------------------
def item_with(name: str, rule: str) -> list[dict]:
    return [{"kind": "item", "name": name, "rules": [rule]}]


WAGONS = book(
    "aof",
    [unit("war-wagon", type="chariot", size=1, rules=["Impact(4)", "Fearless"], upgrades=["WAGON"])],
    [
        {
            "id": "WAGON",
            "sections": [
                section(
                    "two",
                    "upgrade",
                    [
                        option("wheels", 90, item_with("Scythed Wheels", "Impact(3)"), label="Scythed Wheels"),
                        option("ram", 40, item_with("Spiked Ram", "Impact(2)"), label="Spiked Ram"),
                        option("banner", 10, item_with("War Banner", "Fearless"), label="War Banner"),
                        option("totem", 10, item_with("Totem", "Fear"), label="Totem"),
                    ],
                    label="Upgrade with up to two",
                    select={"type": "up to", "value": 2},
                )
            ],
        }
    ],
)


def wagon(options: dict[str, int]):
    return run("aof", WAGONS, 2000, [{"id": "w", "unit": "war-wagon", "options": options}])


def test_the_same_item_twice_is_not_offered_and_is_an_issue_when_sent():
    wheels, ram, _banner, totem = {
        c.section.id: c for c in section_choices(WAGONS.units["war-wagon"], {"wheels": 1}, copies=1)
    }["two"].options
    assert not wheels.open and ram.open and totem.open
    assert wheels.reason == '"Scythed Wheels" gives only items and rules, which a model carries once'
    result = wagon({"wheels": 2})
    assert only(result, "option_limit").message == f"War Wagon: {wheels.reason}; it is taken 2 times"


def test_rated_rules_of_two_different_items_stack_on_the_card():
    # Age of Fantasy, Rules Priority & Stacking Effects: rules with (X) stack.
    result = wagon({"wheels": 1, "ram": 1})
    assert result.valid, result.issues
    assert result.entries[0].loadout.rating("Impact") == 9


def test_an_item_whose_rule_the_unit_has_and_that_does_not_stack_adds_nothing():
    banner = next(
        o for o in section_choices(WAGONS.units["war-wagon"], {}, copies=1)[0].options if o.option.id == "banner"
    )
    assert not banner.open
    assert banner.reason == '"War Banner" adds nothing: War Wagon has Fearless already, which does not stack'
    assert only(wagon({"banner": 1}), "option_limit").message == f"War Wagon: {banner.reason}"


def test_an_item_giving_a_plain_rule_the_unit_lacks_is_a_legal_pick():
    assert wagon({"totem": 1}).valid  # the Totem counts itself once, not as a second Fear


def test_the_guild_captain_takes_plate_armor_once():
    """One Page Fantasy's Free Cities (bundled): "Upgrade with any" allowed four Plate
    Armors, each giving Armored, which is not cumulative."""
    path = next(p for p in BOOKS if p.stem == "free-cities")
    data = json.loads(path.read_text())
    free_cities, opf = book_from_dict(data), ruleset_with_core_rules("opf")
    captain = free_cities.units["guild-captain"]
    plate = next(c for c in section_choices(captain, {"FC1a": 1}, copies=1) if c.section.id == "FC1")
    armor, charm = plate.options
    assert not armor.open and charm.open and plate.note == "each option once"
    army = list_from_dict(
        {"system": "opf", "faction": data["slug"], "entries": [{"id": "c", "unit": captain.id, "options": {"FC1a": 4}}]}
    )
    issues = validate_list(free_cities, opf, army).issues
    assert [i.message for i in issues if i.code == "option_limit"] == [
        f"Guild Captain: {armor.reason}; it is taken 4 times"
    ]


# -- hints that say what the controls allow -------------------------------------------------
HINTS = book(
    "aof",
    [unit("band", size=5, equipment=[weapon("Hand Weapon", 5)], upgrades=["BAND"])],
    [
        {
            "id": "BAND",
            "sections": [
                section(
                    "one-model",
                    "upgrade",
                    [option(r, gains=rule(r.title())) for r in ("fearless", "furious", "strider")],
                    label="Upgrade one model with",
                    affects={"type": "exactly", "value": 1},
                    select={"type": "any"},
                )
            ],
        }
    ],
)


@pytest.mark.parametrize("copies", [1, 2])
def test_the_hint_over_options_taken_once_each_says_so_not_the_models(copies):
    # Three options a unit has once: three check boxes, whatever the models ("up to 5 (1
    # model a pick, of 5)" alone, "up to 10" combined, was the hint before).
    (choice,) = section_choices(HINTS.units["band"], {}, copies=copies)
    assert (choice.kind, choice.note) == (EACH, "each option once")
    assert [o.most for o in choice.options] == [1, 1, 1]


def test_an_item_with_a_rule_is_taken_once_per_model_in_a_per_model_section():
    per_model = book(
        "aof",
        [unit("guards", size=3, equipment=[weapon("Hand Weapon", 3)], upgrades=["G"])],
        [
            {
                "id": "G",
                "sections": [
                    section(
                        "any",
                        "upgrade",
                        [option("plate", gains=item_with("Plate Armor", "Armored"), label="Plate Armor")],
                        label="Upgrade any model with up to two",
                        affects={"type": "any"},
                        select={"type": "up to", "value": 2, "per": "model"},
                    )
                ],
            }
        ],
    )
    (choice,) = section_choices(per_model.units["guards"], {"plate": 3}, copies=1)
    (plate,) = choice.options
    assert choice.allowance.most == 6 and not plate.open
    assert plate.reason == '"Plate Armor" gives only items and rules, which a model carries once: at most 3 here'
    entry = {"id": "g", "unit": "guards", "options": {"plate": 4}}
    assert only(run("aof", per_model, 2000, [entry]), "option_limit").message == (
        f"Guards: {plate.reason}; it is taken 4 times"
    )
