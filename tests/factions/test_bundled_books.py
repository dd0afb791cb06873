"""The bundled army books are real, playable factions: enough of them, every unit legal
on its own, every option pickable, and a legal example list at each suggested size."""

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest

from armybuilder.engine import book_from_dict, list_from_dict, validate_list
from armybuilder.engine.loadout import stack_ratings, unit_loadout
from factions.services import bundled_book_paths
from tests.support.engine_helpers import DATA, ruleset_with_core_rules

BOOKS = bundled_book_paths()
LISTS = sorted((DATA / "lists").glob("*/*.json"))
SUGGESTED = {
    "aof": [750, 1500],
    "aof-regiments": [500, 1000],
    "aof-skirmish": [250],
    "opf": [750],
    "aof-arena": [None],
}
MIN_FACTIONS = {"aof": 4, "aof-regiments": 2, "aof-skirmish": 2, "opf": 2, "aof-arena": 3}
MIN_UNITS = {"aof": 15, "aof-regiments": 10, "aof-skirmish": 10, "opf": 10, "aof-arena": 6}


def load(path: Path):
    data = json.loads(path.read_text())
    return data, book_from_dict(data), ruleset_with_core_rules(data["system"])


def entry_errors(book, ruleset, unit_id: str, options: dict[str, int], points) -> list[str]:
    army = list_from_dict(
        {
            "system": book.system,
            "faction": book.slug,
            "points_limit": points,
            "entries": [{"id": "x", "unit": unit_id, "options": options}],
        }
    )
    result = validate_list(book, ruleset, army)
    return [f"{i.code}: {i.message}" for i in result.issues if i.entry == "x" and i.severity == "error"]


def required_picks(unit) -> dict[str, int]:
    allowances = unit_loadout(unit, {}, copies=1, combine_rules=stack_ratings, implied_rules=lambda u, m: []).allowances
    return {
        s.options[0].id: allowances[s.id].required
        for s in unit.sections
        if s.id in allowances and allowances[s.id].required
    }


def ids(paths):
    return [f"{p.parent.name}/{p.stem}" for p in paths]


@pytest.mark.parametrize("system", SUGGESTED)
def test_each_ruleset_ships_enough_factions_with_enough_units(system):
    books = [json.loads(p.read_text()) for p in BOOKS if p.parent.name == system]
    assert len(books) >= MIN_FACTIONS[system], [b["slug"] for b in books]
    for book in books:
        assert len(book["units"]) >= MIN_UNITS[system], (book["slug"], len(book["units"]))


@pytest.mark.parametrize("path", BOOKS, ids=ids(BOOKS))
def test_every_unit_with_no_picks_is_legal_on_its_own(path):
    data, book, ruleset = load(path)
    points = max(SUGGESTED[data["system"]], key=lambda p: p or 0)
    problems = {u: entry_errors(book, ruleset, u, {}, points) for u in book.units}
    assert {u: p for u, p in problems.items() if p} == {}


@pytest.mark.parametrize("path", BOOKS, ids=ids(BOOKS))
def test_every_option_can_be_picked_in_a_legal_configuration(path):
    """For each option: the option alone, then with one or two other picks of the same
    unit, until some configuration has no error on the entry."""
    data, book, ruleset = load(path)
    points = max(SUGGESTED[data["system"]], key=lambda p: p or 0)
    unpickable = []
    for unit in book.units.values():
        base = required_picks(unit)
        others = list(unit.options)
        for option_id, (section, _option) in unit.options.items():
            start = {**{k: v for k, v in base.items() if unit.options[k][0] is not section}, option_id: 1}
            candidates = itertools.chain(
                [start],
                ({**start, other: 1} for other in others if other != option_id),
                ({**start, a: 1, b: 1} for a, b in itertools.combinations([o for o in others if o != option_id], 2)),
            )
            if not any(not entry_errors(book, ruleset, unit.id, picks, points) for picks in candidates):
                unpickable.append(f"{unit.id}: {option_id} ({entry_errors(book, ruleset, unit.id, start, points)})")
    assert unpickable == []


@pytest.mark.parametrize("path", BOOKS, ids=ids(BOOKS))
def test_every_faction_has_a_legal_example_list_at_each_suggested_size(path):
    data = json.loads(path.read_text())
    sizes = Counter()
    for list_path in LISTS:
        example = json.loads(list_path.read_text())
        if example["system"] == data["system"] and example["faction"] == data["slug"]:
            sizes[example["points_limit"]] += 1
    assert set(SUGGESTED[data["system"]]) <= set(sizes), (data["slug"], dict(sizes))


@pytest.mark.parametrize("path", LISTS, ids=ids(LISTS))
def test_example_list_is_legal(path):
    example = json.loads(path.read_text())
    book_path = DATA / "books" / example["system"] / f"{example['faction']}.json"
    _data, book, ruleset = load(book_path)
    result = validate_list(book, ruleset, list_from_dict(example))
    assert [f"{i.code}: {i.message}" for i in result.issues if i.severity == "error"] == []
    if example["points_limit"] is not None:
        # A real list spends most of its points.
        assert result.total_points >= 0.9 * example["points_limit"], result.total_points


@pytest.mark.parametrize("path", BOOKS, ids=ids(BOOKS))
def test_every_rule_name_resolves_and_every_text_is_our_own(path, rulebook_ngrams):
    from factions.armybook import RulesetInfo, validate_armybook
    from tests.factions.test_core_rules import COPY_RUN, ngrams, words
    from tests.support.engine_helpers import RULESET_DATA

    data = json.loads(path.read_text())
    system = RULESET_DATA[data["system"]]
    core = json.loads((DATA / "core_rules" / f"{data['system']}.json").read_text())
    info = RulesetInfo(
        data["system"],
        tuple(system["stat_fields"]),
        tuple(system["unit_types"]),
        {rule["name"]: rule["rated"] for rule in core},
    )
    assert validate_armybook(data, {data["system"]: info}) == []  # unknown rules are problems here
    for item in [*data["rules"], *data["spells"]]:
        assert 10 <= len(item["text"]) <= 600, item
        copied = ngrams(words(item["text"]), COPY_RUN) & rulebook_ngrams
        assert not copied, (item["name"], copied)
