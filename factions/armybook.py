"""Checking an `armybook/1` document before it touches the database.

First what no reader should meet and no database can store, anywhere in the document
(check_storable: nesting too deep, NUL, lone surrogates). Then two passes, both
collecting every problem rather than stopping at the first:
1. the JSON Schema in factions/schema/ (shapes, types, extra keys, and lengths and ranges
   that fit the columns the values land in);
2. checks that need the ruleset's catalogue: stat keys and unit types of the ruleset,
   rule names (core or the book's own) and their ratings, package references, duplicate
   ids, replace/attachment targets, fields that belong to another ruleset. These run on
   every part of the book the schema let through, so one answer names every problem.

What stops a book is an error; what was imported but needs a reader's eye (a book rule
that overrides a core rule, a rated rule given without its value, a section a unit does
without that is not there) is a warning. Each names the path in the document, e.g.
`units[3].upgrades[0]`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match

from armybuilder.bidi import DIRECTION_CONTROLS_RE, direction_controls
from armybuilder.engine.book import name_forms, split_rule
from armybuilder.engine.rulesets import Policy, policy_or_default, weapon_fields_of_some
from armybuilder.memo import Memo, memoize
from factions.caps import (
    MAX_BOOK_BYTES,
    MAX_LISTED,
    MAX_OPTIONS,
    MAX_PACKAGES,
    MAX_RULES,
    MAX_SECTIONS,
    MAX_SPELLS,
    MAX_TEXT,
    MAX_UNITS,
    MAX_VALUES,
    size_text,
)

SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "armybook-1.schema.json"
NUMBER_RE = re.compile(r"^\+?\d+$")
MAX_DEPTH = 32  # levels of nesting; an army book needs about 12
TOO_DEEP = f"nested more than {MAX_DEPTH} levels deep (an army book needs about 12)"
SURROGATE_RE = re.compile(r"[\ud800-\udfff]")


@dataclass(frozen=True)
class Problem:
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ArmyBookError(Exception):
    """A book that cannot be imported; `problems` lists every reason, first first, and
    `warnings` what would have needed a reader's eye had it been imported."""

    def __init__(self, problems: list[Problem], warnings: list[Problem] | None = None):
        self.problems = problems
        self.warnings = warnings or []
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
    family: str = ""  # the game it plays: its own slug, or a variant's base's

    def __post_init__(self) -> None:
        if not self.family:
            object.__setattr__(self, "family", self.slug)

    @property
    def policy(self) -> Policy:
        """Its game's special cases (the engine's)."""
        return policy_or_default(self.family)


