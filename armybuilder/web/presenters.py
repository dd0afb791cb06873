"""What the builder page shows, worked out from the list's validation: entries with their
issues, the hero-joining and combining menus, the upgrade controls of the selected
entry. No queries here: everything comes from the engine's objects."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from armybuilder.engine import Book, Issue, RulesetSpec, Validation
from armybuilder.engine.book import Option, Rule, Section, Unit
from armybuilder.engine.choices import COUNT, EACH, ONE, section_choices
from armybuilder.engine.loadout import Loadout, unit_loadout
from armybuilder.engine.meanings import NO_TEXT, RULESET, core_rules_source, rule_meaning
from armybuilder.engine.results import EntryResult, KnownResult
from armybuilder.engine.rulesets import Policy, policy_for
from armybuilder.exports.pdf_data import casts_spells, rules_used, uses_spells
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
CONTROLS = {ONE: "radio", EACH: "checkbox", COUNT: "counter"}  # how each kind of section is picked from
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

# A ruleset's core rules as the pages explain them: name -> (rated, summary, where to read it).
RulesetRules = Mapping[str, tuple[bool, str, str]]


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
    most: int | None = None  # the most its number field holds (None: no limit)


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
    joined_label: str = ""  # the unit this hero joined
    joined_by: str = ""  # the hero that joined this unit
    label: str = ""  # its name on the page, told apart from entries of the same name
    profile: Profile | None = None  # what its card prints, for a unit still in the book

    @property
    def id(self) -> str:
        return self.result.entry.id

    @property
    def has_errors(self) -> bool:
        return any(i.severity == "error" for i in self.issues)


@dataclass
class Profile:
    """What a unit's card prints besides its name and stats: rules (each with what it
    does), weapons (with the default melee weapon and the rules a weapon's type gives),
    what it carries, the upgrades taken, its type's notes and, for a caster, the spells."""

    rules: list[RuleLink]
    weapons: list[dict[str, Any]]
    items: list[str]
    upgrades: list[str]
    notes: tuple[str, ...]
    spell_rule: str  # "Caster(1)", when the unit casts the book's spells
    spells: tuple[tuple[str, int, str], ...]  # (name, cost, text)


@dataclass
class UnitChoice:
    unit: Unit
    stats: str
    rules: str
    profile: Profile | None = None  # the unit as it comes, before any upgrade


def unit_groups(
    book: Book, ruleset: RulesetSpec | None = None, core_rules: RulesetRules | None = None
) -> list[tuple[str, list[UnitChoice]]]:
    """The book's units by type; with the ruleset, each with its profile as it comes."""
    policy = policy_for(ruleset.family) if ruleset else None
    groups: dict[str, list[UnitChoice]] = {}
    for unit in book.units.values():
        choice = UnitChoice(unit, stats_text(dict(unit.stats)), ", ".join(str(r) for r in unit.rules))
        if ruleset is not None and policy is not None:
            loadout = unit_loadout(
                unit, {}, copies=1, combine_rules=policy.combine_rules, implied_rules=policy.implied_rules
            )
            choice.profile = _profile(unit, loadout, book, ruleset, core_rules or {})
        groups.setdefault(unit.type, []).append(choice)
    ordered = sorted(groups.items(), key=lambda kv: TYPE_ORDER.index(kv[0]) if kv[0] in TYPE_ORDER else 99)
    return [(TYPE_LABELS.get(kind, kind.title()), choices) for kind, choices in ordered]


def entry_views(validation: Validation, book: Book, ruleset: RulesetSpec, core_rules: RulesetRules) -> list[EntryView]:
    policy = policy_for(ruleset.family)
    by_entry: dict[str, list[Issue]] = {}
    for issue in validation.issues:
        if issue.entry is not None:
            by_entry.setdefault(issue.entry, []).append(issue)
    results = validation.entries
    labels = distinct_labels(results)
    menus = join_menus(results, labels, policy)
    core_key = frozenset(core_rules.items())
    shown: dict[tuple[str, int], _Shown] = {}  # entries with the same loadout share what is shown of it
    views = []
    for result in results:
        view = EntryView(
            result=result,
            issues=by_entry.get(result.entry.id, []),
            rules=[],
            stats="",
            weapons=[],
            joined_label=labels[result.joined] if result.joined is not None else "",
            joined_by=", ".join(labels[hero] for hero in result.joined_by),
            label=labels[result.entry.id],
        )
        if _is_known(result):
            seen = (result.unit.id, id(result.loadout))
            if seen not in shown:
                shown[seen] = _unit_shown(result, book, ruleset, core_rules, core_key)
            unit = shown[seen]
            view.stats, view.rules, view.weapons, view.profile = unit.stats, unit.rules, unit.weapons, unit.profile
            view.can_combine, view.combine_reason = unit.can_combine, unit.combine_reason
            view.join_targets = menus.get(result.entry.id, [])
        views.append(view)
    return views


@dataclass(frozen=True)
class _Shown:
    """What the builder shows of a unit with its loadout, whatever the list around it."""

    loadout: Loadout  # held, so that the key of its id names it for as long as this is kept
    stats: str
    rules: list[RuleLink]
    weapons: list[dict[str, Any]]
    profile: Profile
    can_combine: bool
    combine_reason: str


def _unit_shown(
    result: KnownResult, book: Book, ruleset: RulesetSpec, core_rules: RulesetRules, core_key: frozenset[Any]
) -> _Shown:
    """The unit's stats, rules, weapons and card, worked out once per loadout and kept with
    the book (`Book.memo`): the engine hands every entry with the same unit and picks the
    same loadout, so an action on a long list works out only the entries it changed."""
    loadout = result.loadout
    key = ("shown", ruleset.family, result.unit.id, id(loadout), core_key)
    kept = book.memo.get(key)
    if isinstance(kept, _Shown) and kept.loadout is loadout:
        return kept
    policy = policy_for(ruleset.family)
    reason = policy.combine_problem(result.unit)
    shown = _Shown(
        loadout,
        stats_text(dict(result.unit.stats)),
        _rule_links(loadout, book, core_rules),
        [_weapon_row(w, hexes=policy.range_in_hexes) for w in loadout.weapons],
        _profile(result.unit, loadout, book, ruleset, core_rules),
        reason is None,
        reason or "",
    )
    return book.memo.set(key, shown)  # type: ignore[no-any-return]


def join_menus(
    results: list[EntryResult], labels: Mapping[str, str], policy: Policy
) -> dict[str, list[tuple[str, str]]]:
    """Each hero's menu of the units it may join, as (entry id, label) in list order: the
    units no other hero has joined (those this one has, too) that the ruleset lets it
    join. Worked out once for the list, in time linear in it: the policy is asked once
    per kind of hero and kind of unit (`Policy.join_facts`), not for every pair of
    entries, and heroes of one kind share one menu unless one has joined a unit."""
    known = [result for result in results if _is_known(result)]
    facts = {result.entry.id: policy.join_facts(result) for result in known}
    answers: dict[tuple[Hashable, Hashable], bool] = {}

    def may_join(hero: KnownResult, target: KnownResult) -> bool:
        pair = (facts[hero.entry.id], facts[target.entry.id])
        if pair not in answers:
            answers[pair] = policy.join_problem(hero, target) is None
        return answers[pair]

    place = {result.entry.id: n for n, result in enumerate(known)}
    free = [result for result in known if result.joined is None and not result.joined_by]
    held: dict[str, list[KnownResult]] = {}  # hero -> the units it alone has joined
    for target in known:
        if target.joined is None and len(target.joined_by) == 1:
            held.setdefault(target.joined_by[0], []).append(target)
    shared: dict[Hashable, tuple[list[tuple[str, str]], set[str]]] = {}  # hero's facts -> its menu of free units
    menus = {}
    for hero in known:
        if not hero.unit.is_hero:
            continue
        hero_id = hero.entry.id
        kind = facts[hero_id]
        if kind not in shared:
            joinable = [target.entry.id for target in free if may_join(hero, target)]
            shared[kind] = ([(target_id, labels[target_id]) for target_id in joinable], set(joinable))
        menu, ids = shared[kind]
        own = [target.entry.id for target in held.get(hero_id, ()) if may_join(hero, target)]
        if own or hero_id in ids:
            chosen = sorted([*(ids - {hero_id}), *own], key=place.__getitem__)
            menu = [(target_id, labels[target_id]) for target_id in chosen]
        menus[hero_id] = menu
    return menus


def _is_known(result: EntryResult) -> TypeGuard[KnownResult]:
    """An entry whose unit is in the book. The engine makes each a KnownResult, with its
    loadout; told by its unit, as the pages always have, so that any result with a unit
    is shown as one."""
    return result.unit is not None


def distinct_labels(results: list[EntryResult] | tuple[EntryResult, ...]) -> dict[str, str]:
    """Each entry's name on the page, by entry id: entries of the same name are told
    apart by their place among them ("Household Guard", "Household Guard (2)")."""
    return _numbered((result.entry.id, result.label) for result in results)


def entry_labels(book: Book, entries: list[dict[str, Any]]) -> dict[str, str]:
    """The same names for armylist/1 entries not validated (a change about to be saved)."""
    units = book.units
    return _numbered(
        (entry["id"], entry.get("name") or (units[entry["unit"]].name if entry["unit"] in units else entry["unit"]))
        for entry in entries
    )


def _numbered(labels: Iterable[tuple[str, str]]) -> dict[str, str]:
    seen: Counter[str] = Counter()
    numbered = {}
    for entry_id, label in labels:
        seen[label] += 1
        numbered[entry_id] = f"{label} ({seen[label]})" if seen[label] > 1 else label
    return numbered


def _rule_link(text: str, name: str, book: Book, core_rules: RulesetRules) -> RuleLink:
    """The rule as the page names it, with what it means (engine/meanings.py: the book's
    own, else the core rules of Army Forge's it is written for, else the ruleset's) and,
    for the ruleset's, its place on the ruleset's rules page."""
    meaning = rule_meaning(name, book, core_rules, armyforge_source=core_rules_source(book))
    summary = meaning.text if meaning.explained else NO_TEXT[:1].upper() + NO_TEXT[1:]
    return RuleLink(text, rule_anchor(name) if meaning.origin == RULESET else None, summary)


def _rule_links(loadout: Loadout, book: Book, core_rules: RulesetRules) -> list[RuleLink]:
    """The unit's rules, then those only some of its models have ("1 model (Weapon Team):
    Tough(3)"), as the engine decides who has what (loadout.SomeModels)."""
    links = [_rule_link(str(rule), rule.name, book, core_rules) for rule in loadout.rules]
    for group in loadout.some:
        who = str(group).partition(": ")[0]
        links.extend(_rule_link(f"{who}: {rule}", rule.name, book, core_rules) for rule in group.rules)
    return links


def _profile(unit: Unit, loadout: Loadout, book: Book, ruleset: RulesetSpec, core_rules: RulesetRules) -> Profile:
    policy = policy_for(ruleset.family)
    weapons = list(loadout.weapons)
    if all(w.range for w in weapons) and (default := policy.default_melee(loadout.models)) is not None:
        weapons.append(default)  # what the rulebook says a unit with no melee weapon fights with
    rows = []
    for weapon in weapons:
        row = _weapon_row(weapon, hexes=policy.range_in_hexes)
        texts = [*policy.weapon_type_rules(weapon), *weapon.rules]
        row["rules"] = ", ".join(texts)
        row["rule_links"] = [_rule_link(text, Rule.parse(text).name, book, core_rules) for text in texts]
        rows.append(row)
    caster = casts_spells(loadout.every_rule)
    return Profile(
        rules=_rule_links(loadout, book, core_rules),
        weapons=rows,
        items=list(loadout.items),
        upgrades=[label if picks == 1 else f"{label} ×{picks}" for label, picks in loadout.upgrades],
        notes=policy.type_notes(unit),
        spell_rule=str(caster) if caster and book.spells else "",
        spells=book.spells if caster else (),
    )


@dataclass
class CompositionRow:
    label: str
    least: int
    most: int
    count: int
    units: list[str]  # the names of the units that count for it

    @property
    def state(self) -> str:
        return "under" if self.count < self.least else "over" if self.count > self.most else "ok"

    @property
    def allowed(self) -> str:
        if self.least == self.most:
            return str(self.most)
        return f"up to {self.most}" if self.least == 0 else f"{self.least}–{self.most}"


def composition_rows(book: Book, validation: Validation) -> list[CompositionRow]:
    """Arena: the faction's composition card, each group with the models the warband has
    in it now, counted as the `composition` limit counts them; last, the models in all."""
    card = book.composition
    if card is None:
        return []
    known = [r for r in validation.entries if _is_known(r)]
    rows = [
        CompositionRow(
            group.label,
            group.min,
            group.max,
            sum(r.models for r in known if r.unit.id in group.units),
            [book.units[u].name for u in group.units if u in book.units],
        )
        for group in card.groups
    ]
    rows.append(CompositionRow("Models in all", card.models_min, card.models_max, sum(r.models for r in known), []))
    return rows


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
        "profile": ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in _profile_items(weapon.profile) if v != ""),
        "rules": ", ".join(weapon.rules),
        "text": weapon_text(weapon, hexes=hexes),
    }


