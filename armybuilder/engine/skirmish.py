"""Age of Fantasy: Skirmish. No combined units and no joining: Hero is an aura rule here."""

from types import MappingProxyType

from armybuilder.engine.book import Unit
from armybuilder.engine.loadout import stack_ratings
from armybuilder.engine.results import KnownResult
from armybuilder.engine.rulesets import Policy


class Skirmish(Policy):
    game = "Age of Fantasy: Skirmish"
    rule_aliases = MappingProxyType(
        {"Caster": "Wizard", "Banner": "Musician / Battle Standard", "Musician": "Musician / Battle Standard"}
    )
    combine_rules = staticmethod(stack_ratings)  # same stacking rule as Age of Fantasy
    hero_rule_required = True

    def combine_problem(self, unit: Unit) -> str | None:
        return f"{unit.name} cannot be combined: Skirmish has no combined units"

    def join_problem(self, hero: KnownResult, target: KnownResult) -> str | None:
        return f"{hero.label} cannot join {target.label}: in Skirmish heroes do not join units"


POLICY = Skirmish()