def format_path(parts: Iterable[str | int]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def json_has_nul(raw: bytes) -> bool:
    """A NUL character in JSON text, raw or escaped. PostgreSQL text cannot hold one, so
    every door refuses it (uploads here and in the list import, requests in middleware)."""
    return b"\x00" in raw or b"\\u0000" in raw


def parse_json(raw: bytes | str) -> Any:
    text = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if json_has_nul(text):
        raise ArmyBookError([Problem("", "not valid: the file contains a NUL character (\\u0000)")])
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ArmyBookError([Problem("", f"not valid JSON: {exc}")]) from exc
    except RecursionError as exc:  # the parser recurses once per level
        raise ArmyBookError([Problem("", f"not valid JSON: {TOO_DEEP}")]) from exc


def check_file_size(size: int, *, whole: bool = True) -> list[Problem]:
    """A file (or upload) of `size` bytes over the cap of an army book: a problem naming
    both (not `whole`: `size` is what was read of it, and it has more)."""
    if size <= MAX_BOOK_BYTES:
        return []
    most = f"{MAX_BOOK_BYTES:,} bytes ({size_text(MAX_BOOK_BYTES)})"
    this = f"{size:,} bytes" if whole else "larger"
    return [Problem("", f"an army book file may be at most {most}; this one is {this}")]


def check_storable(data: Any) -> list[Problem]:
    """What no reader of a document should meet and no database can store, anywhere in
    it: nesting deeper than MAX_DEPTH (the checks and the Army Forge reader walk a
    document by recursion), more than MAX_VALUES values in all, text longer than
    MAX_TEXT, and text with a NUL or a lone surrogate (half of a UTF-16 pair, which JSON
    can escape but is no character). Walked without recursion, before anything else
    reads the document; a bad key is named by where it is, not repeated."""
    if isinstance(data, str):
        unstorable = _unstorable(data)
        return [Problem("", f"text with {unstorable}")] if unstorable else []
    problems = []
    values = 1
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if not isinstance(value, dict | list):
            continue
        if len(path) >= MAX_DEPTH:
            problems.append(Problem(format_path(path), TOO_DEEP))
            continue
        values += len(value)
        inner = []
        for key, item in value.items() if isinstance(value, dict) else enumerate(value):
            if isinstance(key, str) and (unstorable := _unstorable(key)):
                problems.append(Problem(format_path(path), f"a key with {unstorable}"))
            elif isinstance(item, str):
                if unstorable := _unstorable(item):
                    problems.append(Problem(format_path((*path, key)), f"text with {unstorable}"))
            elif isinstance(item, dict | list):
                inner.append((item, (*path, key)))
        stack.extend(reversed(inner))  # the first first
    if values > MAX_VALUES:
        most = f"a document may hold at most {MAX_VALUES:,} values (objects, lists, texts, numbers)"
        problems.insert(0, Problem("", f"{most}; this one holds {values:,}"))
    return problems


def _unstorable(text: str) -> str | None:
    if len(text) > MAX_TEXT:
        return f"{len(text):,} characters, more than the {MAX_TEXT:,} any text may have"
    if "\x00" in text:
        return "a NUL character (\\u0000), which cannot be stored"
    surrogate = SURROGATE_RE.search(text)
    if surrogate:
        return f"a lone surrogate (\\u{ord(surrogate[0]):04x}), which is not a character and cannot be stored"
    return None


def _is_integer(checker: Any, instance: Any) -> bool:
    # JSON Schema counts 2.0 and 1e25 as integers, and an attacks value is stored as it
    # prints ("2.0", "1e+25"): here a whole number is one written as such.
    return isinstance(instance, int) and not isinstance(instance, bool)


_BookValidator = validators.extend(
    Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer)
)


@memoize("factions: armybook/1 schema", 1)
def _validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text())
    Draft202012Validator.check_schema(schema)
    return _BookValidator(schema)


# Digests of the last documents that passed the schema: the same document again (a
# re-import, the tests' bundled books in every test) is not walked again. repr tells
# apart every value JSON can hold (1, 1.0, "1", True), and a document that failed is
# always checked afresh.
PASSED: Memo[bytes, bool] = Memo("factions: armybook/1 documents that passed the schema", 256)


def check_schema(data: Any) -> list[Problem]:
    digest = hashlib.sha256(repr(data).encode("utf-8", "surrogatepass")).digest()
    if PASSED.get(digest):
        return []
    problems = _schema_problems(data)
    if not problems:
        PASSED.set(digest, True)
    return problems


def _schema_problems(data: Any) -> list[Problem]:
    errors = sorted(_validator().iter_errors(data), key=lambda e: _path_key(e.absolute_path))
    problems = []
    for error in errors:
        # For a "oneOf" failure, the sub-error of the branch the value was meant for says
        # what is wrong.
        best = error
        while best.context:
            best = _meant_branch(best.context)
        problems.append(Problem(format_path(best.absolute_path), _message(best)))
    return problems


def _meant_branch(context: list[ValidationError]) -> ValidationError:
    """jsonschema's pick, unless it is "not of type" at a level where another alternative,
    of the value's own type, says what is wrong (10**25 for attacks: over the maximum,
    rather than "is not of type 'string'")."""
    best = best_match(context)
    if best.validator == "type":
        same_level = [e for e in context if len(e.relative_path) == len(best.relative_path) and e.validator != "type"]
        if same_level:
            return best_match(same_level)
    return best


def _message(error: ValidationError) -> str:
    # Without repeating what may be pages of text, or a list of thousands.
    if error.validator == "maxLength":
        return f"{len(error.instance)} characters; the most is {error.validator_value}"
    if error.validator in ("maxItems", "maxProperties"):
        return f"{len(error.instance):,} entries; the most is {error.validator_value:,}"
    return error.message


def _path_key(path: Iterable[str | int]) -> list[tuple[int, int | str]]:
    return [(0, p) if isinstance(p, int) else (1, p) for p in path]


