"""Age of Fantasy 3.2.0."""

from collections.abc import Hashable

from armybuilder.engine.book import Unit
from armybuilder.engine.loadout import stack_ratings
from armybuilder.engine.results import KnownResult
from armybuilder.engine.rulesets import Policy, not_a_hero

MAX_JOINING_TOUGH = 6


class AgeOfFantasy(Policy):
    game = "Age of Fantasy"
    combine_section = "Combined Units"
    join_section = "Hero"
    # "Rules with (X) in their name stack" (Rules Priority & Stacking Effects).
    combine_rules = staticmethod(stack_ratings)
    # "Force Organisation (Optional)": players agree whether to use it (Preparing your Army).
    force_org_choice = True
    hero_rule_required = True

    def combine_problem(self, unit: Unit) -> str | None:
        if unit.size <= 1:
            return f"{unit.name} is a single model; only units of several models may be combined"
        return None

    def join_problem(self, hero: KnownResult, target: KnownResult) -> str | None:
        if reason := not_a_hero(hero):
            return reason
        tough = hero.loadout.rating("Tough")
        if tough is not None and tough > MAX_JOINING_TOUGH:
            return (
                f"{hero.label} has Tough({tough}); only heroes with Tough({MAX_JOINING_TOUGH}) or less may join a unit"
            )
        if target.unit.is_hero:
            return f"{hero.label} cannot join {target.label}, which is a hero"
        if target.models <= 1:
            return f"{hero.label} cannot join {target.label}, which is a single model"
        return None

    def join_facts(self, result: KnownResult) -> Hashable:
        return result.unit.is_hero, result.loadout.rating("Tough"), result.models <= 1


POLICY = AgeOfFantasy()
