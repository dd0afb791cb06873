"""What a unit carries after its upgrades, what it costs, and the data-level problems of
its picks (unknown options, section limits, replacing what is not there).

Picks are applied in book order (package, section, option), not in the order the list
happens to spell them, so the same list always gives the same loadout.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from armybuilder.engine.book import Option, Rule, Section, Unit, Weapon


@dataclass(slots=True)
class WeaponLine:
    name: str
    count: int
    range: int | None
    attacks: int | str | None
    rules: tuple[str, ...]
    profile: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "count": self.count}
        if self.range:
            data["range"] = self.range
        if self.attacks is not None:
            data["attacks"] = self.attacks
        data.update(self.profile)
        data["rules"] = list(self.rules)
        return data


@dataclass(slots=True)
class Problem:
    code: str
    message: str


@dataclass(slots=True)
class Loadout:
    models: int
    copy_sizes: tuple[int, ...]
    cost: int
    weapons: list[WeaponLine]
    rules: list[Rule]
    items: list[str]
    upgrades: list[tuple[str, int]]  # (option label, picks)
    command: dict[str, int]  # command-group upgrade -> picks
    mounted: bool
    problems: list[Problem] = field(default_factory=list)

    def rating(self, name: str) -> int | None:
        for rule in self.rules:
            if rule.name == name:
                return rule.rating
        return None

    def has_rule(self, name: str) -> bool:
        return any(rule.name == name for rule in self.rules)


class _Carried:
    """Mutable stock of weapons and items while picks are applied."""

    __slots__ = ("weapons", "items")

    def __init__(self, weapons: list[list[Any]]):
        self.weapons = weapons  # [Weapon, count]
        self.items: list[list[Any]] = []  # [name, count, rules, mount]

    def count(self, name: str) -> int:
        return sum(c for w, c in self.weapons if w.name == name) + sum(i[1] for i in self.items if i[0] == name)

    def attach(self, name: str, amount: int, rules: list[Rule]) -> bool:
        """Give `amount` of the weapons called `name` the extra `rules`; False if `name`
        is not a weapon (an item), so the caller treats the rules as the unit's."""
        lines = [line for line in self.weapons if line[0].name == name and line[1] > 0]
        if not lines:
            return False
        for line in lines:
            if amount <= 0:
                break
            taken = min(line[1], amount)
            line[1] -= taken
            amount -= taken
            weapon = line[0]
            self.weapons.append([replace(weapon, rules=_with_rules(weapon.rules, rules)), taken])
        return True

    def remove(self, name: str, amount: int) -> None:
        for stock in (self.weapons, self.items):
            for line in stock:
                if amount <= 0:
                    return
                if (line[0].name if stock is self.weapons else line[0]) == name and line[1] > 0:
                    taken = min(line[1], amount)
                    line[1] -= taken
                    amount -= taken


StackingFn = Callable[[Iterable[tuple[Rule, bool]]], list[Rule]]
ImpliedFn = Callable[[Unit, bool], list[Rule]]


