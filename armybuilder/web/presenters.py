"""What the builder page shows, worked out from the list's validation: entries with their
issues, the hero-joining and combining menus, the upgrade controls of the selected
entry. No queries here: everything comes from the engine's objects."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from armybuilder.engine import Book, Issue, RulesetSpec, Validation
from armybuilder.engine.book import Option, Section, Unit
from armybuilder.engine.loadout import stack_ratings, unit_loadout
from armybuilder.engine.rulesets import policy_for
from armybuilder.engine.results import EntryResult
from armybuilder.exports.text import weapon_text

TYPE_ORDER = ["hero", "infantry", "cavalry", "monster", "chariot", "artillery", "ordnance", "fighter"]
TYPE_LABELS = {
    "hero": "Heroes",
    "infantry": "Infantry",
    "cavalry": "Cavalry",
    "monster": "Monsters",
    "chariot": "Chariots",
    "artillery": "Artillery",
    "ordnance": "Ordnance",
    "fighter": "Fighters",
}
STAT_LABELS = {
    "quality": "Q{}+",
    "defense": "D{}+",
    "move": "Move {}",
    "rush": "Rush {}",
    "evasion": "Eva {}",
    "toughness": "Tou {}",
    "stamina": "Sta {}",
    "health": "HP {}",
}


def stats_text(stats: dict[str, int]) -> str:
    return " ".join(STAT_LABELS[k].format(v) for k, v in stats.items() if k in STAT_LABELS)


def rule_anchor(name: str) -> str:
    return "rule-" + "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")


@dataclass
class RuleLink:
    text: str
    anchor: str | None  # on the ruleset's rules page, for core rules
    summary: str = ""


@dataclass
class OptionView:
    option: Option
    cost: int
    picks: int
    disabled: bool = False
    reason: str = ""
    can_add: bool = True
    add_reason: str = ""


@dataclass
class SectionView:
    section: Section
    control: str  # radio | checkbox | counter
    options: list[OptionView]
    total: int
    limit: int | None
    required: bool
    note: str


@dataclass
class EntryView:
    result: EntryResult
    issues: list[Issue]
    rules: list[RuleLink]
    stats: str
    weapons: list[dict[str, Any]]
    join_targets: list[tuple[str, str]] = field(default_factory=list)
    can_combine: bool = False
    combine_reason: str = ""
    joined_label: str = ""

    @property
    def id(self) -> str:
        return self.result.entry.id

    @property
    def has_errors(self) -> bool:
        return any(i.severity == "error" for i in self.issues)


@dataclass
class UnitChoice:
    unit: Unit
    stats: str
    rules: str


def unit_groups(book: Book) -> list[tuple[str, list[UnitChoice]]]:
    groups: dict[str, list[UnitChoice]] = {}
    for unit in book.units.values():
        choice = UnitChoice(unit, stats_text(dict(unit.stats)), ", ".join(str(r) for r in unit.rules))
        groups.setdefault(unit.type, []).append(choice)
    ordered = sorted(groups.items(), key=lambda kv: TYPE_ORDER.index(kv[0]) if kv[0] in TYPE_ORDER else 99)
    return [(TYPE_LABELS.get(kind, kind.title()), choices) for kind, choices in ordered]


def entry_views(
    validation: Validation, book: Book, ruleset: RulesetSpec, core_rules: dict[str, str]
) -> list[EntryView]:
    policy = policy_for(ruleset.slug)
    by_entry: dict[str, list[Issue]] = {}
    for issue in validation.issues:
        if issue.entry is not None:
            by_entry.setdefault(issue.entry, []).append(issue)
    results = validation.entries
    labels = {r.entry.id: r.label for r in results}
    hero_of: dict[str, str] = {r.entry.joined_to: r.entry.id for r in results if r.entry.joined_to}
    views = []
    for result in results:
        view = EntryView(
            result=result,
            issues=by_entry.get(result.entry.id, []),
            rules=[],
            stats="",
            weapons=[],
            joined_label=labels.get(result.entry.joined_to or "", ""),
        )
        if result.unit is not None:
            loadout = result.loadout
            view.stats = stats_text(dict(result.unit.stats))
            view.rules = [_rule_link(str(rule), rule.name, book, core_rules) for rule in loadout.rules]
            view.weapons = [_weapon_row(w, hexes=ruleset.slug == "aof-arena") for w in loadout.weapons]
            reason = policy.combine_problem(result.unit)
            view.can_combine, view.combine_reason = reason is None, reason or ""
            if result.unit.is_hero:
                view.join_targets = [
                    (target.entry.id, target.label)
                    for target in results
                    if target is not result
                    and target.unit is not None
                    and target.entry.joined_to is None
                    and hero_of.get(target.entry.id, result.entry.id) == result.entry.id
                    and policy.join_problem(result, target) is None
                ]
        views.append(view)
    return views


def _rule_link(text: str, name: str, book: Book, core_rules: dict[str, str]) -> RuleLink:
    faction_rule = book.rules.get(name)
    if faction_rule is not None:  # the book's own, even where it overrides a core rule
        return RuleLink(text, None, faction_rule[1])
    if name in core_rules:
        return RuleLink(text, rule_anchor(name), core_rules[name])
    return RuleLink(text, None, "")


def _weapon_row(weapon, *, hexes: bool = False) -> dict[str, Any]:
    if hexes:  # Arena measures in hexes; range 1 is the adjacent hex
        reach = "Adjacent" if weapon.range == 1 else f"{weapon.range} hexes"
    else:
        reach = f'{weapon.range}"' if weapon.range else "Melee"
    return {
        "name": weapon.name,
        "count": weapon.count,
        "range": reach,
        "attacks": weapon.attacks if weapon.attacks is not None else "",
        "profile": ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in weapon.profile.items() if v != ""),
        "rules": ", ".join(weapon.rules),
        "text": weapon_text(weapon, hexes=hexes),
    }


def section_views(result: EntryResult) -> list[SectionView]:
    """The upgrade controls of one entry, with options that would break a section's limit
    disabled and the reason given. The limits are the engine's (`Loadout.allowances`),
    worked out for every section of this one entry."""
    unit, entry = result.unit, result.entry
    if unit is None:
        return []
    allowances = unit_loadout(
        unit,
        dict(entry.options),
        copies=entry.copies,
        combine_rules=stack_ratings,
        implied_rules=lambda unit, mounted: [],
        every_section=True,
    ).allowances
    views = []
    for section in unit.sections:
        allowance = allowances[section.id]
        picks = {o.id: entry.options.get(o.id, 0) for o in section.options}
        total = sum(picks.values())
        limit = allowance.most
        option_limits = {o.id: allowance.option_most(o) for o in section.options}
        if limit == 1 and len(section.options) >= 1 and all(n in (1, None) for n in option_limits.values()):
            control = "radio"
        elif all(n == 1 for n in option_limits.values()):
            control = "checkbox"
        else:
            control = "counter"
        full = limit is not None and total >= limit
        if full:
            reason = f'"{section.label}" allows at most {limit} {_picks(limit)}' + (
                f" ({allowance.basis})" if allowance.basis else ""
            )
        options = []
        for option in section.options:
            view = OptionView(option, option.cost_for(unit.id), picks[option.id])
            own = option_limits[option.id]
            if control == "checkbox":
                if not view.picks and full:
                    view.disabled, view.reason = True, reason
            elif control == "counter":
                if full:
                    view.can_add, view.add_reason = False, reason
                elif own is not None and view.picks >= own:
                    view.can_add, view.add_reason = False, f'"{option.label}" can be taken at most {_times(own)}'
            options.append(view)
        note = _section_note(allowance)
        views.append(SectionView(section, control, options, total, limit, allowance.required > 0, note))
    return views


def _picks(n: int) -> str:
    return "pick" if n == 1 else "picks"


def _times(n: int) -> str:
    return "once" if n == 1 else "twice" if n == 2 else f"{n} times"


def _section_note(allowance) -> str:
    if allowance.required:
        return f"pick exactly {allowance.required}"
    limit = allowance.most
    if limit is None:
        return "any number" if allowance.each is None else f"each option up to {_times(allowance.each)}"
    if limit == 1:
        return "pick one"
    if allowance.each == 1:
        return "each option once"
    return f"up to {limit}" + (f" ({allowance.basis})" if allowance.basis else "")
