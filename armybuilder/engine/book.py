"""The army book and the ruleset as the engine sees them: frozen plain objects, built
once from `armybook/1` dicts (and the ruleset's catalogue rows) and then shared."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from armybuilder.memo import Memo, memoize

_NUMBER_RE = re.compile(r"\+?\d{1,18}")  # longer is text: Python reads no number of more than 4,300 digits


def split_rule(text: str) -> tuple[str, str | None]:
    """The one reader of a rule as written: "AP(+2)" -> ("AP", "+2"), "Fear" -> ("Fear",
    None), "Spawn(Beetle Swarms [3])" -> ("Spawn", "Beetle Swarms [3]").

    The parameter is the text between the brackets as written, never empty and holding
    no brackets of its own, as armybook/1's rule strings have it (a parameter's own
    brackets are written [ ], as the Army Forge converter writes them). Anything else,
    "Spawn(Imps (3))", "Fear()", "Tough(3", is a name as it stands, which no rule has."""
    # By hand, not by a pattern: a name followed by any spaces would try every split of
    # a long run of them (quadratic in the text's length).
    text = text.strip()
    name, opening, rest = text.partition("(")
    name, param = name.rstrip(), rest[:-1]
    if not (name and opening and ")" not in name and rest.endswith(")") and param) or "(" in param or ")" in param:
        return text, None
    return name, param


class Rule(NamedTuple):
    """A rule as written on a unit: `Tough(3)`, `Tough(+3)` (adds), `Fear`, or with a text
    parameter, `Spawn(Beetle Swarms [3])` (shown as written, never stacked).

    A named tuple rather than a dataclass: the engine makes many of them per list."""

    name: str
    rating: int | str | None = None  # a whole number, or the text of a text parameter
    adds: bool = False  # written "+X": adds to the rule the model already has

    @classmethod
    def parse(cls, text: str) -> Rule:
        name, param = split_rule(text)
        if param is None:
            return cls(name)
        param = param.strip()
        if _NUMBER_RE.fullmatch(param):
            return cls(name, int(param.lstrip("+")), param.startswith("+"))
        return cls(name, param)

    @property
    def numeric(self) -> bool:
        return isinstance(self.rating, int)

    def __str__(self) -> str:
        if self.rating is None:
            return self.name
        return f"{self.name}({'+' if self.adds else ''}{self.rating})"


@memoize("engine: forms of a name", 4096)
def name_forms(name: str) -> frozenset[str]:
    """The name in lower case with the singular forms its last word may stand for, so
    that "Spears" finds "Spear" and "Spear" finds "Spears" (targets and equipment are
    written either way in real books)."""
    text = " ".join(name.lower().split())
    head, _, last = text.rpartition(" ")
    prefix = f"{head} " if head else ""
    forms = {text}
    if last.endswith("ies") and len(last) > 3:
        forms.add(prefix + last[:-3] + "y")
    if last.endswith("ves") and len(last) > 3:
        forms.update((prefix + last[:-3] + "f", prefix + last[:-3] + "fe"))
    if last.endswith("es") and len(last) > 2:
        forms.add(prefix + last[:-2])
    if last.endswith("s") and not last.endswith("ss") and len(last) > 1:
        forms.add(prefix + last[:-1])
    return frozenset(forms)


@memoize("engine: names for the same thing", 16384)
def same_name(a: str, b: str) -> bool:
    """Two equipment names for the same thing, singular or plural either way."""
    return a == b or not name_forms(a).isdisjoint(name_forms(b))


@dataclass(frozen=True, slots=True)
class Weapon:
    name: str
    count: int | None  # a unit's weapon: how many it carries; a gain's: per model or item covered
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
    count: int = 1  # weapons and items: how many per model or item the pick covers


@dataclass(frozen=True, slots=True)
class Count:
    type: str  # exactly | up to | all | any
    value: int | None = None
    per: str | None = None  # select only: the limit holds per "model" or per "item"


@dataclass(frozen=True, slots=True)
class Target:
    """What a replace or attachment section works on: `count` of the item called `name`
    per pick ("Replace 2x Hand Weapon")."""

    name: str
    count: int = 1


@dataclass(frozen=True, slots=True)
class Option:
    id: str
    label: str
    cost: int
    costs: Mapping[str, int]
    command: str | None
    gains: tuple[Gain, ...]
    section_id: str
    rule_only: bool = field(init=False)  # gives rules only: a unit takes it at most once
    # Gives rules, and items that carry rules, only (armour, a charm, a mount): a second on
    # the same model adds nothing, so it is taken once per model or copy the section
    # covers. An item with no rules (a net, a bomb) is kit, of which a model may carry more.
    once: bool = field(init=False)
    # The rules it gives when all it gives is rules without a rating (and items carrying
    # only those): it adds nothing to a unit that has them from elsewhere (those rules do
    # not stack). Empty for any other option.
    plain_rules: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        gains = self.gains
        once = bool(gains) and all(g.kind in ("rule", "item") for g in gains) and any(g.rules for g in gains)
        plain = once and all(not g.weapons and not g.mount and g.rules for g in gains)
        plain = plain and all(r.rating is None for g in gains for r in g.rules)
        object.__setattr__(self, "rule_only", bool(gains) and all(g.kind == "rule" for g in gains))
        object.__setattr__(self, "once", once)
        object.__setattr__(
            self, "plain_rules", frozenset(r.name for g in gains for r in g.rules) if plain else frozenset()
        )

    def cost_for(self, unit_id: str) -> int:
        return self.costs.get(unit_id, self.cost)


@dataclass(frozen=True, slots=True)
class Section:
    id: str
    label: str
    variant: str  # replace | upgrade | attachment | models
    targets: tuple[Target, ...]
    affects: Count | None
    select: Count | None
    optional: bool
    options: tuple[Option, ...]

    # Worked out once from the fields above (see __post_init__).
    whole_unit: bool = field(init=False)
    command_only: bool = field(init=False)
    per_pick: int = field(init=False)
    counted: bool = field(init=False)  # affects any / up to: each pick covers one model or item
    may_require: bool = field(init=False)  # "exactly N", not optional: needs picks

    def __post_init__(self) -> None:
        affects = self.affects
        # A whole-unit section applies to every model (bought for both copies of a
        # combined unit); adding models never does: each added model is bought once.
        whole = self.variant != "models" and (affects is None or affects.type == "all")
        per_pick = affects.value if affects is not None and affects.type == "exactly" else 1
        for name, value in (
            ("whole_unit", whole),
            ("command_only", all(o.command for o in self.options)),
            ("per_pick", per_pick),
            ("counted", affects is not None and affects.type in ("any", "up to")),
            ("may_require", self.select is not None and self.select.type == "exactly" and not self.optional),
        ):
            object.__setattr__(self, name, value)

    @property
    def on_items(self) -> bool:
        """Picks cover carried items (replace, attachment) rather than models."""
        return self.variant in ("replace", "attachment")


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
    items: tuple[Gain, ...] = ()  # what it starts with besides weapons (a mount): replaceable
    # The sections in the order their picks are applied (see `apply_order`).
    applied: tuple[Section, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "applied", apply_order(self.sections))

    @property
    def is_hero(self) -> bool:
        return self.type == "hero"


def takes_what_is_left(section: Section) -> bool:
    """A replacement of all, any or up to some of what it names, rather than of a fixed
    number ("Replace one", "Replace 2x"): it works on what the fixed ones leave."""
    return section.variant == "replace" and (section.affects is None or section.affects.type != "exactly")


def apply_order(sections: tuple[Section, ...]) -> tuple[Section, ...]:
    """Book order, except that a replacement that takes what is left comes after every
    fixed-number replacement of the same item, wherever the book puts them: "Replace all
    Spears" and "Replace one Spear" give one of each whichever comes first. Other sections
    keep their place, so an attachment to what a replacement gives still follows it."""
    order = list(sections)
    for section in sections:
        if not takes_what_is_left(section):
            continue
        at = order.index(section)
        fixed = [
            i
            for i in range(at + 1, len(order))
            if order[i].variant == "replace"
            and not takes_what_is_left(order[i])
            and any(same_name(a.name, b.name) for a in section.targets for b in order[i].targets)
        ]
        if fixed:
            order.insert(fixed[-1], order.pop(at))
    return tuple(order)


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


# A loadout worked out once: (ruleset slug, unit id, copies, the picks that are not 0).
LoadoutKey = tuple[str, str, int, tuple[tuple[str, int], ...]]
LOADOUTS_KEPT = 4096  # per book
MEMO_KEPT = 5_000  # per book: the builder's pieces, a few KB each


def _loadouts() -> Memo[LoadoutKey, Any]:
    return Memo("engine: loadouts of a book", LOADOUTS_KEPT)


def _memo() -> Memo[Any, Any]:
    return Memo("engine: what callers derive from a book", MEMO_KEPT)


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
    armyforge_id: str = ""  # the Army Forge book it was made from, if any
    # Of `rules`, those that are core rules of Army Forge's the book names (their text is
    # the book's wording or Army Forge's: engine/meanings.py), and the version of Army
    # Forge's core rules the book was read with ("" when none).
    armyforge_core: frozenset[str] = frozenset()
    armyforge_rules: str = ""
    # Rules for building lists: a unit with one may be taken at most so many times (Unique: 1).
    per_army: Mapping[str, int] = field(default_factory=dict)
    # Loadouts already worked out for this book, keyed by unit, picks and copies: a
    # builder re-validates the whole list on every change, and most entries are unchanged.
    # The values are `loadout.Loadout`s, which this module cannot name: loadout.py imports it.
    # Both memos are the book's own (not passed in, so not shared by a book made from this
    # one with `replace`) and go when it does, so nothing in them is ever stale.
    loadouts: Memo[LoadoutKey, Any] = field(default_factory=_loadouts, init=False, compare=False, repr=False)
    # A place for callers to keep what they derive from this book (the builder keeps its
    # rendered pieces here).
    memo: Memo[Any, Any] = field(default_factory=_memo, init=False, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Limit:
    code: str
    kind: str
    params: Mapping[str, Any]
    severity: str
    section: str
    optional: bool = False
    event: str = ""  # the event whose rule this row is (engine/events.py); "" for the ruleset's own


@dataclass(frozen=True, slots=True)
class RulesetSpec:
    slug: str
    name: str
    version: str
    uses_points: bool
    max_points: int | None
    limits: tuple[Limit, ...] = ()
    core_rules: Mapping[str, bool] = field(default_factory=dict)
    # The game whose rules it plays: its own slug, or for a variant (a club's own limits
    # on Age of Fantasy) the slug of the ruleset it was made from.
    family: str = ""

    def __post_init__(self) -> None:
        if not self.family:
            object.__setattr__(self, "family", self.slug)

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
        return Gain(kind, data["name"], weapons=(_weapon({**data, "count": 1}),), count=data.get("count", 1))
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
        count=data.get("count", 1),
    )


def _count(data: Mapping[str, Any] | None) -> Count | None:
    return Count(data["type"], data.get("value"), data.get("per")) if data else None


def _target(data: str | Mapping[str, Any]) -> Target:
    if isinstance(data, str):
        return Target(data)
    return Target(data["name"], data.get("count", 1))


def _section(data: Mapping[str, Any]) -> Section:
    return Section(
        id=data["id"],
        label=data["label"],
        variant=data["variant"],
        targets=tuple(_target(t) for t in data.get("targets", ())),
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


def unit_packages(upgrades: list[Any]) -> list[tuple[str, frozenset[str]]]:
    """A unit's `upgrades` as (package id, ids of the sections it does without)."""
    out: list[tuple[str, frozenset[str]]] = []
    for entry in upgrades:
        if isinstance(entry, str):
            out.append((entry, frozenset()))
        else:
            out.append((entry["package"], frozenset(entry.get("without", ()))))
    return out


def book_from_dict(data: Mapping[str, Any]) -> Book:
    """Build the engine's book from a (checked) armybook/1 document."""
    packages = {p["id"]: tuple(_section(s) for s in p["sections"]) for p in data["packages"]}
    units = {}
    for u in data["units"]:
        sections: list[Section] = []
        seen: set[str] = set()
        for package_id, without in unit_packages(u["upgrades"]):
            if package_id in seen:
                continue
            seen.add(package_id)
            sections.extend(s for s in packages.get(package_id, ()) if s.id not in without)
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
            items=tuple(_gain({"kind": "item", **item}) for item in u.get("items", ())),
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
        armyforge_id=data.get("armyforge_id") or "",
        armyforge_core=frozenset(r["name"] for r in data["rules"] if r.get("core")),
        armyforge_rules=data.get("armyforge_rules") or "",
        per_army={r["name"]: r["per_army"] for r in data["rules"] if r.get("per_army")},
    )


def ruleset_from_dict(data: Mapping[str, Any]) -> RulesetSpec:
    """From {slug, name, version, uses_points, max_points, limits: [...], core_rules: {name:
    rated}, family?}."""
    return RulesetSpec(
        slug=data["slug"],
        family=data.get("family") or data["slug"],
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
