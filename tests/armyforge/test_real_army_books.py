"""The official army books as Army Forge publishes them (../shared/armyforge/, named
`<ruleset>--<book>.json`; third-party data, read from there and never copied here): each
imports, its units and options cost exactly what Army Forge says, it survives export and
import unchanged, it builds lists in the builder, and random lists of its units validate
without a server error and add up."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from armybuilder.armyforge.books.imports import book_import
from armybuilder.armyforge.ids import our_id
from armybuilder.engine import list_from_dict, validate_list
from armybuilder.engine.book import same_name, takes_what_is_left
from armybuilder.engine.choices import section_choices
from armybuilder.lists.models import ArmyList
from factions.models import Faction
from factions.selectors import engine_book_get, faction_document
from tests.conftest import SHARED, require_shared

ARMYFORGE = SHARED / "armyforge"
BOOKS = sorted(p.name for p in ARMYFORGE.glob("*--*.json")) or ["(no books in ../shared/armyforge)"]


def book_path(name: str) -> Path:
    return require_shared(ARMYFORGE / name)


def system_of(name: str) -> str:
    return name.split("--", 1)[0]


@cache
def armyforge(name: str) -> dict[str, Any]:
    return json.loads(book_path(name).read_text(encoding="utf-8"))


pytestmark = pytest.mark.usefixtures("fresh_engine_cache")


def import_book(name: str):
    return book_import(data=book_path(name).read_bytes(), system=system_of(name))


# -- what Army Forge says a unit and its options cost ---------------------------------------------
def switched_off(unit: dict[str, Any]) -> set[str]:
    return {x for key in ("disabledSections", "disabledUpgradeSections") for x in unit.get(key) or []}


def armyforge_options(data: dict[str, Any], unit: dict[str, Any]):
    """(section, option) of every option Army Forge offers `unit`."""
    packages = {p["uid"]: p for p in data["upgradePackages"]}
    off = switched_off(unit)
    for uid in dict.fromkeys(unit["upgrades"]):
        for section in packages[uid]["sections"]:
            if section.get("uid") in off or section.get("id") in off:
                continue
            for option in section["options"]:
                yield section, option


def armyforge_cost(unit: dict[str, Any], option: dict[str, Any]) -> int:
    """What Army Forge charges `unit` for one pick of `option`: its own cost for that unit,
    else the option's."""
    own = {c["unitId"]: c["cost"] for c in option.get("costs") or []}
    return own.get(unit["id"], option.get("cost"))


@pytest.mark.parametrize("name", BOOKS)
def test_every_unit_and_option_costs_what_army_forge_says(db, name):
    data = armyforge(name)
    result = import_book(name)
    book, _ruleset = engine_book_get(system=system_of(name), slug=result.faction.slug)
    assert len(book.units) == len(data["units"])
    checked = 0
    for af_unit in data["units"]:
        unit = book.units[our_id(af_unit["id"])]
        assert (unit.name, unit.cost, unit.size, unit.stats["quality"], unit.stats["defense"]) == (
            af_unit["name"].strip(),
            af_unit["cost"],
            af_unit["size"],
            af_unit["quality"],
            af_unit["defense"],
        )
        offered = list(armyforge_options(data, af_unit))
        assert set(unit.options) == {our_id(option["uid"]) for _section, option in offered}, af_unit["name"]
        for _section, af_option in offered:
            _our_section, option = unit.options[our_id(af_option["uid"])]
            assert option.cost_for(unit.id) == armyforge_cost(af_unit, af_option), (af_unit["name"], option.label)
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("name", BOOKS)
def test_every_book_survives_export_and_import_unchanged(db, name):
    faction = import_book(name).faction
    first = faction_document(faction=faction)
    book_import(data=first)  # the armybook/1 export imports as it is
    second = faction_document(faction=Faction.objects.get(pk=faction.pk))
    assert second == first


@pytest.mark.parametrize("name", BOOKS)
def test_the_import_command_says_imported_with_its_warnings(db, name):
    out = io.StringIO()
    call_command("import_armybook", "--system", system_of(name), str(book_path(name)), stdout=out)
    lines = out.getvalue().splitlines()
    faction = Faction.objects.get(ruleset__slug=system_of(name), armyforge_id=armyforge(name)["uid"])
    assert lines[0].startswith(f"{book_path(name)}: imported, ")
    assert lines[1:] == [f"  warning: {w}" for w in faction.import_warnings]


