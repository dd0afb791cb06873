"""Moving a list's entries to another version of its book (`engine.versions.carry_entries`),
on small books made here: an option the new version offers the unit under another id is
found by its label, then by its gains, then by its section's label, and moved with its
picks (as many as the new section allows); one the version truly lacks is dropped.
The same on the official books: tests/factions/test_book_versions.py."""

from __future__ import annotations

from typing import Any

from armybuilder.engine import book_from_dict
from armybuilder.engine.book import Book
from armybuilder.engine.versions import carry_entries
from tests.support.engine_helpers import hero, option, section, unit, weapon

UP_TO_ONE = {"type": "up to", "value": 1}


def item(name: str, *rules: str) -> list[dict]:
    return [{"kind": "item", "name": name, "rules": list(rules)}]


def blade(name: str, attacks: int) -> list[dict]:
    return [{"kind": "weapon", "name": name, "attacks": attacks}]


def version(number: str, sections: list[dict], *, others: list[dict] | None = None) -> Book:
    """A book whose captain takes the package `HERO` of `sections`; `others`: more units,
    taking the package `OTHER` when it is given."""
    units = [hero("captain", equipment=[weapon("Hand Weapon")], upgrades=["HERO"])]
    packages = [{"id": "HERO", "sections": sections}]
    if others is not None:
        units.append(unit("warriors", size=5, upgrades=["OTHER"]))
        packages.append({"id": "OTHER", "sections": others})
    return book_from_dict(
        {
            "format": "armybook/1",
            "system": "aof",
            "slug": "test",
            "name": "Test Army",
            "version": number,
            "rules": [],
            "spells": [],
            "units": units,
            "packages": packages,
        }
    )


def companion(oid: str = "companion", label: str = "Beast Companion (Repel Ambushers)", cost: int = 10) -> dict:
    return option(oid, cost, item("Beast Companion", "Repel Ambushers"), label=label)


OLD = version(
    "1.0.0",
    [
        section(
            "with", "upgrade", [companion(), option("banner", 5, item("Banner"), label="Banner")], label="Upgrade with"
        ),
        section(
            "one",
            "upgrade",
            [
                option("scout", 15, [{"kind": "rule", "name": "Scout"}], label="Scout Master (Scout)"),
                option(
                    "assassin", 20, [{"kind": "rule", "name": "Takedown Strike"}], label="Assassin (Takedown Strike)"
                ),
            ],
            label="Upgrade with one",
            select=UP_TO_ONE,
        ),
    ],
)
# Army Forge regrouped the captain's upgrades: the Beast Companion is in "Upgrade with one"
# now, under a new id and a label spaced and cased otherwise; the Assassin is gone.
NEW = version(
    "2.0.0",
    [
        section("with", "upgrade", [option("banner", 5, item("Banner"), label="Banner")], label="Upgrade with"),
        section(
            "one",
            "upgrade",
            [
                option("scout", 15, [{"kind": "rule", "name": "Scout"}], label="Scout Master (Scout)"),
                companion("companion-2", "beast companion  (Repel Ambushers)", 15),
            ],
            label="Upgrade with one",
            select=UP_TO_ONE,
        ),
    ],
)


def carry(options: dict[str, int], old: Book = OLD, new: Book = NEW, **entry: Any):
    """The captain's entry with `options`, moved from `old` to `new`: its options after,
    and the report of it."""
    kept, [report] = carry_entries([{"id": "e1", "unit": "captain", "options": options, **entry}], old, new)
    return kept[0]["options"], report


def test_an_option_regrouped_under_a_new_id_is_found_by_its_label_and_kept_with_both_prices():
    options, report = carry({"companion": 1, "banner": 1})
    assert options == {"banner": 1, "companion-2": 1}
    assert report.dropped == []
    assert [moved.as_dict() for moved in report.moved] == [
        {
            "option": "companion",
            "to": "companion-2",
            "label": "Beast Companion (Repel Ambushers)",
            "to_label": "beast companion  (Repel Ambushers)",
            "section": ["Upgrade with", "Upgrade with one"],
            "cost": [10, 15],
            "picks": [1, 1],
        }
    ]


def test_an_option_the_new_version_truly_lacks_is_dropped_saying_so():
    options, report = carry({"assassin": 1})
    assert options == {}
    assert [d.as_dict() for d in report.dropped] == [
        {
            "option": "assassin",
            "label": "Assassin (Takedown Strike)",
            "reason": "Test Army 2.0.0 has no Assassin (Takedown Strike) any more",
        }
    ]
    assert report.moved == []


def test_a_moved_option_with_no_room_left_in_its_new_section_is_dropped_in_the_validators_words():
    """The Scout Master keeps its own id and its place; the Beast Companion, moved beside
    it into "Upgrade with one", has no pick left there."""
    options, report = carry({"scout": 1, "companion": 1})
    assert options == {"scout": 1}
    [dropped] = report.dropped
    assert (dropped.option, dropped.label) == ("companion", "Beast Companion (Repel Ambushers)")
    assert dropped.reason == (
        'Test Army 2.0.0 moved it to "Upgrade with one", which has no room left for it: '
        '"Upgrade with one" allows at most 1 pick, but has 2'
    )