@dataclass
class BookCheck:
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def check_size(data: Any, *, packages: str = "packages", rules: str = "rules") -> list[Problem]:
    """The caps of factions/caps.py a book goes over, each naming the cap and the book's
    figure: its units, packages, special rules and spells, the packages a unit takes,
    the sections of a package, the options of a section. Counted before anything else
    reads the book, so that an oversized one costs no more than the counting (the schema
    holds the other lists to their caps). Army Forge's JSON names the packages and rules
    `upgradePackages` and `specialRules`."""
    if not isinstance(data, dict):
        return []
    problems = []
    for key, cap, what in (
        ("units", MAX_UNITS, "units"),
        (packages, MAX_PACKAGES, "upgrade packages"),
        (rules, MAX_RULES, "special rules"),
        ("spells", MAX_SPELLS, "spells"),
    ):
        problems += _over_cap(key, data.get(key), cap, f"a book may have at most {cap:,} {what}")
    for i, unit in enumerate(_as_list(data.get("units"))):
        upgrades = unit.get("upgrades") if isinstance(unit, dict) else None
        most = f"a unit may take at most {MAX_LISTED:,} upgrade packages"
        problems += _over_cap(f"units[{i}].upgrades", upgrades, MAX_LISTED, most)
    for i, package in enumerate(_as_list(data.get(packages))):
        sections = _as_list(package.get("sections") if isinstance(package, dict) else None)
        path = f"{packages}[{i}].sections"
        problems += _over_cap(path, sections, MAX_SECTIONS, f"a package may have at most {MAX_SECTIONS:,} sections")
        for j, section in enumerate(sections):
            options = section.get("options") if isinstance(section, dict) else None
            most = f"a section may have at most {MAX_OPTIONS:,} options"
            problems += _over_cap(f"{path}[{j}].options", options, MAX_OPTIONS, most)
    return problems


def _over_cap(path: str, value: Any, cap: int, most: str) -> list[Problem]:
    if isinstance(value, list) and len(value) > cap:
        return [Problem(path, f"{most}; this one has {len(value):,}")]
    return []


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def check_armybook(data: Any, rulesets: Mapping[str, RulesetInfo], *, kept: bool = False) -> BookCheck:
    """Every error and warning of `data` as a book for one of `rulesets`: its caps first
    (a book over one is checked no further), then the schema's and the direction controls
    in its texts, then the catalogue checks of every part the schema let through. `kept`:
    a book the site already holds (a backup's), whose texts may hold direction controls
    from before they were refused."""
    oversized = check_size(data)
    if oversized:
        return BookCheck(errors=oversized)
    schema_errors = check_schema(data)
    # Direction controls break no part: the catalogue checks still read the parts they are in.
    check = BookCheck(errors=[*schema_errors, *([] if kept else check_directions(data))])
    if not isinstance(data, dict):
        return check
    system = data.get("system")
    ruleset = rulesets.get(system) if isinstance(system, str) else None
    if ruleset is None:
        if isinstance(system, str) and not any(p.path == "system" for p in check.errors):
            check.errors.append(Problem("system", f'unknown system "{system}"'))
        return check
    broken = {_top_item(p.path) for p in schema_errors}
    checker = _BookChecker(data, ruleset, broken)
    for problem in checker.problems():
        check.errors.append(problem)
    check.warnings.extend(checker.warnings)
    return check


def check_directions(data: Any) -> list[Problem]:
    """Each text of the document holding Unicode direction controls (armybuilder.bidi),
    named by its path: a unit, rule or option name that reads backwards on every list and
    printout that shows it."""
    return [
        Problem(path, f"holds Unicode direction controls ({found}): remove them")
        for path, found in direction_texts(data)
    ]


def direction_texts(data: Any) -> list[tuple[str, str]]:
    """(path, the direction controls it holds as code points) of each text of a document
    holding some, in document order. Walked without recursion (check_storable has bounded
    it)."""
    found = []
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if DIRECTION_CONTROLS_RE.search(value):
                found.append((format_path(path), direction_controls(value)))
        elif isinstance(value, dict | list):
            items = value.items() if isinstance(value, dict) else enumerate(value)
            stack.extend(reversed([(item, (*path, key)) for key, item in items]))
    return found


def validate_armybook(data: Any, rulesets: Mapping[str, RulesetInfo]) -> list[Problem]:
    """Every error of `data` as a book for one of `rulesets`; empty when it can be imported."""
    return check_armybook(data, rulesets).errors