def unit_loadout(
    unit: Unit,
    options: dict[str, int],
    *,
    copies: int,
    combine_rules: StackingFn,
    implied_rules: ImpliedFn,
) -> Loadout:
    problems: list[Problem] = []
    unit_options = unit.options
    for option_id, picks in options.items():
        if picks and option_id not in unit_options:
            problems.append(Problem("unknown_option", f'{unit.name} has no option "{option_id}"'))

    stock = _Carried([[w, (w.count or 1) * copies] for w in unit.equipment])
    rule_sources: list[tuple[Rule, bool]] = [(r, False) for r in unit.rules]
    upgrades: list[tuple[str, int]] = []
    command: dict[str, int] = {}
    cost = unit.cost * copies
    added_models = 0
    capacity_checks: list[tuple[Section, int]] = []

    for section in unit.sections:
        if options:
            chosen = [(o, options[o.id]) for o in section.options if options.get(o.id)]
        else:
            chosen = ()
        if chosen or section.required_picks:
            total = sum(n for _, n in chosen)
            _section_limits(section, chosen, total, copies, problems)
        if not chosen:
            continue
        if not section.whole_unit and section.variant in ("upgrade", "attachment"):
            capacity_checks.append((section, total))
        multiplier = copies if section.whole_unit else 1
        for option, picks in chosen:
            upgrades.append((option.label, picks))
            cost += option.costs.get(unit.id, option.cost) * picks * multiplier
            if option.command:
                command[option.command] = command.get(option.command, 0) + picks
            added_models += _apply(unit, section, option, picks, copies, stock, rule_sources, problems)

    models = unit.size * copies + added_models
    for section, total in capacity_checks:
        covered = total * section.per_pick
        if covered > models:
            problems.append(
                Problem("option_limit", f'"{section.label}" covers {covered} models, but {unit.name} has {models}')
            )

    mounted = False
    items = []
    for name, count, rules, mount in stock.items:
        if count > 0:
            mounted = mounted or mount
            rule_sources.extend((r, mount) for r in rules)
            items.append(name if count == 1 else f"{count}x {name}")
    implied = implied_rules(unit, mounted)
    if implied:
        rule_sources = [(r, False) for r in implied] + rule_sources

    if copies == 2:
        copy_sizes = (unit.size + (added_models + 1) // 2, unit.size + added_models // 2)
    else:
        copy_sizes = (unit.size + added_models,)
    return Loadout(
        models=models,
        copy_sizes=copy_sizes,
        cost=cost,
        weapons=_merge_weapons(stock.weapons),
        rules=combine_rules(rule_sources),
        items=items,
        upgrades=upgrades,
        command=command,
        mounted=mounted,
        problems=problems,
    )


def _section_limits(
    section: Section, chosen: Iterable[tuple[Option, int]], total: int, copies: int, problems: list[Problem]
) -> None:
    label = section.label
    limit = section.max_picks
    if section.whole_unit:
        for option, picks in chosen:
            if picks > 1:
                problems.append(
                    Problem(
                        "option_limit",
                        f'"{option.label}" applies to the whole unit and can be taken once, not {picks} times',
                    )
                )
    else:
        if limit is not None and not section.command_only:
            limit *= copies
        if section.affects is not None and section.affects.type == "up to":
            bound = section.affects.value * copies
            limit = bound if limit is None else min(limit, bound)
    if limit is not None and total > limit:
        problems.append(Problem("option_limit", f'"{label}" allows at most {limit} {_picks(limit)}, but has {total}'))
    required = section.required_picks
    if total < required:
        problems.append(
            Problem("option_required", f'"{label}" needs exactly {required} {_picks(required)}, but has {total}')
        )


def _picks(n: int) -> str:
    return "pick" if n == 1 else "picks"


def _apply(
    unit: Unit,
    section: Section,
    option: Option,
    picks: int,
    copies: int,
    stock: _Carried,
    rule_sources: list[tuple[Rule, bool]],
    problems: list[Problem],
) -> int:
    """Apply `picks` of `option`; return the number of models it adds."""
    whole = section.whole_unit
    covered = section.per_pick * picks  # models or items the picks stand for

    if section.variant == "replace":
        for i, target in enumerate(section.targets):
            have = stock.count(target)
            need = have if whole else covered
            if need > have or have == 0:
                problems.append(
                    Problem(
                        "replace_missing",
                        f'"{option.label}" replaces {need or picks} {target}, but {unit.name} has only {have} left',
                    )
                )
            stock.remove(target, need)
            if i == 0 and whole:
                covered = have
    elif section.variant == "attachment":
        carried = [t for t in section.targets if stock.count(t)]
        if not carried:
            problems.append(
                Problem(
                    "replace_missing",
                    f'"{option.label}" attaches to {" or ".join(section.targets)}, but {unit.name} carries none',
                )
            )
        else:
            target = carried[0]
            if whole:
                covered = stock.count(target)
            # What is attached to a weapon changes that weapon, not the whole unit.
            attached = [r for gain in option.gains if gain.kind in ("item", "rule") for r in gain.rules]
            if attached and stock.attach(target, covered, attached):
                for gain in option.gains:
                    if gain.kind == "item":
                        stock.items.append([f"{gain.name} ({target})", 1 if whole else covered, (), False])
                    for weapon in gain.weapons:
                        stock.weapons.append([weapon, weapon.count * picks if weapon.count else covered])
                return 0
    elif whole:
        covered = unit.size * copies

    added = 0
    for gain in option.gains:
        if gain.kind == "model":
            added += picks
            covered_here = picks
        else:
            covered_here = covered
        for weapon in gain.weapons:
            count = weapon.count * picks if weapon.count else covered_here
            stock.weapons.append([weapon, count])
        if gain.kind == "item":
            stock.items.append([gain.name, covered if not whole else 1, gain.rules, gain.mount])
        elif gain.kind == "model":
            # An added model shares the unit's profile: its rules are not a second helping.
            known = {rule.name for rule, _mount in rule_sources}
            rule_sources.extend((r, False) for r in gain.rules if r.name not in known)
        else:
            rule_sources.extend((r, False) for r in gain.rules)
    return added


def _with_rules(current: tuple[str, ...], extra: list[Rule]) -> tuple[str, ...]:
    """A weapon's rules with `extra` added: a "+X" rating adds to the weapon's own, a
    plain one replaces it if higher (AP(1) with AP(+1) is AP(2))."""
    rules = [Rule.parse(text) for text in current]
    for new in extra:
        for i, old in enumerate(rules):
            if old.name == new.name and old.rating is not None and new.rating is not None:
                rating = old.rating + new.rating if new.adds else max(old.rating, new.rating)
                rules[i] = Rule(old.name, rating)
                break
        else:
            rules.append(Rule(new.name, new.rating))
    return tuple(str(rule) for rule in rules)


def _merge_weapons(lines: list[list[Any]]) -> list[WeaponLine]:
    merged: dict[tuple, WeaponLine] = {}
    for weapon, count in lines:
        if count <= 0:
            continue
        weapon: Weapon
        key = (weapon.name, weapon.range, weapon.attacks, weapon.rules, weapon.profile)
        line = merged.get(key)
        if line is None:
            merged[key] = WeaponLine(
                weapon.name, count, weapon.range, weapon.attacks, weapon.rules, dict(weapon.profile)
            )
        else:
            line.count += count
    return list(merged.values())


def stack_ratings(sources: Iterable[tuple[Rule, bool]]) -> list[Rule]:
    """Ratings of the same rule add up (AoF, Skirmish: "rules with (X) stack")."""
    totals: dict[str, int | None] = {}
    for rule, _mount in sources:
        rating = rule.rating
        if rating is None:
            if rule.name not in totals:
                totals[rule.name] = None
        else:
            totals[rule.name] = (totals.get(rule.name) or 0) + rating
    return [Rule(name, rating) for name, rating in totals.items()]


def highest_rating(sources: Iterable[tuple[Rule, bool]]) -> list[Rule]:
    """The same rule twice counts once, at its highest rating; only "+X" ratings and a
    mount's Tough add to it (Regiments, OPF, Arena: rules are not cumulative)."""
    base: dict[str, int | None] = {}
    extra: dict[str, int] = {}
    for rule, mount in sources:
        name, rating = rule.name, rule.rating
        if rating is None:
            if name not in base:
                base[name] = None
        elif rule.adds or (mount and name == "Tough"):
            if name not in base:
                base[name] = None
            extra[name] = extra.get(name, 0) + rating
        else:
            current = base.get(name)
            base[name] = rating if current is None else max(current, rating)
    if not extra:
        return [Rule(name, rating) for name, rating in base.items()]
    return [Rule(name, (rating or 0) + extra[name] if name in extra else rating) for name, rating in base.items()]
