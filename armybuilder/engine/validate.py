"""Validating a list: every way it breaks its ruleset, each as one issue.

The data-level checks and the limit rows are shared; what differs between rulesets
(combining, joining, how ratings stack, rules implied by a unit type) lives in one
module per ruleset (aof.py, regiments.py, skirmish.py, opf.py, arena.py).
"""

from __future__ import annotations

from armybuilder.engine.book import Book, RulesetSpec
from armybuilder.engine.limit_kinds import check_limit
from armybuilder.engine.lists import ArmyList
from armybuilder.engine.loadout import Loadout, split_picks, unit_loadout, unknown_options_problem
from armybuilder.engine.results import ERROR, WARNING, Context, EntryResult, Issue, KnownResult, Validation
from armybuilder.engine.rulesets import Policy, policy_for

__all__ = ["ERROR", "WARNING", "EntryResult", "Issue", "Validation", "validate_list"]


def validate_list(book: Book, ruleset: RulesetSpec, army: ArmyList) -> Validation:
    policy = policy_for(ruleset.family)
    ctx = Context(army=army, book=book, ruleset=ruleset, entries=[])
    for entry in army.entries:
        unit = book.units.get(entry.unit)
        if unit is None:
            ctx.entries.append(EntryResult(entry, None, None))
            ctx.add(
                "unknown_unit",
                f'"{entry.unit}" is not a unit of {book.name}',
                section=policy.army_section,
                entry=entry.id,
            )
            continue
        # Keyed and worked out on the picks the unit offers only: the rest is one issue,
        # however many ids a stored list holds (input refuses more than MAX_OPTIONS).
        known, unknown = split_picks(unit, entry.options) if entry.options else ({}, [])
        key = (ruleset.slug, unit.id, entry.copies, tuple(sorted(known.items())))
        loadout: Loadout | None = book.loadouts.get(key)
        if loadout is None:
            loadout = unit_loadout(
                unit,
                known,
                copies=entry.copies,
                combine_rules=policy.combine_rules,
                implied_rules=policy.implied_rules,
            )
            book.loadouts.set(key, loadout)
        result = KnownResult(entry, unit, loadout)
        ctx.entries.append(result)
        ctx.known.append(result)
        ctx.total += result.cost
        problems = (unknown_options_problem(unit, unknown), *loadout.problems) if unknown else loadout.problems
        for problem in problems:
            ctx.add(
                problem.code,
                f"{result.label}: {problem.message}",
                section=policy.army_section,
                entry=entry.id,
            )

    _check_per_army(ctx)
    _check_combined(ctx, policy)
    _check_joins(ctx, policy)
    _check_points(ctx, policy)
    for limit in ruleset.limits:
        if limit.optional and not army.force_org:
            continue
        check_limit(ctx, limit)
    policy.extra_checks(ctx)

    _arrange(ctx.entries)
    errors_by_entry: dict[str, int] = {}
    for issue in ctx.issues:
        if issue.severity == ERROR and issue.entry is not None:
            errors_by_entry[issue.entry] = errors_by_entry.get(issue.entry, 0) + 1
    for checked in ctx.entries:
        checked.errors = errors_by_entry.get(checked.entry.id, 0)
    return Validation(
        valid=not any(i.severity == ERROR for i in ctx.issues),
        total_points=ctx.total,
        points_limit=army.points_limit,
        entries=ctx.entries,
        issues=ctx.issues,
    )