def _top_item(path: str) -> str:
    """ "units[3].stats.quality" -> "units[3]"; "name" -> "name"."""
    match = re.match(r"^[A-Za-z_]+(\[\d+\])?", path)
    return match.group(0) if match else path


def _fmt(names: Iterable[str]) -> str:
    names = list(names)
    return ", ".join(names) if names else "none"


def _items(book: dict[str, Any], key: str, broken: set[str]) -> list[tuple[int, dict[str, Any]]]:
    """(index, item) of the list `key` of `book` whose schema checks passed."""
    value = book.get(key)
    if not isinstance(value, list) or key in broken:
        return []
    return [(i, item) for i, item in enumerate(value) if f"{key}[{i}]" not in broken and isinstance(item, dict)]


def _ids(book: dict[str, Any], key: str) -> set[str]:
    value = book.get(key)
    if not isinstance(value, list):
        return set()
    return {item["id"] for item in value if isinstance(item, dict) and isinstance(item.get("id"), str)}


def package_ref(entry: Any) -> tuple[str, list[str]]:
    """A unit's `upgrades` entry as (package id, section ids it does without)."""
    if isinstance(entry, dict):
        return entry["package"], list(entry.get("without", ()))
    return entry, []


class _BookChecker:
    def __init__(self, book: dict[str, Any], ruleset: RulesetInfo, broken: set[str] | None = None):
        self.book = book
        self.ruleset = ruleset
        self.broken = broken or set()
        self.rules = _items(book, "rules", self.broken)
        self.units_list = _items(book, "units", self.broken)
        self.packages_list = _items(book, "packages", self.broken)
        self.faction_rules = {r["name"]: r["rated"] for _, r in self.rules}
        # Every unit that has an id, broken or not: what it carries and takes still counts
        # when checking the packages (a schema problem in it is reported once, not again).
        units = book.get("units")
        self.units = {
            u["id"]: u
            for u in (units if isinstance(units, list) else [])
            if isinstance(u, dict) and isinstance(u.get("id"), str)
        }
        self.package_ids = _ids(book, "packages")
        self.sections_of = {p["id"]: {s["id"] for s in p["sections"]} for _, p in self.packages_list}
        self.gained_forms = _forms(gained_names([p for _, p in self.packages_list]))
        # The units taking each package, found once (not by looking through every unit
        # for every package: that grows with their product).
        self.users_of: dict[str, list[dict[str, Any]]] = {}
        for unit in self.units.values():
            for package_id in _package_ids(unit.get("upgrades")):
                self.users_of.setdefault(package_id, []).append(unit)
        self.warnings: list[Problem] = []

    def warn(self, path: str, message: str) -> None:
        self.warnings.append(Problem(path, message))

    def problems(self) -> Iterator[Problem]:
        yield from self._duplicates()
        self._faction_rules()
        for i, unit in self.units_list:
            yield from self._unit(f"units[{i}]", unit)
        for i, package in self.packages_list:
            yield from self._package(f"packages[{i}]", package)
        if "composition" not in self.broken:
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

        yield from dupes([(f"units[{i}].id", u["id"]) for i, u in self.units_list], "unit id")
        yield from dupes([(f"packages[{i}].id", p["id"]) for i, p in self.packages_list], "package id")
        sections, options = [], []
        for i, package in self.packages_list:
            for j, section in enumerate(package["sections"]):
                sections.append((f"packages[{i}].sections[{j}].id", section["id"]))
                for k, option in enumerate(section["options"]):
                    options.append((f"packages[{i}].sections[{j}].options[{k}].id", option["id"]))
        yield from dupes(sections, "section id")
        yield from dupes(options, "option id")
        yield from dupes([(f"rules[{i}].name", r["name"]) for i, r in self.rules], "rule")
        yield from dupes(
            [(f"spells[{i}].name", s["name"]) for i, s in _items(self.book, "spells", self.broken)], "spell"
        )

    def _faction_rules(self) -> None:
        for i, rule in self.rules:
            core = self.ruleset.core_rules.get(rule["name"])
            if rule.get("core"):
                # A core rule of Army Forge's the book names: it explains ours, and overrides
                # it only where Army Forge's takes a value and ours does not (or the other way).
                if core is not None and core != rule["rated"]:
                    how = "with a value" if rule["rated"] else "without a value"
                    self.warn(
                        f"rules[{i}].rated",
                        f'"{rule["name"]}" is a core rule of {self.ruleset.slug}; the core rules this book is written '
                        f"for use it {how}, which is used for this faction",
                    )
            elif core is not None:
                how = (
                    "with a value"
                    if rule["rated"] and not core
                    else "without a value"
                    if core and not rule["rated"]
                    else ""
                )
                self.warn(
                    f"rules[{i}].name",
                    f'"{rule["name"]}" is a core rule of {self.ruleset.slug}; this book defines it {how} '
                    "and its definition is used for this faction".replace("  ", " "),
                )

    # -- rules -----------------------------------------------------------------------
    def _rule_strings(self, path: str, rules: list[str]) -> Iterator[Problem]:
        for i, text in enumerate(rules):
            yield from self._rule_string(f"{path}[{i}]", text)

    def _rule_string(self, path: str, text: str) -> Iterator[Problem]:
        name, rating = split_rule(text)
        # The book's own definition comes first: it may override a core rule.
        rated = self.faction_rules.get(name, self.ruleset.core_rules.get(name))
        if rated is None:
            yield Problem(
                path,
                f'unknown rule "{name}": not a core rule of {self.ruleset.slug} and not in the book\'s rules',
            )
        elif rated and rating is not None and name not in self.faction_rules and not NUMBER_RE.match(rating):
            yield Problem(path, f'rule "{name}" takes a number (e.g. {name}(1)), not "{rating}"')
        elif rated and rating is None:
            self.warn(path, f'rule "{name}" takes a value, but "{text}" gives none; it is shown as written')
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
        if ruleset.policy.hero_rule_required:
            has_hero_rule = "Hero" in (split_rule(r)[0] for r in unit["rules"])
            if unit["type"] == "hero" and not has_hero_rule:
                yield Problem(f"{path}.rules", f"a hero must carry the Hero rule in {ruleset.slug}")
            if unit["type"] != "hero" and has_hero_rule:
                yield Problem(f"{path}.type", 'a unit with the Hero rule must have type "hero"')
        if not ruleset.policy.points_costs:
            if unit["cost"] != 0:
                yield Problem(f"{path}.cost", "Arena models have no points cost: use 0")
            if unit["size"] != 1:
                yield Problem(f"{path}.size", "an Arena profile is one model: use size 1")
        for i, weapon in enumerate(unit["equipment"]):
            yield from self._weapon(f"{path}.equipment[{i}]", weapon)
        for i, item in enumerate(unit.get("items", [])):
            item_path = f"{path}.items[{i}]"
            yield from self._rule_strings(f"{item_path}.rules", item["rules"])
            for j, weapon in enumerate(item.get("equipment", [])):
                yield from self._weapon(f"{item_path}.equipment[{j}]", weapon)
        packages = []
        for i, entry in enumerate(unit["upgrades"]):
            package_id, without = package_ref(entry)
            packages.append(package_id)
            entry_path = f"{path}.upgrades[{i}]"
            if package_id not in self.package_ids:
                yield Problem(
                    entry_path if isinstance(entry, str) else f"{entry_path}.package", f'unknown package "{package_id}"'
                )
                continue
            sections = self.sections_of.get(package_id, set())
            for j, section_id in enumerate(without):
                if section_id not in sections:
                    self.warn(
                        f"{entry_path}.without[{j}]",
                        f'package "{package_id}" has no section "{section_id}"; nothing is left out for it',
                    )
        yield from _no_repeats(f"{path}.upgrades", packages, "package")

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
        slug, policy = self.ruleset.family, self.ruleset.policy
        yield from self._rule_strings(f"{path}.rules", weapon["rules"])
        for key in sorted(weapon_fields_of_some() - policy.weapon_fields):
            if key in weapon:
                yield Problem(f"{path}.{key}", f'"{key}" is not a weapon field in {slug}')
        if policy.profile_weapons:
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
            if policy.weapon_classes and isinstance(weapon.get("strength"), int):
                yield Problem(f"{path}.strength", "OPF strength is light, medium, heavy, master or force")

    # -- packages --------------------------------------------------------------------
    def _package(self, path: str, package: dict[str, Any]) -> Iterator[Problem]:
        users = self.users_of.get(package["id"], [])
        carried = {name for u in users for name in _names(u.get("equipment"))}
        for u in users:
            for item in items if isinstance(items := u.get("items"), list) else []:
                if isinstance(item, dict):
                    carried |= _names([item]) | _names(item.get("equipment"))
        forms = _forms(carried) | self.gained_forms
        user_ids = {u["id"] for u in users}
        for i, section in enumerate(package["sections"]):
            yield from self._section(f"{path}.sections[{i}]", section, package["id"], forms, user_ids)

    def _section(
        self, path: str, section: dict[str, Any], package_id: str, carried: set[str], user_ids: set[str]
    ) -> Iterator[Problem]:
        """`carried`: the name forms (engine.book.name_forms) of everything the package's
        units carry or an option gives."""
        variant = section["variant"]
        targets = section.get("targets")
        if variant in ("replace", "attachment"):
            if not targets:
                yield Problem(f"{path}.targets", f"a {variant} section needs targets (what it {_verb(variant)})")
            for i, target in enumerate(targets or []):
                name = target if isinstance(target, str) else target["name"]
                if carried.isdisjoint(name_forms(name)):  # same_name with none of them
                    yield Problem(
                        f"{path}.targets[{i}]",
                        f'"{name}" is not carried by any unit that takes package "{package_id}" '
                        "nor gained from any option",
                    )
        elif targets is not None:
            yield Problem(f"{path}.targets", f"an {variant} section has no targets")
        select = section.get("select")
        if section.get("optional") and (select is None or select["type"] != "exactly"):
            yield Problem(f"{path}.optional", 'optional only applies to a select of type "exactly"')
        if select is not None and select.get("per") == "item" and variant not in ("replace", "attachment"):
            yield Problem(f"{path}.select.per", "a limit per item needs a replace or attachment section")
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
        if not self.ruleset.policy.composition_card:
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
        for i, unit in self.units_list:
            if grouped[unit["id"]] > 1:
                yield Problem(f"units[{i}]", f'unit "{unit["id"]}" is in more than one composition group')
            elif not grouped[unit["id"]]:
                yield Problem(f"units[{i}]", f'unit "{unit["id"]}" is in no composition group')