@pytest.mark.parametrize("name", BOOKS)
def test_every_book_builds_lists_in_the_builder(db, client, name):
    data = armyforge(name)
    faction = import_book(name).faction
    system = system_of(name)
    response = client.post(f"/new/{system}/", {"faction": faction.slug, "points": "2000", "name": "Real book"})
    assert response.status_code == 302
    army_list = ArmyList.objects.get()
    # Every unit goes in, and the one with the most options opens its upgrades.
    for unit in data["units"]:
        army_list.refresh_from_db()
        posted = client.post(
            f"/lists/{army_list.pk}/act/", {"version": army_list.version, "action": "add", "unit": our_id(unit["id"])}
        )
        assert posted.status_code == 302, posted.content[:300]
    army_list.refresh_from_db()
    assert [e["unit"] for e in army_list.entries] == [our_id(u["id"]) for u in data["units"]]
    busiest = max(range(len(data["units"])), key=lambda i: len(list(armyforge_options(data, data["units"][i]))))
    page = client.get(f"/lists/{army_list.pk}/?entry={army_list.entries[busiest]['id']}")
    assert page.status_code == 200
    text = page.content.decode()
    assert data["units"][busiest]["name"].strip() in text
    for _section, option in armyforge_options(data, data["units"][busiest]):
        assert f'value="{our_id(option["uid"])}' in text or f"o:{our_id(option['uid'])}" in text


# -- random lists --------------------------------------------------------------------------------
def whole_unit(section: dict[str, Any]) -> bool:
    """Army Forge buys these for both halves of a combined unit: an upgrade of the unit as
    a whole or of all its models, and a replacement of all of an item."""
    affects = section.get("affects") or {}
    if section["variant"] == "upgrade":
        return affects.get("type") in (None, "all")
    return affects.get("type") == "all"


def expected_cost(data: dict[str, Any], entry: dict[str, Any]) -> int:
    """An entry's cost from the Army Forge book alone: its base cost once per copy, each
    pick at the unit's own cost, bought for both copies where it covers the whole unit."""
    unit = next(u for u in data["units"] if our_id(u["id"]) == entry["unit"])
    copies = 2 if entry.get("combined") else 1
    total = unit["cost"] * copies
    for section, option in armyforge_options(data, unit):
        picks = entry["options"].get(our_id(option["uid"]), 0)
        total += armyforge_cost(unit, option) * picks * (copies if whole_unit(section) else 1)
    return max(total, 0)


@st.composite
def army_lists(draw, names: list[str]):
    name = draw(st.sampled_from(names))
    data = armyforge(name)
    units = data["units"]
    count = draw(st.integers(1, 12))
    entries = []
    for i in range(count):
        unit = draw(st.sampled_from(units))
        offered = [our_id(o["uid"]) for _s, o in armyforge_options(data, unit)]
        chosen = draw(st.lists(st.sampled_from(offered), max_size=4, unique=True)) if offered else []
        options = {option: draw(st.integers(0, 3)) for option in chosen}
        if draw(st.integers(0, 9)) == 0:
            options["not-an-option"] = 1
        entry = {"id": f"e{i}", "unit": our_id(unit["id"]), "options": options}
        if unit["size"] > 1 and draw(st.integers(0, 3)) == 0:
            entry["combined"] = True
        entries.append(entry)
    for entry in entries:
        if draw(st.integers(0, 4)) == 0:
            entry["joined_to"] = draw(st.sampled_from([e["id"] for e in entries]))
    points = draw(st.sampled_from([250, 500, 750, 1500, 2000, 3000]))
    return name, points, entries


