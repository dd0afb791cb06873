"""Age of Fantasy 3.2.0: force organisation, combined units, joining, command groups."""

import pytest

from tests.support.engine_helpers import book, codes, entries, hero, only, option, run, section, unit, weapon

AOF_BOOK = book(
    "aof",
    [
        hero("captain"),
        hero("lord", rules=["Hero", "Tough(6)"], cost=120),
        hero("giant-lord", rules=["Hero", "Tough(7)"], cost=150),
        unit("warriors", cost=100, upgrades=["CMD"]),
        unit("archers", cost=110),
        unit("ogre", type="monster", size=1, cost=90, rules=["Tough(3)"]),
        unit("behemoth", type="monster", size=1, cost=525),
        unit("colossus", type="monster", size=1, cost=526),
        unit("swarm-a", cost=40),
        unit("swarm-b", cost=40),
        unit("swarm-c", cost=40),
        unit("swarm-d", cost=40),
        unit("swarm-e", cost=40),
    ],
    [
        {
            "id": "CMD",
            "sections": [
                section(
                    "CMD-1",
                    "upgrade",
                    [
                        option("sgt", 5, [{"kind": "rule", "name": "Sergeant"}], command="sergeant"),
                        option("mus", 5, [{"kind": "rule", "name": "Musician"}], command="musician"),
                        option("ban", 5, [{"kind": "rule", "name": "Banner"}], command="banner"),
                    ],
                    affects={"type": "exactly", "value": 1},
                    select={"type": "any"},
                )
            ],
        }
    ],
)
SWARMS = ["swarm-a", "swarm-b", "swarm-c", "swarm-d", "swarm-e"]


def distinct_units(n: int) -> list[dict]:
    pool = ["warriors", "archers", "ogre", *SWARMS]
    return [{"id": f"u{i}", "unit": pool[i % len(pool)]} for i in range(n)]


# -- heroes --------------------------------------------------------------------------
def test_three_heroes_are_legal_at_1500():
    assert "too_many_heroes" not in codes(run("aof", AOF_BOOK, 1500, entries("captain", 3)))


def test_fourth_hero_at_1500_points_is_rejected():
    issue = only(run("aof", AOF_BOOK, 1500, entries("captain", 4)), "too_many_heroes")
    assert issue.message == "4 heroes, but 1500 pts allows at most 3 (1 per 500 pts)"
    assert issue.rule == "Age of Fantasy 3.2.0 — Force Organisation"
    assert issue.severity == "error" and issue.entry is None


def test_under_500_points_no_hero_is_allowed_and_the_message_says_why():
    issue = only(run("aof", AOF_BOOK, 400, entries("captain", 1)), "too_many_heroes")
    assert issue.message == "1 hero, but 400 pts allows none (1 per 500 pts; 400 pts is under 500)"


# -- copies --------------------------------------------------------------------------
def test_three_copies_are_legal_at_1500_and_a_fourth_is_not():
    assert "too_many_copies" not in codes(run("aof", AOF_BOOK, 1500, entries("swarm-a", 3)))
    issue = only(run("aof", AOF_BOOK, 1500, entries("swarm-a", 4)), "too_many_copies")
    assert issue.message == (
        "4 copies of Swarm A, but 1500 pts allows at most 3 (1 + 1 per 750 pts; a combined unit is one copy)"
    )
    assert issue.entry == "swarm-a-3"


def test_a_combined_unit_is_one_copy():
    listed = entries("swarm-a", 2) + entries("swarm-a", 1, start=2, combined=True)
    assert "too_many_copies" not in codes(run("aof", AOF_BOOK, 1500, listed))


def test_two_copies_at_750_and_a_third_is_rejected():
    assert "too_many_copies" not in codes(run("aof", AOF_BOOK, 750, entries("swarm-a", 2)))
    assert "too_many_copies" in codes(run("aof", AOF_BOOK, 750, entries("swarm-a", 3)))


# -- unit cost share -----------------------------------------------------------------
def test_a_525_point_unit_is_legal_at_1500_and_526_is_not():
    assert "unit_too_expensive" not in codes(run("aof", AOF_BOOK, 1500, [{"id": "b", "unit": "behemoth"}]))
    issue = only(run("aof", AOF_BOOK, 1500, [{"id": "c", "unit": "colossus"}]), "unit_too_expensive")
    assert issue.message == "Colossus costs 526 pts, but no unit may cost more than 525 pts (35% of 1500 pts)"
    assert issue.entry == "c"


def test_unit_share_at_750_rounds_down_to_262():
    listed = [{"id": "w", "unit": "warriors", "combined": True, "options": {"sgt": 1}}]  # 205
    assert "unit_too_expensive" not in codes(run("aof", AOF_BOOK, 750, listed))
    issue = only(run("aof", AOF_BOOK, 750, [{"id": "b", "unit": "behemoth"}]), "unit_too_expensive")
    assert "no unit may cost more than 262 pts" in issue.message


