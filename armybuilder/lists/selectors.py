"""Reads about army lists: validating one (saved or not) against its ruleset."""

from __future__ import annotations

from typing import Any

from armybuilder.engine import Validation, list_from_dict, validate_list
from factions.selectors import BookHandle, engine_book_get


def army_list_validate(*, data: dict[str, Any], handle: BookHandle | None = None) -> Validation:
    """Validate a well-formed armylist/1 document (see parse_list_body).

    No query when the caller has the book's handle and the book is cached, one without
    the handle, a fixed handful more when the book must be built; none per entry."""
    book, ruleset = engine_book_get(system=data["system"], slug=data["faction"], handle=handle)
    return validate_list(book, ruleset, list_from_dict(data))
