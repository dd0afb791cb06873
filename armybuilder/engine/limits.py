"""What each kind of limit row checks in a list: a row's kind picks the check (the
registry of kinds is `engine/limit_kinds.py`), its parameters set the numbers, its code
and section name the issue. A different row in the data changes the check with no code
change."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from armybuilder.engine.book import Limit
from armybuilder.engine.results import Context, KnownResult

COMMAND_NAMES = {"sergeant": "Sergeant", "musician": "Musician", "banner": "Banner"}
TYPE_PLURALS = {"artillery": "Artillery", "infantry": "Infantry", "cavalry": "Cavalry"}


def _report(ctx: Context, limit: Limit, message: str, entry: str | None = None) -> None:
    """An issue of this limit row: its code, section and severity (and its event, for a
    row an event set)."""
    ctx.add(limit.code, message, section=limit.section, entry=entry, severity=limit.severity, event=limit.event)


def _counted(ctx: Context, params: Mapping[str, Any]) -> tuple[list[KnownResult], str, str]:
    """The entries a limit counts, and their name in the singular and plural."""
    counts = params.get("counts", "units")
    known = ctx.known
    if counts == "heroes":
        return [e for e in known if e.unit.is_hero], "hero", "heroes"
    if counts == "types":
        types = params["types"]
        plural = ", ".join(TYPE_PLURALS.get(t, t.capitalize() + "s") for t in types[:-1])
        plural = f"{plural} or {TYPE_PLURALS.get(types[-1], types[-1].capitalize() + 's')}"
        return [e for e in known if e.unit.type in types], plural, plural
    return known, "unit", "units"


def _n(count: int, singular: str, plural: str) -> str:
    return f"{count} {singular if count == 1 else plural}"


def _per_points_allowed(params: Mapping[str, Any], points: int) -> int:
    return int(max(params.get("minimum", 0), params.get("base", 0) + points // params["per"]))


def units_allowed(limits: Iterable[Limit], points_limit: int | None, *, force_org: bool = True) -> int | None:
    """The most units `limits` allow in a list of `points_limit` points (the least any
    of their rows on units allows: "1 unit per 150 pts", "at most 8 units"); None when
    none bounds them. A list that leaves out the optional limits (`force_org` false) is
    bounded by the others only."""
    allowed = []
    for limit in limits:
        if limit.optional and not force_org or limit.params.get("counts", "units") != "units":
            continue
        if limit.kind == "per_points" and points_limit is not None:
            allowed.append(_per_points_allowed(limit.params, points_limit))
        elif limit.kind == "max_count":
            allowed.append(limit.params["max"])
    return min(allowed, default=None)


def per_points(ctx: Context, limit: Limit) -> None:
    points = ctx.army.points_limit
    if points is None:
        return
    params = limit.params
    entries, singular, plural = _counted(ctx, params)
    per, minimum = params["per"], params.get("minimum", 0)
    allowed = _per_points_allowed(params, points)
    if len(entries) <= allowed:
        return
    how = f"1 per {per} pts" + (f", at least {minimum}" if minimum else "")
    if allowed == 0:
        verdict = f"{points} pts allows none ({how}; {points} pts is under {per})"
    else:
        verdict = f"{points} pts allows at most {allowed} ({how})"
    _report(
        ctx,
        limit,
        f"{_n(len(entries), singular, plural)}, but {verdict}",
    )


def max_count(ctx: Context, limit: Limit) -> None:
    entries, singular, plural = _counted(ctx, limit.params)
    _bounds(ctx, limit, len(entries), _n(len(entries), singular, plural), most=limit.params["max"])


def min_count(ctx: Context, limit: Limit) -> None:
    entries, singular, plural = _counted(ctx, limit.params)
    _bounds(ctx, limit, len(entries), _n(len(entries), singular, plural), least=limit.params["min"])


def _bounds(
    ctx: Context,
    limit: Limit,
    count: int,
    counted: str,
    *,
    least: int | None = None,
    most: int | None = None,
    whom: str = "an army",
) -> None:
    """An issue when `count` is under `least` or over `most`, worded as "`counted`, but
    `whom` needs at least / may have at most"."""
    if least is not None and count < least:
        _report(ctx, limit, f"{counted}, but {whom} needs at least {least}")
    if most is not None and count > most:
        _report(ctx, limit, f"{counted}, but {whom} may have at most {most}")


def copies(ctx: Context, limit: Limit) -> None:
    points = ctx.army.points_limit
    if points is None:
        return
    base, per = limit.params["base"], limit.params["per"]
    allowed = base + points // per
    by_unit: dict[str, list[KnownResult]] = {}
    for result in ctx.known:
        by_unit.setdefault(result.unit.id, []).append(result)
    for copies in by_unit.values():
        if len(copies) > allowed:
            _report(
                ctx,
                limit,
                f"{len(copies)} copies of {copies[0].unit.name}, but {points} pts allows at most "
                f"{allowed} ({base} + 1 per {per} pts; a combined unit is one copy)",
                entry=copies[allowed].entry.id,
            )


def unit_share(ctx: Context, limit: Limit) -> None:
    points = ctx.army.points_limit
    if points is None:
        return
    percent = limit.params["percent"]
    most = percent * points // 100
    for result in ctx.known:
        if 100 * result.cost > percent * points:
            _report(
                ctx,
                limit,
                f"{result.label} costs {result.cost} pts, but no unit may cost more than {most} pts "
                f"({percent}% of {points} pts)",
                entry=result.entry.id,
            )