def _package_ids(upgrades: Any) -> set[str]:
    """The package ids a unit's `upgrades` names, however well formed it is."""
    ids = set()
    for entry in upgrades if isinstance(upgrades, list) else []:
        ident = entry.get("package") if isinstance(entry, dict) else entry
        if isinstance(ident, str):
            ids.add(ident)
    return ids


def _names(things: Any) -> set[str]:
    return (
        {t["name"] for t in things if isinstance(t, dict) and isinstance(t.get("name"), str)}
        if isinstance(things, list)
        else set()
    )


def _forms(names: Iterable[str]) -> set[str]:
    """Every form of `names`: a name is the same as one of them (engine.book.same_name)
    when its own forms meet these."""
    return {form for name in names for form in name_forms(name)}


def gained_names(packages: list[dict[str, Any]]) -> set[str]:
    """Names of every weapon and item any option can give (a replace may target them)."""
    names = set()
    for package in packages:
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


def kept_form(book: dict[str, Any], stat_fields: Iterable[str]) -> dict[str, Any]:
    """`book` (armybook/1, checked) as a version keeps it: what it says, each way of saying
    nothing said one way (no `core: false`, no empty `items` or `targets`), and a unit's
    stats in its ruleset's order, the order they print in. Every other field is kept as it
    is, one this code does not name included, so the same book kept twice has one stamp."""
    order = {key: i for i, key in enumerate(stat_fields)}
    kept = {**book}
    kept["rules"] = [_without(rule, core=False) for rule in book["rules"]]
    kept["units"] = [
        {
            **_without(unit, items=[]),
            "stats": dict(sorted(unit["stats"].items(), key=lambda kv: order.get(kv[0], len(order)))),
        }
        for unit in book["units"]
    ]
    kept["packages"] = [
        {**package, "sections": [_without(section, targets=[]) for section in package["sections"]]}
        for package in book["packages"]
    ]
    return kept


def _without(data: dict[str, Any], **empty: Any) -> dict[str, Any]:
    """`data` without the keys whose value is the empty one given."""
    return {key: value for key, value in data.items() if key not in empty or value != empty[key]}
