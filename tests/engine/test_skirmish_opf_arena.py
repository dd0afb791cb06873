"""Age of Fantasy: Skirmish, One Page Fantasy and Age of Fantasy: Arena."""

import pytest

from tests.support.engine_helpers import book, codes, entries, hero, only, option, run, section, unit, weapon

S = "aof-skirmish"
CMD = {
    "id": "CMD",
    "sections": [
        section(
            "C1",
            "upgrade",
            [
                option("sgt", 5, [{"kind": "rule", "name": "Sergeant"}], command="sergeant"),
                option("mus", 5, [{"kind": "rule", "name": "Musician / Battle Standard"}], command="musician"),
            ],
            affects={"type": "exactly", "value": 1},
            select={"type": "any"},
        )
    ],
}
SKIRMISH = book(S, [hero("boss", system=S), unit("raiders", system=S, size=5, cost=50, upgrades=["CMD"])], [CMD])


def test_skirmish_allows_one_command_group_model_in_the_whole_army():
    one = [{"id": "a", "unit": "raiders", "options": {"sgt": 1}}, {"id": "b", "unit": "raiders"}]
    assert run(S, SKIRMISH, 250, one).valid
    two = [
        {"id": "a", "unit": "raiders", "options": {"sgt": 1}},
        {"id": "b", "unit": "raiders", "options": {"mus": 1}},
    ]
    issue = only(run(S, SKIRMISH, 250, two), "duplicate_command_group")
    assert issue.message == (
        "2 models have command-group upgrades (Sergeant, Musician), but only 1 model in the whole army may"
    )
    assert issue.rule == "Age of Fantasy: Skirmish — Command Groups"


def test_skirmish_has_no_combined_units_or_joining():
    listed = [{"id": "h", "unit": "boss", "joined_to": "a"}, {"id": "a", "unit": "raiders", "combined": True}]
    assert sorted(codes(run(S, SKIRMISH, 500, listed))) == ["invalid_combined", "invalid_join"]


def test_skirmish_has_no_unit_count_limits():
    assert run(S, SKIRMISH, 5000, entries("raiders", 40) + entries("boss", 10)).valid


# -- One Page Fantasy ----------------------------------------------------------------
OPF_ = "opf"
MOUNT = {
    "id": "MOUNT",
    "sections": [
        section(
            "M1",
            "upgrade",
            [
                option(
                    "griffon",
                    80,
                    [
                        {
                            "kind": "item",
                            "name": "Imperial Griffon",
                            "mount": True,
                            "rules": ["Tough(6)", "Flying"],
                            "equipment": [
                                {
                                    "name": "Claws",
                                    "attacks": 3,
                                    "strength": "heavy",
                                    "weapon_type": "sword",
                                    "rules": [],
                                }
                            ],
                        }
                    ],
                ),
                option("amulet", 10, [{"kind": "item", "name": "Amulet", "rules": ["Tough(2)"]}]),
            ],
            select={"type": "up to", "value": 2},
        )
    ],
}
OPF = book(
    OPF_,
    [
        hero(
            "captain",
            system=OPF_,
            rules=["Tough(3)"],
            upgrades=["MOUNT"],
            equipment=[weapon("Medium Sword", attacks=2, strength="medium", weapon_type="sword")],
        ),
        hero("wizard", system=OPF_, rules=["Tough(3)", "Wizard(1)"]),
        hero("veteran", system=OPF_, rules=["Tough(3)"], stats={"quality": 3}),
        unit("troops", system=OPF_, size=10, cost=60),
        unit("cannon", system=OPF_, type="ordnance", size=1, cost=70),
    ],
    [MOUNT],
)


def test_captain_on_a_griffon_has_tough_9():
    result = run(OPF_, OPF, 750, [{"id": "c", "unit": "captain", "options": {"griffon": 1}}])
    loadout = result.entries[0].loadout
    assert loadout.rating("Tough") == 9
    assert [str(r) for r in loadout.rules] == ["Tough(9)", "Flying"]
    assert [w.name for w in loadout.weapons] == ["Medium Sword", "Claws"]
    assert result.entries[0].cost == 140


def test_heroes_are_nimble_unless_mounted_and_other_tough_does_not_add():
    alone = run(OPF_, OPF, 750, [{"id": "c", "unit": "captain", "options": {"amulet": 1}}]).entries[0].loadout
    assert [str(r) for r in alone.rules] == ["Nimble", "Tough(3)"]


def test_opf_allows_750_points_at_most():
    assert "points_limit_invalid" not in codes(run(OPF_, OPF, 750, [{"id": "t", "unit": "troops"}]))
    issue = only(run(OPF_, OPF, 751, [{"id": "t", "unit": "troops"}]), "points_limit_invalid")
    assert issue.message == "751 pts is above the 750 pts maximum of One Page Fantasy"


@pytest.mark.parametrize("second", ["captain", "wizard"])
def test_opf_allows_one_hero_and_wizards_count(second):
    assert "too_many_heroes" not in codes(run(OPF_, OPF, 750, [{"id": "a", "unit": "wizard"}]))
    issue = only(run(OPF_, OPF, 750, [{"id": "a", "unit": "captain"}, {"id": "b", "unit": second}]), "too_many_heroes")
    assert issue.message == "2 heroes, but an army may have at most 1"


