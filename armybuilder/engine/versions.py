"""Moving a list from one version of its army book to another.

A list keeps the version of its book it was built on until its player moves it on.
`carry_entries` takes the list's entries over to the other version:

- an entry whose unit that version no longer has is removed, saying why;
- a picked option the unit is still offered under its id is kept as it is;
- a picked option whose id the new version does not offer the unit is looked for on
  the same unit, as Army Forge gives an option a new id when it regroups sections
  ("Beast Companion" moving from "Upgrade with" to "Upgrade with one"): the option of
  the same label (whitespace and case folded); when no label or several match, the one
  of the same gains; when several are still left, the one in the section of the same
  label. Found, its picks are carried over (**moved**), as many as the new section
  allows beside what the entry already takes, saying what was cut and why in the
  validator's words; not found, it is dropped, saying why.

Everything else is kept as it was: what then breaks the rules, the validation of the
moved list says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from armybuilder.engine.book import Book, Gain, Option, Section, Unit
from armybuilder.engine.choices import refused_picks
from armybuilder.engine.loadout import UNKNOWN_EXAMPLES


@dataclass(frozen=True, slots=True)
class Dropped:
    option: str
    label: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {"option": self.option, "label": self.label, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Moved:
    """A picked option the new version offers the unit under another id: `option` and
    `label` as the list took it, `to` and `to_label` in the new version, the labels of
    the sections holding it on each side, its price a pick for the unit on each side,
    the picks before and after, and why fewer were carried when some were cut."""

    option: str
    to: str
    label: str
    to_label: str
    section: tuple[str, str]
    cost: tuple[int, int]
    picks: tuple[int, int]
    cut: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "option": self.option,
            "to": self.to,
            "label": self.label,
            "to_label": self.to_label,
            "section": list(self.section),
            "cost": list(self.cost),
            "picks": list(self.picks),
        }
        if self.cut:
            out["cut"] = self.cut
        return out


@dataclass(slots=True)
class Carried:
    """What became of one entry."""

    id: str
    unit: str  # the unit's name (in the version it was built on)
    removed: bool = False
    reason: str = ""  # why it was removed
    dropped: list[Dropped] = field(default_factory=list)
    moved: list[Moved] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def carry_entries(
    entries: Sequence[Mapping[str, Any]], old: Book, new: Book
) -> tuple[list[dict[str, Any]], list[Carried]]:
    """The entries as they are in book version `new` (armylist/1 entries), and what became
    of each of the entries given, in their order."""
    kept: list[dict[str, Any]] = []
    carried: list[Carried] = []
    offered: set[tuple[str, str]] | None = None  # every option id and label of the new version, when needed
    for entry in entries:
        old_unit, new_unit = old.units.get(entry["unit"]), new.units.get(entry["unit"])
        report = Carried(entry["id"], old_unit.name if old_unit else entry["unit"])
        carried.append(report)
        if new_unit is None:
            report.removed = True
            report.reason = f"{new.name} {new.version} has no {report.unit} any more"
            continue
        options: dict[str, int] = {}
        homeless: list[tuple[str, int]] = []  # picked options the unit is not offered under their id
        for option_id, picks in (entry.get("options") or {}).items():
            if option_id in new_unit.options:
                options[option_id] = options.get(option_id, 0) + picks
            elif picks:
                homeless.append((option_id, picks))
        copies = 2 if entry.get("combined") else 1
        named = 0  # ids that the old version did not offer the unit either, each named
        never: list[str] = []  # those past the first few: a stored list may hold any number
        for option_id, picks in homeless:
            placed = old_unit.options.get(option_id) if old_unit else None
            if placed is None:
                if named >= UNKNOWN_EXAMPLES:
                    never.append(option_id)
                    continue
                named += 1
            label = placed[1].label if placed else option_id
            home, reason = _new_home(placed, new_unit, new) if placed else (None, "")
            if home is None:
                if not reason:
                    if offered is None:
                        offered = {key for unit in new.units.values() for key in _offered(unit)}
                    if ("id", option_id) in offered or ("label", _folded(label)) in offered:
                        reason = f"{new_unit.name} can no longer take {label} in {new.version}"
                    else:
                        reason = f"{new.name} {new.version} has no {label} any more"
                report.dropped.append(Dropped(option_id, label, reason))
                continue
            assert placed is not None and old_unit is not None
            taken, cut = _room(new_unit, options, home, picks, copies)
            if not taken:
                words = f'{new.name} {new.version} moved it to "{home[0].label}", which has no room left for it: {cut}'
                report.dropped.append(Dropped(option_id, label, words))
                continue
            options[home[1].id] = options.get(home[1].id, 0) + taken
            report.moved.append(
                Moved(
                    option=option_id,
                    to=home[1].id,
                    label=label,
                    to_label=home[1].label,
                    section=(placed[0].label, home[0].label),
                    cost=(placed[1].cost_for(old_unit.id), home[1].cost_for(new_unit.id)),
                    picks=(picks, taken),
                    cut=f"{picks - taken} of its {picks} picks cut: {cut}" if cut else "",
                )
            )
        if never:
            report.dropped.append(_never_offered(never, report.unit, old, new))
        kept.append({**entry, "options": options})
    gone = {report.id: report.unit for report in carried if report.removed}
    for entry, report in zip(kept, (r for r in carried if not r.removed), strict=True):
        if entry.get("joined_to") in gone:
            report.notes.append(f"no longer joined to {gone[entry['joined_to']]}, which is gone")
            entry["joined_to"] = None
    return kept, carried


def _never_offered(ids: Sequence[str], unit: str, old: Book, new: Book) -> Dropped:
    """One report for the options dropped past the first few that neither version offers
    the unit: named by the first of them, with how many there are."""
    return Dropped(
        ids[0],
        f"{len(ids):,} more options",
        f"neither {old.name} {old.version} nor {new.version} offers them to {unit}",
    )


def _new_home(placed: tuple[Section, Option], unit: Unit, new: Book) -> tuple[tuple[Section, Option] | None, str]:
    """The option of `unit` in the new version that the old one `placed` became, and why
    there is none when several are as good (empty when there is simply none)."""
    old_section, old_option = placed
    candidates = list(unit.options.values())
    named = [c for c in candidates if _folded(c[1].label) == _folded(old_option.label)]
    if len(named) == 1:
        return named[0], ""
    gains = _gains_key(old_option.gains)
    same = [c for c in (named or candidates) if gains and _gains_key(c[1].gains) == gains]
    if len(same) == 1:
        return same[0], ""
    tied = same or named
    placed_alike = [c for c in tied if _folded(c[0].label) == _folded(old_section.label)]
    if len(placed_alike) == 1:
        return placed_alike[0], ""
    if not tied:
        return None, ""
    sections = ", ".join(f'"{section.label}"' for section, _ in tied)
    return None, f"{unit.name} may take {old_option.label} in more than one place in {new.version} ({sections})"


def _room(
    unit: Unit, options: Mapping[str, int], home: tuple[Section, Option], picks: int, copies: int
) -> tuple[int, str]:
    """How many of `picks` of the option `home` the unit's sections allow beside the
    `options` it already takes, and, when fewer, why not one more (the validator's words
    for it)."""
    option_id = home[1].id
    have = options.get(option_id, 0)
    why = ""
    for taken in range(picks, 0, -1):
        refused = refused_picks(unit, options, {**options, option_id: have + taken}, copies=copies)
        if not refused:
            return taken, why
        why = refused[0]
    return 0, why


def _offered(unit: Unit) -> set[tuple[str, str]]:
    """The ids and the folded labels of the options a unit is offered."""
    return {*(("id", o) for o in unit.options), *(("label", _folded(o.label)) for _, o in unit.options.values())}


def _folded(label: str) -> str:
    return " ".join(label.split()).casefold()


def _gains_key(gains: tuple[Gain, ...]) -> list[str]:
    """What an option gives, as a sorted list that is equal for the same gains in any order."""
    return sorted(
        repr((g.kind, g.name, g.rules, g.weapons, g.mount, sorted((g.stats or {}).items()), g.count)) for g in gains
    )
