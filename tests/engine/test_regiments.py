"""Age of Fantasy: Regiments 1.7."""

from dataclasses import replace

import pytest

from tests.support.engine_helpers import book, codes, entries, hero, only, option, ruleset, run, section, unit

R = "aof-regiments"
BOOK = book(
    R,
    [
        hero("thane", system=R, rules=["Tough(3)"]),
        unit("warriors", system=R, size=10, cost=50, upgrades=["ADD"]),
        unit("rangers", system=R, size=5, cost=40, upgrades=["LEVY"]),
        unit("pack", system=R, size=4, cost=30),
        unit("troll", system=R, type="monster", size=1, cost=10),
        unit("ram", system=R, type="chariot", size=1, cost=10, rules=["Impact(+2)"]),
        unit("bolt", system=R, type="artillery", size=1, cost=10),
    ],
    [
        {
            "id": "ADD",
            "sections": [
                section(
                    "A1",
                    "models",
                    [option("vet", 5, [{"kind": "model", "name": "Veteran", "equipment": [], "rules": []}])],
                    select={"type": "any"},
                )
            ],
        },
        {
            "id": "LEVY",
            "sections": [
                section(
                    "L1",
                    "models",
                    [option("levy", 4, [{"kind": "model", "name": "Levy", "equipment": [], "rules": []}])],
                    select={"type": "up to", "value": 5},
                )
            ],
        },
    ],
)

# "Playing Bigger Games": points -> (most heroes, most Monsters/Chariots/Artillery)
TABLE = {
    500: (1, 2),
    750: (1, 3),
    1000: (2, 4),
    1250: (2, 5),
    1500: (3, 6),
    1750: (3, 7),
    2000: (4, 8),
    2250: (4, 9),
    2500: (5, 10),
    2750: (5, 11),
    3000: (6, 12),
}


@pytest.mark.parametrize(("points", "limits"), TABLE.items(), ids=[str(p) for p in TABLE])
def test_every_row_of_the_bigger_games_table(points, limits):
    heroes, big = limits
    big_units = [{"id": f"m{i}", "unit": ("troll", "ram", "bolt")[i % 3]} for i in range(big)]
    at_limit = run(R, BOOK, points, entries("thane", heroes) + big_units)
    assert not {"too_many_heroes", "too_many_big_units"} & set(codes(at_limit)), at_limit.issues

    over = run(R, BOOK, points, entries("thane", heroes + 1) + big_units + [{"id": "x", "unit": "troll"}])
    assert only(over, "too_many_heroes").message.startswith(
        f"{heroes + 1} heroes, but {points} pts allows at most {heroes}"
    )
    assert only(over, "too_many_big_units").message.startswith(
        f"{big + 1} Monsters, Chariots or Artillery, but {points} pts allows at most {big} (1 per 250 pts)"
    )


def test_between_rows_the_limits_round_down():
    result = run(R, BOOK, 999, entries("thane", 2))
    assert "999 pts allows at most 1" in only(result, "too_many_heroes").message


def test_an_army_needs_a_hero():
    issue = only(run(R, BOOK, 500, [{"id": "w", "unit": "warriors"}]), "needs_hero")
    assert issue.message == "0 heroes, but an army needs at least 1"
    assert issue.rule == "Age of Fantasy: Regiments 1.7 — The Armies"
    assert "needs_hero" not in codes(run(R, BOOK, 500, entries("thane", 1)))


@pytest.mark.parametrize(
    ("unit_id", "legal"), [("warriors", True), ("rangers", True), ("pack", False), ("thane", True)]
)
def test_formations_of_3_5_6_or_10(unit_id, legal):
    result = run(R, BOOK, 500, [*entries("thane", 1, start=9), {"id": "u", "unit": unit_id}])
    assert ("invalid_formation" not in codes(result)) is legal