# -- unit count ----------------------------------------------------------------------
def test_ten_units_are_legal_at_1500_and_eleven_are_not():
    assert "too_many_units" not in codes(run("aof", AOF_BOOK, 1500, distinct_units(10)))
    issue = only(run("aof", AOF_BOOK, 1500, distinct_units(11)), "too_many_units")
    assert issue.message == "11 units, but 1500 pts allows at most 10 (1 per 150 pts)"


def test_a_joined_hero_is_still_its_own_unit_for_the_count():
    listed = distinct_units(9) + [{"id": "h", "unit": "captain", "joined_to": "u0"}]
    assert "too_many_units" not in codes(run("aof", AOF_BOOK, 1500, listed))
    listed.append({"id": "h2", "unit": "captain", "joined_to": "u1"})
    assert "too_many_units" in codes(run("aof", AOF_BOOK, 1500, listed))


def test_the_rulebook_1500_point_example_holds_at_its_maxima():
    """At 1500 pts: max. 3 heroes, 3 copies of each unit, no unit over 525 pts, 10 units."""
    listed = (
        entries("captain", 3)
        + entries("swarm-a", 3)
        + [{"id": "b", "unit": "behemoth"}, {"id": "w", "unit": "warriors"}]
        + entries("swarm-b", 2)
    )
    result = run("aof", AOF_BOOK, 1500, listed)
    assert len(listed) == 10
    assert result.total_points == 3 * 60 + 3 * 40 + 525 + 100 + 2 * 40
    assert result.valid, result.issues
    for extra, code in [
        ({"id": "x", "unit": "captain"}, "too_many_heroes"),
        ({"id": "x", "unit": "swarm-a"}, "too_many_copies"),
        ({"id": "x", "unit": "swarm-c"}, "too_many_units"),
    ]:
        assert code in codes(run("aof", AOF_BOOK, 1500, [*listed, extra]))
    over = [*listed[:-1], {"id": "c", "unit": "colossus"}]
    assert "unit_too_expensive" in codes(run("aof", AOF_BOOK, 1500, over))


# -- force organisation switch -------------------------------------------------------
def test_force_org_off_leaves_only_data_checks_and_points():
    listed = entries("captain", 5) + entries("swarm-a", 5) + [{"id": "c", "unit": "colossus"}]
    on = run("aof", AOF_BOOK, 1000, listed)
    assert {"too_many_heroes", "too_many_copies", "unit_too_expensive", "too_many_units"} <= set(codes(on))
    off = run("aof", AOF_BOOK, 1000, listed, force_org=False)
    assert codes(off) == ["points_over_limit"]


def test_command_groups_still_apply_with_force_org_off():
    listed = [{"id": "w", "unit": "warriors", "options": {"sgt": 2}}]
    assert "duplicate_command_group" in codes(run("aof", AOF_BOOK, 1500, listed, force_org=False))


# -- points --------------------------------------------------------------------------
def test_spending_exactly_the_limit_is_legal():
    result = run("aof", AOF_BOOK, 200, [{"id": "a", "unit": "warriors"}, {"id": "b", "unit": "warriors"}])
    assert result.total_points == 200
    assert "points_over_limit" not in codes(result)


def test_one_point_over_is_rejected_with_the_numbers():
    listed = [{"id": "a", "unit": "warriors", "options": {"sgt": 1}}, {"id": "b", "unit": "warriors"}]
    issue = only(run("aof", AOF_BOOK, 200, listed, force_org=False), "points_over_limit")
    assert issue.message == "205 pts is 5 over the 200 pts limit"
    assert issue.rule == "Age of Fantasy 3.2.0 — Preparing your Army"


# -- combined units ------------------------------------------------------------------
def test_multi_model_units_may_be_combined_and_cost_twice():
    result = run("aof", AOF_BOOK, 1500, [{"id": "w", "unit": "warriors", "combined": True}])
    assert result.valid
    assert (result.entries[0].cost, result.entries[0].models) == (200, 20)


def test_a_single_model_unit_may_not_be_combined():
    issue = only(run("aof", AOF_BOOK, 1500, [{"id": "o", "unit": "ogre", "combined": True}]), "invalid_combined")
    assert issue.entry == "o"
    assert issue.rule == "Age of Fantasy 3.2.0 — Combined Units"


# -- joining -------------------------------------------------------------------------
@pytest.mark.parametrize(("hero_id", "legal"), [("captain", True), ("lord", True), ("giant-lord", False)])
def test_heroes_of_tough_6_or_less_may_join(hero_id, legal):
    listed = [{"id": "h", "unit": hero_id, "joined_to": "w"}, {"id": "w", "unit": "warriors"}]
    result = run("aof", AOF_BOOK, 1500, listed)
    assert ("invalid_join" not in codes(result)) is legal
    if not legal:
        assert only(result, "invalid_join").message == (
            "Giant Lord has Tough(7); only heroes with Tough(6) or less may join a unit"
        )


