"""The book's units: stats, rules, weapons and the items they start with, their type
(from what Army Forge says a unit is, not what it calls it), and the packages they take
without the sections Army Forge switches off for them."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from armybuilder.armyforge.books.reading import MAX_NAME, Reading, as_list, cut
from armybuilder.armyforge.books.rules import rule_texts
from armybuilder.armyforge.books.weapons import item, weapon
from armybuilder.armyforge.ids import our_id
from armybuilder.engine.book import split_rule

# Words of a unit's Army Forge `genericName` that say its type in every era of Army Forge's
# names ("Chariot" in 3.5.2 is "Combat Wheel" in 3.5.3, but no chariot is called anything
# else): the rest of a unit's type is read from what it is (unit_type_of).
TYPE_WORDS = {"chariot": "chariot", "chariots": "chariot", "artillery": "artillery"}
BIG_TOUGH = 6  # Tough(6) or more: a single large model (a monster, a chariot)
BIG_BASE = 100  # mm: a base this long on a side (or a round one of 60) holds a large model


def unit(r: Reading, path: str, data: Any) -> dict[str, Any] | None:
    """A unit as armybook/1 has it; None when it cannot be read (a problem)."""
    if not isinstance(data, dict):
        r.problem(path, "should be an object")
        return None
    before = len(r.problems)
    r.fields(path, "unit", data)
    unit_id = r.string(data, "id", f"{path}.id")
    name = r.string(data, "name", f"{path}.name")
    size = r.integer(data, "size", f"{path}.size")
    cost = r.integer(data, "cost", f"{path}.cost")
    quality = r.integer(data, "quality", f"{path}.quality")
    defense = r.integer(data, "defense", f"{path}.defense")
    weapons = r.list_of(data, "weapons", f"{path}.weapons")
    raw_rules = r.list_of(data, "rules", f"{path}.rules")
    items = r.list_of(data, "items", f"{path}.items")
    upgrades = r.list_of(data, "upgrades", f"{path}.upgrades")
    if not unit_id:
        return None
    if len(r.problems) > before:
        # The book will not be imported; the rest of the unit is still read, with
        # stand-ins for what is missing, so that the checks after this one find what
        # else is wrong rather than what follows from this.
        name, size, cost = name or unit_id, size or 1, cost if cost is not None else 0
        quality, defense = quality or 4, defense or 4

    rules = rule_texts(r, f"{path}.rules", raw_rules)
    is_hero = "Hero" in rules
    if is_hero and not r.hero_is_core:
        rules.remove("Hero")  # a hero is a unit type in this ruleset, not a rule
    equipment = [w for i, each in enumerate(weapons) if (w := weapon(r, f"{path}.weapons[{i}]", each, size))]
    starting = [g for i, each in enumerate(items) if (g := item(r, f"{path}.items[{i}]", each))]
    generic = data.get("genericName")
    unit_type = unit_type_of(
        hero=is_hero,
        rules=[*rules, *(rule for gain in starting for rule in gain["rules"])],
        bases=data.get("bases"),
        generic=generic if isinstance(generic, str) else "",
        types=r.ruleset.unit_types,
    )
    out: dict[str, Any] = {
        "id": our_id(unit_id),
        "name": cut(name, MAX_NAME),
        "type": unit_type,
        "size": size,
        "cost": cost,
        "stats": {"quality": quality, "defense": defense},
        "rules": rules,
        "equipment": equipment,
    }
    # Items it starts with (a mount, a relic): their rules and weapons are the unit's
    # while it carries them, and a replace section may swap them.
    if starting:
        out["items"] = [{k: v for k, v in g.items() if k != "kind"} for g in starting]
    out["upgrades"] = _unit_upgrades(r, path, data, name, upgrades)
    return out


def disabled_sections(data: dict[str, Any]) -> list[str]:
    """The ids of the sections (or packages) Army Forge switches off for a unit."""
    ids: list[str] = []
    for key in ("disabledSections", "disabledUpgradeSections"):
        ids.extend(x for x in as_list(data.get(key)) if isinstance(x, str) and x)
    return ids


def _unit_upgrades(r: Reading, path: str, data: dict[str, Any], name: str, upgrades: list[Any]) -> list[Any]:
    """The unit's packages, each without the sections Army Forge switches off for it."""
    packages: dict[str, None] = {}  # each once, in the order given
    for i, package in enumerate(upgrades):
        if not isinstance(package, str) or not package:
            r.problem(f"{path}.upgrades[{i}]", "should be a package uid")
        else:
            packages[package] = None
    without: dict[str, list[str]] = {}
    for key in ("disabledSections", "disabledUpgradeSections"):
        for i, ident in enumerate(as_list(data.get(key))):
            found = r.section_uids.get(ident) if isinstance(ident, str) else None
            if found is not None and found[0] in packages:
                if found[1] in r.emitted_sections:
                    without.setdefault(found[0], []).append(found[1])
            elif isinstance(ident, str) and ident in packages and key == "disabledUpgradeSections":
                del packages[ident]  # a whole package switched off
            else:
                r.warn(
                    f"{path}.{key}[{i}]",
                    f"{name} switches off upgrade section {ident!r}, which is not in any of its packages: ignored",
                )
    return [{"package": our_id(p), "without": without[p]} if without.get(p) else our_id(p) for p in packages]


