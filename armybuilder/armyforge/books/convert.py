"""Army Forge's army-book JSON, read into armybook/1: the whole book, each part read by
its own module (units, weapons and items, upgrade packages, rules, spells).

Army Forge (the common One Page Rules list builder) serves each army book as JSON: units
with `quality`, `defense`, `weapons`, `rules`, `items` and `upgrades` (package uids);
`upgradePackages` → `sections` → `options` → `gains`; `specialRules`; `spells`. The book
read here is checked as any armybook/1 document is afterwards (factions.armybook).

What it cannot map is reported by name, with the path in the Army Forge document
(`units[2].disabledUpgradeSections`, `upgradePackages[0].sections[1].variant`, …),
never dropped silently. The mapping decisions are listed in README.md ("Army Forge").
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.text import slugify

from armybuilder.armyforge.books import packages, rules, spells, units
from armybuilder.armyforge.books.reading import (
    CoreLookup,
    Reading,
    SlugLookup,
    as_list,
    cut,
    read_list,
    read_string,
)
from armybuilder.armyforge.ids import SUPPORTED_SYSTEMS, our_id, ruleset_of, version_name
from armybuilder.bidi import without_direction_controls
from armybuilder.engine.rulesets import policy_for
from factions.armybook import ArmyBookError, Problem, RulesetInfo, check_size, direction_texts

MAX_DESCRIPTION = 5000
ORDER = (
    *("format", "system", "slug", "name", "version", "description"),
    *("armyforge_id", "armyforge_rules", "rules", "spells", "units", "packages"),
)


@dataclass
class Conversion:
    """An Army Forge book read as armybook/1: `errors` stop the import, `warnings` are
    what was imported but needs a reader's eye. `book` holds every part that could be
    read, so that the armybook/1 checks can report on it too."""

    book: dict[str, Any]
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def is_armyforge_book(data: Any) -> bool:
    """An Army Forge army book rather than an armybook/1 document."""
    return (
        isinstance(data, dict)
        and "format" not in data
        and any(key in data for key in ("upgradePackages", "enabledGameSystems", "gameSystemId", "gameSystemSlug"))
    )


def armybook_from_armyforge(
    data: dict[str, Any],
    *,
    rulesets: Mapping[str, RulesetInfo],
    system: str | None = None,
    existing_slug: SlugLookup | None = None,
    core_rules: CoreLookup | None = None,
) -> Conversion:
    """The Army Forge book `data` as an armybook/1 dict for `system` (needed when the
    book is enabled for several of our rulesets and names none). `existing_slug(system,
    uid)` gives the slug of a faction already imported from this book, so a renamed book
    replaces it; `core_rules(system)` the core rules of Army Forge's held for the ruleset,
    whose texts explain the rules the book names without describing them (the book
    records their version). Raises ArmyBookError when the book cannot be read at all (no
    ruleset, no units); otherwise every problem found comes back in the Conversion."""
    oversized = check_size(data, packages="upgradePackages", rules="specialRules")
    if oversized:
        raise ArmyBookError(oversized)
    data, removed = _without_direction_controls(data)
    problems: list[Problem] = []
    found = _system(problems, data, rulesets, system)
    uid = read_string(problems, data, "uid", "uid")
    name = read_string(problems, data, "name", "name")
    version = read_string(problems, data, "versionString", "versionString")
    unit_list = read_list(problems, data, "units", "units", required=True)
    package_list = read_list(problems, data, "upgradePackages", "upgradePackages", required=True)
    special_rules = read_list(problems, data, "specialRules", "specialRules", required=False)
    spell_list = read_list(problems, data, "spells", "spells", required=False)
    if problems or found is None:
        raise ArmyBookError(problems)
    ruleset = rulesets[found]
    aliases = {
        theirs: ours
        for theirs, ours in policy_for(found).rule_aliases.items()
        if theirs not in ruleset.core_rules and ours in ruleset.core_rules
    }
    r = Reading(found, ruleset, core_rules(found) if core_rules is not None else None, aliases)
    r.warnings.extend(removed)
    r.section_uids = packages.section_index(package_list)
    r.users = _package_users(r, unit_list)

    book: dict[str, Any] = {
        "format": "armybook/1",
        "system": found,
        "slug": _slug(existing_slug, found, uid, name),
        "name": name,
        "version": version_name(version),
    }
    description = data.get("background")
    if isinstance(description, str) and description.strip():
        book["description"] = cut(description.strip(), MAX_DESCRIPTION)
    book["armyforge_id"] = uid
    if r.core is not None:
        book["armyforge_rules"] = r.core.version
    book["spells"] = [s for i, each in enumerate(spell_list) if (s := spells.spell(r, f"spells[{i}]", each))]
    # Packages before units: a unit leaves out only sections that were imported.
    book["packages"] = [
        p for i, each in enumerate(package_list) if (p := packages.package(r, f"upgradePackages[{i}]", each))
    ]
    book["units"] = [u for i, each in enumerate(unit_list) if (u := units.unit(r, f"units[{i}]", each))]
    # Rules last: which the book needs is known once every unit and option is read.
    book["rules"] = rules.book_rules(r, special_rules)
    r.unknown_fields()
    packages.resolve_targets(book)
    return Conversion({key: book[key] for key in ORDER if key in book}, r.problems, r.warnings)


def _without_direction_controls(data: dict[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """The book with the Unicode direction controls taken out of its texts, which the
    armybook/1 checks refuse (armybuilder.bidi), and a warning naming each text they were
    in (found by the same walk as those checks): a stray mark in a real book must not
    stop it. Taken out of the book's JSON text: no such mark is JSON's own syntax."""
    found = direction_texts(data)
    if not found:
        return data, []
    removed = [Problem(path, f"Unicode direction controls ({codes}) removed") for path, codes in found]
    return json.loads(without_direction_controls(json.dumps(data, ensure_ascii=False))), removed


def _package_users(r: Reading, unit_list: list[Any]) -> dict[str, list[tuple[str, frozenset[str]]]]:
    """Package uid -> the units taking it, each with the section ids it does without."""
    users: dict[str, list[tuple[str, frozenset[str]]]] = {}
    for unit in unit_list:
        if not isinstance(unit, dict) or not isinstance(unit.get("id"), str):
            continue
        without = frozenset(r.section_uids[x][1] for x in units.disabled_sections(unit) if x in r.section_uids)
        for package in dict.fromkeys(p for p in as_list(unit.get("upgrades")) if isinstance(p, str)):
            users.setdefault(package, []).append((our_id(unit["id"]), without))
    return users


def _system(
    problems: list[Problem], data: dict[str, Any], rulesets: Mapping[str, RulesetInfo], requested: str | None
) -> str | None:
    """The ruleset the book is read for: the one asked for, else the one it names."""

    def problem(path: str, message: str) -> None:
        problems.append(Problem(path, message))

    if requested is not None and requested not in SUPPORTED_SYSTEMS:
        problem("system", f'Army Forge books are for {", ".join(SUPPORTED_SYSTEMS)}; "{requested}" is not one of them')
        return None
    named = [(key, data[key]) for key in ("gameSystemSlug", "gameSystemId") if data.get(key) not in (None, "")]
    for key, value in named:
        system = ruleset_of(value)
        if system is None:
            problem(key, f'Army Forge game system "{value}" is not one we build lists for')
            return None
        if requested is not None and system != requested:
            problem(key, f'the book is for Army Forge game system "{value}" ({system}), not {requested}')
            return None
        if system not in rulesets:
            problem(key, f'ruleset "{system}" is not in the catalogue')
            return None
        return system
    enabled = data.get("enabledGameSystems")
    if enabled is not None and not isinstance(enabled, list):
        problem("enabledGameSystems", "should be a list of Army Forge game system ids")
        return None
    ours = [s for s in dict.fromkeys(ruleset_of(v) for v in enabled or []) if s is not None and s in rulesets]
    if requested is not None:
        if enabled is not None and requested not in ours:
            listed = ", ".join(str(v) for v in enabled) or "none"
            problem(
                "enabledGameSystems",
                f"the book is not enabled for {requested} (its Army Forge game systems: {listed})",
            )
            return None
        if requested in rulesets:
            return requested
        problem("system", f'ruleset "{requested}" is not in the catalogue')
        return None
    if len(ours) == 1:
        return ours[0]
    if not ours:
        problem(
            "enabledGameSystems",
            "the book names no Age of Fantasy game system (gameSystemSlug, gameSystemId or enabledGameSystems); "
            f"choose one of {', '.join(SUPPORTED_SYSTEMS)}",
        )
    else:
        problem(
            "enabledGameSystems",
            f"the book is enabled for several rulesets ({', '.join(ours)}): choose one (--system, or ?system=)",
        )
    return None


def _slug(existing_slug: SlugLookup | None, system: str, uid: str, name: str) -> str:
    if existing_slug is not None:
        existing = existing_slug(system, uid)
        if existing:
            return existing
    return re.sub(r"[^a-z0-9]+", "-", slugify(name)).strip("-")[:80].strip("-") or "army-forge-book"
