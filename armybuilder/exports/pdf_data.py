"""What the list PDFs show, as plain data: a list's `Printout` and an event's
`EventPrintout`, which armybuilder/printouts.py loads in one go before any drawing
starts, and what the renderers work out from them. No queries here.

What a player typed is printed at most so long (`NAME_CHARS`, `ISSUE_CHARS`), cut short
with "…": the work of drawing a list is bounded by its number of entries.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from armybuilder.engine import Validation
from armybuilder.engine.book import Rule
from armybuilder.engine.meanings import NONE, core_rules_source, rule_meaning
from armybuilder.lists.selectors import ListState
from armybuilder.memo import memoize

SPELL_RULES = ("Caster", "Wizard")  # units with these rules cast the faction's spells
AURA = " Aura"  # "Hit & Run Shooter Aura" gives the unit Hit & Run Shooter
NAME_CHARS = 80  # the longest name a printout shows (lists and entries take 200, players 150)
ISSUE_CHARS = 240  # the longest issue message it shows (one naming an entry and an option id)
CoreRuleRow = tuple[str, bool, str, str]  # name, rated, section, summary


@dataclass(frozen=True, slots=True)
class RuleText:
    name: str
    rated: bool
    text: str  # "" when nothing explains it
    source: str  # where a player looks it up: "Age of Fantasy 3.2.0 — Special Rules"
    origin: str = NONE  # engine/meanings.py: the army book's, Army Forge's core rules, the ruleset's, or none


@dataclass(frozen=True, slots=True)
class Printout:
    """A saved list with everything its cards, roster and reference print."""

    list_name: str
    notes: str
    system: str
    family: str  # the game it plays (a variant's base)
    ruleset_title: str
    uses_points: bool
    faction_name: str
    book_version: str  # the version the list was saved with
    current_book_version: str | None  # None when the book is gone from the catalogue
    validation: Validation
    spells: tuple[tuple[str, int, str], ...]  # (name, cost, text)
    rules: Mapping[str, RuleText]  # core and faction rules, by name
    share_url: str  # "" for a submission's frozen copy, which has no page of its own (no QR code)

    @property
    def title(self) -> str:
        return self.list_name or "Unnamed list"

    @property
    def book_changed(self) -> bool:
        return self.current_book_version is not None and self.current_book_version != self.book_version


def printout_of(state: ListState, *, core_rules: dict[str, list[CoreRuleRow]], share_url: str) -> Printout:
    """The printout of a list already loaded (a saved list, or a submission's frozen copy);
    `core_rules` as core_rules_get gives them, for the list's ruleset at least. No queries."""
    army_list = state.army_list
    title, faction_name = state.ruleset.title, state.faction_name
    ours = {
        name: (rated, summary, f"{title} — {section}")
        for name, rated, section, summary in core_rules.get(army_list.system, [])
    }
    book = state.book
    source = core_rules_source(book) if book else ""
    # Every rule the list may name: the ruleset's, and the book's own and those it names.
    names = dict.fromkeys([*ours, *(book.rules if book else ())])
    rules = {}
    for name in names:
        meaning = rule_meaning(name, book, ours, armyforge_source=source)
        rules[name] = RuleText(name, meaning.rated, meaning.text, meaning.source, meaning.origin)
    return Printout(
        list_name=shortened(army_list.name, NAME_CHARS),
        notes=army_list.notes,
        system=army_list.system,
        family=state.ruleset.family,
        ruleset_title=title,
        uses_points=state.ruleset.uses_points,
        faction_name=faction_name,
        book_version=army_list.book_version,
        current_book_version=state.current_book_version,
        validation=printed(state.validation),
        spells=tuple(state.book.spells if state.book else ()),
        rules=rules,
        share_url=share_url,
    )


def shortened(text: str, limit: int) -> str:
    """`text`, or its first characters and "…" to make `limit` characters."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def printed(validation: Validation) -> Validation:
    """A validation as the printouts show it: entry names cut to NAME_CHARS (in the
    messages of their own issues too) and messages to ISSUE_CHARS; the counts unchanged."""
    entries, names = [], {}
    for result in validation.entries:
        name = result.entry.name
        if name and len(name) > NAME_CHARS:
            names[result.entry.id] = (name, shortened(name, NAME_CHARS))
            result = replace(result, entry=replace(result.entry, name=names[result.entry.id][1]))
        entries.append(result)
    issues = []
    for issue in validation.issues:
        message = issue.message
        if issue.entry in names:
            message = message.replace(*names[issue.entry])
        issues.append(replace(issue, message=shortened(message, ISSUE_CHARS)))
    return replace(validation, entries=entries, issues=issues)


@dataclass(frozen=True, slots=True)
class SubmittedRoster:
    """One submission as an event's combined roster prints it."""

    player: str  # the name the player is shown by, never their username
    submitted_at: datetime  # in the site's time zone
    printout: Printout


@dataclass(frozen=True, slots=True)
class EventPrintout:
    """An event pack and the printout of every list submitted to it."""

    name: str
    ruleset_title: str
    uses_points: bool
    points_limit: int | None
    deadline: datetime  # in the site's time zone
    books_rule: str  # which versions of their army books the lists may use, in words
    submissions: tuple[SubmittedRoster, ...]


def rules_used(validation: Validation) -> dict[str, list[str]]:
    """Every special rule the list's units and weapons have, each with the ratings it is
    used at (empty for a rule without one), sorted by name."""
    used: dict[str, set[str]] = {}
    for result in validation.entries:
        if result.loadout is None:
            continue
        rules = list(result.loadout.every_rule)
        rules.extend(Rule.parse(text) for weapon in result.loadout.weapons for text in weapon.rules)
        for rule in rules:
            ratings = used.setdefault(rule.name, set())
            if rule.rating is not None:
                ratings.add(f"+{rule.rating}" if rule.adds else str(rule.rating))
    return {name: sorted(used[name], key=_rating_order) for name in sorted(used, key=str.casefold)}


def _rating_order(rating: str) -> tuple[bool, bool, int, str]:
    """Numbers first, by value ("+X" after plain ones), then text parameters as written."""
    number = rating.lstrip("+")
    if number.isdigit():
        return (False, rating.startswith("+"), int(number), "")
    return (True, False, 0, rating)


def casts_spells(rules: Sequence[Rule]) -> Rule | None:
    """The unit's Caster(X) or Wizard(X) rule, if it has one."""
    return next((rule for rule in rules if rule.name in SPELL_RULES), None)


def uses_spells(validation: Validation) -> bool:
    return any(result.loadout and casts_spells(result.loadout.every_rule) for result in validation.entries)


def rules_named(printout: Printout) -> dict[str, list[str]]:
    """Every rule of the list's units and weapons with its ratings (as rules_used gives
    them) and every rule they lead to (`rules_reached`), sorted by name; a rule reached
    only through a text has no ratings."""
    used = rules_used(printout.validation)
    spells = uses_spells(printout.validation)
    for name in rules_reached(printout, list(used), spells=spells):
        used.setdefault(name, [])
    return {name: used[name] for name in sorted(used, key=str.casefold)}


def rules_reached(printout: Printout, names: list[str], *, spells: bool) -> list[str]:
    """`names` and every rule they lead to, so that a printout explains each rule it
    names: the rule an aura gives ("Hit & Run Shooter Aura" → Hit & Run Shooter), and the
    rules named in the text of a rule reached or (`spells`) of the faction's spells."""
    known = printout.rules
    pattern = _names_pattern(tuple(known))
    found = list(dict.fromkeys(names))
    seen = set(found)
    queue = list(found)

    def reach(name: str) -> None:
        if name not in seen and name in known:
            seen.add(name)
            found.append(name)
            queue.append(name)

    for _name, _cost, text in printout.spells if spells else ():
        for name in _named_in(text, pattern):
            reach(name)
    while queue:
        name = queue.pop(0)
        if name.endswith(AURA):
            reach(name.removesuffix(AURA))
        rule = known.get(name)
        if rule is not None and rule.source:
            for other in _named_in(rule.text, pattern):
                reach(other)
    return found


# Rule names that are also the game's plain words: a text saying "Defense" or "Quality"
# means the stat, not a rule named so.
PLAIN_WORDS = frozenset({"Defense", "Quality", "Attacks", "Wounds", "Morale", "Shaken", "Unique", "Hero", "Caster"})


@memoize("pdf: patterns of rule names", 64)
def _names_pattern(names: tuple[str, ...]) -> re.Pattern[str] | None:
    wanted = sorted((name for name in names if name and name not in PLAIN_WORDS), key=len, reverse=True)
    if not wanted:
        return None
    return re.compile(r"(?<![\w&])(" + "|".join(re.escape(name) for name in wanted) + r")(?![\w])")


def _named_in(text: str, pattern: re.Pattern[str] | None) -> list[str]:
    """The rule names a text uses, longest first where two overlap ("Quick Shot", not "Quick")."""
    return [match.group(1) for match in pattern.finditer(text)] if pattern is not None and text else []
