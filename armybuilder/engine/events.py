"""Event rules: what a club or a tournament changes of a ruleset's list rules.

An event pack comes to the engine as plain data (`EventRules`); `event_ruleset` gives the
ruleset a list entered for the event is checked against. The event sets the game size,
and may change a limit's
parameters (at most 30% in one unit instead of 35%), remove a limit, add one of any
kind, allow only some factions, ban units or options and cap how many of a unit a list
may field. Each of those is a limit row, so the validator needs nothing new: the rows
the event wrote carry its name, and their issues say "Event rule" and cite the event.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from armybuilder.engine.book import Limit, RulesetSpec

EVENT_SECTION = "event rule"


@dataclass(frozen=True, slots=True)
class Ban:
    faction: str
    unit: str = ""  # a unit id, or
    option: str = ""  # an upgrade option id


@dataclass(frozen=True, slots=True)
class Cap:
    faction: str
    unit: str
    max: int


@dataclass(frozen=True, slots=True)
class EventRules:
    name: str
    ruleset: str = ""  # the slug of the ruleset (or variant) the event is played with
    ruleset_title: str = ""
    points: int | None = None  # the game size the event is played at; None: no points
    changes: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # limit code -> parameters it sets
    removed: tuple[str, ...] = ()  # limit codes
    added: tuple[Limit, ...] = ()
    factions: tuple[str, ...] = ()  # the factions allowed; none named: all
    bans: tuple[Ban, ...] = ()
    caps: tuple[Cap, ...] = ()


def event_ruleset(ruleset: RulesetSpec, rules: EventRules, faction: str) -> RulesetSpec:
    """The ruleset a list of `faction` entered for the event is checked against. An event
    plays with all its limits: a list turning force organisation off (which the rulebook
    leaves to the players) is still held to them."""
    limits: list[Limit] = []
    for limit in ruleset.limits:
        if limit.code in rules.removed:
            continue
        if limit.code in rules.changes:
            limit = replace(limit, params={**limit.params, **rules.changes[limit.code]}, event=rules.name)
        limits.append(replace(limit, optional=False))
    limits.extend(replace(limit, event=rules.name) for limit in rules.added)
    own = event_rows(rules, faction)
    return replace(ruleset, limits=(*limits, *own))


def event_rows(rules: EventRules, faction: str) -> list[Limit]:
    """The event's ruleset, game size, faction list, bans and caps as limit rows, for
    lists of `faction`."""
    rows = []
    if rules.ruleset:
        params = {"ruleset": rules.ruleset, "title": rules.ruleset_title}
        rows.append(_row("event_ruleset", "event_ruleset", params, rules.name))
    if rules.points is not None:
        rows.append(_row("event_points", "event_points", {"points": rules.points}, rules.name))
    if rules.factions:
        rows.append(_row("faction_not_allowed", "factions", {"allowed": list(rules.factions)}, rules.name))
    units = [ban.unit for ban in rules.bans if ban.faction == faction and ban.unit]
    options = [ban.option for ban in rules.bans if ban.faction == faction and ban.option]
    if units or options:
        rows.append(_row("banned", "banned", {"units": units, "options": options}, rules.name))
    rows.extend(
        _row("unit_cap", "unit_cap", {"unit": cap.unit, "max": cap.max}, rules.name)
        for cap in rules.caps
        if cap.faction == faction
    )
    return rows


def _row(code: str, kind: str, params: dict[str, Any], event: str) -> Limit:
    return Limit(code=code, kind=kind, params=params, severity="error", section=EVENT_SECTION, event=event)
