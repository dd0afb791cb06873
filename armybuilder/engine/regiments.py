"""Age of Fantasy: Regiments 1.7."""

from armybuilder.engine.book import Rule
from armybuilder.engine.rulesets import Policy, not_a_hero

# "Unit Types": rules a unit has by its type, shown on cards and never bought.
TYPE_RULES = {
    "monster": (Rule("Fear"), Rule("Impact", 3)),
    "chariot": (Rule("Fast"), Rule("Impact", 3)),
    "artillery": (Rule("Slow"),),
}


class Regiments(Policy):
    army_section = "The Armies"
    combine_section = "Unit Types"
    join_section = "Unit Types"

    def implied_rules(self, unit, mounted):
        return list(TYPE_RULES.get(unit.type, ()))

    def combine_problem(self, unit):
        # Heroes count as Infantry in the rulebook, but a combined hero would get round
        # the hero limit (reading, see rulesets.md).
        if unit.type != "infantry":
            return f"{unit.name} is not an Infantry unit; only Infantry that is not a hero may be combined"
        return None

    def join_problem(self, hero, target):
        if reason := not_a_hero(hero):
            return reason
        if target.unit.type != "infantry":
            return f"{hero.label} cannot join {target.label}: heroes join Infantry units only"
        return None


POLICY = Regiments()
