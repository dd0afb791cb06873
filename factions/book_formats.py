"""Army-book formats the importer reads: armybook/1 (taken as it is) and Army Forge's
army-book JSON (converted, see factions/armyforge.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from factions import armyforge
from factions.armybook import ArmyBookError, Problem
from factions.selectors import armyforge_rules_get, faction_by_armyforge_id, ruleset_infos


@dataclass
class Converted:
    """A document read as armybook/1, with what reading it found: `errors` stop the
    import (the armybook/1 checks still run on `book`, so that one answer names them
    all), `warnings` do not."""

    book: Any
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def to_armybook(data: Any, *, system: str | None = None) -> Converted:
    """The document as armybook/1. `system` forces the ruleset where a format leaves it
    open (an Army Forge book enabled for several rulesets); for a book that names its
    ruleset it must agree. Anything not recognised is passed on for the armybook/1
    checks to report."""
    if armyforge.is_armyforge_book(data):

        def existing_slug(ruleset: str, uid: str) -> str | None:
            faction = faction_by_armyforge_id(system=ruleset, armyforge_id=uid)
            return faction.slug if faction else None

        def core_rules(ruleset: str) -> armyforge.HeldCoreRules | None:
            held = armyforge_rules_get(system=ruleset)
            if held is None:
                return None
            return armyforge.HeldCoreRules(held.version, {rule["name"]: rule["text"] for rule in held.rules})

        result = armyforge.armybook_from_armyforge(
            data, rulesets=ruleset_infos(), system=system, existing_slug=existing_slug, core_rules=core_rules
        )
        return Converted(result.book, result.errors, result.warnings)
    if system is not None and isinstance(data, dict) and "system" in data and data["system"] != system:
        raise ArmyBookError([Problem("system", f'the book is for "{data["system"]}", not "{system}"')])
    return Converted(data)
