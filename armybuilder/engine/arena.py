"""Age of Fantasy: Arena 2.1. A warband is a set of models picked by composition card;
the card is checked by the `composition` limit row."""

from armybuilder.engine.book import Unit
from armybuilder.engine.results import KnownResult
from armybuilder.engine.rulesets import Policy


class Arena(Policy):
    army_section = "Preparing the Warbands"
    combine_section = "Preparing the Warbands"
    join_section = "Preparing the Warbands"
    composition_card = True
    points_costs = False
    range_in_hexes = True
    profile_weapons = True
    weapon_fields = frozenset({"accuracy", "strength", "damage", "critical"})
    stat_columns = ("Move/Rush", "Evasion", "Toughness", "Stamina", "Health")

    def combine_problem(self, unit: Unit) -> str | None:
        return f"{unit.name} cannot be combined: a warband is made of single models"

    def join_problem(self, hero: KnownResult, target: KnownResult) -> str | None:
        return f"{hero.label} cannot join {target.label}: warband models act on their own"


POLICY = Arena()