def unit_type_of(*, hero: bool, rules: Iterable[str], bases: Any, generic: str, types: Iterable[str]) -> str:
    """A unit's type, from what Army Forge says the unit is rather than what it calls it
    (its `genericName` changed for most units in 3.5.3: "Cavalry" became "Knights",
    "Monster" "Great Rat Beast"), so that one unit has one type in every version:

    - a hero has the Hero rule;
    - artillery has the Artillery rule (or is called so);
    - a single large model (Tough(6) or more, or a base of 100 mm, or 60 mm round, as the
      Age of Fantasy rulebook's monsters stand on) is a chariot when it is called one or
      rides in with Fast and Impact but does not fly, else a monster;
    - a mounted unit (Impact, or Fast on a long cavalry base) is cavalry;
    - anything else is infantry.

    `rules` are the unit's and its starting items' (a mount's); a type the ruleset does
    not have falls back to infantry, as its rulebook counts such units."""
    have = set(types)
    parsed = [split_rule(text) for text in rules]
    names = {name for name, _ in parsed}
    words = {TYPE_WORDS[word] for word in re.findall(r"[a-z]+", generic.lower()) if word in TYPE_WORDS}
    tough = max(
        (int(value) for name, value in parsed if name == "Tough" and value and value.isdigit() and len(value) <= 4),
        default=0,
    )
    sides = _base_sides(bases)
    large = tough >= BIG_TOUGH or any(max(pair) >= BIG_BASE or pair == (60, 60) for pair in sides)
    if hero:
        found = "hero"
    elif "Artillery" in names or "artillery" in words:
        found = "artillery"
    elif large:
        rides = "Fast" in names and "Impact" in names and "Flying" not in names
        found = "chariot" if "chariot" in words or rides else "monster"
    elif "Impact" in names or ("Fast" in names and any(a != b for a, b in sides)):
        found = "cavalry"
    else:
        found = "infantry"
    return found if found in have else "infantry"


def _base_sides(bases: Any) -> list[tuple[int, int]]:
    """Army Forge's base sizes ({"round": "60x35", "square": "50x25"}) as (long, short) in
    mm: a single figure is a round or square base of that size."""
    sides = []
    for value in bases.values() if isinstance(bases, dict) else ():
        figures = [int(f) for f in re.findall(r"\d{1,4}", value)][:2] if isinstance(value, str) else []
        if figures:
            long, short = max(figures), min(figures)
            sides.append((long, short if len(figures) > 1 else long))
    return sides
