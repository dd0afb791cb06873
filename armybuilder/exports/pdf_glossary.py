"""The glossary of a printout: every special rule and spell a list uses, each explained
once, grouped as Army Forge groups them: the army book's rules, then the spells (by their
cost, which is the caster level they need), then the core rules (Army Forge's that the
book is written for, then the ruleset's own, each with its section), then any rule
nothing explains. A rule is explained from the book first, then those core rules, then
the rulebook (engine/meanings.py).

The rules reference prints it on its own pages, the unit cards after the last card (on
the page) or on cards of their own (poker-size): one home for what a printout explains.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from armybuilder.engine.meanings import ARMYFORGE, BOOK, NO_TEXT, NONE, RULESET
from armybuilder.exports.pdf_data import Printout, casts_spells, rules_named
from armybuilder.exports.pdf_layout import Flow
from armybuilder.exports.pdf_style import BOLD, HEADING, REGULAR, SOURCE, TEXT_MIN, Style, isolate

RULES, SPELLS = "rules", "spells"  # what a group explains


@dataclass(frozen=True, slots=True)
class Explained:
    name: str  # the rule or spell's name
    heading: str  # "Tough(3, 9)": the name with every rating the list uses; "Mend (1)": a spell and its cost
    text: str
    source: str = ""  # "Age of Fantasy 3.2.0 — Special Rules": where a ruleset's rule is read


@dataclass(frozen=True, slots=True)
class Group:
    title: str  # "Army rules · Wood Elves 3.5.2", "Spells", "Core rules · Age of Fantasy 3.2.0"
    kind: str  # RULES or SPELLS
    entries: tuple[Explained, ...]
    note: str = ""  # the spells' casters: "Cast by Yrana (Caster(2)), Forest Ancient (Caster(4))."


def casters_of(printout: Printout) -> tuple[str, ...]:
    """Each unit that casts the book's spells, with its rule: "Yrana (Caster(2))"."""
    casters = []
    for result in printout.validation.entries:
        rule = casts_spells(result.loadout.every_rule) if result.loadout else None
        if rule is not None:
            casters.append(f"{isolate(result.label)} ({rule})")
    return tuple(casters)


def spells_group(printout: Printout) -> Group | None:
    """The book's spells, cheapest first, once for every caster of the list; None when
    no unit casts them."""
    casters = casters_of(printout)
    if not casters or not printout.spells:
        return None
    spells = sorted(printout.spells, key=lambda spell: (spell[1], spell[0].casefold()))
    return Group(
        "Spells",
        SPELLS,
        tuple(Explained(name, f"{name} ({cost})", text) for name, cost, text in spells),
        note="Cast by " + ", ".join(casters) + ".",
    )


def rule_groups(printout: Printout, *, only: Collection[str] | None = None) -> tuple[Group, ...]:
    """The list's rules (and those they lead to) grouped by where a player reads them;
    with `only`, just the rules so named."""
    book_title = f"{isolate(printout.faction_name)} {printout.book_version}".strip()
    used = [
        (name, f"{name}({', '.join(ratings)})" if ratings else name, printout.rules.get(name))
        for name, ratings in rules_named(printout).items()
        if only is None or name in only
    ]
    groups = []
    for origin in (BOOK, ARMYFORGE, RULESET, NONE):
        group = [(name, heading, rule) for name, heading, rule in used if (rule.origin if rule else NONE) == origin]
        if not group:
            continue
        if origin == BOOK:
            title = f"Army rules · {book_title}" if book_title else "Army rules"
        elif origin == ARMYFORGE:
            title = next((rule.source for _name, _heading, rule in group if rule and rule.source), "Core rules")
        elif origin == RULESET:
            title = f"Core rules · {printout.ruleset_title}"
        else:
            title = "Rules without a text"
        entries = tuple(
            Explained(
                name,
                heading,
                rule.text if rule is not None and rule.text else NO_TEXT,
                rule.source if origin == RULESET and rule is not None else "",
            )
            for name, heading, rule in group
        )
        groups.append(Group(title, RULES, entries))
    return tuple(groups)


def glossary(printout: Printout, *, rules: bool = True, spells: bool = True) -> tuple[Group, ...]:
    """The groups in Army Forge's order: army rules, spells, core rules, rules without a text."""
    ruled = rule_groups(printout) if rules else ()
    spelled = spells_group(printout) if spells else None
    army = [group for group in ruled if group.title.startswith("Army rules")]
    core = [group for group in ruled if group not in army]
    return (*army, *([spelled] if spelled else []), *core)


def names_explained(groups: tuple[Group, ...]) -> set[str]:
    """The rule names a glossary explains (ratings left off)."""
    return {entry.name for group in groups if group.kind == RULES for entry in group.entries}


def draw(flow: Flow, groups: tuple[Group, ...], body: Style, heading: Style = HEADING) -> None:
    """The groups flowed down `flow`'s columns in `body`'s size: each group under its
    heading (kept with its first lines), each entry a paragraph, a ruleset's rule with the
    section to read."""
    source = SOURCE.sized(max(TEXT_MIN, body.size - 1.5))
    for group in groups:
        flow.space(6)
        flow.ensure(heading.leading + body.leading * 3)
        flow.text(group.title, heading, after=4)
        if group.note:
            flow.text(group.note, source, after=4)
        for entry in group.entries:
            flow.paragraph([(entry.heading, BOLD), ("  " + entry.text, REGULAR)], body)
            if entry.source:
                flow.text(entry.source, source, after=5)
            else:
                flow.space(5)
