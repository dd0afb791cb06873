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
    """One entry as validated, with where it prints: who it has joined and who has
    joined it (decided once here, in `validate.py _arrange`, for every page and
    printout), and its place in print order."""

    entry: Entry
    unit: Unit | None
    loadout: Loadout | None
    errors: int = 0
    cost: int = field(init=False)
    models: int = field(init=False)
    # Set by the validator (so that dataclasses.replace keeps them, they are arguments):
    joined: str | None = None  # the entry it has joined (another of the list)
    joined_by: tuple[str, ...] = ()  # the entries that have joined it, in list order
    leader: str | None = None  # the unit it prints with: `joined`, when that one has joined none
    place: int = 0  # its position in print order, from 0

    @property
    def heroes(self) -> tuple[str, ...]:
        """The entries printed with it (on its card, in its box): those that joined it,
        when it has itself joined none."""
        return self.joined_by if self.joined is None else ()

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

    @property
    def in_print_order(self) -> list[EntryResult]:
        """The entries in print order: each unit, then the heroes that joined it (and
        any that joined them), in list order; an entry joined in a loop in list order."""
        return sorted(self.entries, key=lambda result: result.place)

    @property
    def activations(self) -> int:
        """The units that act on their own: every entry but those that joined another."""
        return sum(1 for result in self.entries if result.joined is None)

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
