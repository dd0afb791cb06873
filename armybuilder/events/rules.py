"""An event pack's rules as the engine reads them, and as the pack's page says them.

`event_rules` turns a pack into the engine's `EventRules` (engine/events.py), `pack_stamp`
is a hash of everything in it that validation depends on (stored validations of lists
and submissions entered for the pack are kept under it), and `rule_lines` says every rule
a list entered for the pack must keep, in plain words, each with where it comes from:
the rulebook's section, or the event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from armybuilder.engine import Book, RulesetSpec
from armybuilder.engine.book import Limit
from armybuilder.engine.events import Ban, Cap, EventRules
from armybuilder.engine.limit_kinds import describe_limit
from armybuilder.events.models import EventPack
from armybuilder.stamps import content_hash

RULE_FIELDS = ("factions", "limit_changes", "limits_removed", "limits_added", "bans", "caps")
# Which versions of their army books an event's lists may use (EventPack.books): each
# book's current one (a list on an older one has the issue event_book_version), or any
# version the book holds.
BOOKS_RULES = ("current", "any")
EVENT_SOURCE = "event rule"


def event_rules(pack: EventPack) -> EventRules:
    """The pack as the engine checks lists against it (load with its ruleset)."""
    return EventRules(
        name=pack.name,
        ruleset=pack.ruleset.slug,
        ruleset_title=pack.ruleset.title,
        points=pack.points_limit,
        changes=dict(pack.limit_changes),
        removed=tuple(pack.limits_removed),
        added=tuple(
            Limit(
                code=row["code"],
                kind=row["kind"],
                params=row["params"],
                severity=row.get("severity", "error"),
                section=row.get("section", EVENT_SOURCE),
            )
            for row in pack.limits_added
        ),
        factions=tuple(pack.factions),
        bans=tuple(Ban(ban["faction"], unit=ban.get("unit", ""), option=ban.get("option", "")) for ban in pack.bans),
        caps=tuple(Cap(cap["faction"], cap["unit"], cap["max"]) for cap in pack.caps),
    )


def pack_stamp(pack: EventPack) -> str:
    """A hash of what validation against the pack depends on (not its description or
    deadline): a new one whenever its rules change, however they were changed."""
    rules = {field: getattr(pack, field) for field in RULE_FIELDS}
    what = {"name": pack.name, "ruleset": pack.ruleset_id, "points": pack.points_limit, "books": pack.books}
    return content_hash({**what, **rules})


@dataclass(frozen=True, slots=True)
class RuleLine:
    """One rule of an event, in words, and where a player reads it up."""

    text: str
    source: str  # "rulebook: Force Organisation", or "event rule"
    changed: str = ""  # for a rule the event changed or dropped: what the rulebook says, and where


def rule_lines(pack: EventPack, ruleset: RulesetSpec, books: dict[str, Book]) -> list[RuleLine]:
    """Every list-building rule of the pack, in plain words. `ruleset` is the engine's
    ruleset of the pack (its rows as the rulebook or the variant has them) and `books`
    the army books a list may use, by slug (for the names of banned and capped units)."""
    lines = [RuleLine(_points_words(pack), EVENT_SOURCE)] if pack.points_limit is not None else []
    for limit in ruleset.limits:
        said = describe_limit(limit.kind, dict(limit.params))
        source = f"{'rulebook' if ruleset.family == ruleset.slug else ruleset.title}: {limit.section}"
        if limit.code in pack.limits_removed:
            lines.append(RuleLine(f"Not used: {said}", EVENT_SOURCE, changed=f"{said} ({source})"))
        elif limit.code in pack.limit_changes:
            params = {**limit.params, **pack.limit_changes[limit.code]}
            lines.append(RuleLine(describe_limit(limit.kind, params), EVENT_SOURCE, changed=f"{said} ({source})"))
        else:
            lines.append(RuleLine(said, source))
    lines += [RuleLine(describe_limit(row["kind"], row["params"]), EVENT_SOURCE) for row in pack.limits_added]
    if pack.factions:
        names = ", ".join(_book_name(books, slug) for slug in pack.factions)
        lines.append(RuleLine(f"Only these armies may enter: {names}", EVENT_SOURCE))
    lines += [RuleLine(ban_words(ban, books), EVENT_SOURCE) for ban in pack.bans]
    lines += [RuleLine(cap_words(cap, books), EVENT_SOURCE) for cap in pack.caps]
    lines.append(RuleLine(BOOKS_WORDS[pack.books], EVENT_SOURCE))
    return lines


BOOKS_WORDS = {
    "current": "Army books: each list uses its book's current version (update a list built on an older one)",
    "any": "Army books: players keep the version of their book they built the list on",
}


def ban_words(ban: dict[str, Any], books: dict[str, Book]) -> str:
    """A ban in words, the unit or upgrade by its name in the army's book."""
    return f"Not allowed: {_banned_name(books, ban)}"


def cap_words(cap: dict[str, Any], books: dict[str, Book]) -> str:
    unit = _unit_name(books, cap["faction"], cap["unit"])
    return f"At most {cap['max']} {unit} ({_book_name(books, cap['faction'])})"


def _points_words(pack: EventPack) -> str:
    return f"Armies of {pack.points_limit} pts"


def _book_name(books: dict[str, Book], slug: str) -> str:
    book = books.get(slug)
    return book.name if book else slug


def _unit_name(books: dict[str, Book], faction: str, unit_id: str) -> str:
    book = books.get(faction)
    unit = book.units.get(unit_id) if book else None
    return unit.name if unit else unit_id


def _banned_name(books: dict[str, Book], ban: dict[str, Any]) -> str:
    army = _book_name(books, ban["faction"])
    if ban.get("unit"):
        return f"{_unit_name(books, ban['faction'], ban['unit'])} ({army})"
    book = books.get(ban["faction"])
    option = ban["option"]
    for unit in book.units.values() if book else ():
        if option in unit.options:
            return f'the upgrade "{unit.options[option][1].label}" ({army})'
    return f'the upgrade "{option}" ({army})'
