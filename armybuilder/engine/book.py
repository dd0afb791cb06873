"""The army book and the ruleset as the engine sees them: frozen plain objects, built
once from `armybook/1` dicts (and the ruleset's catalogue rows) and then shared."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

_RULE_RE = re.compile(r"^(?P<name>.+?)(?:\((?P<rating>\+?\d+)\))?$")


class Rule(NamedTuple):
    """A rule as written on a unit: `Tough(3)`, `Tough(+3)` (adds), `Fear`.

    A named tuple rather than a dataclass: the engine makes many of them per list."""

    name: str
    rating: int | None = None
    adds: bool = False  # written "+X": adds to the rule the model already has

    @classmethod
    def parse(cls, text: str) -> Rule:
        match = _RULE_RE.match(text.strip())
        if not match or match["rating"] is None:
            return cls(text.strip())
        rating = match["rating"]
        return cls(match["name"], int(rating.lstrip("+")), rating.startswith("+"))

    def __str__(self) -> str:
        if self.rating is None:
            return self.name
        return f"{self.name}({'+' if self.adds else ''}{self.rating})"


@dataclass(frozen=True, slots=True)
class Weapon:
    name: str
    count: int | None  # None on a gain without a count: one per model the pick covers
    range: int | None
    attacks: int | str | None
    rules: tuple[str, ...]
    profile: tuple[tuple[str, Any], ...] = ()  # ruleset-specific fields (OPF strength, Arena accuracy…)


@dataclass(frozen=True, slots=True)
class Gain:
    kind: str  # weapon | rule | item | model
    name: str
    rules: tuple[Rule, ...] = ()
    weapons: tuple[Weapon, ...] = ()  # the weapon itself, an item's or a model's equipment
    mount: bool = False
    stats: Mapping[str, int] | None = None


@dataclass(frozen=True, slots=True)
class Count:
    type: str  # exactly | up to | all | any
    value: int | None = None


@dataclass(frozen=True, slots=True)
class Option:
    id: str
    label: str
    cost: int
    costs: Mapping[str, int]
    command: str | None
    gains: tuple[Gain, ...]
    section_id: str

    def cost_for(self, unit_id: str) -> int:
        return self.costs.get(unit_id, self.cost)


@dataclass(frozen=True, slots=True)
class Section:
    id: str
    label: str
    variant: str  # replace | upgrade | attachment | models
    targets: tuple[str, ...]
    affects: Count | None
    select: Count | None
    optional: bool
    options: tuple[Option, ...]

    # Worked out once from the fields above (see __post_init__).
    whole_unit: bool = field(init=False)
    command_only: bool = field(init=False)
    max_picks: int | None = field(init=False)
    required_picks: int = field(init=False)
    per_pick: int = field(init=False)

    def __post_init__(self) -> None:
        affects, select = self.affects, self.select
        # A whole-unit section applies to every model (bought for both copies of a
        # combined unit); adding models never does: each added model is bought once.
        whole = self.variant != "models" and (affects is None or affects.type == "all")
        if select is None:
            max_picks = 1  # one pick at most
        elif select.type in ("exactly", "up to"):
            max_picks = select.value
        else:
            max_picks = None
        required = select.value if select and select.type == "exactly" and not self.optional else 0
        per_pick = affects.value if affects is not None and affects.type == "exactly" else 1
        for name, value in (
            ("whole_unit", whole),
            ("command_only", all(o.command for o in self.options)),
            ("max_picks", max_picks),
            ("required_picks", required or 0),
            ("per_pick", per_pick),
        ):
            object.__setattr__(self, name, value)


@dataclass(frozen=True, slots=True)
class Unit:
    id: str
    name: str
    type: str
    size: int
    cost: int
    stats: Mapping[str, int]
    rules: tuple[Rule, ...]
    equipment: tuple[Weapon, ...]
    sections: tuple[Section, ...]
    options: Mapping[str, tuple[Section, Option]]  # every option the unit can take

    @property
    def is_hero(self) -> bool:
        return self.type == "hero"


@dataclass(frozen=True, slots=True)
class CompositionGroup:
    label: str
    units: tuple[str, ...]
    min: int
    max: int


@dataclass(frozen=True, slots=True)
class Composition:
    models_min: int
    models_max: int
    groups: tuple[CompositionGroup, ...]


@dataclass(frozen=True, slots=True)
class Book:
    system: str
    slug: str
    name: str
    version: str
    units: Mapping[str, Unit]
    rules: Mapping[str, tuple[bool, str]]  # faction rule name -> (rated, text)
    spells: tuple[tuple[str, int, str], ...]  # (name, cost, text)
    composition: Composition | None = None
    # Loadouts already worked out for this book, keyed by unit, picks and copies: a
    # builder re-validates the whole list on every change, and most entries are unchanged.
    loadouts: dict = field(default_factory=dict, compare=False, hash=False, repr=False)


@dataclass(frozen=True, slots=True)
class Limit:
    code: str
    kind: str
    params: Mapping[str, Any]
    severity: str
    section: str
    optional: bool = False


@dataclass(frozen=True, slots=True)
class RulesetSpec:
    slug: str
    name: str
    version: str
    uses_points: bool
    max_points: int | None
    limits: tuple[Limit, ...] = ()
    core_rules: Mapping[str, bool] = field(default_factory=dict)

    @property
    def title(self) -> str:
        return f"{self.name} {self.version}".strip()

    def cite(self, section: str) -> str:
        return f"{self.title} — {section}"


def _weapon(data: Mapping[str, Any]) -> Weapon:
    known = ("name", "count", "range", "attacks", "rules", "kind")
    return Weapon(
        name=data["name"],
        count=data.get("count"),
        range=data.get("range"),
        attacks=data.get("attacks"),
        rules=tuple(data.get("rules", ())),
        profile=tuple((k, v) for k, v in data.items() if k not in known),
    )


def _gain(data: Mapping[str, Any]) -> Gain:
    kind = data["kind"]
    if kind == "weapon":
        return Gain(kind, data["name"], weapons=(_weapon(data),))
    if kind == "rule":
        rule = Rule.parse(data["name"])
        return Gain(kind, rule.name, rules=(rule,))
    return Gain(
        kind,
        data["name"],
        rules=tuple(Rule.parse(r) for r in data.get("rules", ())),
        weapons=tuple(_weapon(w) for w in data.get("equipment", ())),
        mount=bool(data.get("mount", False)),
        stats=data.get("stats"),
    )


def _count(data: Mapping[str, Any] | None) -> Count | None:
    return Count(data["type"], data.get("value")) if data else None


def _section(data: Mapping[str, Any]) -> Section:
    return Section(
        id=data["id"],
        label=data["label"],
        variant=data["variant"],
        targets=tuple(data.get("targets", ())),
        affects=_count(data.get("affects")),
        select=_count(data.get("select")),
        optional=bool(data.get("optional", False)),
        options=tuple(
            Option(
                id=o["id"],
                label=o["label"],
                cost=o["cost"],
                costs=o.get("costs", {}),
                command=o.get("command"),
                gains=tuple(_gain(g) for g in o["gains"]),
                section_id=data["id"],
            )
            for o in data["options"]
        ),
    )


def book_from_dict(data: Mapping[str, Any]) -> Book:
    """Build the engine's book from a (checked) armybook/1 document."""
    packages = {p["id"]: tuple(_section(s) for s in p["sections"]) for p in data["packages"]}
    units = {}
    for u in data["units"]:
        sections: list[Section] = []
        for package_id in dict.fromkeys(u["upgrades"]):
            sections.extend(packages.get(package_id, ()))
        units[u["id"]] = Unit(
            id=u["id"],
            name=u["name"],
            type=u["type"],
            size=u["size"],
            cost=u["cost"],
            stats=u["stats"],
            rules=tuple(Rule.parse(r) for r in u["rules"]),
            equipment=tuple(_weapon(w) for w in u["equipment"]),
            sections=tuple(sections),
            options={o.id: (s, o) for s in sections for o in s.options},
        )
    card = data.get("composition")
    composition = None
    if card:
        composition = Composition(
            models_min=card["models"]["min"],
            models_max=card["models"]["max"],
            groups=tuple(CompositionGroup(g["label"], tuple(g["units"]), g["min"], g["max"]) for g in card["groups"]),
        )
    return Book(
        system=data["system"],
        slug=data["slug"],
        name=data["name"],
        version=data["version"],
        units=units,
        rules={r["name"]: (r["rated"], r["text"]) for r in data["rules"]},
        spells=tuple((s["name"], s["cost"], s["text"]) for s in data["spells"]),
        composition=composition,
    )


def ruleset_from_dict(data: Mapping[str, Any]) -> RulesetSpec:
    """From {slug, name, version, uses_points, max_points, limits: [...], core_rules: {name: rated}}."""
    return RulesetSpec(
        slug=data["slug"],
        name=data["name"],
        version=data["version"],
        uses_points=data["uses_points"],
        max_points=data.get("max_points"),
        limits=tuple(
            Limit(
                code=lim["code"],
                kind=lim["kind"],
                params=lim.get("params", {}),
                severity=lim.get("severity", "error"),
                section=lim["section"],
                optional=lim.get("optional", False),
            )
            for lim in data.get("limits", ())
        ),
        core_rules=dict(data.get("core_rules", {})),
    )