def _profile_items(profile: dict[str, Any]) -> list[tuple[str, Any]]:
    """A weapon's profile in the order Arena's cards print it: a book's profile keys come
    back from PostgreSQL's JSON in its own order."""
    return sorted(profile.items(), key=lambda item: (PROFILE_ORDER.get(item[0], len(PROFILE_ORDER)), item[0]))


def section_views(result: EntryResult) -> list[SectionView]:
    """The upgrade controls of one entry: the engine's choices (`section_choices`) as
    radio buttons, check boxes or counters, with what takes no more picks disabled and
    the reason given."""
    unit, entry = result.unit, result.entry
    if unit is None:
        return []
    views = []
    for choice in section_choices(unit, entry.options, copies=entry.copies):
        control = CONTROLS[choice.kind]
        options = []
        section_most = choice.allowance.most
        for option in choice.options:
            view = OptionView(option.option, option.option.cost_for(unit.id), option.picks)
            # What the field may hold: the option's own limit and the room left in the
            # section, and never less than it holds now (taking picks away stays possible).
            limits = [option.most] if option.most is not None else []
            if section_most is not None:
                limits.append(option.picks + section_most - choice.total)
            if limits:
                view.most = max(option.picks, min(limits))
            if control == "checkbox" and not option.picks and not option.open:
                view.disabled, view.reason = True, option.reason
            elif control == "radio" and not option.picks and not option.open and option.reason != choice.reason:
                # Closed for itself (nothing left to replace, it adds nothing), not because
                # the section has its pick: picking it instead stays possible then.
                view.disabled, view.reason = True, option.reason
            elif control == "counter" and not option.open:
                view.can_add, view.add_reason = False, option.reason
            options.append(view)
        views.append(
            SectionView(
                choice.section,
                control,
                options,
                choice.total,
                choice.allowance.most,
                choice.allowance.required > 0,
                choice.note,
            )
        )
    return views


