"""Army books in the site: what changed from one version of a book to another, for a
player deciding whether to move a list on, or an organiser choosing the version an event
plays. The changes are factions/changes.py's (the same as the API's); this module only
lays them out as rows a page shows side by side: what it was, what it is."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from factions.changes import changes_summary
from factions.models import Faction
from factions.selectors import (
    VersionNotHeld,
    book_changes_get,
    book_version_document,
    book_versions,
    faction_get,
)

# How each changed thing is named in a row, in the order rows show them.
ASPECTS = {
    "name": "Name",
    "type": "Type",
    "cost": "Cost",
    "size": "Models",
    "quality": "Quality",
    "defense": "Defense",
    "rules": "Rules",
    "equipment": "Weapons",
    "items": "Items",
    "upgrades": "Upgrades taken",
    "label": "Label",
    "gains": "Gives",
    "command": "Command group",
    "section": "Section",
    "section_id": "Section id",
    "rated": "Takes a value",
    "text": "Text",
    "variant": "Kind",
    "targets": "Replaces",
    "affects": "Each pick covers",
    "select": "Picks",
    "optional": "May be left out",
    "package": "Package",
}
SKIPPED = {"section_id"}  # named by `section` already
NONE = "—"
NO_TEXT = "Army Forge's core rule (its text is not in this book)"


@dataclass(frozen=True, slots=True)
class Row:
    """One line of a table: the thing (on its first line only), what of it, before, after."""

    thing: str
    aspect: str
    before: str
    after: str
    first: bool = True
    kind: str = "changed"  # changed | added | removed


@require_GET
def book_changes(request: HttpRequest, system: str, faction: str) -> HttpResponse:
    """What changed in a book from one version it holds to another (default: to the current one)."""
    book = faction_get(system=system, slug=faction)
    versions = list(book_versions(faction=book))
    old, new = _versions_asked(request, book, [v.version for v in versions])
    context = {"book": book, "versions": versions, "old": old, "new": new, "error": ""}
    try:
        changes = book_changes_get(faction=book, old=old, new=new)
    except VersionNotHeld as exc:
        return render(request, "books/changes.html", {**context, "error": str(exc)}, status=400)
    return render(request, "books/changes.html", {**context, **changes_context(book, changes, old, new)})


def _versions_asked(request: HttpRequest, book: Faction, held: list[str]) -> tuple[str, str]:
    """The versions compared: `from` (default: the one before the current one) and `to`
    (default: the current one)."""
    new = request.GET.get("to") or book.version
    older = [version for version in held if version != new]  # newest first
    return request.GET.get("from") or (older[0] if older else new), new


def changes_context(book: Faction, changes: Mapping[str, Any], old: str, new: str) -> dict[str, Any]:
    names = _unit_names(book, old, new)
    return {
        "summary": changes_summary(changes),
        "headline": headline(changes_summary(changes)),
        "units": list(_unit_rows(changes["units"])),
        "options": list(_option_rows(changes["options"], names)),
        "rules": list(_text_rows(changes["rules"])),
        "core_rules": list(_core_rows(changes.get("core_rules") or {})),
        "armyforge_rules": changes.get("armyforge_rules") or {},
        "spells": list(_spell_rows(changes["spells"])),
        "sections": list(_rows(changes.get("sections", {}).get("changed", []), "label", names)),
    }


def headline(summary: Mapping[str, Any]) -> str:
    """The changes in a sentence: "3 units cost more, 1 less; 2 options removed; …"."""
    if summary["unchanged"]:
        return "Nothing that lists use changed."
    units, options = summary["units"], summary["options"]
    parts = []
    if units["cost_up"] or units["cost_down"]:
        parts.append(f"{_count(units['cost_up'], 'unit')} cost more, {units['cost_down']} less")
    for what, counts in (("unit", units), ("option", options)):
        for kind in ("added", "removed"):
            if counts[kind]:
                parts.append(f"{_count(counts[kind], what)} {kind}")
    other = units["changed"] - units["cost_changed"]
    if other:
        parts.append(f"{_count(other, 'unit')} changed otherwise")
    if options["changed"]:
        parts.append(f"{_count(options['changed'], 'option')} changed")
    for what, one, many in (
        ("rules", "rule", "rules"),
        ("core_rules", "core rule", "core rules"),
        ("spells", "spell", "spells"),
    ):
        count = sum(summary.get(what, {}).get(kind, 0) for kind in ("added", "removed", "changed"))
        if count:
            parts.append(f"{count} {one if count == 1 else many} changed")
    if summary["sections"]["changed"]:
        parts.append(f"{_count(summary['sections']['changed'], 'upgrade section')} changed")
    return "; ".join(parts) + "."


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _unit_names(book: Faction, *versions: str) -> dict[str, str]:
    """Unit id -> name in either version (per-unit option costs name units by id)."""
    names: dict[str, str] = {}
    for version in versions:
        document = book_version_document(faction=book, version=version) or {"units": []}
        names.update({unit["id"]: unit["name"] for unit in document["units"]})
    return names


def _unit_rows(units: Mapping[str, Any]) -> Iterator[Row]:
    yield from _rows(units["changed"], "name")
    for unit in units["added"]:
        yield Row(unit["name"], "New unit", NONE, _points(unit["cost"]), kind="added")
    for unit in units["removed"]:
        yield Row(unit["name"], "Unit removed", _points(unit["cost"]), NONE, kind="removed")


def _option_rows(options: Mapping[str, Any], names: Mapping[str, str]) -> Iterator[Row]:
    for option in options["changed"]:
        label = f"{option['label']} ({_section_name(option['section'])})"
        yield from _rows([{**option, "label": label}], "label", names)
    for option in options["added"]:
        label = f"{option['label']} ({option['section']})"
        yield Row(label, "New option", NONE, _points(option["cost"]), kind="added")
    for option in options["removed"]:
        label = f"{option['label']} ({option['section']})"
        yield Row(label, "Option removed", _points(option["cost"]), NONE, kind="removed")


def _section_name(section: Any) -> str:
    return section[1] if isinstance(section, list) else section


def _text_rows(rules: Mapping[str, Any]) -> Iterator[Row]:
    yield from _rows(rules["changed"], "name")
    for rule in rules["added"]:
        yield Row(rule["name"], "New rule", NONE, rule["text"], kind="added")
    for rule in rules["removed"]:
        yield Row(rule["name"], "Rule removed", rule["text"], NONE, kind="removed")


def _core_rows(rules: Mapping[str, Any]) -> Iterator[Row]:
    """The core rules the book names: a text changed, a rule newly named or no longer
    named, and a rule that moved between the book's own rules and the core rules (its
    `book_text` is what the book says of it on the other side)."""
    yield from _rows(rules.get("changed", []), "name")
    for rule in rules.get("added", []):
        was_own = "book_text" in rule
        what = "Now a core rule (was the book's own)" if was_own else "Core rule newly named"
        yield Row(rule["name"], what, rule.get("book_text") or NONE, rule["text"] or NO_TEXT, kind="added")
    for rule in rules.get("removed", []):
        now_own = "book_text" in rule
        what = "Now the book's own rule" if now_own else "Core rule no longer named"
        yield Row(rule["name"], what, rule["text"] or NO_TEXT, rule.get("book_text") or NONE, kind="removed")


def _spell_rows(spells: Mapping[str, Any]) -> Iterator[Row]:
    yield from _rows(spells["changed"], "name")
    for spell in spells["added"]:
        yield Row(f"{spell['name']} ({spell['cost']})", "New spell", NONE, spell["text"], kind="added")
    for spell in spells["removed"]:
        yield Row(f"{spell['name']} ({spell['cost']})", "Spell removed", spell["text"], NONE, kind="removed")


def _rows(things: list[Mapping[str, Any]], title: str, names: Mapping[str, str] | None = None) -> Iterator[Row]:
    """A row per changed aspect of each thing, its name on the first (a changed rule or
    spell holds its changes beside its name, the rest under `changes`)."""
    for thing in things:
        first = True
        changes = thing.get("changes") or {k: v for k, v in thing.items() if k != "name"}
        for aspect, change in changes.items():
            if aspect in SKIPPED:
                continue
            for label, before, after in _aspect(aspect, change, names or {}):
                yield Row(thing[title], label, before, after, first)
                first = False


def _aspect(aspect: str, change: Any, names: Mapping[str, str]) -> Iterator[tuple[str, str, str]]:
    label = ASPECTS.get(aspect, aspect.replace("_", " ").capitalize())
    if aspect == "costs":  # per unit: {unit id: [old, new]}
        for unit, (old, new) in change.items():
            yield f"Cost for {names.get(unit, unit)}", _points(old), _points(new, old)
    elif aspect == "units":  # the units that take an option in one version only
        for unit in change.get("added", []):
            yield f"Added to {unit['name']}", NONE, _points(unit["cost"])
        for unit in change.get("removed", []):
            yield f"Removed from {unit['name']}", _points(unit["cost"]), NONE
    elif isinstance(change, dict):  # {"added": [...], "removed": [...]}
        yield label, ", ".join(change.get("removed", [])) or NONE, ", ".join(change.get("added", [])) or NONE
    elif aspect == "cost":
        yield label, _points(change[0]), _points(change[1], change[0])
    elif aspect in ("quality", "defense"):
        yield label, _plus(change[0]), _plus(change[1])
    else:
        yield label, _plain(change[0]), _plain(change[1])


def _points(value: int | None, before: int | None = None) -> str:
    if value is None:
        return NONE
    if before is None or before == value:
        return f"{value} pts"
    return f"{value} pts ({value - before:+d})".replace("-", "−")


def _plus(value: Any) -> str:
    return f"{value}+" if isinstance(value, int) else _plain(value)


def _plain(value: Any) -> str:
    if value is None:
        return NONE
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(_plain(v) for v in value) or NONE
    return str(value)
