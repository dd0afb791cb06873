"""Checking an `armybook/1` document before it touches the database.

Two passes, both collecting every problem rather than stopping at the first:
1. the JSON Schema in factions/schema/ (shapes, types, extra keys);
2. checks that need the ruleset's catalogue: stat keys and unit types of the ruleset,
   rule names (core or the book's own) and their ratings, package references, duplicate
   ids, replace/attachment targets, fields that belong to another ruleset.

Each problem names the path in the document, e.g. `units[3].upgrades[0]`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "armybook-1.schema.json"
RULE_RE = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9 '&/-]*?)(?:\((?P<rating>\+?\d+)\))?$")

# Weapon profile fields that only some rulesets use; every other ruleset must not.
OPF_WEAPON_FIELDS = frozenset({"strength", "weapon_type"})
ARENA_WEAPON_FIELDS = frozenset({"accuracy", "strength", "damage", "critical"})
HERO_RULE_SYSTEMS = frozenset({"aof", "aof-skirmish"})
ARENA = "aof-arena"
OPF = "opf"


@dataclass(frozen=True)
class Problem:
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ArmyBookError(Exception):
    """A book that cannot be imported; `problems` lists every reason, first first."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        first = str(problems[0]) if problems else "invalid army book"
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        super().__init__(first + more)


@dataclass(frozen=True)
class RulesetInfo:
    """What the checks need to know of a ruleset."""

    slug: str
    stat_fields: tuple[str, ...]
    unit_types: tuple[str, ...]
    core_rules: Mapping[str, bool] = field(default_factory=dict)  # name -> rated