# -- the share page: what an opponent reads ----------------------------------------------
PROFILE_ORDER = {key: n for n, key in enumerate(("accuracy", "strength", "damage", "critical"))}


@dataclass
class SharedUnit:
    """One entry on the share page: the builder's view of it, with its weapons as the
    cards print them (the default melee weapon a unit without one fights with, the rules
    a weapon's type gives), each rule linked to its meaning on the page, the upgrades
    taken, and the heroes joined to it."""

    view: EntryView
    rules: list[RuleLink]  # anchors on the share page's glossary
    weapons: list[dict[str, Any]]  # _weapon_row, plus "rule_links"
    upgrades: list[str]
    type_notes: tuple[str, ...]
    heroes: list[SharedUnit] = field(default_factory=list)

    @property
    def members(self) -> list[SharedUnit]:
        """The unit, then the heroes that lead it."""
        return [self, *self.heroes]

    @property
    def led_by(self) -> str:
        return ", ".join(hero.view.result.label for hero in self.heroes)


@dataclass
class GlossaryRule:
    name: str  # "Tough(X)" for a rule with a rating
    anchor: str
    summary: str
    used_as: list[str]  # "Tough(3)", "Tough(+1)": as the list's units and weapons have it
    core_anchor: str | None  # on the ruleset's rules page; None for the army book's own
    source: str = ""  # where it is read: the army book, the core rules of Army Forge's; "" when nothing explains it


