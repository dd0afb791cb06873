"""Property-based tests of points and messages over generated books and lists."""

import re
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from armybuilder.engine import validate_list
from tests.support.engine_helpers import army, book, ruleset

WEAPONS = ["Sword", "Spear", "Bow"]
AFFECTS = [
    None,
    {"type": "all"},
    {"type": "any"},
    {"type": "exactly", "value": 1},
    {"type": "exactly", "value": 2},
    {"type": "up to", "value": 2},
]
SELECTS = [None, {"type": "any"}, {"type": "up to", "value": 2}, {"type": "exactly", "value": 1}]


@st.composite
def sections(draw, n_section: int):
    variant = draw(st.sampled_from(["replace", "upgrade", "models"]))
    sid = f"s{n_section}"
    options = []
    for i in range(draw(st.integers(1, 3))):
        if variant == "models":
            gains = [{"kind": "model", "name": "Extra", "equipment": [], "rules": []}]
        elif draw(st.booleans()):
            gains = [{"kind": "weapon", "name": draw(st.sampled_from(WEAPONS)), "attacks": 1, "rules": []}]
        else:
            gains = [{"kind": "rule", "name": "Fearless"}]
        opt = {"id": f"{sid}o{i}", "label": f"Option {i}", "cost": draw(st.integers(0, 40)), "gains": gains}
        if draw(st.booleans()):
            opt["command"] = draw(st.sampled_from(["sergeant", "musician", "banner"]))
        options.append(opt)
    section = {"id": sid, "label": f"Section {n_section}", "variant": variant, "options": options}
    if variant == "replace":
        section["targets"] = [draw(st.sampled_from(WEAPONS))]
    affects = draw(st.sampled_from(AFFECTS))
    if affects is not None and variant != "models":
        section["affects"] = affects
    select = draw(st.sampled_from(SELECTS))
    if select is not None:
        section["select"] = select
        if select["type"] == "exactly":
            section["optional"] = draw(st.booleans())
    return section


@st.composite
def books_and_lists(draw, most_picks: int = 3):
    packages = [{"id": "P", "sections": [draw(sections(i)) for i in range(draw(st.integers(0, 4)))]}]
    units = []
    for i in range(draw(st.integers(1, 4))):
        size = draw(st.integers(1, 10))
        units.append(
            {
                "id": f"u{i}",
                "name": "Unit " + "ABCD"[i],
                "type": draw(st.sampled_from(["hero", "infantry", "monster"])),
                "size": size,
                "cost": draw(st.integers(0, 300)),
                "stats": {"quality": 4, "defense": 4},
                "rules": [],
                "upgrades": ["P"],
                "equipment": [
                    {"name": w, "count": size, "attacks": 1, "rules": []}
                    for w in draw(st.sets(st.sampled_from(WEAPONS), min_size=1))
                ],
            }
        )
    the_book = book("aof", units, packages)
    option_ids = [o["id"] for s in packages[0]["sections"] for o in s["options"]]
    entries = []
    for i in range(draw(st.integers(0, 12))):
        picks = (
            draw(st.dictionaries(st.sampled_from(option_ids), st.integers(0, most_picks), max_size=4))
            if option_ids
            else {}
        )
        entries.append(
            {
                "id": f"e{i}",
                "unit": draw(st.sampled_from([u["id"] for u in units])),
                "options": picks,
                "combined": draw(st.booleans()),
            }
        )
    points = draw(st.integers(1, 3000))
    return the_book, entries, points


def validate(the_book, entries, points):
    return validate_list(the_book, ruleset("aof"), army("aof", points, entries))


@settings(max_examples=300, deadline=None)
@given(books_and_lists())
def test_total_is_the_sum_of_entry_costs(case):
    result = validate(*case)
    assert result.total_points == sum(e.cost for e in result.entries)


@settings(max_examples=300, deadline=None)
@given(books_and_lists())
def test_combining_doubles_the_base_and_whole_unit_options_only(case):
    the_book, entries, points = case
    for entry in entries:
        unit = the_book.units[entry["unit"]]
        single = validate(the_book, [{**entry, "combined": False}], points).entries[0].cost
        double = validate(the_book, [{**entry, "combined": True}], points).entries[0].cost
        whole_unit_picks = sum(
            option.cost_for(unit.id) * n
            for option_id, n in entry["options"].items()
            for section, option in [unit.options[option_id]]
            if section.whole_unit
        )
        assert double == single + unit.cost + whole_unit_picks