def test_added_models_count_for_the_formation():
    listed = [*entries("thane", 1), {"id": "w", "unit": "rangers"}]
    assert "invalid_formation" not in codes(run(R, BOOK, 500, listed))
    bigger = book(
        R,
        [hero("thane", system=R, rules=[]), unit("w", system=R, size=5, upgrades=["ADD"])],
        [
            {
                "id": "ADD",
                "sections": [
                    section(
                        "A1",
                        "models",
                        [option("vet", 5, [{"kind": "model", "name": "Veteran", "equipment": [], "rules": []}])],
                        select={"type": "any"},
                    )
                ],
            }
        ],
    )
    assert "invalid_formation" not in codes(
        run(R, bigger, 500, [{"id": "t", "unit": "thane"}, {"id": "w", "unit": "w", "options": {"vet": 1}}])
    )
    issue = only(
        run(R, bigger, 500, [{"id": "t", "unit": "thane"}, {"id": "w", "unit": "w", "options": {"vet": 2}}]),
        "invalid_formation",
    )
    assert issue.message == "W has 7 models, but a unit must have 3, 5, 6 or 10 models"


def test_combined_units_keep_their_row_width():
    listed = [*entries("thane", 1), {"id": "w", "unit": "warriors", "combined": True}]
    result = run(R, BOOK, 500, listed)
    assert result.valid and result.entries[1].models == 20
    odd = [*entries("thane", 1), {"id": "w", "unit": "warriors", "combined": True, "options": {"vet": 1}}]
    assert only(run(R, BOOK, 500, odd), "invalid_formation").message == (
        "Warriors adds 1 model to two copies of 10, but no split of the added models gives both copies "
        "3, 5, 6 or 10 models"
    )


@pytest.mark.parametrize("unit_id", ["troll", "thane"])
def test_only_infantry_that_is_not_a_hero_may_combine(unit_id):
    result = run(R, BOOK, 1000, [*entries("thane", 1, start=5), {"id": "x", "unit": unit_id, "combined": True}])
    assert "invalid_combined" in codes(result)


def test_heroes_join_infantry_only_and_one_per_unit():
    ok = [{"id": "h", "unit": "thane", "joined_to": "w"}, {"id": "w", "unit": "warriors"}]
    assert run(R, BOOK, 500, ok).valid
    monster = [{"id": "h", "unit": "thane", "joined_to": "t"}, {"id": "t", "unit": "troll"}]
    assert only(run(R, BOOK, 500, monster), "invalid_join").message == (
        "Thane cannot join Troll, which is a Monster; heroes join Infantry units"
    )
    two = [*ok, {"id": "h2", "unit": "thane", "joined_to": "w"}]
    assert only(run(R, BOOK, 1000, two), "invalid_join").entry == "h2"


def test_game_size_warnings_leave_the_list_valid():
    small = run(R, BOOK, 400, entries("thane", 1))
    assert only(small, "small_game").severity == "warning" and small.valid
    large = run(R, BOOK, 3250, entries("thane", 1))
    issue = only(large, "large_game")
    assert issue.severity == "warning" and large.valid
    assert issue.message.startswith("3250 pts is beyond the 3000 pts the rules were written for")
    assert "large_game" not in codes(run(R, BOOK, 3000, entries("thane", 1)))


def test_unit_types_imply_their_rules_and_plus_ratings_add():
    result = run(
        R,
        BOOK,
        1000,
        [
            *entries("thane", 1),
            {"id": "t", "unit": "troll"},
            {"id": "r", "unit": "ram"},
            {"id": "b", "unit": "bolt"},
        ],
    )
    rules = {e.entry.id: [str(r) for r in e.loadout.rules] for e in result.entries}
    assert rules["t"] == ["Fear", "Impact(3)"]
    assert rules["r"] == ["Fast", "Impact(5)"]
    assert rules["b"] == ["Slow"]


def test_the_same_rule_twice_does_not_stack_in_regiments():
    twice = book(
        R,
        [hero("thane", system=R, rules=["Tough(3)"], upgrades=["P"])],
        [
            {
                "id": "P",
                "sections": [
                    section(
                        "P1",
                        "upgrade",
                        [option("o", 5, [{"kind": "item", "name": "Ring", "rules": ["Tough(2)"]}])],
                    )
                ],
            }
        ],
    )
    result = run(R, twice, 500, [{"id": "h", "unit": "thane", "options": {"o": 1}}])
    assert [str(r) for r in result.entries[0].loadout.rules] == ["Tough(3)"]


