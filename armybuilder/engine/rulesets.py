"""The ruleset policies: what differs between the five games when building a list."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from importlib import import_module
from types import MappingProxyType
from typing import TYPE_CHECKING

from armybuilder.engine.book import Rule, Unit
from armybuilder.engine.loadout import WeaponLine, highest_rating

if TYPE_CHECKING:
    from armybuilder.engine.results import Context, KnownResult

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
    # Players may choose to leave out the ruleset's optional limits (its force organisation).
    force_org_choice = False
    # What else differs between the games, read by the importer's checks, the pages and
    # the PDFs instead of testing a ruleset's slug.
    hero_rule_required = False  # a hero carries the Hero rule, and only a hero does
    composition_card = False  # a warband is picked by its faction's composition card
    points_costs = True  # units cost points (Arena: models cost nothing)
    range_in_hexes = False  # weapon ranges are hexes, not inches
    profile_weapons = False  # weapons have a profile (accuracy, strength, damage), no attacks
    weapon_classes = False  # weapons have a type and a strength class, no AP (One Page Fantasy)
    weapon_fields: frozenset[str] = frozenset()  # weapon fields only some rulesets' books have
    stat_columns: tuple[str, ...] = ("Quality", "Defense", "Tough")  # a unit's stats as a roster heads them
    # The game's name, as its core rules are named where a book is read with them ("Age
    # of Fantasy core rules"); "" when the game has no such core rules.
    game = ""
    # Rules this ruleset names otherwise than the Age of Fantasy books (as Army Forge
    # writes them) do: their name -> ours. The book reader renames them, the cards print ours.
    rule_aliases: Mapping[str, str] = MappingProxyType({})

    def implied_rules(self, unit: Unit, mounted: bool) -> list[Rule]:
        return []

    def type_notes(self, unit: Unit) -> tuple[str, ...]:
        """What the rulebook says a unit of this type does, beyond its rules (shown on
        cards): "fires only when it Holds"."""
        return ()

    def weapon_type_rules(self, weapon: WeaponLine) -> tuple[str, ...]:
        """Rules a weapon gets from its type (One Page Fantasy: a mace is Piercing and
        Poison)."""
        return ()

    def default_melee(self, models: int) -> WeaponLine | None:
        """The melee weapon a unit with none fights with, if the rulebook gives one."""
        return None

    def combine_problem(self, unit: Unit) -> str | None:
        return None

    def join_problem(self, hero: KnownResult, target: KnownResult) -> str | None:
        return None

    def join_facts(self, result: KnownResult) -> Hashable:
        """All that `join_problem` reads of an entry, as the hero or as the unit joined,
        but its label (which only its words name): two entries with the same facts may
        join, and be joined by, the same entries. The builder asks `join_problem` once per
        pair of facts, not per pair of entries (web/presenters.py join_menus), so a policy
        that reads more of an entry in `join_problem` says so here."""
        return ()

    def extra_checks(self, ctx: Context) -> None:
        return None


DEFAULT = Policy()


def policy_for(slug: str) -> Policy:
    """The policy of the game `slug` (its module's, imported once by Python)."""
    try:
        module = import_module(f"armybuilder.engine.{MODULES[slug]}")
    except KeyError:
        raise ValueError(f"unknown ruleset {slug!r}") from None
    policy: Policy = module.POLICY
    return policy


def policy_or_default(slug: str) -> Policy:
    """The policy of the game `slug`; the defaults for a slug the engine does not know
    (a variant's own, where the caller has not its base's)."""
    return policy_for(slug) if slug in MODULES else DEFAULT


def has_force_org_choice(family: str) -> bool:
    """Whether players of the game `family` (a ruleset's, or its base's for a variant)
    choose to use its force organisation; False for a game the engine does not know."""
    return policy_or_default(family).force_org_choice


def weapon_fields_of_some() -> frozenset[str]:
    """Every weapon field some ruleset's books have (and the others' must not)."""
    return frozenset().union(*(policy_for(slug).weapon_fields for slug in MODULES))


def not_a_hero(hero: KnownResult) -> str | None:
    if not hero.unit.is_hero:
        return f"{hero.label} is not a hero; only heroes join other units"
    return None
