"""What a unit carries after its upgrades, what it costs, and the data-level problems of
its picks (unknown options, section limits, replacing what is not there).

Picks are applied in book order (package, section, option), not in the order the list
happens to spell them, so the same list always gives the same loadout; the one exception
is that replacements of a fixed number of an item go before those of all or any of it,
which take what is left (`book.apply_order`), so the book's order of those never matters.

How many picks a section allows an entry (`Allowance`) is worked out here, once, while
the picks are applied, and said in words here, once (`section_limit_words`,
`option_limit_words`): the validator reports picks past a limit in these words, and the
builder page (through `choices.section_choices`) gives them as the reason it takes no more.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from armybuilder.engine.book import Count, Gain, Option, Rule, Section, Unit, Weapon, same_name


@dataclass(frozen=True, slots=True)
class WeaponLine:
    name: str
    count: int
    range: int | None
    attacks: int | str | None
    rules: tuple[str, ...]
    profile: Mapping[str, Any]

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "count": self.count}
        if self.range:
            data["range"] = self.range
        if self.attacks is not None:
            data["attacks"] = self.attacks
        data.update(self.profile)
        data["rules"] = list(self.rules)
        return data


@dataclass(frozen=True, slots=True)
class SomeModels:
    """Rules that only some of a unit's models have: `models` of them, through `source`
    (the item that gives them, "" for a pick that gives them itself). Decided here, once,
    for every page and printout: what a pick gives goes to the whole unit when its
    section covers the whole unit ("Upgrade with:", "Upgrade all models with:") or every
    model ends up with it, and to the models it covers otherwise ("Upgrade one model
    with:", "Replace one Hand Weapon with:")."""

    models: int
    source: str
    rules: tuple[Rule, ...]

    def __str__(self) -> str:
        """ "1 model (Weapon Team): Tough(3)", "2 models: Sergeant"."""
        who = f"{self.models} model{'s' if self.models != 1 else ''}"
        return f"{who}{f' ({self.source})' if self.source else ''}: {', '.join(str(r) for r in self.rules)}"


@dataclass(frozen=True, slots=True)
class Problem:
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Allowance:
    """What one section allows one entry, in picks.

    `most`: picks in all (None: no limit); `each`: picks of any one option (None: up to
    `most`); `required`: picks it needs; `basis`: what the limit counts, in words
    ("1 per model", "1 per Hand Weapon carried"), for messages; `once`: picks of an
    option that gives only rules and items (`Option.once`), one for each model or copy
    the section covers (a second on the same one adds nothing)."""

    most: int | None
    each: int | None
    required: int
    basis: str = ""
    by_items: bool = False  # `most` is what the unit carries: going past it is replace_missing
    once: int | None = None  # None: not an upgrade section, where a pick covers a new item

    def own_most(self, option: Option) -> int | None:
        """How many picks of `option` the section allows, apart from its picks in all: once
        for an option that only gives a rule (a unit has a rule once), once per model or
        copy covered for one that gives only rules and items, else `each`."""
        if option.rule_only:
            return 1
        if option.once and self.each is None and self.once is not None:
            return self.once
        return self.each

    def option_most(self, option: Option) -> int | None:
        """How many picks of `option` the section allows on its own."""
        limits = [n for n in (self.most, self.own_most(option)) if n is not None]
        return min(limits) if limits else None


@dataclass(frozen=True, slots=True)
class Loadout:
    """An entry's loadout. Frozen, with read-only parts: the validator keeps loadouts per
    book (`Book.loadouts`) and hands the same one to every list with the same entry, so
    nothing may change one after it is made (a limit that settles a combined unit's copy
    sizes makes a copy, `with_copy_sizes`)."""

    models: int
    copy_sizes: tuple[int, ...]
    cost: int
    weapons: tuple[WeaponLine, ...]
    rules: tuple[Rule, ...]  # what every model has: the unit's rules
    items: tuple[str, ...]
    upgrades: tuple[tuple[str, int], ...]  # (option label, picks)
    command: Mapping[str, int]  # command-group upgrade -> picks
    mounted: bool
    problems: tuple[Problem, ...] = ()
    allowances: Mapping[str, Allowance] = field(default_factory=lambda: MappingProxyType({}))  # section id -> limit
    added_models: int = 0
    added_per_copy: int | None = None  # most models one copy can add (None: no limit)
    some: tuple[SomeModels, ...] = ()  # rules only some models have

    @property
    def every_rule(self) -> tuple[Rule, ...]:
        """Every rule any model has, the unit's first: what the list names (a glossary, who
        casts spells)."""
        extra = [rule for group in self.some for rule in group.rules if rule not in self.rules]
        return (*self.rules, *dict.fromkeys(extra))

    def rating(self, name: str) -> int | None:
        for rule in self.rules:
            if rule.name == name and isinstance(rule.rating, int):
                return rule.rating
        return None

    def has_rule(self, name: str) -> bool:
        return any(rule.name == name for rule in self.rules)

    def with_copy_sizes(self, sizes: tuple[int, ...]) -> Loadout:
        return replace(self, copy_sizes=sizes)


@dataclass(slots=True)
class _HeldWeapon:
    """A line of weapons in the stock: `item` names the item it comes with (a mount's
    claws), so that replacing the item takes its weapons away too."""

    weapon: Weapon
    count: int
    item: str | None


@dataclass(slots=True)
class _HeldItem:
    """A line of items in the stock."""

    name: str
    count: int
    rules: tuple[Rule, ...]
    mount: bool
    weapons: tuple[Weapon, ...]
    whole: bool = False  # given to the whole unit by its section, whatever its count


class _Carried:
    """Mutable stock of weapons and items while picks are applied."""

    __slots__ = ("weapons", "items")

    def __init__(self, unit: Unit, copies: int):
        self.weapons: list[_HeldWeapon] = [_HeldWeapon(w, (w.count or 1) * copies, None) for w in unit.equipment]
        self.items: list[_HeldItem] = []
        for item in unit.items:
            self.add_item(item.name, item.count * copies, item.rules, item.mount, item.weapons)

    def add_item(
        self,
        name: str,
        count: int,
        rules: tuple[Rule, ...],
        mount: bool,
        weapons: tuple[Weapon, ...],
        *,
        whole: bool = False,
    ) -> None:
        self.items.append(_HeldItem(name, count, rules, mount, weapons, whole))
        for weapon in weapons:
            self.weapons.append(_HeldWeapon(weapon, (weapon.count or 1) * count, name))

    def count(self, name: str) -> int:
        return sum(line.count for line in self.weapons if same_name(line.weapon.name, name)) + sum(
            line.count for line in self.items if same_name(line.name, name)
        )

    def is_weapon(self, name: str) -> bool:
        return any(line.count > 0 and same_name(line.weapon.name, name) for line in self.weapons)

    def attach(self, name: str, amount: int, rules: list[Rule]) -> None:
        """Give `amount` of the weapons called `name` the extra `rules`."""
        for line in [line for line in self.weapons if line.count > 0 and same_name(line.weapon.name, name)]:
            if amount <= 0:
                break
            taken = min(line.count, amount)
            line.count -= taken
            amount -= taken
            weapon = line.weapon
            self.weapons.append(_HeldWeapon(replace(weapon, rules=_with_rules(weapon.rules, rules)), taken, line.item))

    def remove(self, name: str, amount: int) -> None:
        for line in self.weapons:
            if amount <= 0:
                return
            if line.count > 0 and same_name(line.weapon.name, name):
                taken = min(line.count, amount)
                line.count -= taken
                amount -= taken
        for held in self.items:
            if amount <= 0:
                return
            if held.count > 0 and same_name(held.name, name):
                taken = min(held.count, amount)
                held.count -= taken
                amount -= taken
                for weapon in held.weapons:  # the item's own weapons go with it
                    self._remove_from_item(held.name, weapon.name, (weapon.count or 1) * taken)

    def _remove_from_item(self, item: str, name: str, amount: int) -> None:
        for line in self.weapons:
            if amount <= 0:
                return
            if line.item == item and line.weapon.name == name and line.count > 0:
                taken = min(line.count, amount)
                line.count -= taken
                amount -= taken


StackingFn = Callable[[Iterable[tuple[Rule, bool]]], list[Rule]]
ImpliedFn = Callable[[Unit, bool], list[Rule]]


def unit_loadout(
    unit: Unit,
    options: Mapping[str, int],
    *,
    copies: int,
    combine_rules: StackingFn,
    implied_rules: ImpliedFn,
    every_section: bool = False,
) -> Loadout:
    """The unit with its picks applied. `allowances` holds what each section with picks
    (or one that needs some) allows; `every_section` works it out for all of them, as the
    builder shows them."""
    problems: list[Problem] = []
    known, unknown = split_picks(unit, options)
    if unknown:
        problems.append(unknown_options_problem(unit, unknown))
    options = known  # what the unit does not offer changes nothing of its loadout

    added_models, added_per_copy = _added_models(unit, options, copies)
    models = unit.size * copies + added_models
    stock = _Carried(unit, copies)
    rule_sources: list[tuple[Rule, bool]] = [(r, False) for r in unit.rules]
    some: list[SomeModels] = []
    upgrades: list[tuple[str, int]] = []
    command: dict[str, int] = {}
    allowances: dict[str, Allowance] = {}
    picked: list[tuple[Section, Option]] = []
    cost = unit.cost * copies

    for section in unit.applied:
        chosen = [(o, options[o.id]) for o in section.options if options.get(o.id)] if options else ()
        if not chosen and not every_section and not section.may_require:
            continue
        allowance = section_allowance(section, copies=copies, models=models, stock=stock)
        allowances[section.id] = allowance
        over = bool(chosen or allowance.required) and _check_picks(section, allowance, chosen, problems)
        if not chosen:
            continue
        multiplier = copies if section.whole_unit else 1
        for option, picks in chosen:
            picked.append((section, option))
            upgrades.append((option.label, picks))
            cost += option.costs.get(unit.id, option.cost) * picks * multiplier
            if option.command:
                command[option.command] = command.get(option.command, 0) + picks
            # Past its limit the section is reported once, not again for each shortfall.
            _apply(unit, section, option, picks, copies, models, stock, rule_sources, some, [] if over else problems)

    sources = plain_rule_sources(unit, (option for _section, option in picked))
    for section, option in picked:
        if adds_nothing(section, option, sources, picked=True):
            problems.append(Problem("option_limit", adds_nothing_words(unit, option)))

    mounted = False
    items = []
    for held in stock.items:
        name, count, rules, mount = held.name, held.count, held.rules, held.mount
        if count <= 0:
            continue
        if held.whole or count >= models:
            mounted = mounted or mount
            rule_sources.extend((r, mount) for r in rules)
        elif rules:
            some.append(SomeModels(count, name, rules))
        items.append(name if count == 1 else f"{count}x {name}")
    implied = implied_rules(unit, mounted)
    if implied:
        rule_sources = [(r, False) for r in implied] + rule_sources

    copy_sizes: tuple[int, ...]
    if copies == 2:
        copy_sizes = (unit.size + (added_models + 1) // 2, unit.size + added_models // 2)
    else:
        copy_sizes = (unit.size + added_models,)
    return Loadout(
        models=models,
        copy_sizes=copy_sizes,
        cost=max(cost, 0),  # a cheaper swap never makes an entry worth less than nothing
        weapons=_merge_weapons(stock.weapons),
        rules=tuple(combine_rules(rule_sources)),
        items=tuple(items),
        upgrades=tuple(upgrades),
        command=MappingProxyType(command),
        mounted=mounted,
        problems=tuple(problems),
        allowances=MappingProxyType(allowances),
        added_models=added_models,
        added_per_copy=added_per_copy,
        some=_merged(some),
    )


def split_picks(unit: Unit, options: Mapping[str, int]) -> tuple[dict[str, int], list[str]]:
    """The picks of options `unit` offers, and the ids of those picked that it does not
    offer. What follows works on the first alone, so an entry's work is bounded by what
    its unit can take however many ids a stored list holds."""
    unit_options = unit.options
    known: dict[str, int] = {}
    unknown: list[str] = []
    for option_id, picks in options.items():
        if not picks:
            continue
        if option_id in unit_options:
            known[option_id] = picks
        else:
            unknown.append(option_id)
    return known, unknown


UNKNOWN_EXAMPLES = 3  # unknown option ids an issue names; it counts the rest
UNKNOWN_ID_CHARS = 40  # of each id named, so that the issue stays short


def unknown_options_problem(unit: Unit, unknown: Sequence[str]) -> Problem:
    """One unknown_option problem for every option id picked that `unit` does not offer:
    a stored list may hold any number of them (one issue each made a list of 185,000 take
    seconds on every page), so the issue says how many and names the first few."""
    named = [_clipped(option_id) for option_id in unknown[:UNKNOWN_EXAMPLES]]
    if len(unknown) == 1:
        return Problem("unknown_option", f"{unit.name} has no option {named[0]}")
    examples = ", ".join(named)
    if len(unknown) > UNKNOWN_EXAMPLES:
        examples = f"e.g. {examples}"
    return Problem("unknown_option", f"{unit.name} does not offer {len(unknown):,} of the options picked ({examples})")


def _clipped(option_id: str) -> str:
    """An option id in quotes, cut short when it is long."""
    if len(option_id) > UNKNOWN_ID_CHARS:
        option_id = option_id[: UNKNOWN_ID_CHARS - 1] + "…"
    return f'"{option_id}"'


def _merged(some: list[SomeModels]) -> tuple[SomeModels, ...]:
    """Groups of the same source and rules counted together (two picks of one option)."""
    models: dict[tuple[str, tuple[Rule, ...]], int] = {}
    for group in some:
        key = (group.source, group.rules)
        models[key] = models.get(key, 0) + group.models
    return tuple(SomeModels(count, source, rules) for (source, rules), count in models.items())


def plain_rule_sources(unit: Unit, picked: Iterable[Option]) -> Counter[str]:
    """For each rule without a rating (one that never stacks: Age of Fantasy, Rules
    Priority & Stacking Effects; One Page Fantasy: not cumulative), how many things give
    it to the unit: its profile, what it carries from the start, each option picked."""
    sources = Counter(r.name for r in unit.rules if r.rating is None)
    sources.update({r.name for item in unit.items for r in item.rules if r.rating is None})
    for option in picked:
        sources.update({r.name for gain in option.gains for r in gain.rules if r.rating is None})
    return sources


def adds_nothing(section: Section, option: Option, sources: Counter[str], *, picked: bool) -> bool:
    """An upgrade that gives only rules without a rating (and items carrying only those),
    each of which the unit has from something else (`sources` counts the option itself
    when it is `picked`): taking it changes nothing on the table."""
    if section.variant != "upgrade" or not option.plain_rules:
        return False
    others = 2 if picked else 1
    return all(sources[name] >= others for name in option.plain_rules)


def adds_nothing_words(unit: Unit, option: Option) -> str:
    names = " and ".join(sorted(option.plain_rules))
    return f'"{option.label}" adds nothing: {unit.name} has {names} already, which does not stack'


def _added_models(unit: Unit, options: Mapping[str, int], copies: int) -> tuple[int, int | None]:
    """Models the picks add, and (combined units) the most that one copy could add."""
    if not options:
        return 0, 0
    added = 0
    per_copy: int | None = 0
    for section in unit.sections:
        if section.variant != "models":
            continue
        if options:
            added += sum(options.get(o.id, 0) for o in section.options)
        select = section.select
        if per_copy is not None and copies > 1:
            if select is None:
                per_copy += 1
            elif select.type in ("exactly", "up to") and select.per is None:
                per_copy += _value(select)
            else:
                per_copy = None
    return added, per_copy


def _value(count: Count) -> int:
    """The N of an "exactly N" or "up to N" count, which always has one (the armybook/1
    schema requires it); only asked of those."""
    assert count.value is not None, count
    return count.value


def _sets(section: Section, stock: _Carried) -> int:
    """How many times over the unit carries what the section's picks work on."""
    counts = [stock.count(t.name) // t.count for t in section.targets]
    if section.variant == "attachment":
        return max(counts, default=0)  # attaches to whichever target is carried
    return min(counts, default=0)


def _target_words(section: Section) -> str:
    names = [t.name if t.count == 1 else f"{t.count}x {t.name}" for t in section.targets]
    return " and ".join(names) if section.variant == "replace" else " or ".join(names)


def section_allowance(section: Section, *, copies: int, models: int, stock: _Carried | None = None) -> Allowance:
    """How many picks `section` allows an entry of `models` models (`copies` 2 when
    combined), carrying `stock` (what is left after the sections before it).

    - No `select`: one pick (one per copy of a combined unit); with `affects` any or up to
      N, one pick per model (or target item) there is to cover.
    - `select` exactly / up to N: N picks (per copy); `per: model` or `per: item` makes it
      N for each model or target item; `affects` any / up to N caps what there is to cover.
    - `select` any: any number of picks; with `affects` any or up to N, one per model or
      item. `per: option`: each option at most N times (per copy).
    A combined unit doubles the limits of sections that do not apply to the whole unit,
    except command-group upgrades, which stay at one unit's limit."""
    affects, select = section.affects, section.select
    if section.on_items and stock is not None and _sets(section, stock) == 0:
        # Nothing left that it works on: no pick (taking one is replace_missing).
        return Allowance(0, None, 0, f"no {_target_words(section)} left", by_items=True)
    per_copy = copies if not section.whole_unit and not section.command_only else 1
    counted = section.counted
    if not counted and (affects is None or affects.type != "exactly" or section.on_items):
        # The common shapes, quickly: one pick, or N picks in all (per copy).
        if select is None:
            return Allowance(per_copy, None, 0, once=per_copy if section.variant == "upgrade" else None)
        if select.per is None and select.type != "any":
            limit = _value(select) * per_copy
            required = limit if select.type == "exactly" and not section.optional else 0
            return Allowance(limit, None, required, once=per_copy if section.variant == "upgrade" else None)
    # What one pick at a time can cover: target items still carried, or models.
    if section.on_items and stock is not None:
        cover, what = _sets(section, stock), f"{_target_words(section)} carried"
        carried = True
    else:
        cover, what, carried = models, "model", False
    if affects is not None and affects.type == "up to" and _value(affects) * copies < cover:
        cover = _value(affects) * copies
        what = f"{_target_words(section) if section.on_items else 'model'}, up to {cover}"
        carried = False

    most: int | None
    each: int | None = None
    basis = ""
    by_cover = False  # the limit is what there is to cover
    once = cover if counted or (select is not None and select.per is not None) else per_copy
    if select is None or select.type == "any":
        if counted:
            most, basis, by_cover = cover, f"1 per {what}", True
        else:
            most = per_copy if select is None else None
    elif select.per == "option":
        each = _value(select) * per_copy
        most, basis = each * len(section.options), f"{times_words(each)} each"
    elif select.per is not None:
        if select.per == "model":
            base = min(models, cover) if counted else models
            what = "model" if base == models else what
        else:
            base = cover
        most, basis = _value(select) * base, f"{select.value} per {what}"
    else:
        most = _value(select) * per_copy
        if counted and cover < most:
            most, basis, by_cover = cover, f"1 per {what}", True
    if affects is not None and affects.type == "exactly" and not section.on_items:
        fits = models // _value(affects)  # each pick covers that many models
        if most is None or fits < most:
            noun = "model" if affects.value == 1 else "models"
            most, basis, by_cover = fits, f"{affects.value} {noun} a pick, of {models}", False
        once = max(fits, 1)
    required = 0
    if select is not None and select.type == "exactly" and not section.optional:
        required = most if most is not None else 0
    return Allowance(
        most=most,
        each=each,
        required=required,
        basis=basis,
        by_items=by_cover and carried,
        once=max(once, 1) if section.variant == "upgrade" else None,
    )


def _check_picks(
    section: Section, allowance: Allowance, chosen: Sequence[tuple[Option, int]], problems: list[Problem]
) -> bool:
    """Report picks beyond what the section allows (or short of what it needs); True
    when there are more picks than it allows in all."""
    total = sum(n for _, n in chosen)
    most = allowance.most
    over = most is not None and total > most and not allowance.by_items
    if over:
        problems.append(Problem("option_limit", section_limit_words(section, allowance, total)))
    for option, picks in chosen:
        own = allowance.own_most(option)
        # An option's own limit, where the section's limit in all does not already say it.
        if own is not None and picks > own and (most is None or own < most or allowance.by_items):
            problems.append(Problem("option_limit", option_limit_words(section, allowance, option, picks)))
    required = allowance.required
    if total < required:
        problems.append(
            Problem(
                "option_required",
                f'"{section.label}" needs exactly {required} {picks_words(required)}, but has {total}',
            )
        )
    return over


def section_limit_words(section: Section, allowance: Allowance, total: int | None = None) -> str:
    """The section's limit on picks in all, in words: why it takes no more; with `total`,
    the issue for having that many, past it. For an allowance with a limit."""
    most = allowance.most
    assert most is not None  # asked only of a section with a limit
    words = f'"{section.label}" allows at most {most} {picks_words(most)}'
    if allowance.basis:
        words += f" ({allowance.basis})"
    return words if total is None else f"{words}, but has {total}"


def option_limit_words(section: Section, allowance: Allowance, option: Option, picks: int | None = None) -> str:
    """The limit on picks of `option` itself (`Allowance.own_most`, for an option that has
    one), in words: why it takes no more; with `picks`, the issue for taking it that many
    times, past it."""
    if option.rule_only:
        words = f'"{option.label}" gives a rule, which a unit has once'
        return words if picks is None else f"{words}; it is taken {picks} times"
    if option.once and allowance.each is None and allowance.once is not None:
        words = f'"{option.label}" gives only items and rules, which a model carries once'
        if allowance.once > 1:
            words += f": at most {allowance.once} here"
        return words if picks is None else f"{words}; it is taken {picks} times"
    # Here the option's own limit is `each` (see `Allowance.own_most`), which it has.
    assert allowance.each is not None
    words = f'"{section.label}" allows each option at most {times_words(allowance.each)}'
    return words if picks is None else f'{words}, but "{option.label}" is taken {picks} times'


def missing_words(unit: Unit, section: Section, option: Option, covered: int, have: int) -> str:
    """Why `option` cannot cover `covered` of what the section replaces or attaches to, of
    which `unit` has `have` left: the replace_missing issue, and the reason the builder
    takes no pick of it once nothing is left."""
    if section.variant == "attachment" and have == 0:
        return f'"{option.label}" attaches to {_target_words(section)}, but {unit.name} carries none'
    return f'"{option.label}" replaces {covered} {_target_words(section)}, but {unit.name} has only {have} left'


def none_left_words(unit: Unit, section: Section, option: Option, picks: int) -> str:
    """The replace_missing issue for `picks` of `option` when nothing it works on is left
    (an allowance of none, `by_items`), covering what `_apply` would have it cover."""
    per_each = section.select is not None and section.select.per is not None
    covered = picks if section.whole_unit or per_each else section.per_pick * picks
    return missing_words(unit, section, option, covered, 0)


def picks_words(n: int) -> str:
    return "pick" if n == 1 else "picks"


def times_words(n: int) -> str:
    return "once" if n == 1 else "twice" if n == 2 else f"{n} times"


def _apply(
    unit: Unit,
    section: Section,
    option: Option,
    picks: int,
    copies: int,
    models: int,
    stock: _Carried,
    rule_sources: list[tuple[Rule, bool]],
    some: list[SomeModels],
    problems: list[Problem],
) -> None:
    """Apply `picks` of `option`: what they take away and what they give (to the whole
    unit, or to the models the picks cover: SomeModels)."""
    whole = section.whole_unit
    # How many models or target items the picks cover; gains are given per covered one.
    covered = section.per_pick * picks
    per_each = section.select is not None and section.select.per is not None  # limits checked already

    if section.variant == "replace":
        have = _sets(section, stock)
        if per_each:
            covered = min(covered, have)
        if whole:
            covered = have
        if covered > have or have == 0:
            problems.append(Problem("replace_missing", missing_words(unit, section, option, covered or picks, have)))
        for replaced in section.targets:
            stock.remove(replaced.name, min(covered, have) * replaced.count)
    elif section.variant == "attachment":
        target = next((t for t in section.targets if stock.count(t.name) >= t.count), None)
        if target is None:
            problems.append(Problem("replace_missing", missing_words(unit, section, option, picks, 0)))
            return
        have = stock.count(target.name) // target.count
        if whole or per_each:
            covered = min(covered, have) if not whole else have
        elif covered > have:
            problems.append(
                Problem(
                    "replace_missing",
                    f'"{option.label}" attaches to {covered} {target.name}, but {unit.name} has only {have}',
                )
            )
            covered = have
        if stock.is_weapon(target.name):
            # What is attached to a weapon changes that weapon, not the whole unit.
            attached = [r for gain in option.gains if gain.kind in ("item", "rule") for r in gain.rules]
            if attached:
                stock.attach(target.name, covered * target.count, attached)
            for gain in option.gains:
                if gain.kind == "item":
                    stock.items.append(_HeldItem(f"{gain.name} ({target.name})", gain.count * covered, (), False, ()))
                for weapon in gain.weapons:
                    stock.weapons.append(_HeldWeapon(weapon, (weapon.count or 1) * gain.count * covered, None))
            return
    elif whole:
        # The whole unit: each pick covers every model when `affects` is all, else the
        # unit as one (each copy of a combined unit).
        covered = picks * (models if section.affects is not None else copies)

    every = whole or covered >= models  # each model gets what the picks give
    for gain in option.gains:
        _gain(gain, picks if gain.kind == "model" else covered, stock, rule_sources, some if not every else None)


def _gain(
    gain: Gain,
    covered: int,
    stock: _Carried,
    rule_sources: list[tuple[Rule, bool]],
    some: list[SomeModels] | None,
) -> None:
    """What one gain gives `covered` models or items: to the whole unit, or, with `some`,
    to those models only."""
    kind = gain.kind
    if kind == "weapon":
        for weapon in gain.weapons:
            stock.weapons.append(_HeldWeapon(weapon, gain.count * covered, None))
    elif kind == "item":
        stock.add_item(gain.name, gain.count * covered, gain.rules, gain.mount, gain.weapons, whole=some is None)
    elif kind == "model":
        for weapon in gain.weapons:
            stock.weapons.append(_HeldWeapon(weapon, (weapon.count or 1) * covered, None))
        # An added model shares the unit's profile: its rules are not a second helping.
        known = {rule.name for rule, _mount in rule_sources}
        rule_sources.extend((r, False) for r in gain.rules if r.name not in known)
    elif some is not None:
        some.append(SomeModels(covered, "", gain.rules))
    else:
        rule_sources.extend((r, False) for r in gain.rules)


def _with_rules(current: tuple[str, ...], extra: list[Rule]) -> tuple[str, ...]:
    """A weapon's rules with `extra` added: a "+X" rating adds to the weapon's own, a
    plain one replaces it if higher (AP(1) with AP(+1) is AP(2))."""
    rules = [Rule.parse(text) for text in current]
    for new in extra:
        for i, old in enumerate(rules):
            if old.name == new.name and isinstance(old.rating, int) and isinstance(new.rating, int):  # both numeric
                rating = old.rating + new.rating if new.adds else max(old.rating, new.rating)
                rules[i] = Rule(old.name, rating)
                break
        else:
            rules.append(Rule(new.name, new.rating))
    return tuple(str(rule) for rule in rules)


def _merge_weapons(lines: list[_HeldWeapon]) -> tuple[WeaponLine, ...]:
    merged: dict[tuple[str, int | None, int | str | None, tuple[str, ...], tuple[tuple[str, Any], ...]], int] = {}
    for line in lines:
        weapon, count = line.weapon, line.count
        if count <= 0:
            continue
        key = (weapon.name, weapon.range, weapon.attacks, weapon.rules, weapon.profile)
        merged[key] = merged.get(key, 0) + count
    return tuple(
        WeaponLine(name, count, range_, attacks, rules, MappingProxyType(dict(profile)))
        for (name, range_, attacks, rules, profile), count in merged.items()
    )


def stack_ratings(sources: Iterable[tuple[Rule, bool]]) -> list[Rule]:
    """Ratings of the same rule add up (AoF, Skirmish: "rules with (X) stack"). A text
    parameter never stacks: each one is kept as written."""
    totals: dict[Any, int | str | None] = {}
    for rule, _mount in sources:
        rating = rule.rating
        if rating is None:
            if rule.name not in totals:
                totals[rule.name] = None
        elif isinstance(rating, str):
            totals[(rule.name, rating)] = rating
        else:
            current = totals.get(rule.name)
            totals[rule.name] = (current if isinstance(current, int) else 0) + rating
    return [Rule(key[0], rating) if isinstance(key, tuple) else Rule(key, rating) for key, rating in totals.items()]


def highest_rating(sources: Iterable[tuple[Rule, bool]]) -> list[Rule]:
    """The same rule twice counts once, at its highest rating; only "+X" ratings and a
    mount's Tough add to it (Regiments, OPF, Arena: rules are not cumulative). A text
    parameter is kept as written."""
    base: dict[Any, int | str | None] = {}
    extra: dict[str, int] = {}
    for rule, mount in sources:
        name, rating = rule.name, rule.rating
        if rating is None:
            if name not in base:
                base[name] = None
        elif isinstance(rating, str):
            base[(name, rating)] = rating
        elif rule.adds or (mount and name == "Tough"):
            if name not in base:
                base[name] = None
            extra[name] = extra.get(name, 0) + rating
        else:
            current = base.get(name)
            base[name] = rating if not isinstance(current, int) else max(current, rating)
    out = []
    for key, rating in base.items():
        if isinstance(key, tuple):
            out.append(Rule(key[0], rating))
        elif key in extra:
            out.append(Rule(key, (rating if isinstance(rating, int) else 0) + extra[key]))
        else:
            out.append(Rule(key, rating))
    return out