def _check_per_army(ctx: Context) -> None:
    """The army book's rules for building lists (Unique: "may only be taken once per
    army"): each unit with such a rule at most so many times, a combined unit once. The
    issue cites the book, whose rule it is, on each entry past the limit."""
    book = ctx.book
    if not book.per_army:
        return
    taken: dict[tuple[str, str], list[KnownResult]] = {}  # (unit, rule) -> its entries with the rule
    for result in ctx.known:
        for rule in dict.fromkeys(r.name for r in result.loadout.rules if r.name in book.per_army):
            taken.setdefault((result.unit.id, rule), []).append(result)
    for (_unit, rule), results in taken.items():
        most = book.per_army[rule]
        allowed = "only one" if most == 1 else f"at most {most}"
        for result in results[most:]:
            ctx.issues.append(
                Issue(
                    "unique_unit",
                    ERROR,
                    ("" if result.label == result.unit.name else f"{result.label}: ")
                    + f"{result.unit.name} is {rule}: an army may take {allowed}, and this list has {len(results)}",
                    result.entry.id,
                    f"{book.name} {book.version} army book — {rule}",
                )
            )


def _check_combined(ctx: Context, policy: Policy) -> None:
    for result in ctx.known:
        if result.entry.combined:
            reason = policy.combine_problem(result.unit)
            if reason:
                ctx.add("invalid_combined", reason, section=policy.combine_section, entry=result.entry.id)


def _check_joins(ctx: Context, policy: Policy) -> None:
    by_id = {e.entry.id: e for e in ctx.entries}
    joined_by: dict[str, KnownResult] = {}
    for hero in ctx.known:
        target_id = hero.entry.joined_to
        if target_id is None:
            continue
        target = by_id.get(target_id)
        reason = None
        if target_id == hero.entry.id:
            reason = f"{hero.label} cannot join itself"
        elif target is None:
            reason = f'{hero.label} joins "{target_id}", which is not in the list'
        elif not isinstance(target, KnownResult):
            continue  # the unknown unit is reported already
        elif target.entry.joined_to is not None:
            reason = f"{hero.label} cannot join {target.label}, which is itself joined to another unit"
        else:
            reason = policy.join_problem(hero, target)
            if reason is None and target_id in joined_by:
                reason = (
                    f"{hero.label} cannot join {target.label}: "
                    f"{joined_by[target_id].label} has already joined it (one hero per unit)"
                )
        if reason:
            ctx.add("invalid_join", reason, section=policy.join_section, entry=hero.entry.id)
        else:
            joined_by[target_id] = hero


def _arrange(results: list[EntryResult]) -> None:
    """Who has joined whom, and the order the entries print in: each unit, then the
    heroes that joined it, each followed by any that joined it in turn. A join to an
    entry not in the list, or to itself, is none (the validator reports it); a hero
    that joined a unit itself joined prints on its own; entries joined in a loop keep
    list order. Every page and printout reads these, so all show the same answer."""
    by_id = {result.entry.id: result for result in results}
    joined_by: dict[str, list[str]] = {}
    for result in results:
        target = result.entry.joined_to
        if target is not None and target in by_id and target != result.entry.id:
            result.joined = target
            joined_by.setdefault(target, []).append(result.entry.id)
    for result in results:
        result.joined_by = tuple(joined_by.get(result.entry.id, ()))
        if result.joined is not None and by_id[result.joined].joined is None:
            result.leader = result.joined
    place = 0

    def put(result: EntryResult) -> None:
        nonlocal place
        if result.place >= 0:
            return
        result.place, place = place, place + 1
        for hero in result.joined_by:
            put(by_id[hero])

    for result in results:
        result.place = -1
    for result in results:
        if result.joined is None:
            put(result)
    for result in results:  # joined in a loop: in list order
        put(result)


def _check_points(ctx: Context, policy: Policy) -> None:
    ruleset, limit = ctx.ruleset, ctx.army.points_limit
    if not ruleset.uses_points or limit is None:
        return
    if ruleset.max_points is not None and limit > ruleset.max_points:
        ctx.add(
            "points_limit_invalid",
            f"{limit} pts is above the {ruleset.max_points} pts maximum of {ruleset.name}",
            section=policy.army_section,
        )
    total = ctx.total
    if total > limit:
        ctx.add(
            "points_over_limit",
            f"{total} pts is {total - limit} over the {limit} pts limit",
            section=policy.army_section,
        )
