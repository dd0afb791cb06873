"""An `armylist/1` list as the engine sees it. The shape is checked before it gets here
(the API's serializer); ids that name nothing in the book are the engine's business."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Entry:  # not frozen: made once per entry per validation, and frozen is slower
    id: str
    unit: str
    options: Mapping[str, int] = field(default_factory=dict)
    combined: bool = False
    joined_to: str | None = None
    name: str | None = None

    @property
    def copies(self) -> int:
        return 2 if self.combined else 1


@dataclass(frozen=True, slots=True)
class ArmyList:
    system: str
    faction: str
    points_limit: int | None
    entries: tuple[Entry, ...]
    force_org: bool = True
    name: str = ""


def list_from_dict(data: Mapping[str, Any]) -> ArmyList:
    return ArmyList(
        system=data["system"],
        faction=data["faction"],
        points_limit=data.get("points_limit"),
        force_org=data.get("force_org", True),
        name=data.get("name", ""),
        entries=tuple(
            Entry(
                id=e["id"],
                unit=e["unit"],
                options=dict(e.get("options") or {}),
                combined=bool(e.get("combined", False)),
                joined_to=e.get("joined_to"),
                name=e.get("name"),
            )
            for e in data.get("entries", ())
        ),
    )
