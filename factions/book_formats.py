"""Army-book formats the importer reads. Today: armybook/1 only (taken as it is)."""

from __future__ import annotations

from typing import Any


def to_armybook(data: Any, *, system: str | None = None) -> Any:
    """The document as armybook/1. `system` forces the ruleset where a format leaves it
    open. Anything not recognised is passed on for the armybook/1 checks to report."""
    return data