def formation(ctx: Context, limit: Limit) -> None:
    sizes = limit.params["sizes"]
    legal = ", ".join(str(s) for s in sizes[:-1]) + f" or {sizes[-1]}"
    for result in ctx.known:
        loadout = result.loadout
        if result.entry.combined:
            split = legal_split(result.unit.size, loadout.added_models, loadout.added_per_copy, sizes)
            if split is not None:
                # A copy: the loadout itself is shared by every list with this entry.
                result.loadout = loadout.with_copy_sizes(split)
                continue
        for size in dict.fromkeys(loadout.copy_sizes):
            if size > 1 and size not in sizes:
                if result.entry.combined and loadout.added_models:
                    message = (
                        f"{result.label} adds {_n(loadout.added_models, 'model', 'models')} to two copies of "
                        f"{result.unit.size}, but no split of the added models gives both copies {legal} models"
                    )
                else:
                    each = " per copy" if result.entry.combined else ""
                    message = f"{result.label} has {size} models{each}, but a unit must have {legal} models"
                _report(ctx, limit, message, entry=result.entry.id)
                break


def legal_split(size: int, added: int, per_copy: int | None, sizes: list[int]) -> tuple[int, int] | None:
    """Copy sizes of a combined unit whose `added` models can be shared between its two
    copies (each adding at most `per_copy`) so that both have a legal formation, the most
    even such split first; None if there is none."""
    most = added if per_copy is None else min(added, per_copy)
    first = [a for a in range(added - most, most + 1) if a >= 0]
    for a in sorted(first, key=lambda a: (abs(2 * a - added), -a)):
        pair = (size + a, size + added - a)
        if all(n <= 1 or n in sizes for n in pair):
            return (max(pair), min(pair))
    return None


def command_group(ctx: Context, limit: Limit) -> None:
    most = limit.params["max"]
    if limit.params.get("scope") == "army":
        holders = [(r, kind, n) for r in ctx.known for kind, n in r.loadout.command.items() if n]
        total = sum(n for _, _, n in holders)
        if total > most:
            names = ", ".join(dict.fromkeys(COMMAND_NAMES.get(k, k) for _, k, _ in holders))
            _report(
                ctx,
                limit,
                f"{total} models have command-group upgrades ({names}), but only {most} model in the whole army may",
                entry=holders[-1][0].entry.id,
            )
        return
    for result in ctx.known:
        for kind, n in result.loadout.command.items():
            if n > most:
                name = COMMAND_NAMES.get(kind, kind)
                _report(
                    ctx,
                    limit,
                    f"{result.label} has {n} {name}s, but a unit may have at most {most}",
                    entry=result.entry.id,
                )


def game_size(ctx: Context, limit: Limit) -> None:
    points = ctx.army.points_limit
    if points is None:
        return
    if "max" in limit.params and points > limit.params["max"]:
        _report(
            ctx,
            limit,
            f"{points} pts is beyond the {limit.params['max']} pts the rules were written for; "
            "the limits are worked out by the same formulas",
        )
    if "min" in limit.params and points < limit.params["min"]:
        _report(
            ctx,
            limit,
            f"{points} pts is below the {limit.params['min']} pts the rules were written for",
        )


def composition(ctx: Context, limit: Limit) -> None:
    card = ctx.book.composition
    if card is None:
        return
    for group in card.groups:
        count = sum(r.models for r in ctx.known if r.unit.id in group.units)
        _bounds(ctx, limit, count, f"{count} {group.label} models", least=group.min, most=group.max, whom="the warband")
    models = sum(r.models for r in ctx.known)
    _bounds(
        ctx, limit, models, f"{models} models in the warband", least=card.models_min, most=card.models_max, whom="it"
    )


def event_ruleset(ctx: Context, limit: Limit) -> None:
    if ctx.ruleset.slug != limit.params["ruleset"]:
        _report(
            ctx, limit, f"the event is played with {limit.params['title']}, but this list is for {ctx.ruleset.title}"
        )


def event_points(ctx: Context, limit: Limit) -> None:
    points, chosen = limit.params["points"], ctx.army.points_limit
    if chosen != points:
        _report(ctx, limit, f"the game is played at {points} pts, but this list is set to {chosen} pts")


def factions(ctx: Context, limit: Limit) -> None:
    allowed = limit.params["allowed"]
    if ctx.book.slug not in allowed:
        _report(ctx, limit, f"{ctx.book.name} is not one of the armies allowed ({', '.join(allowed)})")


def banned(ctx: Context, limit: Limit) -> None:
    units, options = set(limit.params.get("units", ())), set(limit.params.get("options", ()))
    for result in ctx.known:
        if result.unit.id in units:
            _report(ctx, limit, f"{result.unit.name} may not be fielded", entry=result.entry.id)
        for option_id, picks in result.entry.options.items():
            if picks and option_id in options and option_id in result.unit.options:
                label = result.unit.options[option_id][1].label
                _report(ctx, limit, f'{result.label} takes "{label}", which may not be taken', entry=result.entry.id)


def unit_cap(ctx: Context, limit: Limit) -> None:
    unit, most = limit.params["unit"], limit.params["max"]
    copies = [r for r in ctx.known if r.unit.id == unit]
    if len(copies) > most:
        name = copies[0].unit.name
        _report(
            ctx,
            limit,
            f"at most {most} {name}, but the list has {len(copies)} (a combined unit is one)",
            entry=copies[most].entry.id,
        )
