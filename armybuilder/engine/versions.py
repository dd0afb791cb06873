"""Moving a list from one version of its army book to another.

A list keeps the version of its book it was built on until its player moves it on.
`carry_entries` takes the list's entries over to the other version: an entry whose unit
that version no longer has is removed, a picked option it no longer offers the unit is
dropped, and each says why; everything else is kept as it was (what then breaks the
rules, the validation of the moved list says).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from armybuilder.engine.book import Book


@dataclass(frozen=True, slots=True)
class Dropped:
    option: str
    label: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {"option": self.option, "label": self.label, "reason": self.reason}


@dataclass(slots=True)
class Carried:
    """What became of one entry."""

    id: str
    unit: str  # the unit's name (in the version it was built on)
    removed: bool = False
    reason: str = ""  # why it was removed
    dropped: list[Dropped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def carry_entries(
    entries: Sequence[Mapping[str, Any]], old: Book, new: Book
) -> tuple[list[dict[str, Any]], list[Carried]]:
    """The entries as they are in book version `new` (armylist/1 entries), and what became
    of each of the entries given, in their order."""
    kept: list[dict[str, Any]] = []
    carried: list[Carried] = []
    offered: set[str] | None = None  # every option id of the new version, worked out when needed
    for entry in entries:
        old_unit, new_unit = old.units.get(entry["unit"]), new.units.get(entry["unit"])
        report = Carried(entry["id"], old_unit.name if old_unit else entry["unit"])
        carried.append(report)
        if new_unit is None:
            report.removed = True
            report.reason = f"{new.name} {new.version} has no {report.unit} any more"
            continue
        options: dict[str, int] = {}
        for option_id, picks in (entry.get("options") or {}).items():
            if option_id in new_unit.options:
                options[option_id] = picks
                continue
            if not picks:
                continue
            if offered is None:
                offered = {option for unit in new.units.values() for option in unit.options}
            label = _label(old, entry["unit"], option_id)
            if option_id in offered:
                reason = f"{new_unit.name} can no longer take {label} in {new.version}"
            else:
                reason = f"{new.name} {new.version} has no {label} any more"
            report.dropped.append(Dropped(option_id, label, reason))
        kept.append({**entry, "options": options})
    gone = {report.id: report.unit for report in carried if report.removed}
    for entry, report in zip(kept, (r for r in carried if not r.removed), strict=True):
        if entry.get("joined_to") in gone:
            report.notes.append(f"no longer joined to {gone[entry['joined_to']]}, which is gone")
            entry["joined_to"] = None
    return kept, carried


def _label(book: Book, unit_id: str, option_id: str) -> str:
    unit = book.units.get(unit_id)
    found = unit.options.get(option_id) if unit else None
    return found[1].label if found else option_id
