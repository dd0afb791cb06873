"""What every part of the book reader shares: the state of one reading (the book's
ruleset, the core rules held, the problems and warnings found so far, the fields not
known) and the plain values it reads (text, whole numbers, lists), each problem named by
its path in the Army Forge document."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from armybuilder.engine.labels import label_parts
from factions.armybook import Problem, RulesetInfo

# The fields of each kind of thing in an Army Forge book that the importer knows, read
# or not (`bases` and `genericName` for a unit's type, `label` to check what was read,
# `valid`, `hint` and the like are Army Forge's editor's own). Any other field is named in
# a warning: Army Forge may have given a meaning the site does not carry over.
KNOWN_FIELDS = {
    "unit": frozenset(
        "id cost name size bases items rules valid defense quality weapons upgrades genericName hasCustomRule "
        "disabledSections hasBalanceInvalid disabledUpgradeSections type isNarrative key".split()
    ),
    "weapon": frozenset(
        "id name type range attacks weaponId specialRules attacksMultiplier label count originalCount".split()
    ),
    "rule": frozenset("type id name rating label count additional modify".split()),
    "item": frozenset("id name type bases content count label".split()),
    "package": frozenset("uid hint sections calcErrors".split()),
    "section": frozenset(
        "id uid label options parentPackageUid type variant targets select model affects isHeroUpgrade "
        "isLowPrio".split()
    ),
    "option": frozenset("uid id cost type costs gains label parentPackageUid parentSectionUid parentSectionId".split()),
    "special rule": frozenset("id name aliasedRuleId description hasRating coreType targetType".split()),
    "spell": frozenset("id cost name type effect threshold generation costFormula spellbookId effectSkirmish".split()),
    "cost": frozenset("unitId cost exactCost".split()),
}
COUNT_LABEL_RE = re.compile(r"\A\d{1,4}x ")  # "2x Heavy Fist (A3)": two a model, at the start
MAX_NAME = 120  # unit, weapon and item names (what the database holds)
MAX_LABEL = 200  # section and option labels
# Digits read as a number at most (the patterns say 18 too): any count, cost or rating is
# far shorter, and Python reads no number of more than 4,300 digits.
MAX_DIGITS = 18
_WHOLE_RE = re.compile(r"[+-]?\d{1,18}")


@dataclass(frozen=True)
class HeldCoreRules:
    """Army Forge's core rules as the site holds them for a ruleset: the version (the day
    they were read) and each rule's text by name."""

    version: str
    texts: Mapping[str, str]


SlugLookup = Callable[[str, str], str | None]  # (ruleset, Army Forge book uid) -> slug
CoreLookup = Callable[[str], HeldCoreRules | None]  # ruleset -> the core rules held now, if any


