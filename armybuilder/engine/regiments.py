"""Age of Fantasy: Regiments 1.7."""

from collections.abc import Hashable
from types import MappingProxyType

from armybuilder.engine.book import Rule, Unit
from armybuilder.engine.loadout import WeaponLine
from armybuilder.engine.results import KnownResult
from armybuilder.engine.rulesets import Policy, not_a_hero

# "Unit Types": rules a unit has by its type, shown on cards and never bought.
TYPE_RULES = {
    "monster": (Rule("Fear"), Rule("Impact", 3)),
    "chariot": (Rule("Fast"), Rule("Impact", 3)),
    "artillery": (Rule("Slow"),),
}


TYPE_NAMES = {"monster": "a Monster", "chariot": "a Chariot", "artillery": "Artillery"}


class Regiments(Policy):
    game = "Age of Fantasy: Regiments"
    rule_aliases = MappingProxyType({"Caster": "Wizard", "Banner": "Battle Standard"})
    army_section = "The Armies"
    combine_section = "Unit Types"
    join_section = "Unit Types"

    def implied_rules(self, unit: Unit, mounted: bool) -> list[Rule]:
        return list(TYPE_RULES.get(unit.type, ()))

    def type_notes(self, unit: Unit) -> tuple[str, ...]:
        # "Unit Types": Artillery fires only with Hold, and melee against it is AP(+2).
        if unit.type == "artillery":
            return ("Fires only when it Holds", "Enemies in melee with it count as having AP(+2)")
        return ()

    def default_melee(self, models: int) -> WeaponLine | None:
        # "Attacking": a model without a melee weapon has 1 attack in melee.
        return WeaponLine("No melee weapon", models, None, 1, (), {})

    # Every unit that is not a Monster, Chariot or Artillery counts as Infantry, heroes
    # included ("Unit Types"): messages name the type that stops it, never "not Infantry".

    def combine_problem(self, unit: Unit) -> str | None:
        if unit.is_hero:
            # The rulebook counts heroes as Infantry, but a combined hero would get round
            # the hero limit (reading, see rulesets.md).
            return f"{unit.name} is a hero; heroes are not combined (two as one would get round the hero limit)"
        if unit.type in TYPE_NAMES:
            return f"{unit.name} is {TYPE_NAMES[unit.type]}; only Infantry units may be combined"
        return None

    def join_problem(self, hero: KnownResult, target: KnownResult) -> str | None:
        if reason := not_a_hero(hero):
            return reason
        if target.unit.is_hero:
            return f"{hero.label} cannot join {target.label}, which is a hero; heroes join units that are not heroes"
        if target.unit.type in TYPE_NAMES:
            kind = TYPE_NAMES[target.unit.type]
            return f"{hero.label} cannot join {target.label}, which is {kind}; heroes join Infantry units"
        return None

    def join_facts(self, result: KnownResult) -> Hashable:
        return result.unit.is_hero, result.unit.type


POLICY = Regiments()
