"""The ruleset policies: what differs between the five games when building a list."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

from armybuilder.engine.book import Rule, Unit
from armybuilder.engine.loadout import highest_rating

if TYPE_CHECKING:
    from armybuilder.engine.validate import Context, EntryResult

MODULES = {
    "aof": "aof",
    "aof-regiments": "regiments",
    "aof-skirmish": "skirmish",
    "opf": "opf",
    "aof-arena": "arena",
}


class Policy:
    """Defaults shared by the rulesets; each module overrides what its rulebook says."""

    army_section = "Preparing your Army"  # points and what a list may contain
    combine_section = "Preparing your Army"
    join_section = "Preparing your Army"
    combine_rules = staticmethod(highest_rating)

    def implied_rules(self, unit: Unit, mounted: bool) -> list[Rule]:
        return []

    def combine_problem(self, unit: Unit) -> str | None:
        return None

    def join_problem(self, hero: EntryResult, target: EntryResult) -> str | None:
        return None

    def extra_checks(self, ctx: Context) -> None:
        return None


@cache
def policy_for(slug: str) -> Policy:
    try:
        module = import_module(f"armybuilder.engine.{MODULES[slug]}")
    except KeyError:
        raise ValueError(f"unknown ruleset {slug!r}") from None
    return module.POLICY


def not_a_hero(hero: EntryResult) -> str | None:
    if not hero.unit.is_hero:
        return f"{hero.label} is not a hero; only heroes join other units"
    return None