def shared_units(
    validation: Validation, book: Book, ruleset: RulesetSpec, core_rules: RulesetRules
) -> list[SharedUnit]:
    """The list's entries for the share page in print order, each hero joined to a unit
    listed inside it (a hero joined to a unit that is itself joined stays on its own,
    saying so): the engine's answer (`EntryResult.leader`, `place`)."""
    units = {}
    for view in entry_views(validation, book, ruleset, core_rules):
        shared = SharedUnit(view, [], [], [], ())
        if view.profile is not None:  # the builder's profile, its rules linked to the glossary
            profile = view.profile
            shared.rules = [_glossary_link(link) for link in profile.rules]
            shared.weapons = [
                {**row, "rule_links": [_glossary_link(link) for link in row["rule_links"]]} for row in profile.weapons
            ]
            shared.upgrades, shared.type_notes = profile.upgrades, profile.notes
        units[view.id] = shared
    listed = []
    for result in validation.in_print_order:
        shared = units[result.entry.id]
        if result.leader is not None:
            units[result.leader].heroes.append(shared)
        else:
            listed.append(shared)
    return listed


def _glossary_link(link: RuleLink) -> RuleLink:
    """The rule linked to its meaning in the share page's glossary (every rule the page
    names is there, saying so when nothing explains it)."""
    return RuleLink(link.text, rule_anchor(Rule.parse(link.text).name), link.summary)