@dataclass
class Reading:
    """One reading of a book: what it is read for, and what was found so far."""

    system: str
    ruleset: RulesetInfo
    core: HeldCoreRules | None
    aliases: dict[str, str]  # Army Forge's name of a rule -> ours, where they differ here
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    used_rules: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> {rated, path}
    unknown: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (kind, field) -> paths
    # Each section's Army Forge uid and id -> (package uid, our section id).
    section_uids: dict[str, tuple[str, str]] = field(default_factory=dict)
    # Package uid -> the units taking it, each with the section ids it does without.
    users: dict[str, list[tuple[str, frozenset[str]]]] = field(default_factory=dict)
    emitted_sections: set[str] = field(default_factory=set)

    @property
    def hero_is_core(self) -> bool:
        return "Hero" in self.ruleset.core_rules

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def warn(self, path: str, message: str) -> None:
        self.warnings.append(Problem(path, message))

    def fields(self, path: str, kind: str, thing: dict[str, Any]) -> None:
        """Note the fields of `thing` (a `kind` of KNOWN_FIELDS) the importer does not know."""
        known = KNOWN_FIELDS[kind]
        for key in thing:
            if key not in known:
                self.unknown.setdefault((kind, str(key)[:80]), []).append(f"{path}.{str(key)[:80]}")

    def unknown_fields(self) -> None:
        """One warning per field the importer does not know, with where it first is."""
        for (kind, key), paths in self.unknown.items():
            more = f" (and {len(paths) - 1} more)" if len(paths) > 1 else ""
            self.warn(
                paths[0],
                f'Army Forge gives {kind}s a field "{key}"{more}, which the importer does not know: it is left out, '
                "so what it says is not carried over",
            )

    def check_label(self, path: str, what: str, label: Any, ours: str) -> None:
        """Warn when what was read is not what Army Forge's own label says: the label is
        what a player checks a card against."""
        if not isinstance(label, str) or not label.strip():
            return
        theirs = COUNT_LABEL_RE.sub("", " ".join(label.split()), count=1)
        mine = COUNT_LABEL_RE.sub("", ours, count=1)
        if theirs != mine and _unordered(theirs) != _unordered(mine):
            self.warn(f"{path}.label", f'Army Forge labels {what} "{cut(theirs, 200)}"; it reads here as "{mine}"')

    def is_object(self, path: str, thing: Any, what: str) -> bool:
        """Whether `thing` (`what`: "a rule", "an item") is an object; if not, a warning
        that it is left out."""
        if isinstance(thing, dict):
            return True
        self.warn(path, f"not {what} object: left out")
        return False

    def name(self, path: str, thing: Any, what: str) -> str | None:
        """The name of an object that must have one (a rule, a weapon, an item); None,
        with a warning that it is left out, when it is not an object or has no name."""
        if not self.is_object(path, thing, what):
            return None
        name = thing.get("name")
        if not isinstance(name, str) or not name.strip():
            self.warn(f"{path}.name", f"{what} without a name: left out")
            return None
        return name

    def string(self, data: dict[str, Any], key: str, path: str) -> str:
        return read_string(self.problems, data, key, path)

    def integer(self, data: dict[str, Any], key: str, path: str) -> int | None:
        value = data.get(key)
        number = whole(value)
        if number is None:
            self.problem(path, "is required" if value is None else f"should be a whole number, not {value!r}")
        return number

    def list_of(self, data: dict[str, Any], key: str, path: str, *, required: bool = False) -> list[Any]:
        return read_list(self.problems, data, key, path, required=required)


def read_string(problems: list[Problem], data: dict[str, Any], key: str, path: str) -> str:
    """A text that must be given, stripped; "" with a problem when it is not."""
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        problems.append(Problem(path, "is required" if value in (None, "") else f"should be text, not {value!r}"))
        return ""
    return value.strip()


def read_list(problems: list[Problem], data: dict[str, Any], key: str, path: str, *, required: bool) -> list[Any]:
    """A list (empty when not given); [] with a problem when it is not one, or is required."""
    value = data.get(key)
    if value is None:
        if required:
            problems.append(Problem(path, "is required"))
        return []
    if not isinstance(value, list):
        problems.append(Problem(path, "should be a list"))
        return []
    return value


def _unordered(label: str, depth: int = 0) -> tuple[str, tuple[Any, ...]]:
    """A label's name and its parts, each read the same way, in order of their text: what
    it says whatever the order (Army Forge lists an item's weapons and rules in the order
    they were entered, the site weapons first). A label holds a weapon's in an item's at
    most: deeper brackets are read as text."""
    name, parts = label_parts(label)
    if depth >= 2:
        return name, parts
    return name, tuple(sorted((_unordered(part, depth + 1) for part in parts), key=repr))


def whole(value: Any) -> int | None:
    """A whole number from an int, a float like 3.0 or a string like "02"; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _WHOLE_RE.fullmatch(value.strip()):
        return int(value)
    return None


def cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def uid(data: dict[str, Any]) -> str | None:
    for key in ("uid", "id"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def gain_type(gain: Any) -> Any:
    """A gain's Army Forge type; read from its shape when the type is left out."""
    if not isinstance(gain, dict):
        return None
    if gain.get("type"):
        return gain["type"]
    if "attacks" in gain:
        return "ArmyBookWeapon"
    return "ArmyBookItem" if "content" in gain else "ArmyBookRule"


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
