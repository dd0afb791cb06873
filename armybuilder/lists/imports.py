"""List formats the list import reads. Today: armylist/1 only (taken as it is)."""

from __future__ import annotations

from typing import Any


def to_armylist(data: Any) -> Any:
    """The document as an armylist/1 list; anything not recognised is passed on for the
    armylist/1 checks to report."""
    return data
