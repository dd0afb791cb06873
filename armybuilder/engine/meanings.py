"""What a special rule means, and where a player reads it: the one place every page and
printout asks.

A rule a unit, a weapon or an upgrade names is explained, in this order, by

1. the army book's own rules (its `rules` not marked core, which may redefine a core
   rule for that book);
2. the core rules of Army Forge's the book is written for (its rules marked core: the
   book's wording of them, or Army Forge's own as read with the book; see
   book-versions.md, "Core rules from Army Forge");
3. the ruleset's rulebook (our summaries, with their section);

and a rule none of them explains says so, once, in `NO_TEXT`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from armybuilder.engine.book import Book
from armybuilder.engine.rulesets import policy_or_default

BOOK, ARMYFORGE, RULESET, NONE = "book", "armyforge", "ruleset", "none"
# What the books imported before Army Forge's core rules were read (documents kept since)
# say of a rule they name without describing it: no text, read as a core rule of theirs.
LEGACY_NOTES = (
    "{name}: a rule from a newer rulebook than this site's; its text is not in this book.",
    "{name}: this Army Forge book uses the rule but does not describe it.",
)
NO_TEXT = "neither the army book, nor the core rules it is written for, nor this ruleset's rulebook has its text."


@dataclass(frozen=True, slots=True)
class RuleMeaning:
    name: str
    rated: bool
    text: str  # "" when nothing explains it
    source: str  # where a player reads it ("Wood Elves 3.5.2 army book"); "" when nothing explains it
    origin: str  # BOOK, ARMYFORGE, RULESET or NONE

    @property
    def explained(self) -> bool:
        return self.origin != NONE


def core_rules_source(book: Book) -> str:
    """Where a player reads the core rules of Army Forge's `book` was read with, as Army
    Forge names them: "Age of Fantasy core rules (Army Forge, 2026-11-29)"."""
    game = policy_or_default(book.system).game
    name = f"{game} core rules" if game else "Core rules"
    return f"{name} (Army Forge, {book.armyforge_rules})" if book.armyforge_rules else f"{name} (Army Forge)"


def is_legacy_note(name: str, text: str) -> bool:
    """Whether `text` is what an older import wrote in place of the text of `name`."""
    return any(text == note.format(name=name) for note in LEGACY_NOTES)


def rule_meaning(
    name: str,
    book: Book | None,
    ruleset_rules: Mapping[str, tuple[bool, str, str]],
    *,
    armyforge_source: str = "",
) -> RuleMeaning:
    """What `name` means for a list of `book`: the book's own rule, else the core rule of
    Army Forge's it names (read as `armyforge_source` says: "Age of Fantasy core rules,
    Army Forge, 2026-11-29"), else the ruleset's (`ruleset_rules`: name -> (rated, text,
    where to read it)), else NONE."""
    own = book.rules.get(name) if book is not None else None
    if own is not None:
        rated, text = own
        if is_legacy_note(name, text):
            text = ""
        core = book is not None and (name in book.armyforge_core or not text)
        if not core:
            return RuleMeaning(name, rated, text, f"{book.name} {book.version} army book" if book else "", BOOK)
        if text:
            return RuleMeaning(name, rated, text, armyforge_source or "Army Forge's core rules", ARMYFORGE)
    ours = ruleset_rules.get(name)
    if ours is not None and ours[1]:
        return RuleMeaning(name, ours[0], ours[1], ours[2], RULESET)
    rated = own[0] if own is not None else bool(ours and ours[0])
    return RuleMeaning(name, rated, "", "", NONE)