def test_tough_from_a_mount_counts_towards_the_joining_limit():
    mounted = book(
        "aof",
        [hero("captain", upgrades=["M"]), unit("warriors")],
        [
            {
                "id": "M",
                "sections": [
                    section(
                        "M1",
                        "upgrade",
                        [
                            option("horse", 10, [{"kind": "item", "name": "Horse", "rules": ["Tough(+3)"]}]),
                            option("wyrm", 80, [{"kind": "item", "name": "Wyrm", "rules": ["Tough(+4)"]}]),
                        ],
                    )
                ],
            }
        ],
    )
    on_horse = [
        {"id": "h", "unit": "captain", "options": {"horse": 1}, "joined_to": "w"},
        {"id": "w", "unit": "warriors"},
    ]
    result = run("aof", mounted, 1500, on_horse)
    assert result.valid, result.issues
    assert "Tough(6)" in [str(r) for r in result.entries[0].loadout.rules]
    on_wyrm = [{**on_horse[0], "options": {"wyrm": 1}}, on_horse[1]]
    assert "invalid_join" in codes(run("aof", mounted, 1500, on_wyrm))


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("ogre", "Captain cannot join Ogre, which is a single model"),
        ("lord", "Captain cannot join Lord, which is a hero"),
    ],
)
def test_heroes_join_only_multi_model_units(target, why):
    listed = [{"id": "h", "unit": "captain", "joined_to": "t"}, {"id": "t", "unit": target}]
    assert only(run("aof", AOF_BOOK, 1500, listed), "invalid_join").message == why


def test_a_second_hero_in_a_unit_is_rejected():
    listed = [
        {"id": "h1", "unit": "captain", "joined_to": "w"},
        {"id": "h2", "unit": "lord", "joined_to": "w"},
        {"id": "w", "unit": "warriors"},
    ]
    issue = only(run("aof", AOF_BOOK, 1500, listed), "invalid_join")
    assert issue.entry == "h2"
    assert "Captain has already joined it" in issue.message


def test_a_non_hero_may_not_join():
    listed = [{"id": "o", "unit": "ogre", "joined_to": "w"}, {"id": "w", "unit": "warriors"}]
    assert "Ogre is not a hero" in only(run("aof", AOF_BOOK, 1500, listed), "invalid_join").message


def test_a_hero_may_join_a_combined_unit():
    listed = [
        {"id": "h", "unit": "captain", "joined_to": "w"},
        {"id": "w", "unit": "warriors", "combined": True},
    ]
    assert run("aof", AOF_BOOK, 1500, listed).valid


# -- command groups ------------------------------------------------------------------
def test_one_of_each_command_upgrade_is_legal():
    listed = [{"id": "w", "unit": "warriors", "options": {"sgt": 1, "mus": 1, "ban": 1}}]
    assert run("aof", AOF_BOOK, 1500, listed).valid


@pytest.mark.parametrize("combined", [False, True])
def test_a_second_sergeant_is_rejected_even_in_a_combined_unit(combined):
    listed = [{"id": "w", "unit": "warriors", "options": {"sgt": 2}, "combined": combined}]
    issue = only(run("aof", AOF_BOOK, 1500, listed), "duplicate_command_group")
    assert issue.message == "Warriors has 2 Sergeants, but a unit may have at most 1"
    assert issue.rule == "Age of Fantasy 3.2.0 — Command Groups"


def test_ratings_of_the_same_rule_add_up_in_aof():
    stacked = book(
        "aof",
        [hero("captain", rules=["Hero", "Tough(3)", "Caster(1)"], upgrades=["P"])],
        [
            {
                "id": "P",
                "sections": [
                    section(
                        "P1",
                        "upgrade",
                        [
                            option(
                                "orb",
                                10,
                                [{"kind": "item", "name": "Orb", "rules": ["Caster(2)", "Tough(1)"]}],
                            )
                        ],
                    )
                ],
            }
        ],
    )
    result = run("aof", stacked, 1500, [{"id": "h", "unit": "captain", "options": {"orb": 1}}])
    assert [str(r) for r in result.entries[0].loadout.rules] == ["Hero", "Tough(4)", "Caster(3)"]


def test_weapons_keep_their_own_rules_and_counts():
    armed = book(
        "aof",
        [unit("spears", equipment=[weapon("Spear", 10, rules=["Counter"]), weapon("Bow", 10, range=24)])],
    )
    loadout = run("aof", armed, 1500, [{"id": "s", "unit": "spears"}]).entries[0].loadout
    assert [w.as_dict() for w in loadout.weapons] == [
        {"name": "Spear", "count": 10, "attacks": 1, "rules": ["Counter"]},
        {"name": "Bow", "count": 10, "range": 24, "attacks": 1, "rules": []},
    ]


def test_at_750_points_one_hero_and_five_units():
    assert "too_many_heroes" not in codes(run("aof", AOF_BOOK, 750, entries("captain", 1)))
    assert only(run("aof", AOF_BOOK, 750, entries("captain", 2)), "too_many_heroes").message == (
        "2 heroes, but 750 pts allows at most 1 (1 per 500 pts)"
    )
    assert "too_many_units" not in codes(run("aof", AOF_BOOK, 750, distinct_units(5)))
    assert only(run("aof", AOF_BOOK, 750, distinct_units(6)), "too_many_units").message == (
        "6 units, but 750 pts allows at most 5 (1 per 150 pts)"
    )