def test_regiments_command_groups_are_one_of_each_per_unit():
    cmd = book(
        R,
        [hero("thane", system=R, rules=[]), unit("w", system=R, size=5, upgrades=["CMD"])],
        [
            {
                "id": "CMD",
                "sections": [
                    section(
                        "C1",
                        "upgrade",
                        [
                            option("sgt", 5, [{"kind": "rule", "name": "Sergeant"}], command="sergeant"),
                            option("std", 5, [{"kind": "rule", "name": "Battle Standard"}], command="banner"),
                        ],
                        affects={"type": "exactly", "value": 1},
                        select={"type": "any"},
                    )
                ],
            }
        ],
    )
    ok = [{"id": "t", "unit": "thane"}, {"id": "w", "unit": "w", "options": {"sgt": 1, "std": 1}}]
    assert run(R, cmd, 500, ok).valid
    two = [{"id": "t", "unit": "thane"}, {"id": "w", "unit": "w", "options": {"std": 2}}]
    assert only(run(R, cmd, 500, two), "duplicate_command_group").rule == (
        "Age of Fantasy: Regiments 1.7 — Common Upgrades"
    )


def test_a_combined_unit_is_legal_when_some_split_of_its_added_models_is():
    # Two copies of 5 with 6 more models: 8 + 8 is no formation, but 6 + 10 is.
    six = [*entries("thane", 1), {"id": "r", "unit": "rangers", "combined": True, "options": {"levy": 6}}]
    result = run(R, BOOK, 500, six)
    assert "invalid_formation" not in codes(result)
    assert result.entries[1].loadout.copy_sizes == (10, 6)
    # 7 more: one copy would need 2 to 5 of them, leaving 9 to 6 + ... no split gives two formations.
    seven = [*entries("thane", 1), {"id": "r", "unit": "rangers", "combined": True, "options": {"levy": 7}}]
    assert only(run(R, BOOK, 500, seven), "invalid_formation").message == (
        "Rangers adds 7 models to two copies of 5, but no split of the added models gives both copies "
        "3, 5, 6 or 10 models"
    )


def test_a_copy_adds_no_more_models_than_its_own_section_allows():
    # 10 added: 5 + 5 gives two 10s; 0 + 10 is not possible (one copy adds at most 5).
    ten = [*entries("thane", 1), {"id": "r", "unit": "rangers", "combined": True, "options": {"levy": 10}}]
    result = run(R, BOOK, 500, ten)
    assert "invalid_formation" not in codes(result) and result.entries[1].loadout.copy_sizes == (10, 10)


def test_messages_never_call_a_regiments_hero_not_infantry():
    combined_hero = [{"id": "h", "unit": "thane", "combined": True}]
    hero_on_hero = [{"id": "h", "unit": "thane", "joined_to": "h2"}, {"id": "h2", "unit": "thane"}]
    messages = [
        only(run(R, BOOK, 1000, combined_hero), "invalid_combined").message,
        only(run(R, BOOK, 1000, hero_on_hero), "invalid_join").message,
    ]
    assert messages == [
        "Thane is a hero; heroes are not combined (two as one would get round the hero limit)",
        "Thane cannot join Thane, which is a hero; heroes join units that are not heroes",
    ]
    assert not any("not infantry" in m.lower() or "not an infantry" in m.lower() for m in messages)


def test_a_combined_units_copy_sizes_do_not_depend_on_what_was_validated_before():
    """The formation limit settles the split on a copy of the loadout: the loadout kept
    for the book is the same for a ruleset (an event's, say) without that limit."""
    six = [*entries("thane", 1), {"id": "r", "unit": "rangers", "combined": True, "options": {"levy": 6}}]
    no_formation = [lim for lim in ruleset(R).limits if lim.kind != "formation"]
    fresh = replace(BOOK)  # the same book with empty memos of its own
    limits = [
        {"code": lim.code, "kind": lim.kind, "params": dict(lim.params), "section": lim.section} for lim in no_formation
    ]
    assert run(R, fresh, 500, six, limits=limits).entries[1].loadout.copy_sizes == (8, 8)
    assert run(R, fresh, 500, six).entries[1].loadout.copy_sizes == (10, 6)
    assert run(R, fresh, 500, six, limits=limits).entries[1].loadout.copy_sizes == (8, 8)