def test_picks_past_what_the_new_section_allows_are_cut_and_the_cut_is_named():
    old = version(
        "1.0.0", [section("any", "upgrade", [option("bomb", 5, item("Bomb"), label="Bomb")], select={"type": "any"})]
    )
    new = version(
        "2.0.0",
        [
            section(
                "two",
                "upgrade",
                [option("bomb-2", 5, item("Bomb"), label="Bomb")],
                label="Up to two",
                select={"type": "up to", "value": 2},
            )
        ],
    )
    options, report = carry({"bomb": 3}, old, new)
    assert options == {"bomb-2": 2}
    [moved] = report.moved
    assert (moved.to, moved.picks) == ("bomb-2", (3, 2))
    assert moved.cut == '1 of its 3 picks cut: "Up to two" allows at most 2 picks, but has 3'


def test_with_no_label_alike_the_option_of_the_same_gains_is_found():
    old = version(
        "1.0.0", [section("mount", "upgrade", [option("horse", 20, item("Horse", "Fast"), label="Warhorse")])]
    )
    new = version(
        "2.0.0",
        [
            section("banner", "upgrade", [option("banner", 5, item("Banner"), label="Banner")]),
            section("ride", "upgrade", [option("horse-2", 25, item("Horse", "Fast"), label="Horse (Fast)")]),
        ],
    )
    options, report = carry({"horse": 1}, old, new)
    assert options == {"horse-2": 1}
    assert [(m.option, m.to, m.label, m.to_label, m.cost) for m in report.moved] == [
        ("horse", "horse-2", "Warhorse", "Horse (Fast)", (20, 25))
    ]


def test_with_several_labels_alike_the_one_of_the_same_gains_is_found():
    old = version("1.0.0", [section("swap", "upgrade", [option("axe", 10, blade("Great Axe", 3), label="Great Axe")])])
    new = version(
        "2.0.0",
        [
            section("a", "upgrade", [option("axe-light", 5, blade("Great Axe", 2), label="Great Axe")]),
            section("b", "upgrade", [option("axe-heavy", 10, blade("Great Axe", 3), label="Great Axe")]),
        ],
    )
    options, report = carry({"axe": 1}, old, new)
    assert options == {"axe-heavy": 1} and [m.to for m in report.moved] == ["axe-heavy"]


def test_a_tie_of_label_and_gains_is_broken_by_the_sections_label():
    gains = blade("Spear", 1)
    old = version(
        "1.0.0", [section("all", "upgrade", [option("spear", 5, gains, label="Spear")], label="Upgrade all with")]
    )
    new = version(
        "2.0.0",
        [
            section("one", "upgrade", [option("spear-one", 5, gains, label="Spear")], label="Upgrade one with"),
            section("all", "upgrade", [option("spear-all", 5, gains, label="Spear")], label="Upgrade all with"),
        ],
    )
    options, report = carry({"spear": 1}, old, new)
    assert options == {"spear-all": 1}
    assert [m.section for m in report.moved] == [("Upgrade all with", "Upgrade all with")]


def test_a_tie_nothing_breaks_is_dropped_naming_every_place_it_could_be():
    gains = blade("Spear", 1)
    old = version(
        "1.0.0", [section("old", "upgrade", [option("spear", 5, gains, label="Spear")], label="Upgrade with")]
    )
    new = version(
        "2.0.0",
        [
            section("one", "upgrade", [option("spear-one", 5, gains, label="Spear")], label="Upgrade one with"),
            section("all", "upgrade", [option("spear-all", 5, gains, label="Spear")], label="Upgrade all with"),
        ],
    )
    options, report = carry({"spear": 1}, old, new)
    assert options == {} and report.moved == []
    assert [d.reason for d in report.dropped] == [
        'Captain may take Spear in more than one place in 2.0.0 ("Upgrade one with", "Upgrade all with")'
    ]


def test_an_option_only_another_unit_is_offered_is_not_moved_and_says_the_unit_can_no_longer_take_it():
    banner = option("banner", 5, item("Banner"), label="Banner")
    old = version("1.0.0", [section("with", "upgrade", [banner])], others=[section("none", "upgrade", [])])
    new = version("2.0.0", [section("with", "upgrade", [])], others=[section("with", "upgrade", [banner])])
    options, report = carry({"banner": 1}, old, new)
    assert options == {}
    assert [d.reason for d in report.dropped] == ["Captain can no longer take Banner in 2.0.0"]


def test_gains_alone_never_match_an_option_that_gives_nothing():
    old = version("1.0.0", [section("cmd", "upgrade", [option("sergeant", 5, label="Sergeant")])])
    new = version("2.0.0", [section("cmd", "upgrade", [option("musician", 5, label="Musician")])])
    options, report = carry({"sergeant": 1}, old, new)
    assert options == {} and report.moved == []
    assert [d.option for d in report.dropped] == ["sergeant"]


def test_options_kept_under_their_own_ids_and_picks_of_none_stay_as_they_were():
    options, report = carry({"banner": 1, "scout": 0, "assassin": 0})
    assert options == {"banner": 1, "scout": 0}
    assert (report.moved, report.dropped) == ([], [])


def test_a_flood_of_ids_no_version_offered_is_named_a_few_and_counted_in_one_report():
    # A stored list from before input refused it (issue 37): the upgrade's report stays
    # short however many ids the entry holds, and none of them is carried over.
    flood = {f"x{n}": 1 for n in range(185_000)}
    options, report = carry({"banner": 1, **flood})
    assert options == {"banner": 1}
    assert [dropped.option for dropped in report.dropped] == ["x0", "x1", "x2", "x3"]
    assert report.dropped[-1].as_dict() == {
        "option": "x3",
        "label": "184,997 more options",
        "reason": "neither Test Army 1.0.0 nor 2.0.0 offers them to Captain",
    }