def test_random_lists_of_real_books_validate_and_add_up(db):
    names = [name for name in BOOKS if book_path(name).is_file()]
    slugs = {name: import_book(name).faction.slug for name in names}
    client = APIClient()

    @settings(
        max_examples=150,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(army_lists(names))
    def check(case):
        name, points, entries = case
        data = armyforge(name)
        body = {
            "format": "armylist/1",
            "name": "Random",
            "system": system_of(name),
            "faction": slugs[name],
            "points_limit": points,
            "entries": entries,
        }
        response = client.post("/api/validate/", body, format="json")
        assert response.status_code == 200, response.content[:500]
        result = response.json()
        costs = {e["id"]: e["cost"] for e in result["entries"]}
        assert result["total_points"] == sum(costs.values())
        for entry in entries:
            known = {k: v for k, v in entry["options"].items() if k != "not-an-option"}
            assert costs[entry["id"]] == expected_cost(data, {**entry, "options": known}), entry

    check()


@pytest.mark.parametrize("name", BOOKS)
def test_a_list_of_every_unit_prints_and_exports(user_client, name):
    """One of each unit, each with the first option of every section: the cards, roster,
    rules reference, text and JSON exports all come out."""
    data = armyforge(name)
    faction = import_book(name).faction
    entries = []
    for i, unit in enumerate(data["units"]):
        seen, options = set(), {}
        for section, option in armyforge_options(data, unit):
            if section["uid"] not in seen and option["gains"]:
                seen.add(section["uid"])
                options[our_id(option["uid"])] = 1
        entries.append({"id": f"e{i}", "unit": our_id(unit["id"]), "options": options})
    body = {
        "format": "armylist/1",
        "name": "Every unit",
        "system": system_of(name),
        "faction": faction.slug,
        "points_limit": 5000,
        "entries": entries,
    }
    created = user_client.post("/api/lists/", body, format="json")
    assert created.status_code == 201, created.content[:500]
    list_id = created.json()["id"]
    for kind, starts in [
        ("cards.pdf", b"%PDF"),
        ("roster.pdf", b"%PDF"),
        ("reference.pdf", b"%PDF"),
        ("text", data["units"][0]["name"].strip().encode()),
        ("json", b"{"),
    ]:
        response = user_client.get(f"/api/lists/{list_id}/export/{kind}")
        content = b"".join(response.streaming_content) if response.streaming else response.content
        assert response.status_code == 200, (kind, content[:300])
        assert content.startswith(starts) or starts in content, kind


# -- picks that give the same answer however the book is laid out, and none that add nothing -------
def engine_book(name: str):
    book, ruleset = engine_book_get(system=system_of(name), slug=import_book(name).faction.slug)
    return book, ruleset


def fixed_and_rest_pairs(unit):
    """(fixed, rest): a replacement of a fixed number of an item and one of all or any of
    the same item, on `unit`."""
    replaces = [s for s in unit.sections if s.variant == "replace"]
    for fixed in replaces:
        for rest in replaces:
            shared = any(same_name(a.name, b.name) for a in fixed.targets for b in rest.targets)
            if shared and not takes_what_is_left(fixed) and takes_what_is_left(rest):
                yield fixed, rest


def figures_of(book, ruleset, unit, options: dict[str, int]):
    army = list_from_dict(
        {"system": book.system, "faction": book.slug, "entries": [{"id": "e", "unit": unit.id, "options": options}]}
    )
    result = validate_list(replace(book, units={unit.id: unit}), ruleset, army)
    loadout = result.entries[0].loadout
    weapons = sorted((w.name, w.count, w.rules) for w in loadout.weapons)
    return weapons, sorted(loadout.items), sorted(i.message for i in result.issues if i.entry == "e")


def test_replacements_of_one_item_give_the_same_loadout_in_either_book_order(db):
    """Every unit of the official books with a fixed and an all-or-any replacement of the
    same item: one option of each, with the two sections in the book's order and swapped."""
    pairs = 0
    for name in BOOKS:
        book, ruleset = engine_book(name)
        for unit in book.units.values():
            for fixed, rest in fixed_and_rest_pairs(unit):
                pairs += 1
                options = {fixed.options[0].id: 1, rest.options[0].id: 1}
                order = list(unit.sections)
                i, j = order.index(fixed), order.index(rest)
                order[i], order[j] = rest, fixed
                swapped = replace(unit, sections=tuple(order))
                assert figures_of(book, ruleset, swapped, options) == figures_of(book, ruleset, unit, options), (
                    name,
                    unit.name,
                    fixed.label,
                    rest.label,
                )
    assert pairs


def test_an_upgrade_giving_only_items_and_rules_is_offered_once_per_model_or_copy(db):
    """Every upgrade of the official books that gives only items and rules (armour, a
    charm, a mount): the builder closes it once taken as often as the models or copies its
    section covers, and one more is an option_limit issue."""
    checked = 0
    for name in BOOKS:
        book, ruleset = engine_book(name)
        for unit in book.units.values():
            for choice in section_choices(unit, {}, copies=1):
                for pick in choice.options:
                    option = pick.option
                    if choice.section.variant != "upgrade" or not option.once or choice.allowance.each is not None:
                        continue
                    most = choice.allowance.own_most(option)
                    taken = {option.id: most}
                    after = {c.section.id: c for c in section_choices(unit, taken, copies=1)}[choice.section.id]
                    assert not next(o for o in after.options if o.option.id == option.id).open, (name, option.label)
                    army = list_from_dict(
                        {
                            "system": book.system,
                            "faction": book.slug,
                            "entries": [{"id": "e", "unit": unit.id, "options": {option.id: most + 1}}],
                        }
                    )
                    issues = validate_list(book, ruleset, army).issues
                    assert "option_limit" in {i.code for i in issues}, (name, unit.name, option.label)
                    checked += 1
    assert checked
