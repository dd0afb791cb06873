"""What validating a list gives: an issue per problem, a result per entry, and the
context the checks share while they run. Kept apart from validate.py so that the
ruleset modules and the limit checks can use these types without importing the
validator (which imports them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from armybuilder.engine.book import Book, RulesetSpec, Unit
from armybuilder.engine.lists import ArmyList, Entry
from armybuilder.engine.loadout import Loadout

ERROR = "error"
WARNING = "warning"


@dataclass(slots=True)
class Issue:
    code: str
    severity: str
    message: str
    entry: str | None
    rule: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "entry": self.entry,
            "rule": self.rule,
        }


@dataclass(slots=True)
class EntryResult:
    entry: Entry
    unit: Unit | None
    loadout: Loadout | None
    errors: int = 0
    cost: int = field(init=False)
    models: int = field(init=False)

    def __post_init__(self) -> None:
        self.cost = self.loadout.cost if self.loadout else 0
        self.models = self.loadout.models if self.loadout else 0

    @property
    def label(self) -> str:
        if self.entry.name:
            return self.entry.name
        return self.unit.name if self.unit else self.entry.unit

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.entry.id, "cost": self.cost, "models": self.models, "errors": self.errors}


@dataclass(slots=True)
class KnownResult(EntryResult):
    """The result of an entry whose unit is in the book: it has a unit and a loadout. The
    checks past the first (limits, joining, combining) work on these only."""

    unit: Unit
    loadout: Loadout


@dataclass(slots=True)
class Validation:
    valid: bool
    total_points: int
    points_limit: int | None
    entries: list[EntryResult]
    issues: list[Issue]

    def as_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "total_points": self.total_points,
            "points_limit": self.points_limit,
            "entries": [e.as_dict() for e in self.entries],
            "issues": [i.as_dict() for i in self.issues],
        }


@dataclass(slots=True)
class Context:
    """What the checks share while one list is validated."""

    army: ArmyList
    book: Book
    ruleset: RulesetSpec
    entries: list[EntryResult]
    issues: list[Issue] = field(default_factory=list)
    known: list[KnownResult] = field(default_factory=list)  # entries whose unit is in the book
    total: int = 0

    def add(
        self,
        code: str,
        message: str,
        *,
        section: str,
        entry: str | None = None,
        severity: str = ERROR,
        event: str = "",
    ) -> None:
        """An issue citing the rulebook's `section`, or, for a rule an event set, the event."""
        if event:
            self.issues.append(Issue(code, severity, f"Event rule: {message}", entry, f"{event} — event rule"))
        else:
            self.issues.append(Issue(code, severity, message, entry, self.ruleset.cite(section)))
