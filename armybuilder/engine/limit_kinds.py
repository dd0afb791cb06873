"""The one registry of limit kinds: for each kind a limit row may have, what it checks in
a list (`engine/limits.py`), its parameters, its words and its example.

Everything else that names the kinds reads `KINDS`: the ruleset/1 schema's enum (filled
in when the schema is loaded), the admin's choices, the event forms and the API, the
words of the rules pages (`describe_limit`) and the check of a row's parameters
(`limit_param_problems`, worded from the parameters' specs below). A new kind is one
entry here and its check: no migration, no form, no schema to edit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from armybuilder.engine import limits
from armybuilder.engine.book import Limit
from armybuilder.engine.results import Context

MOST = 1_000_000  # no limit needs a number above a million (points, models, percent...)
ID_LENGTH = 100  # the longest unit, option, book or type name a parameter may hold

Params = Mapping[str, Any]


# -- the parameters' specs: what a value must be, and the words when it is not ------------
def _whole(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and least <= value <= MOST


def _names(value: Any) -> bool:
    return (
        isinstance(value, list)
        and 0 < len(value) <= 1000
        and all(isinstance(v, str) and 0 < len(v) <= ID_LENGTH for v in value)
    )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _or(words: tuple[str, ...]) -> str:
    return ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else words[0]


@dataclass(frozen=True)
class Whole:
    """A whole number from `least` to a million (and at most `most`, when given)."""

    least: int
    most: int | None = None
    optional: bool = False

    def problems(self, kind: str, key: str, params: Params) -> list[str]:
        if key not in params:
            return [] if self.optional else [f'"{key}" is required for a {kind} limit']
        value = params[key]
        if not _whole(value, self.least):
            return [f'"{key}" must be a whole number from {self.least} to {MOST:,}, not {_short(value)}']
        if self.most is not None and value > self.most:
            return [f'"{key}" must be at most {self.most}']
        return []


@dataclass(frozen=True)
class Choice:
    """One of `values`; `default` when left out."""

    values: tuple[str, ...]
    default: str

    def problems(self, kind: str, key: str, params: Params) -> list[str]:
        value = params.get(key, self.default)
        return [] if value in self.values else [f'"{key}" must be {_or(self.values)}, not {_short(value)}']


@dataclass(frozen=True)
class Listing:
    """A list of names (ids, slugs, types), or of whole numbers from 1 (`wholes`). With
    `when` (a parameter and its value), needed only when that parameter has that value."""

    what: str  # "the unit types counted"
    example: str  # '["monster", "chariot"]'
    wholes: bool = False
    when: tuple[str, str] | None = None

    def problems(self, kind: str, key: str, params: Params) -> list[str]:
        if self.when is not None and params.get(self.when[0], None) != self.when[1]:
            return []
        value = params.get(key)
        if self.wholes:
            fine = isinstance(value, list) and 0 < len(value) <= 100 and all(_whole(v, 1) for v in value)
        else:
            fine = _names(value)
        return [] if fine else [f'"{key}" must list {self.what}, e.g. {self.example}']


@dataclass(frozen=True)
class Name:
    """One name (an id)."""

    what: str  # "the id of the unit capped"

    def problems(self, kind: str, key: str, params: Params) -> list[str]:
        return [] if _names([params.get(key)]) else [f'"{key}" must be {self.what}']


@dataclass(frozen=True)
class Either:
    """Across parameters: at least one of `keys` is given."""

    keys: tuple[str, ...]

    def problems(self, kind: str, params: Params) -> list[str]:
        if any(key in params for key in self.keys):
            return []
        return [f"a {kind} limit needs " + _or(tuple(f'"{key}"' for key in self.keys))]


@dataclass(frozen=True)
class SomeListed:
    """Across parameters: lists of names, each optional, at least one of them not empty."""

    keys: tuple[str, ...]
    what: str  # "the unit or option ids banned"
    example: str

    def problems(self, kind: str, params: Params) -> list[str]:
        lists = [params.get(key, []) for key in self.keys]
        if any(lists) and all(_names(value) for value in lists if value != []):
            return []
        keys = " and ".join(f'"{key}"' for key in self.keys)
        return [f"{keys} must list {self.what}, e.g. {self.example}"]


@dataclass(frozen=True)
class Member:
    """A parameter checked with others, by a spec across parameters (`SomeListed`)."""

    def problems(self, kind: str, key: str, params: Params) -> list[str]:
        return []


Param = Whole | Choice | Listing | Name | Member
Across = Either | SomeListed

COUNTED: dict[str, Param] = {
    "counts": Choice(("heroes", "units", "types"), default="units"),
    "types": Listing("the unit types counted", '["monster", "chariot"]', when=("counts", "types")),
}


# -- the words of each kind ------------------------------------------------------------
_COUNTED = {"heroes": "hero", "units": "unit"}


def _counted(params: Params, plural: bool) -> str:
    counts: str = params.get("counts", "units")
    if counts == "types":
        types = params.get("types", [])
        if plural:
            return " + ".join(limits.TYPE_PLURALS.get(t, t.capitalize() + "s") for t in types)
        return " or ".join(t.capitalize() for t in types)
    word: str = _COUNTED.get(counts, counts)
    if plural:
        return "heroes" if word == "hero" else f"{word}s"
    return word


def _per_points(params: Params) -> str:
    text = f"At most 1 {_counted(params, False)} per {params['per']} pts"
    extras = []
    if params.get("base"):
        extras.append(f"plus {params['base']}")
    if params.get("minimum"):
        extras.append(f"never fewer than {params['minimum']}")
    return text + (f" ({', '.join(extras)})" if extras else "")


def _command_group(params: Params) -> str:
    if params.get("scope") == "army":
        return f"At most {params['max']} model in the whole army may take a command-group upgrade"
    times = "once" if params["max"] == 1 else f"{params['max']} times"
    return f"Each unit may take each command-group upgrade at most {times}"


def _game_size(params: Params) -> str:
    if "max" in params:
        return f"Games above {params['max']} pts go beyond what the rules were written for"
    return f"Games below {params['min']} pts are smaller than the rules were written for"


def _sizes(sizes: list[int]) -> str:
    return ", ".join(str(s) for s in sizes[:-1]) + f" or {sizes[-1]}"


# -- the registry ----------------------------------------------------------------------
@dataclass(frozen=True)
class LimitKind:
    """One kind of limit row: its check, its parameters and its words."""

    label: str  # the admin's and the forms' name for it
    check: Callable[[Context, Limit], None]
    describe: Callable[[Params], str]  # one plain sentence, e.g. "At most 1 hero per 500 pts"
    params: Mapping[str, Param] = field(default_factory=dict)  # in the order their problems are told
    across: tuple[Across, ...] = ()  # checks across parameters, told first
    addable: bool = True  # an event pack may add a row of it
    example: str = ""  # its parameters as an organiser types them, for the event forms
    stored: bool = True  # a row of the catalogue may have it (not one the engine makes itself)


def _bound(end: str, check: Callable[[Context, Limit], None], example: str) -> LimitKind:
    """max_count and min_count: at most (or at least) `end` of what a row counts."""
    label, word = ("maximum count", "At most") if end == "max" else ("minimum count", "At least")
    return LimitKind(
        label,
        check,
        lambda p: f"{word} {p[end]} {_counted(p, p[end] != 1)}",
        {**COUNTED, end: Whole(0)},
        example=example,
    )


# What each kind checks (-> the check in engine/limits.py):
#   per_points    at most max(minimum, base + floor(limit / per)) of what it counts
#   max_count     at most max;  min_count  at least min
#   copies        copies of one unit <= base + floor(limit / per)
#   unit_share    100 * unit cost <= percent * limit
#   formation     multi-model units have one of these sizes
#   command_group command-group upgrades per unit or per army
#   game_size     warn outside the sizes the rules were written for
#   composition   Arena: the faction's composition card applies
#   factions      only these army books (slugs) may be fielded
#   banned        these unit or option ids may not be fielded or taken
#   unit_cap      at most max copies of that unit
# The order is the admin's choices' and the schema's enum's: the kinds the rulebooks'
# limits need, then those of clubs and events, then the two the engine makes itself
# from an event's settings, which no stored row has.
KINDS: dict[str, LimitKind] = {
    "per_points": LimitKind(
        "count per points",
        limits.per_points,
        _per_points,
        {**COUNTED, "per": Whole(1), "base": Whole(0, optional=True), "minimum": Whole(0, optional=True)},
        example='{"counts": "heroes", "per": 500}',
    ),
    "max_count": _bound("max", limits.max_count, '{"counts": "types", "types": ["monster"], "max": 2}'),
    "min_count": _bound("min", limits.min_count, '{"counts": "heroes", "min": 1}'),
    "copies": LimitKind(
        "copies of one unit",
        limits.copies,
        lambda p: f"At most {p['base']} + 1 per {p['per']} pts copies of the same unit (a combined unit counts as one)",
        {"base": Whole(0), "per": Whole(1)},
        example='{"base": 1, "per": 750}',
    ),
    "unit_share": LimitKind(
        "share of the points per unit",
        limits.unit_share,
        lambda p: f"No single unit may cost more than {p['percent']}% of the points limit",
        {"percent": Whole(1, most=100)},
        example='{"percent": 30}',
    ),
    "formation": LimitKind(
        "legal formation sizes",
        limits.formation,
        lambda p: f"Units of more than one model must have {_sizes(p['sizes'])} models",
        {"sizes": Listing("the legal unit sizes", "[3, 5, 6, 10]", wholes=True)},
        example='{"sizes": [5, 10]}',
    ),
    "command_group": LimitKind(
        "command groups",
        limits.command_group,
        _command_group,
        {"max": Whole(0), "scope": Choice(("unit", "army"), default="unit")},
        example='{"scope": "army", "max": 1}',
    ),
    "game_size": LimitKind(
        "designed game size",
        limits.game_size,
        _game_size,
        {"min": Whole(1, optional=True), "max": Whole(1, optional=True)},
        across=(Either(("min", "max")),),
        example='{"max": 2000}',
    ),
    # The card is the faction's: an event cannot add one.
    "composition": LimitKind(
        "composition card",
        limits.composition,
        lambda p: "A warband follows its faction's composition card",
        addable=False,
    ),
    # An event's armies, bans and caps have forms of their own, so no example.
    "factions": LimitKind(
        "armies allowed",
        limits.factions,
        lambda p: f"Only these armies may be fielded: {', '.join(p['allowed'])}",
        {"allowed": Listing("the army book slugs allowed", '["orc-hordes"]')},
    ),
    "banned": LimitKind(
        "units or options banned",
        limits.banned,
        lambda p: f"These may not be fielded or taken: {', '.join([*p.get('units', ()), *p.get('options', ())])}",
        {"units": Member(), "options": Member()},
        across=(SomeListed(("units", "options"), "the unit or option ids banned", '{"units": ["giant"]}'),),
    ),
    "unit_cap": LimitKind(
        "at most so many of a unit",
        limits.unit_cap,
        lambda p: f"At most {p['max']} of the unit {p['unit']}",
        {"unit": Name("the id of the unit capped"), "max": Whole(0)},
    ),
    "event_ruleset": LimitKind(
        "the event's ruleset",
        limits.event_ruleset,
        lambda p: f"Played with {p['title']}",
        {"ruleset": Name("the slug of the ruleset played"), "title": Name("the ruleset's title")},
        addable=False,
        stored=False,
    ),
    "event_points": LimitKind(
        "the event's points",
        limits.event_points,
        lambda p: f"Played at {p['points']} pts",
        {"points": Whole(1)},
        addable=False,
        stored=False,
    ),
}
# The kinds a stored limit row may have, in the registry's order.
STORED_KINDS = tuple(kind for kind, spec in KINDS.items() if spec.stored)
# The kinds an event pack may add as rows of its own.
ADDABLE_KINDS = tuple(kind for kind, spec in KINDS.items() if spec.addable)


def check_limit(ctx: Context, limit: Limit) -> None:
    """The issues of one limit row, by its kind's check."""
    kind = KINDS.get(limit.kind)
    if kind is None:
        raise ValueError(f"unknown limit kind {limit.kind!r} ({limit.code})")
    kind.check(ctx, limit)


def describe_limit(kind: str, params: Params) -> str:
    """One plain sentence, e.g. "At most 1 hero per 500 pts"."""
    spec = KINDS.get(kind)
    return spec.describe(params) if spec is not None else f"{kind} {params}"


def limit_param_problems(kind: str, params: Any) -> list[str]:
    """What is wrong with a limit row's parameters for its kind (empty when they are
    fine), each naming the parameter: the engine reads them as they are, so a row that
    passes here is one it can check lists against."""
    if not isinstance(params, dict):
        return ['parameters must be an object, e.g. {"per": 500}']
    spec = KINDS.get(kind)
    if spec is None or not spec.stored:
        return [f"unknown limit kind {kind!r}"]
    if unknown := sorted(set(params) - set(spec.params)):
        return [f"a {kind} limit has no parameter {', '.join(repr(key) for key in unknown)}"]
    problems = [problem for across in spec.across for problem in across.problems(kind, params)]
    for key, param in spec.params.items():
        problems += param.problems(kind, key, params)
    return problems
