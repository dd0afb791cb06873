"""The catalogue's registry of limit kinds: for each kind a limit row may have, its
label, its parameters, an example and its words (for the rules pages, the API, the admin
and the event forms), and the check of its parameters.

What each kind checks in a list lives in the rules engine (`armybuilder.engine.limits.CHECKS`);
this module only says what a limit row means, so that the words always match the data.
The model's choices, the event forms and the ruleset/1 schema's enum read `KINDS`; a
test holds the engine's checks and the schema to it.
"""

from dataclasses import dataclass
from typing import Any

from armybuilder.engine.limits import TYPE_PLURALS


@dataclass(frozen=True)
class LimitKind:
    """One kind of limit row as the catalogue knows it."""

    label: str  # the admin's and the forms' name for it
    parameters: frozenset[str]  # the keys its params may hold
    addable: bool = True  # an event pack may add a row of it
    example: str = ""  # its parameters as an organiser types them, for the event forms


# Kind -> what its parameters mean (-> what the engine checks):
#   per_points    counts (heroes|units|types), types?, per, base=0, minimum=0
#                 -> at most max(minimum, base + floor(limit / per))
#   max_count     counts, types?, max          -> at most max
#   min_count     counts, types?, min          -> at least min
#   copies        base, per                    -> copies of one unit <= base + floor(limit / per)
#   unit_share    percent                      -> 100 * unit cost <= percent * limit
#   formation     sizes                        -> multi-model units have one of these sizes
#   command_group scope (unit|army), max       -> command-group upgrades per unit or per army
#   game_size     min?, max?                   -> warn outside the sizes the rules were written for
#   composition   (none)                       -> Arena: the faction's composition card applies
#   factions      allowed                      -> only these army books (slugs) may be fielded
#   banned        units?, options?             -> these unit or option ids may not be fielded or taken
#   unit_cap      unit, max                    -> at most max copies of that unit
# The order is the model's choices' order (a migration records it): the kinds the
# rulebooks' limits need, then those of clubs and events.
KINDS: dict[str, LimitKind] = {
    "per_points": LimitKind(
        "count per points",
        frozenset({"counts", "types", "per", "base", "minimum"}),
        example='{"counts": "heroes", "per": 500}',
    ),
    "max_count": LimitKind(
        "maximum count",
        frozenset({"counts", "types", "max"}),
        example='{"counts": "types", "types": ["monster"], "max": 2}',
    ),
    "min_count": LimitKind(
        "minimum count", frozenset({"counts", "types", "min"}), example='{"counts": "heroes", "min": 1}'
    ),
    "copies": LimitKind("copies of one unit", frozenset({"base", "per"}), example='{"base": 1, "per": 750}'),
    "unit_share": LimitKind("share of the points per unit", frozenset({"percent"}), example='{"percent": 30}'),
    "formation": LimitKind("legal formation sizes", frozenset({"sizes"}), example='{"sizes": [5, 10]}'),
    "command_group": LimitKind("command groups", frozenset({"scope", "max"}), example='{"scope": "army", "max": 1}'),
    "game_size": LimitKind("designed game size", frozenset({"min", "max"}), example='{"max": 2000}'),
    # The card is the faction's: an event cannot add one.
    "composition": LimitKind("composition card", frozenset(), addable=False),
    # An event's armies, bans and caps have forms of their own, so no example.
    "factions": LimitKind("armies allowed", frozenset({"allowed"})),
    "banned": LimitKind("units or options banned", frozenset({"units", "options"})),
    "unit_cap": LimitKind("at most so many of a unit", frozenset({"unit", "max"})),
}
# The kinds an event pack may add as rows of its own.
ADDABLE_KINDS = tuple(kind for kind, spec in KINDS.items() if spec.addable)

_COUNTED = {"heroes": "hero", "units": "unit"}


def _counted(params: dict[str, Any], plural: bool) -> str:
    counts = params.get("counts", "units")
    if counts == "types":
        types = params.get("types", [])
        if plural:
            return " + ".join(TYPE_PLURALS.get(t, t.capitalize() + "s") for t in types)
        return " or ".join(t.capitalize() for t in types)
    word = _COUNTED.get(counts, counts)
    if plural:
        return "heroes" if word == "hero" else f"{word}s"
    return word


