"""Reads about army lists: validating one (saved or not) against its ruleset."""

from __future__ import annotations

from typing import Any

from armybuilder.engine import Validation, list_from_dict, validate_list
from factions.selectors import engine_book_get


def army_list_validate(*, data: dict[str, Any]) -> Validation:
    """Validate a well-formed armylist/1 document (see ArmyListSerializer).

    One query when the army book is cached, a fixed handful when it is not; none per entry."""
    _faction, book, ruleset = engine_book_get(system=data["system"], slug=data["faction"])
    return validate_list(book, ruleset, list_from_dict(data))
