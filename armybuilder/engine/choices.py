"""What each upgrade section of one entry allows next: how it is picked from, which
options take one more pick and, where one does not, why.

The limits are `loadout.section_allowance`'s, worked out while the entry's picks are
applied, and the reasons are the validator's words for the same limits
(`loadout.section_limit_words`, `option_limit_words`): the pick the builder page refuses
is the one the validator would report, in the same sentence.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from armybuilder.engine.book import Option, Rule, Section, Unit
from armybuilder.engine.loadout import (
    Allowance,
    adds_nothing,
    adds_nothing_words,
    none_left_words,
    option_limit_words,
    plain_rule_sources,
    section_limit_words,
    stack_ratings,
    times_words,
    unit_loadout,
)

# How a section is picked from: `ONE` option of them (picking another swaps it), `EACH`
# option taken or not, or a `COUNT` of each.
ONE, EACH, COUNT = "one", "each", "count"


@dataclass(slots=True)  # not frozen: made for every option each time an entry is shown, and frozen is slower
class OptionChoice:
    option: Option
    picks: int
    most: int | None  # picks of it the section allows (None: no limit)
    open: bool  # one more pick stays within the section's limits
    reason: str  # why not, when it is not open


@dataclass(slots=True)
class SectionChoice:
    section: Section
    allowance: Allowance
    kind: str  # ONE, EACH or COUNT
    options: tuple[OptionChoice, ...]
    total: int  # picks in all
    full: bool  # no room for another pick
    reason: str  # why not, when it is full
    note: str  # what it allows, in a few words: "pick one", "up to 4 (1 per model)"


def section_choices(unit: Unit, options: Mapping[str, int], *, copies: int) -> list[SectionChoice]:
    """Every upgrade section of an entry of `unit` with `options` picked (`copies` 2 when
    combined), in book order, as it stands against what it allows."""
    allowances = unit_loadout(
        unit, options, copies=copies, combine_rules=stack_ratings, implied_rules=_no_rules, every_section=True
    ).allowances
    sources = plain_rule_sources(unit, (unit.options[o][1] for o, n in options.items() if n and o in unit.options))
    return [_section_choice(unit, section, allowances[section.id], options, sources) for section in unit.sections]


# What a pick past the limits of its section is reported as (engine/loadout.py).
PAST_LIMITS = ("option_limit", "replace_missing")


def refused_picks(unit: Unit, before: Mapping[str, int], after: Mapping[str, int], *, copies: int) -> list[str]:
    """Why the builder refuses to go from the picks `before` to `after`: the validator's
    issues on the section limits that the new picks bring, when the player took more of
    something (a number typed past what a section allows). Taking picks away is never
    refused, even where what is left still breaks a limit."""
    if not any(n > before.get(option_id, 0) for option_id, n in after.items()):
        return []

    def past(options: Mapping[str, int]) -> list[str]:
        loadout = unit_loadout(unit, options, copies=copies, combine_rules=stack_ratings, implied_rules=_no_rules)
        return [p.message for p in loadout.problems if p.code in PAST_LIMITS]

    known = set(past(before))
    return [message for message in past(after) if message not in known]


def _no_rules(unit: Unit, mounted: bool) -> list[Rule]:
    return []  # the limits do not depend on the rules a unit's type gives


def _section_choice(
    unit: Unit, section: Section, allowance: Allowance, options: Mapping[str, int], sources: Counter[str]
) -> SectionChoice:
    most = allowance.most
    picks = [options.get(option.id, 0) for option in section.options]
    total = sum(picks)
    full = most is not None and total >= most
    none_left = most == 0 and allowance.by_items
    reason = "" if not full else allowance.basis if none_left else section_limit_words(section, allowance)
    option_most = [allowance.option_most(option) for option in section.options]
    choices = []
    for option, taken, limit in zip(section.options, picks, option_most, strict=True):
        why = reason
        if none_left:
            why = none_left_words(unit, section, option, taken + 1)
        elif not taken and adds_nothing(section, option, sources, picked=False):
            why = adds_nothing_words(unit, option)
        elif not full and limit is not None and taken >= limit:
            why = option_limit_words(section, allowance, option)
        choices.append(OptionChoice(option, taken, limit, not why, why))
    return SectionChoice(
        section,
        allowance,
        _none_left_kind(section) if none_left else _kind(section, most, option_most),
        tuple(choices),
        total,
        full,
        reason,
        _note(allowance, option_most),
    )


def _none_left_kind(section: Section) -> str:
    """With nothing left to work on, a section keeps the controls it has otherwise: one
    pick (radio buttons) for a replacement of all or a fixed number, else counters."""
    one = not section.counted and (section.select is None or (section.select.per is None and section.select.value == 1))
    return ONE if one else COUNT


def _kind(section: Section, most: int | None, option_most: list[int | None]) -> str:
    if section.command_only and all((most if n is None else n) == 1 for n in option_most):
        # Sergeant, Musician, Banner: each taken or not in every book, also where the book
        # allows only one of them (the others then take no pick, saying why).
        return EACH
    if most == 1 and option_most and all(n in (1, None) for n in option_most):
        return ONE
    if all(n == 1 for n in option_most):
        return EACH
    return COUNT


def _note(allowance: Allowance, option_most: list[int | None]) -> str:
    """What the section's controls allow, in a few words: the section's limit in all, or
    what its options allow between them when that is less."""
    if allowance.required:
        return f"pick exactly {allowance.required}"
    most = allowance.most
    if most == 0:
        return allowance.basis or "none"
    reach = None if None in option_most else sum(n for n in option_most if n is not None)
    if reach is not None and (most is None or reach < most):
        if all(n == 1 for n in option_most):
            return "pick one" if reach == 1 else "each option once"
        return f"up to {reach}"
    if most is None:
        return "any number" if allowance.each is None else f"each option up to {times_words(allowance.each)}"
    if most == 1:
        return "pick one"
    if allowance.each == 1 and reach == most:
        return "each option once"
    return f"up to {most}" + (f" ({allowance.basis})" if allowance.basis else "")