def describe_limit(kind: str, params: dict[str, Any]) -> str:
    """One plain sentence, e.g. "At most 1 hero per 500 pts"."""
    if kind == "per_points":
        text = f"At most 1 {_counted(params, False)} per {params['per']} pts"
        extras = []
        if params.get("base"):
            extras.append(f"plus {params['base']}")
        if params.get("minimum"):
            extras.append(f"never fewer than {params['minimum']}")
        return text + (f" ({', '.join(extras)})" if extras else "")
    if kind == "max_count":
        return f"At most {params['max']} {_counted(params, params['max'] != 1)}"
    if kind == "min_count":
        return f"At least {params['min']} {_counted(params, params['min'] != 1)}"
    if kind == "copies":
        return (
            f"At most {params['base']} + 1 per {params['per']} pts copies of the same unit "
            "(a combined unit counts as one)"
        )
    if kind == "unit_share":
        return f"No single unit may cost more than {params['percent']}% of the points limit"
    if kind == "formation":
        sizes = ", ".join(str(s) for s in params["sizes"][:-1]) + f" or {params['sizes'][-1]}"
        return f"Units of more than one model must have {sizes} models"
    if kind == "command_group":
        if params.get("scope") == "army":
            return f"At most {params['max']} model in the whole army may take a command-group upgrade"
        times = "once" if params["max"] == 1 else f"{params['max']} times"
        return f"Each unit may take each command-group upgrade at most {times}"
    if kind == "game_size":
        if "max" in params:
            return f"Games above {params['max']} pts go beyond what the rules were written for"
        return f"Games below {params['min']} pts are smaller than the rules were written for"
    if kind == "composition":
        return "A warband follows its faction's composition card"
    if kind == "factions":
        return f"Only these armies may be fielded: {', '.join(params['allowed'])}"
    if kind == "banned":
        named = [*params.get("units", ()), *params.get("options", ())]
        return f"These may not be fielded or taken: {', '.join(named)}"
    if kind == "unit_cap":
        return f"At most {params['max']} of the unit {params['unit']}"
    return f"{kind} {params}"


MOST = 1_000_000  # no limit needs a number above a million (points, models, percent...)
ID_LENGTH = 100  # the longest unit, option, book or type name a parameter may hold


def _whole(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and least <= value <= MOST


def limit_param_problems(kind: str, params: Any) -> list[str]:
    """What is wrong with a limit row's parameters for its kind (empty when they are
    fine): the engine reads them as they are, so a row that passes here is one it can
    check lists against."""
    if not isinstance(params, dict):
        return ['parameters must be an object, e.g. {"per": 500}']
    if kind in KINDS and (unknown := sorted(set(params) - KINDS[kind].parameters)):
        return [f"a {kind} limit has no parameter {', '.join(repr(key) for key in unknown)}"]
    problems = []

    def need(key: str, least: int, *, optional: bool = False) -> None:
        if key not in params:
            if not optional:
                problems.append(f'"{key}" is required for a {kind} limit')
        elif not _whole(params[key], least):
            problems.append(f'"{key}" must be a whole number from {least} to {MOST:,}, not {_short(params[key])}')

    def counted() -> None:
        counts = params.get("counts", "units")
        if counts not in ("heroes", "units", "types"):
            problems.append(f'"counts" must be heroes, units or types, not {_short(counts)}')
        if counts == "types":
            if not _names(params.get("types")):
                problems.append('"types" must list the unit types counted, e.g. ["monster", "chariot"]')

    if kind == "per_points":
        counted()
        need("per", 1)
        need("base", 0, optional=True)
        need("minimum", 0, optional=True)
    elif kind == "max_count":
        counted()
        need("max", 0)
    elif kind == "min_count":
        counted()
        need("min", 0)
    elif kind == "copies":
        need("base", 0)
        need("per", 1)
    elif kind == "unit_share":
        need("percent", 1)
        if _whole(params.get("percent"), 1) and params["percent"] > 100:
            problems.append('"percent" must be at most 100')
    elif kind == "formation":
        sizes = params.get("sizes")
        if not isinstance(sizes, list) or not 0 < len(sizes) <= 100 or not all(_whole(s, 1) for s in sizes):
            problems.append('"sizes" must list the legal unit sizes, e.g. [3, 5, 6, 10]')
    elif kind == "command_group":
        need("max", 0)
        if params.get("scope", "unit") not in ("unit", "army"):
            problems.append(f'"scope" must be unit or army, not {params.get("scope")!r}')
    elif kind == "game_size":
        if "min" not in params and "max" not in params:
            problems.append('a game_size limit needs "min" or "max"')
        need("min", 1, optional=True)
        need("max", 1, optional=True)
    elif kind == "factions":
        if not _names(params.get("allowed")):
            problems.append('"allowed" must list the army book slugs allowed, e.g. ["orc-hordes"]')
    elif kind == "banned":
        lists = [params.get("units", []), params.get("options", [])]
        if set(params) - {"units", "options"} or not any(lists) or not all(_names(v) for v in lists if v != []):
            problems.append('"units" and "options" must list the unit or option ids banned, e.g. {"units": ["giant"]}')
    elif kind == "unit_cap":
        if not _names([params.get("unit")]):
            problems.append('"unit" must be the id of the unit capped')
        need("max", 0)
    elif kind not in KINDS:
        problems.append(f"unknown limit kind {kind!r}")
    return problems


def _names(value: Any) -> bool:
    return (
        isinstance(value, list)
        and 0 < len(value) <= 1000
        and all(isinstance(v, str) and 0 < len(v) <= ID_LENGTH for v in value)
    )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