def rule_glossary(
    validation: Validation, book: Book, ruleset: RulesetSpec, core_rules: RulesetRules
) -> list[GlossaryRule]:
    """What each special rule of the list's units and weapons does (engine/meanings.py:
    the army book's, else the core rules it is written for, else the ruleset's), sorted
    by name, with where it is read; a rule nothing explains says so."""
    policy = policy_for(ruleset.family)
    used = rules_used(validation)
    for result in validation.entries:  # One Page Fantasy: the rules a weapon's type gives
        for weapon in result.loadout.weapons if result.loadout else ():
            for text in policy.weapon_type_rules(weapon):
                used.setdefault(Rule.parse(text).name, [])
    glossary = []
    source = core_rules_source(book)
    for name in sorted(used, key=str.casefold):
        meaning = rule_meaning(name, book, core_rules, armyforge_source=source)
        used_as = [f"{name}({rating})" for rating in used[name]]
        title = f"{name}(X)" if used_as else name
        summary = meaning.text if meaning.explained else f"{name}: {NO_TEXT}"
        core_anchor = rule_anchor(name) if meaning.origin == RULESET else None
        glossary.append(GlossaryRule(title, rule_anchor(name), summary, used_as, core_anchor, meaning.source))
    return glossary


def spells_cast(validation: Validation, book: Book) -> tuple[tuple[str, int, str], ...]:
    """The army book's spells, when a unit of the list casts them."""
    return book.spells if uses_spells(validation) else ()


# -- moving a list to another version of its book --------------------------------------------
MINUS = "\u2212"
NAMED = 2  # options or units a notice names before it only counts the rest


def signed_points(change: int) -> str:
    """A change of points as players write it: +5, −15 (a real minus sign), ±0."""
    if change > 0:
        return f"+{change}"
    return f"{MINUS}{-change}" if change < 0 else "±0"


@dataclass(frozen=True)
class MoveRow:
    """One entry of a move's report (lists/services.py army_list_upgrade)."""

    id: str
    unit: str
    cost: tuple[int, int]
    dropped: list[dict[str, str]]  # {"option", "label", "reason"}
    removed: bool
    reason: str
    notes: list[str]
    moved: list[dict[str, Any]] = field(default_factory=list)  # {"option", "to", "label", "section", "cost", …}

    @property
    def changes_cost(self) -> bool:
        """The entry stays and its price changes (a removed one is counted apart)."""
        return not self.removed and self.cost[0] != self.cost[1]

    @property
    def change(self) -> str:
        return signed_points(self.cost[1] - self.cost[0]) if self.removed or self.changes_cost else ""