@settings(max_examples=300, deadline=None)
@given(books_and_lists())
def test_removing_a_pick_never_raises_the_cost(case):
    the_book, entries, points = case
    for entry in entries:
        full = validate(the_book, [entry], points).entries[0].cost
        for option_id, n in entry["options"].items():
            if n:
                fewer = {**entry, "options": {**entry["options"], option_id: n - 1}}
                assert validate(the_book, [fewer], points).entries[0].cost <= full


def numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", text)]


@settings(max_examples=300, deadline=None)
@given(books_and_lists())
def test_every_message_states_the_figures_of_the_response(case):
    the_book, entries, points = case
    result = validate(the_book, entries, points)
    costs = {e.entry.id: e.cost for e in result.entries}
    heroes = sum(1 for e in result.entries if e.unit.is_hero)
    for issue in result.issues:
        found = numbers(issue.message)
        if issue.code == "points_over_limit":
            assert found == [result.total_points, result.total_points - points, points]
        elif issue.code == "unit_too_expensive":
            assert found[0] == costs[issue.entry] and found[-1] == points
        elif issue.code == "too_many_units":
            assert found[:2] == [len(result.entries), points]
        elif issue.code == "too_many_heroes":
            assert found[:2] == [heroes, points]
        elif issue.code == "too_many_copies":
            unit_name = issue.message.split(" copies of ")[1].split(",")[0]
            copies = sum(1 for e in result.entries if e.unit.name == unit_name)
            assert found[0] == copies


# -- the same answer whatever ran before -------------------------------------------------
REGIMENTS_WITHOUT_FORMATION = [
    {"code": lim.code, "kind": lim.kind, "params": dict(lim.params), "section": lim.section}
    for lim in ruleset("aof-regiments").limits
    if lim.kind != "formation"
]
# The rulesets a list may be checked against in one process: each rulebook, with and
# without force organisation, and an event's Regiments without the formation limit.
CHECKS = [
    ("aof", None, True),
    ("aof", None, False),
    ("aof-regiments", None, True),
    ("aof-regiments", REGIMENTS_WITHOUT_FORMATION, True),
    ("aof-skirmish", None, True),
]


def figures(result) -> tuple:
    """Every figure a validation gives: the answer, and each entry's loadout as the cards
    print it."""
    loadouts = [
        (
            e.loadout.models,
            e.loadout.copy_sizes,
            e.loadout.cost,
            [(w.name, w.count, w.rules) for w in e.loadout.weapons],
            [str(r) for r in e.loadout.rules],
            e.loadout.items,
            e.loadout.upgrades,
            dict(e.loadout.command),
        )
        for e in result.entries
    ]
    return result.as_dict(), loadouts


def check_with(the_book, entries, points, check) -> tuple:
    system, limits, force_org = check
    return figures(
        validate_list(the_book, ruleset(system, limits=limits), army("aof", points, entries, force_org=force_org))
    )


@st.composite
def runs(draw):
    """Several lists of one book, each with a ruleset to check it against, in an order."""
    # Up to 8 picks of an option: enough added models for combined units whose copies
    # Regiments' formation limit splits unevenly.
    the_book, entries, points = draw(books_and_lists(most_picks=8))
    jobs = []
    for _ in range(draw(st.integers(1, 5))):
        picked = draw(st.lists(st.sampled_from(entries), unique_by=lambda e: e["id"])) if entries else []
        jobs.append((picked, draw(st.integers(1, 3000)), draw(st.sampled_from(CHECKS))))
    jobs += [(entries, points, check) for check in CHECKS]
    return the_book, draw(st.permutations(jobs))


@settings(max_examples=200, deadline=None)
@given(runs())
def test_a_list_validates_the_same_whatever_was_validated_before(case):
    """Each list, checked after the others in a random order on one book (whose loadout
    cache they all share), gives every figure it gives checked first on a fresh book."""
    the_book, jobs = case
    warm = [check_with(the_book, entries, points, check) for entries, points, check in jobs]
    for (entries, points, check), seen in zip(jobs, warm, strict=True):
        fresh = replace(the_book)  # the same book with empty memos of its own
        assert check_with(fresh, entries, points, check) == seen
    # And again in the same order on the now warm book.
    assert [check_with(the_book, entries, points, check) for entries, points, check in jobs] == warm