def format_path(parts: Iterable[str | int]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def parse_rule(text: str) -> tuple[str, str | None]:
    """ "AP(+2)" -> ("AP", "+2"); "Fear" -> ("Fear", None)."""
    match = RULE_RE.match(text)
    if not match:
        return text, None
    return match["name"], match["rating"]


def json_has_nul(raw: bytes) -> bool:
    """A NUL character in JSON text, raw or escaped. PostgreSQL text cannot hold one, so
    every door refuses it (uploads here and in the list import, requests in middleware)."""
    return b"\x00" in raw or b"\\u0000" in raw


def parse_json(raw: bytes | str) -> Any:
    if json_has_nul(raw.encode() if isinstance(raw, str) else raw):
        raise ArmyBookError([Problem("", "not valid: the file contains a NUL character (\\u0000)")])
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ArmyBookError([Problem("", f"not valid JSON: {exc}")]) from exc


@cache
def _validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def check_schema(data: Any) -> list[Problem]:
    errors = sorted(_validator().iter_errors(data), key=lambda e: _path_key(e.absolute_path))
    problems = []
    for error in errors:
        # For "oneOf"/"if-then" failures the most specific sub-error says what is wrong.
        best = error
        while best.context:
            best = min(best.context, key=lambda e: -len(e.absolute_path))
        problems.append(Problem(format_path(best.absolute_path), best.message))
    return problems


def _path_key(path: Iterable[str | int]) -> list[tuple[int, int | str]]:
    return [(0, p) if isinstance(p, int) else (1, p) for p in path]


def validate_armybook(data: Any, rulesets: Mapping[str, RulesetInfo]) -> list[Problem]:
    """Every problem with `data` as a book for one of `rulesets`; empty when it is fine."""
    problems = check_schema(data)
    if problems:
        return problems
    ruleset = rulesets.get(data["system"])
    if ruleset is None:
        return [Problem("system", f'unknown system "{data["system"]}"')]
    return list(_BookChecker(data, ruleset).problems())


def _fmt(names: Iterable[str]) -> str:
    names = list(names)
    return ", ".join(names) if names else "none"


class _BookChecker:
    def __init__(self, book: dict[str, Any], ruleset: RulesetInfo):
        self.book = book
        self.ruleset = ruleset
        self.faction_rules = {r["name"]: r["rated"] for r in book["rules"]}
        self.units = {u["id"]: u for u in book["units"]}
        self.package_ids = {p["id"] for p in book["packages"]}
        self.gained_names = _gained_names(book)

    def problems(self) -> Iterator[Problem]:
        yield from self._duplicates()
        yield from self._faction_rules()
        for i, unit in enumerate(self.book["units"]):
            yield from self._unit(f"units[{i}]", unit)
        for i, package in enumerate(self.book["packages"]):
            yield from self._package(f"packages[{i}]", package)
        yield from self._composition()

    # -- ids -------------------------------------------------------------------------
    def _duplicates(self) -> Iterator[Problem]:
        def dupes(items: list[tuple[str, str]], what: str) -> Iterator[Problem]:
            seen: dict[str, str] = {}
            for path, ident in items:
                if ident in seen:
                    yield Problem(path, f'duplicate {what} "{ident}" (first used at {seen[ident]})')
                else:
                    seen[ident] = path

        book = self.book
        yield from dupes([(f"units[{i}].id", u["id"]) for i, u in enumerate(book["units"])], "unit id")
        yield from dupes([(f"packages[{i}].id", p["id"]) for i, p in enumerate(book["packages"])], "package id")
        sections, options = [], []
        for i, package in enumerate(book["packages"]):
            for j, section in enumerate(package["sections"]):
                sections.append((f"packages[{i}].sections[{j}].id", section["id"]))
                for k, option in enumerate(section["options"]):
                    options.append((f"packages[{i}].sections[{j}].options[{k}].id", option["id"]))
        yield from dupes(sections, "section id")
        yield from dupes(options, "option id")
        yield from dupes([(f"rules[{i}].name", r["name"]) for i, r in enumerate(book["rules"])], "rule")
        yield from dupes([(f"spells[{i}].name", s["name"]) for i, s in enumerate(book["spells"])], "spell")

    def _faction_rules(self) -> Iterator[Problem]:
        for i, rule in enumerate(self.book["rules"]):
            if rule["name"] in self.ruleset.core_rules:
                yield Problem(
                    f"rules[{i}].name",
                    f'"{rule["name"]}" is a core rule of {self.ruleset.slug}; a book may not redefine it',
                )

    # -- rules -----------------------------------------------------------------------
    def _rule_strings(self, path: str, rules: list[str]) -> Iterator[Problem]:
        for i, text in enumerate(rules):
            yield from self._rule_string(f"{path}[{i}]", text)

    def _rule_string(self, path: str, text: str) -> Iterator[Problem]:
        name, rating = parse_rule(text)
        rated = self.ruleset.core_rules.get(name, self.faction_rules.get(name))
        if rated is None:
            yield Problem(
                path,
                f'unknown rule "{name}": not a core rule of {self.ruleset.slug} and not in the book\'s rules',
            )
        elif rated and rating is None:
            yield Problem(path, f'rule "{name}" needs a value, e.g. {name}(1)')
        elif not rated and rating is not None:
            yield Problem(path, f'rule "{name}" takes no value, but "{text}" gives one')

    # -- units -----------------------------------------------------------------------
    def _unit(self, path: str, unit: dict[str, Any]) -> Iterator[Problem]:
        ruleset = self.ruleset
        if unit["type"] not in ruleset.unit_types:
            yield Problem(
                f"{path}.type",
                f'unit type "{unit["type"]}" is not used in {ruleset.slug} (allowed: {_fmt(ruleset.unit_types)})',
            )
        yield from self._stats(f"{path}.stats", unit["stats"])
        yield from self._rule_strings(f"{path}.rules", unit["rules"])
        if ruleset.slug in HERO_RULE_SYSTEMS:
            has_hero_rule = "Hero" in (parse_rule(r)[0] for r in unit["rules"])
            if unit["type"] == "hero" and not has_hero_rule:
                yield Problem(f"{path}.rules", f"a hero must carry the Hero rule in {ruleset.slug}")
            if unit["type"] != "hero" and has_hero_rule:
                yield Problem(f"{path}.type", 'a unit with the Hero rule must have type "hero"')
        if ruleset.slug == ARENA:
            if unit["cost"] != 0:
                yield Problem(f"{path}.cost", "Arena models have no points cost: use 0")
            if unit["size"] != 1:
                yield Problem(f"{path}.size", "an Arena profile is one model: use size 1")
        for i, weapon in enumerate(unit["equipment"]):
            yield from self._weapon(f"{path}.equipment[{i}]", weapon)
        for i, package_id in enumerate(unit["upgrades"]):
            if package_id not in self.package_ids:
                yield Problem(f"{path}.upgrades[{i}]", f'unknown package "{package_id}"')
        yield from _no_repeats(f"{path}.upgrades", unit["upgrades"], "package")

    def _stats(self, path: str, stats: dict[str, Any]) -> Iterator[Problem]:
        expected = self.ruleset.stat_fields
        missing = [k for k in expected if k not in stats]
        extra = [k for k in stats if k not in expected]
        if missing or extra:
            yield Problem(
                path,
                f"{self.ruleset.slug} units have the stats {_fmt(expected)}"
                + (f"; missing {_fmt(missing)}" if missing else "")
                + (f"; not used here: {_fmt(extra)}" if extra else ""),
            )

    def _weapon(self, path: str, weapon: dict[str, Any]) -> Iterator[Problem]:
        slug = self.ruleset.slug
        yield from self._rule_strings(f"{path}.rules", weapon["rules"])
        allowed = OPF_WEAPON_FIELDS if slug == OPF else ARENA_WEAPON_FIELDS if slug == ARENA else set()
        for key in sorted((OPF_WEAPON_FIELDS | ARENA_WEAPON_FIELDS) - allowed):
            if key in weapon:
                yield Problem(f"{path}.{key}", f'"{key}" is not a weapon field in {slug}')
        if slug == ARENA:
            if "attacks" in weapon:
                yield Problem(f"{path}.attacks", "Arena weapons have no attacks value")
            for key in ("range", "accuracy", "strength", "damage"):
                if key not in weapon:
                    yield Problem(path, f'an Arena weapon needs "{key}"')
            if "strength" in weapon and not isinstance(weapon["strength"], int):
                yield Problem(f"{path}.strength", "Arena strength is a whole number")
        else:
            if "attacks" not in weapon:
                yield Problem(path, 'a weapon needs "attacks"')
            if slug == OPF and isinstance(weapon.get("strength"), int):
                yield Problem(f"{path}.strength", "OPF strength is light, medium, heavy, master or force")

    # -- packages --------------------------------------------------------------------
    def _package(self, path: str, package: dict[str, Any]) -> Iterator[Problem]:
        users = [u for u in self.book["units"] if package["id"] in u["upgrades"]]
        carried = {w["name"] for u in users for w in u["equipment"]} | self.gained_names
        user_ids = {u["id"] for u in users}
        for i, section in enumerate(package["sections"]):
            yield from self._section(f"{path}.sections[{i}]", section, package["id"], carried, user_ids)

    def _section(
        self, path: str, section: dict[str, Any], package_id: str, carried: set[str], user_ids: set[str]
    ) -> Iterator[Problem]:
        variant = section["variant"]
        targets = section.get("targets")
        if variant in ("replace", "attachment"):
            if not targets:
                yield Problem(f"{path}.targets", f"a {variant} section needs targets (what it {_verb(variant)})")
            for i, target in enumerate(targets or []):
                if target not in carried:
                    yield Problem(
                        f"{path}.targets[{i}]",
                        f'"{target}" is not carried by any unit that takes package "{package_id}" '
                        "nor gained from any option",
                    )
        elif targets is not None:
            yield Problem(f"{path}.targets", f"an {variant} section has no targets")
        select = section.get("select")
        if section.get("optional") and (select is None or select["type"] != "exactly"):
            yield Problem(f"{path}.optional", 'optional only applies to a select of type "exactly"')
        for i, option in enumerate(section["options"]):
            yield from self._option(f"{path}.options[{i}]", option, variant, user_ids)

    def _option(self, path: str, option: dict[str, Any], variant: str, user_ids: set[str]) -> Iterator[Problem]:
        for unit_id in option.get("costs", {}):
            if unit_id not in self.units:
                yield Problem(f"{path}.costs.{unit_id}", f'unknown unit "{unit_id}"')
            elif unit_id not in user_ids:
                yield Problem(f"{path}.costs.{unit_id}", f'unit "{unit_id}" does not take this package')
        for i, gain in enumerate(option["gains"]):
            gain_path = f"{path}.gains[{i}]"
            if (variant == "models") != (gain["kind"] == "model"):
                yield Problem(
                    f"{gain_path}.kind",
                    "a models section gains models"
                    if variant == "models"
                    else 'only a "models" section can gain a model',
                )
            yield from self._gain(gain_path, gain)

    def _gain(self, path: str, gain: dict[str, Any]) -> Iterator[Problem]:
        kind = gain["kind"]
        if kind == "rule":
            yield from self._rule_string(f"{path}.name", gain["name"])
        elif kind == "weapon":
            yield from self._weapon(path, gain)
        else:
            yield from self._rule_strings(f"{path}.rules", gain["rules"])
            for i, weapon in enumerate(gain.get("equipment", [])):
                yield from self._weapon(f"{path}.equipment[{i}]", weapon)
            if kind == "model" and "stats" in gain:
                yield from self._stats(f"{path}.stats", gain["stats"])

    # -- Arena -----------------------------------------------------------------------
    def _composition(self) -> Iterator[Problem]:
        card = self.book.get("composition")
        if self.ruleset.slug != ARENA:
            if card is not None:
                yield Problem("composition", f"only Arena books have a composition card, not {self.ruleset.slug}")
            return
        if card is None:
            yield Problem("composition", "an Arena book needs its warband composition card")
            return
        if card["models"]["min"] > card["models"]["max"]:
            yield Problem("composition.models", "min is greater than max")
        grouped: Counter[str] = Counter()
        for i, group in enumerate(card["groups"]):
            path = f"composition.groups[{i}]"
            if group["min"] > group["max"]:
                yield Problem(path, f'group "{group["label"]}": min {group["min"]} is greater than max {group["max"]}')
            for j, unit_id in enumerate(group["units"]):
                grouped[unit_id] += 1
                if unit_id not in self.units:
                    yield Problem(f"{path}.units[{j}]", f'unknown unit "{unit_id}"')
        for i, unit in enumerate(self.book["units"]):
            if grouped[unit["id"]] > 1:
                yield Problem(f"units[{i}]", f'unit "{unit["id"]}" is in more than one composition group')
            elif not grouped[unit["id"]]:
                yield Problem(f"units[{i}]", f'unit "{unit["id"]}" is in no composition group')


def _gained_names(book: dict[str, Any]) -> set[str]:
    """Names of every weapon and item any option can give (a replace may target them)."""
    names = set()
    for package in book["packages"]:
        for section in package["sections"]:
            for option in section["options"]:
                for gain in option["gains"]:
                    if gain["kind"] in ("weapon", "item"):
                        names.add(gain["name"])
                    names.update(w["name"] for w in gain.get("equipment", []))
    return names


def _verb(variant: str) -> str:
    return "swaps out" if variant == "replace" else "attaches to"


def _no_repeats(path: str, values: list[str], what: str) -> Iterator[Problem]:
    seen = set()
    for i, value in enumerate(values):
        if value in seen:
            yield Problem(f"{path}[{i}]", f'{what} "{value}" listed twice')
        seen.add(value)
