"""One Page Fantasy (Beginner's Guide 3.2.0)."""

from collections.abc import Hashable

from armybuilder.engine.book import Rule, Unit
from armybuilder.engine.loadout import WeaponLine
from armybuilder.engine.results import KnownResult
from armybuilder.engine.rulesets import Policy, not_a_hero

# "Weapon Types": the rules a melee weapon gets from its type (Sword/Claws: none).
WEAPON_TYPE_RULES = {
    "spear": ("+1 Attack when charged in its front",),
    "halberd": ("Piercing",),
    "mace": ("Piercing", "Poison"),
    "lance": ("Impact(1)",),
}


class OnePageFantasy(Policy):
    combine_section = "Infantry"
    join_section = "Heroes & Wizards"
    weapon_classes = True
    weapon_fields = frozenset({"strength", "weapon_type"})

    def implied_rules(self, unit: Unit, mounted: bool) -> list[Rule]:
        # Heroes and Wizards are Nimble unless they ride a mount ("Heroes & Wizards").
        return [Rule("Nimble")] if unit.is_hero and not mounted else []

    def type_notes(self, unit: Unit) -> tuple[str, ...]:
        # "Ordnance": no March or Charge, and shooting only with Hold.
        if unit.type == "ordnance":
            return ("May not March or Charge", "Shoots only when it Holds")
        return ()

    def weapon_type_rules(self, weapon: WeaponLine) -> tuple[str, ...]:
        if weapon.range:
            return ()
        return WEAPON_TYPE_RULES.get(str(weapon.profile.get("weapon_type", "")), ())

    def default_melee(self, models: int) -> WeaponLine | None:
        # "Ranged & Melee Weapons": a unit with no melee weapon has Light Swords/Claws.
        return WeaponLine("Light Swords/Claws", models, None, 1, (), {"strength": "light", "weapon_type": "sword"})

    def combine_problem(self, unit: Unit) -> str | None:
        if unit.is_hero:
            return f"{unit.name} is a Hero or Wizard; only Infantry units may be merged"
        if unit.type == "ordnance":
            return f"{unit.name} is Ordnance; only Infantry units may be merged"
        return None

    def join_problem(self, hero: KnownResult, target: KnownResult) -> str | None:
        if reason := not_a_hero(hero):
            return reason
        if target.unit.is_hero or target.unit.type == "ordnance":
            return f"{hero.label} cannot join {target.label}: Heroes and Wizards join Infantry units only"
        hero_q, unit_q = hero.unit.stats.get("quality"), target.unit.stats.get("quality")
        if hero_q != unit_q:
            return (
                f"{hero.label} is Quality {hero_q}+ and {target.label} is Quality {unit_q}+; "
                "a hero joins only a unit of the same Quality"
            )
        return None

    def join_facts(self, result: KnownResult) -> Hashable:
        return result.unit.is_hero, result.unit.type, result.unit.stats.get("quality")


POLICY = OnePageFantasy()