@dataclass(frozen=True)
class MoveView:
    """What moving a list to another version of its book does, in the words of the
    builder's notice and the review page."""

    book: str  # the book's name
    old: str  # the version the list is on
    new: str  # the version it would move to
    total: tuple[int, int]
    rows: list[MoveRow]
    validation: dict[str, Any] = field(default_factory=dict)  # the moved list's (Validation.as_dict())

    @property
    def change(self) -> str:
        return signed_points(self.total[1] - self.total[0])

    @property
    def dropped(self) -> list[tuple[str, dict[str, str]]]:
        """(unit, dropped option) of every option the move drops."""
        return [(row.unit, dropped) for row in self.rows for dropped in row.dropped]

    @property
    def cut(self) -> list[tuple[str, dict[str, Any]]]:
        """(unit, moved option) of every option the move keeps with fewer picks."""
        return [(row.unit, moved) for row in self.rows for moved in row.moved if moved.get("cut")]

    @property
    def removed(self) -> list[MoveRow]:
        return [row for row in self.rows if row.removed]

    @property
    def valid(self) -> bool:
        return bool(self.validation.get("valid", True))

    @property
    def issues(self) -> list[dict[str, Any]]:
        """The moved list's issues ({"code", "severity", "message", "entry", "rule"})."""
        return list(self.validation.get("issues", []))

    def cost_words(self) -> str:
        """ "1 of your 3 units changes cost, −15 pts", or "no unit changes cost"; a unit the
        move removes is not a change of cost (`removed_words` counts it)."""
        changed = [row for row in self.rows if row.changes_cost]
        if not changed:
            return "no unit changes cost"
        verb = "changes" if len(changed) == 1 else "change"
        units = len(self.rows)
        who = "your one unit" if units == 1 else f"{len(changed)} of your {units} units"
        points = signed_points(sum(row.cost[1] - row.cost[0] for row in changed))
        return f"{who} {verb} cost, {points} pts"

    def removed_words(self) -> str:
        """ "1 unit removed", "2 units removed", or "" when none is."""
        count = len(self.removed)
        return f"{count} unit removed" if count == 1 else f"{count} units removed" if count else ""

    def after_words(self) -> str:
        """The moved list in a line: "After the move: 2,405 of 2,000 pts, 405 over; 3 issues"."""
        total, limit = self.validation.get("total_points", self.total[1]), self.validation.get("points_limit")
        points = f"{total:,} pts" if limit is None else f"{total:,} of {limit:,} pts"
        if limit is not None and total > limit:
            points += f", {total - limit:,} over"
        issues = len(self.validation.get("issues", []))
        count = "no issues" if not issues else _counted(issues, "1 issue", "issues")
        return f"After the move: {points}; {count}"

    def headline(self) -> str:
        """The builder's notice of a newer version: "Ratmen 3.5.2 is out: …"."""
        removed = self.removed_words()
        return f"{self.book} {self.new} is out: {self.cost_words()}{'; ' + removed if removed else ''}."

    def done(self) -> str:
        """The message once the list has moved."""
        return f"Moved to {self.book} {self.new}: the list is now {self.total[1]} pts (was {self.total[0]})."

    def details(self) -> list[str]:
        """What else the move does, briefly: the options it drops or keeps fewer picks of,
        the units it removes, and, when the moved list breaks the rules, how."""
        lines = []
        if self.dropped:
            named = [f"{option['label']} from {unit}" for unit, option in self.dropped]
            count = _counted(len(named), "an upgrade", "upgrades")
            lines.append(f"Updating drops {count} {self.new} no longer offers: {_first_few(named)}.")
        if self.cut:
            named = [f"{option['label']} of {unit}" for unit, option in self.cut]
            count = _counted(len(named), "an upgrade", "upgrades")
            lines.append(f"Updating keeps fewer picks of {count} {self.new} allows fewer of: {_first_few(named)}.")
        if self.removed:
            named = [row.unit for row in self.removed]
            count = _counted(len(named), "a unit", "units")
            lines.append(f"Updating removes {count} {self.new} no longer has: {_first_few(named)}.")
        if not self.valid:
            lines.append(f"{self.after_words()}.")
        return lines


def _counted(count: int, one: str, many: str) -> str:
    """ "an upgrade", "3 upgrades"."""
    return one if count == 1 else f"{count} {many}"


def _first_few(names: list[str]) -> str:
    """ "A", "A and B", "A, B and 3 more"."""
    if len(names) <= NAMED:
        return " and ".join(names)
    return f"{', '.join(names[:NAMED])} and {len(names) - NAMED} more"


def move_conflict_words(current: int) -> str:
    return (
        f"This list was changed elsewhere (it is now at version {current}); it was not moved. "
        "Here is what moving it does now."
    )


def move_view(report: dict[str, Any], book: str) -> MoveView:
    """A move's report (its shape in shared/spec/book-versions.md) as the pages show it."""
    rows = [
        MoveRow(
            entry["id"],
            entry["unit"],
            (entry["cost"][0], entry["cost"][1]),
            entry["dropped"],
            entry["removed"],
            entry.get("reason", ""),
            entry.get("notes", []),
            entry.get("moved", []),
        )
        for entry in report["entries"]
    ]
    old_total, new_total = report["total_points"]
    return MoveView(book, report["from"], report["to"], (old_total, new_total), rows, report.get("validation", {}))


@dataclass(frozen=True)
class BookNotice:
    """The notice at the top of the builder when the list's book has moved on from the
    version it is built on, or is gone."""

    headline: str
    details: list[str] = field(default_factory=list)
    review_url: str = ""  # the report of the move, before anything changes
    changes_url: str = ""  # what changed in the book between the two versions
    gone: bool = False