def test_opf_heroes_join_infantry_of_the_same_quality():
    same = [{"id": "c", "unit": "captain", "joined_to": "t"}, {"id": "t", "unit": "troops"}]
    assert run(OPF_, OPF, 750, same).valid
    other = [{"id": "v", "unit": "veteran", "joined_to": "t"}, {"id": "t", "unit": "troops"}]
    assert only(run(OPF_, OPF, 750, other), "invalid_join").message == (
        "Veteran is Quality 3+ and Troops is Quality 4+; a hero joins only a unit of the same Quality"
    )
    ordnance = [{"id": "c", "unit": "captain", "joined_to": "o"}, {"id": "o", "unit": "cannon"}]
    assert "invalid_join" in codes(run(OPF_, OPF, 750, ordnance))


@pytest.mark.parametrize(("unit_id", "legal"), [("troops", True), ("captain", False), ("cannon", False)])
def test_opf_merges_infantry_only(unit_id, legal):
    result = run(OPF_, OPF, 750, [{"id": "x", "unit": unit_id, "combined": True}])
    assert ("invalid_combined" not in codes(result)) is legal


# -- Arena ---------------------------------------------------------------------------
A = "aof-arena"
ARENA = book(
    A,
    [
        hero("boss", system=A, cost=0, rules=[]),
        unit("thug", system=A, size=1, cost=0),
        unit("archer", system=A, size=1, cost=0),
    ],
    composition={
        "models": {"min": 3, "max": 5},
        "groups": [
            {"label": "Leader", "units": ["boss"], "min": 1, "max": 1},
            {"label": "Fighter", "units": ["thug"], "min": 2, "max": 4},
            {"label": "Shooter", "units": ["archer"], "min": 0, "max": 1},
        ],
    },
)


def warband(boss: int, thugs: int, archers: int) -> list[dict]:
    return entries("boss", boss) + entries("thug", thugs) + entries("archer", archers)


def test_a_warband_within_its_card_is_valid():
    result = run(A, ARENA, None, warband(1, 3, 1))
    assert result.valid and result.points_limit is None and result.total_points == 0


@pytest.mark.parametrize(
    ("counts", "messages"),
    [
        ((0, 2, 1), ["0 Leader models, but the warband needs at least 1"]),
        ((2, 2, 0), ["2 Leader models, but the warband may have at most 1"]),
        ((1, 1, 1), ["1 Fighter models, but the warband needs at least 2"]),
        ((1, 4, 1), ["6 models in the warband, but it may have at most 5"]),
        (
            (1, 5, 2),
            [
                "5 Fighter models, but the warband may have at most 4",
                "2 Shooter models, but the warband may have at most 1",
                "8 models in the warband, but it may have at most 5",
            ],
        ),
        (
            (0, 0, 0),
            [
                "0 Leader models, but the warband needs at least 1",
                "0 Fighter models, but the warband needs at least 2",
                "0 models in the warband, but it needs at least 3",
            ],
        ),
    ],
)
def test_one_composition_issue_per_broken_bound(counts, messages):
    result = run(A, ARENA, None, warband(*counts))
    assert [i.message for i in result.issues if i.code == "composition"] == messages
    assert result.issues[0].rule == "Age of Fantasy: Arena 2.1 — Preparing the Warbands"


def test_arena_models_neither_combine_nor_join():
    listed = [
        {"id": "b", "unit": "boss", "joined_to": "t"},
        {"id": "t", "unit": "thug", "combined": True},
        *entries("thug", 2, start=5),
    ]
    assert sorted(codes(run(A, ARENA, None, listed))) == ["invalid_combined", "invalid_join"]


OPF_FORMATIONS = book(
    OPF_,
    [
        unit("five", system=OPF_, size=5, upgrades=["CMD"]),
        unit("four", system=OPF_, size=4),
        unit("six", system=OPF_, size=6),
    ],
    [CMD],
)


@pytest.mark.parametrize(("unit_id", "legal"), [("five", True), ("six", True), ("four", False)])
def test_opf_units_stand_in_formations_of_3_5_6_or_10(unit_id, legal):
    result = run(OPF_, OPF_FORMATIONS, 750, [{"id": "u", "unit": unit_id}])
    assert ("invalid_formation" not in codes(result)) is legal
    if not legal:
        assert only(result, "invalid_formation").rule == "One Page Fantasy 3.2.0 — Unit Formations"


def test_opf_command_groups_are_one_of_each_per_unit():
    assert run(OPF_, OPF_FORMATIONS, 750, [{"id": "u", "unit": "five", "options": {"sgt": 1, "mus": 1}}]).valid
    result = run(OPF_, OPF_FORMATIONS, 750, [{"id": "u", "unit": "five", "options": {"mus": 2}}])
    assert only(result, "duplicate_command_group").message == "Five has 2 Musicians, but a unit may have at most 1"
    two_units = [{"id": f"u{i}", "unit": "five", "options": {"sgt": 1}} for i in range(2)]
    assert run(OPF_, OPF_FORMATIONS, 750, two_units).valid  # per unit, not per army as in Skirmish
