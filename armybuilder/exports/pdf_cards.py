"""Unit cards: one card per entry (or per distinct unit, "3× ...", when combined), on an
A4/Letter sheet several to a page, or poker-size (63 × 88 mm) with crop marks.

A card is worked out as plain data (`CardData`), then laid out as rows of known height
(weapons table rows, wrapped text lines); rows that do not fit go on a further card
titled "(continued)". Every piece of text is shrunk or wrapped to its box, so nothing is
ever drawn outside its card.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from reportlab.lib.units import mm

from armybuilder.engine.book import Rule
from armybuilder.engine.loadout import SomeModels, WeaponLine
from armybuilder.engine.meanings import NO_TEXT
from armybuilder.engine.results import EntryResult
from armybuilder.engine.rulesets import policy_for, policy_or_default
from armybuilder.exports.pdf_data import Printout, casts_spells, rules_reached
from armybuilder.exports.pdf_style import (
    ACCENT,
    BOLD,
    ERROR,
    INK,
    LINE,
    PAPERS,
    POKER_CARD,
    POKER_SIZE,
    SHADE,
    SHEET_CARD,
    TEXT_MIN,
    CardStyles,
    Style,
    clip,
    draw_line,
    draw_string,
    fit_size,
    isolate,
    new_canvas,
    width_of,
    wrap,
    wrap_spans,
)

LAYOUTS = ("sheet", "poker")
TYPE_NAMES = {"artillery": "Artillery", "ordnance": "Ordnance"}
PRINT_NOTE = "Print at 100% (actual size), not “fit to page”"
POKER_NOTE = "Print at 100% · cards 63 × 88 mm"  # short: it stands between two crop marks
EDGE = 5 * mm  # printers leave this much of the paper's edge blank: nothing printed is nearer
MARK_OFFSET, MARK_MIN = 1.5 * mm, 3 * mm  # a crop mark starts this far from the card, and is at least this long
UNIT_TRACKERS = ("Shaken", "Activated")  # a hero joined to a unit shares these with it
# A box to tick is 4 mm a side or more, 1 mm or more from the next: a pencil tick fits in
# it and lands in one box, on every card size.
TICK_BOX, TICK_GAP = 4.3 * mm, 1.3 * mm  # outer sizes: the 0.6 pt line leaves 4 mm and 1 mm clear
POKER_SIZES = (9.5, 9, 8.5, 8, 7.5, 7, 6.5, 6)  # a poker card's text takes the largest that fits it
DASH = "–"
# Stat labels too wide for their box at the smallest size we print.
SHORT_STAT_LABELS = {
    "Move/Rush": "Mv/Rush",
    "Toughness": "Tough",
    "Evasion": "Eva",
    "Stamina": "Stam",
    "Quality": "Qual",
    "Defense": "Def",
    "Models": "Mdls",
}
SHORT_HEADS = {"Range": "Rng", "Critical · rules": "Crit · rules", "Weapon": "Wpn"}
MIN_HEIGHT = 64  # points: a sheet card is never shorter
STEP = 0.5  # one step smaller, in points
NAME_SHRINK = 0.85  # the smallest a weapon name gets, as a share of the cell text, before it wraps
KEEP_TOGETHER = 4  # lines of a paragraph never split between two cards


# -- what a card shows -----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Column:
    title: str
    weight: float  # share of the table's width
    number: bool = False  # numbers are centred and shrink to fit; text wraps


STANDARD_COLUMNS = (
    Column("Weapon", 0.37),
    Column("Range", 0.1, True),
    Column("Att", 0.11, True),
    Column("AP", 0.075, True),
    Column("Rules", 0.345),
)
OPF_COLUMNS = (Column("Weapon", 0.39), Column("Range", 0.11, True), Column("Att", 0.13, True), Column("Rules", 0.37))
ARENA_COLUMNS = (  # widths that hold each heading at 6 pt on a poker card
    Column("Weapon", 0.245),
    Column("Range", 0.1, True),
    Column("Acc", 0.09, True),
    Column("Str", 0.08, True),
    Column("Dmg", 0.115, True),
    Column("Critical · rules", 0.37),
)
StatColumns = tuple[tuple[str, tuple[str, ...]], ...]  # (heading, the stats it shows)
ARENA_STATS: StatColumns = (
    ("Move/Rush", ("move", "rush")),
    ("Evasion", ("evasion",)),
    ("Toughness", ("toughness",)),
)
ARENA_STATS += (("Stamina", ("stamina",)), ("Health", ("health",)))


@dataclass(frozen=True, slots=True)
class CardData:
    """One card's content. Cards that are equal are identical entries (?combine=1)."""

    title: str
    subtitle: str
    cost: str
    stats: tuple[tuple[str, str], ...]
    columns: tuple[Column, ...]
    weapons: tuple[tuple[str, ...], ...]
    rules: str = ""
    type_notes: str = ""  # what the unit's type does: "Artillery: fires only when it Holds; …"
    upgrades: str = ""
    joined: tuple[str, str] | None = None  # ("Joined to", "Pike Levy")
    spell_rule: str = ""
    spells: tuple[tuple[str, int, str], ...] = ()
    meanings: tuple[tuple[str, str], ...] = ()  # ?rules=1: (rule, what it does), from the catalogue
    problems: int = 0
    footer: str = ""
    copies: int = 1
    some_models: tuple[str, ...] = ()  # rules only some models have: "1 model (Weapon Team): Tough(3)"
    heroes: tuple[CardData, ...] = ()  # the heroes joined to the unit, printed on its card
    trackers: tuple[Tracker, ...] = ()  # ?trackers=1: boxes to tick during the game


@dataclass(frozen=True, slots=True)
class Tracker:
    """A row of boxes to tick: `groups` of boxes (a model's wounds, say), side by side."""

    label: str
    groups: tuple[int, ...]


def cards_for(
    printout: Printout, *, combine: bool = False, rules: bool = False, trackers: bool = False
) -> list[CardData]:
    """The cards of a list, a joined hero on the card of the unit it leads; with `rules`,
    each card also says what its special rules do, with `trackers` it has boxes to tick."""
    results = printout.validation.in_print_order
    labels = {r.entry.id: r.label for r in results}
    cards: dict[str, CardData] = {}
    joined: dict[str, list[CardData]] = {}
    for result in results:
        card = _card(result, printout, labels, trackers=trackers)
        if rules:
            card = _with_meanings(card, result, printout)
        # A hero joined to a unit (itself joined to none) is printed on that unit's card.
        if result.leader is not None:
            # One unit on the table: its Shaken and Activated boxes are the unit's.
            own = tuple(tracker for tracker in card.trackers if tracker.label not in UNIT_TRACKERS)
            joined.setdefault(result.leader, []).append(replace(card, joined=None, trackers=own))
        else:
            cards[result.entry.id] = card
    out = []
    for entry_id, card in cards.items():
        heroes = tuple(joined.get(entry_id, ()))
        if heroes:
            card = replace(card, heroes=heroes, meanings=_merged_meanings(card, heroes))
        out.append(card)
    if not combine:
        return out
    counts: dict[CardData, int] = {}
    for card in out:
        counts[card] = counts.get(card, 0) + 1
    return [replace(card, copies=n) if n > 1 else card for card, n in counts.items()]


def _merged_meanings(card: CardData, heroes: tuple[CardData, ...]) -> tuple[tuple[str, str], ...]:
    """The unit's rules and its heroes', each explained once on the card."""
    merged = dict(card.meanings)
    for hero in heroes:
        for name, text in hero.meanings:
            merged.setdefault(name, text)
    return tuple(merged.items())


def _with_meanings(card: CardData, result: EntryResult, printout: Printout) -> CardData:
    """The card with the summary of every special rule of the unit and its weapons, and
    of every rule those lead to (an aura's rule, a rule a rule's text or a spell names)."""
    if result.loadout is None:
        return card
    names = [rule.name for rule in result.loadout.every_rule]
    names += [Rule.parse(text).name for weapon in result.loadout.weapons for text in weapon.rules]
    meanings = []
    for name in rules_reached(printout, names, spells=bool(card.spells)):
        rule = printout.rules.get(name)
        meanings.append((name, rule.text if rule is not None and rule.text else NO_TEXT))
    return replace(card, meanings=tuple(meanings))


def _card(result: EntryResult, printout: Printout, labels: dict[str, str], *, trackers: bool = False) -> CardData:
    entry, unit, loadout = result.entry, result.unit, result.loadout
    footer = card_footer(printout)
    if unit is None or loadout is None:
        return CardData(
            title=result.label,
            subtitle=f"Not in the {isolate(printout.faction_name)} army book",
            cost="",
            stats=(),
            columns=(),
            weapons=(),
            problems=max(result.errors, 1),
            footer=footer,
        )
    subtitle = [isolate(unit.name)] if entry.name else []
    subtitle.append(unit.type.replace("-", " ").title())
    if entry.combined:
        subtitle.append("combined unit (" + " + ".join(str(size) for size in loadout.copy_sizes) + " models)")
    joined = ("Joined to", labels[result.joined]) if result.joined is not None else None
    caster = casts_spells(loadout.every_rule)
    arena = "move" in unit.stats
    policy = policy_for(printout.family)
    weapons = weapons_fought_with(result, printout.family)
    notes = policy.type_notes(unit)
    some, everyone = loadout.some, list(loadout.rules)  # who has which rule: the engine's one answer
    return CardData(
        title=result.label,
        subtitle=" · ".join(subtitle),
        cost=f"{result.cost} pts" if printout.uses_points else "",
        stats=_arena_stats(unit.stats, everyone) if arena else _stats(unit.stats, result.models, everyone),
        columns=ARENA_COLUMNS if arena else OPF_COLUMNS if policy.weapon_classes else STANDARD_COLUMNS,
        weapons=tuple(
            _weapon_cells(
                w, arena=arena, opf=policy.weapon_classes, typed=policy.weapon_type_rules(w), models=result.models
            )
            for w in weapons
        ),
        rules=", ".join(str(rule) for rule in everyone),
        type_notes=f"{TYPE_NAMES.get(unit.type, unit.type.title())}: " + "; ".join(notes) if notes else "",
        upgrades=upgrades_taken(result, printout.family),
        joined=joined,
        spell_rule=str(caster) if caster and printout.spells else "",
        spells=printout.spells if caster else (),
        problems=result.errors,
        footer=footer,
        some_models=tuple(str(group) for group in some),
        trackers=card_trackers(result, everyone, some) if trackers else (),
    )


def card_footer(printout: Printout) -> str:
    """The book and the rules a card was made from, with their versions: a player at the
    table sees at once whether both sides read the same editions."""
    rules = printout.ruleset_title
    if not any(ch.isdigit() for ch in rules):
        rules += " (rulebook version not stated)"
    return f"{isolate(printout.faction_name)} {printout.book_version} · {rules}".replace("  ", " ")


def weapons_fought_with(result: EntryResult, family: str) -> list[WeaponLine]:
    """The unit's weapons, and the one the rulebook gives a unit with no melee weapon (a
    card and the army sheet print both)."""
    weapons = list(result.loadout.weapons) if result.loadout is not None else []
    if all(w.range for w in weapons) and (default := policy_for(family).default_melee(result.models)) is not None:
        weapons.append(default)
    return weapons


def upgrades_taken(result: EntryResult, family: str) -> str:
    """The picks as a card and the army sheet list them: "Sergeant, Banner ×2"."""
    if result.loadout is None:
        return ""
    return ", ".join(
        label if picks == 1 else f"{isolate(label)} ×{picks}"
        for label, picks in upgrade_labels(result, result.loadout.every_rule, family)
    )


def upgrade_labels(result: EntryResult, rules: Sequence[Rule], family: str) -> list[tuple[str, int]]:
    """The picks as the card lists them, so that a rule has one name on the card: a pick
    that only gives rules is named by the rules it gives, and a rule Army Forge names
    otherwise than our rulebook takes our name (its "Rune Lord (Caster(2))" is the
    Skirmish "Rune Lord (Wizard(2))", as the card's rules print it)."""
    loadout, unit = result.loadout, result.unit
    if loadout is None or unit is None:
        return []
    by_label = {}
    for option_id in result.entry.options:
        if option_id in unit.options:
            offered = unit.options[option_id][1]
            by_label[offered.label] = offered
    names = {rule.name for rule in rules}
    labels = []
    for label, picks in loadout.upgrades:
        option = by_label.get(label)
        gained = [r for gain in option.gains if gain.kind == "rule" for r in gain.rules] if option else []
        if option is not None and gained and all(gain.kind == "rule" for gain in option.gains):
            if all(rule.name in names for rule in gained):
                label = ", ".join(str(rule) for rule in gained)
        for theirs, ours in policy_or_default(family).rule_aliases.items():
            if ours in names and theirs not in names:
                label = re.sub(rf"(?<![\w/]){re.escape(theirs)}(?![\w/])", ours, label)
        labels.append((label, picks))
    return labels


def card_trackers(result: EntryResult, everyone: list[Rule], some: Sequence[SomeModels]) -> tuple[Tracker, ...]:
    """Boxes to tick in play: a wound box per Tough point of each model (one for a model
    without Tough), spell tokens for a Caster (it holds at most 6, AoF "Caster(X)"),
    Shaken and Activated; Arena models their Health and Stamina."""
    unit, loadout = result.unit, result.loadout
    if unit is None or loadout is None:
        return ()
    trackers = []
    if "health" in unit.stats:
        trackers.append(Tracker("Health", (unit.stats["health"],)))
        if unit.stats.get("stamina"):
            trackers.append(Tracker("Stamina", (unit.stats["stamina"],)))
    else:
        tough = _rating(everyone, "Tough") or 1
        wounds: list[int] = []
        rest = loadout.models
        for group in some:
            count, extra = group.models, _rating(list(group.rules), "Tough")
            if extra:
                wounds += [extra] * min(count, rest)
                rest -= min(count, rest)
        wounds = [tough] * rest + wounds
        trackers.append(Tracker("Wounds", tuple(wounds)))
    caster = casts_spells(loadout.every_rule)
    if caster is not None and caster.name == "Caster":
        trackers.append(Tracker(f"Spell tokens (+{caster.rating} a round, 6 at most)", (6,)))
    trackers.append(Tracker("Shaken", (1,)))
    trackers.append(Tracker("Activated", (1,)))
    return tuple(trackers)


def _rating(rules: list[Rule], name: str) -> int | None:
    return next((rule.rating for rule in rules if rule.name == name and isinstance(rule.rating, int)), None)


def _tough(rules: Sequence[Rule]) -> str | None:
    return next((str(rule.rating) for rule in rules if rule.name == "Tough" and rule.rating is not None), None)


def _stats(stats: Mapping[str, int], models: int, rules: Sequence[Rule]) -> tuple[tuple[str, str], ...]:
    boxes = [("Models", str(models))]
    boxes.extend((key.title(), f"{stats[key]}+") for key in ("quality", "defense") if key in stats)
    if tough := _tough(rules):
        boxes.append(("Tough", tough))
    return tuple(boxes)


def _arena_stats(stats: Mapping[str, int], rules: Sequence[Rule]) -> tuple[tuple[str, str], ...]:
    boxes = []
    for label, keys in ARENA_STATS:
        values = [str(stats[key]) for key in keys if key in stats]
        if values:
            boxes.append((label, "/".join(values)))
    if tough := _tough(rules):
        boxes.append(("Tough", tough))
    return tuple(boxes)


def _weapon_cells(
    weapon: WeaponLine, *, arena: bool, opf: bool, typed: tuple[str, ...] = (), models: int = 1
) -> tuple[str, ...]:
    # In a unit of several models a count says who carries it: "1× Heavy Drill" of ten.
    name = f"{weapon.count}× {isolate(weapon.name)}" if weapon.count > 1 or models > 1 else weapon.name
    attacks = DASH if weapon.attacks is None else str(weapon.attacks)
    if arena:
        profile = weapon.profile
        critical = str(profile.get("critical") or "")
        extra = "; ".join(part for part in (critical, ", ".join(weapon.rules)) if part)
        numbers = (str(profile.get(key, DASH)) for key in ("accuracy", "strength", "damage"))
        return (name, str(weapon.range) if weapon.range else DASH, *numbers, extra or DASH)
    reach = f'{weapon.range}"' if weapon.range else DASH
    if opf:  # a melee weapon's type gives it rules ("Weapon Types")
        return (name, reach, attacks, ", ".join([*typed, *weapon.rules]) or DASH)
    rules = [Rule.parse(text) for text in weapon.rules]
    ap = next((str(rule.rating) for rule in rules if rule.name == "AP" and rule.rating is not None), DASH)
    others = ", ".join(str(rule) for rule in rules if rule.name != "AP")
    return (name, reach, attacks, ap, others or DASH)


def smaller_card(style: CardStyles) -> CardStyles | None:
    """The card's text one step smaller, never under 6 pt; None if it cannot shrink."""

    def step(text_style: Style) -> Style:
        return text_style.sized(max(TEXT_MIN, text_style.size - STEP))

    smaller = replace(
        style,
        cell=step(style.cell),
        text=step(style.text),
        label=step(style.label),
        table_head=step(style.table_head),
    )
    return None if smaller == style else smaller


def card_text_at(style: CardStyles, size: float) -> CardStyles:
    """The card's styles with its text (cells, paragraphs, lead-ins) at `size`; the table
    head keeps its distance below the text, never under 6 pt."""
    head = max(TEXT_MIN, size - (style.text.size - style.table_head.size))
    return replace(
        style,
        subtitle=style.subtitle.sized(max(style.subtitle.size, size - 1)),
        cell=style.cell.sized(size),
        text=style.text.sized(size),
        label=style.label.sized(size),
        table_head=style.table_head.sized(head),
    )


# -- where the cards go on the page ------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Grid:
    page: tuple[float, float]
    card: tuple[float, float]
    columns: int
    rows: int
    gap: float
    inset: float  # the card's frame inside its box (poker cards leave a margin for cutting)
    crop_marks: bool

    @property
    def origin(self) -> tuple[float, float]:
        """Bottom-left corner of the grid, which is centred on the page; poker cards on a
        page too short to have crop marks above and below (Letter) leave room for them
        above, where every cut between two columns gets its mark."""
        width = self.columns * self.card[0] + (self.columns - 1) * self.gap
        height = self.rows * self.card[1] + (self.rows - 1) * self.gap
        bottom = (self.page[1] - height) / 2
        room = EDGE + MARK_OFFSET + MARK_MIN
        if self.crop_marks and bottom < room:
            bottom = self.page[1] - height - room
        return (self.page[0] - width) / 2, bottom

    def boxes(self) -> list[tuple[float, float, float, float]]:
        """(x, y, width, height) of every card on a page, top left first."""
        left, bottom = self.origin
        w, h = self.card
        return [
            (left + col * (w + self.gap), bottom + (self.rows - 1 - row) * (h + self.gap), w, h)
            for row in range(self.rows)
            for col in range(self.columns)
        ]


def card_grid(layout: str, paper: str) -> Grid:
    page = PAPERS[paper]
    if layout == "poker":
        return Grid(page, POKER_SIZE, 3, 3, 0, 2 * mm, True)
    # Sheet cards run down two columns, as tall as their content: a card breaks only at
    # the foot of a page.
    margin, gap = 24, 10
    size = ((page[0] - 2 * margin - gap) / 2, page[1] - 2 * margin)
    return Grid(page, size, 2, 1, gap, 0, False)


# -- laying a card out -------------------------------------------------------------------
@dataclass(slots=True)
class Row:
    kind: str  # text | heading | head | weapon | gap | rule | boxes
    height: float
    content: Any = None
    keep_with_next: bool = False


@dataclass(slots=True)
class Face:
    """One printed card: an entry's first card or one of its "(continued)" cards."""

    card: CardData
    number: int
    rows: list[Row]
    total: int = 1
    style: CardStyles | None = None  # the text sizes it is drawn at (one step smaller to fit)
    height: float = 0.0  # what its content needs, frame included


class UnitCardsPdf:
    def __init__(
        self,
        printout: Printout,
        *,
        layout: str = "sheet",
        paper: str = "a4",
        combine: bool = False,
        rules: bool = False,
        trackers: bool = False,
    ):
        self.printout = printout
        self.rules = rules
        self.trackers = trackers
        self.grid = card_grid(layout, paper)
        self.style: CardStyles = POKER_CARD if layout == "poker" else SHEET_CARD
        self.combine = combine
        frame_width = self.grid.card[0] - 2 * self.grid.inset
        self.width = frame_width - 2 * self.style.padding  # of the card's content
        # Name bands laid out in this drawing (a card is measured again while it is fitted):
        # work of one render, gone with it, not a cache of the process (armybuilder/memo.py).
        self._headers: dict[tuple, tuple[float, list[str], float]] = {}
        self.smaller = smaller_card(self.style)

    def render(self) -> bytes:
        buffer = io.BytesIO()
        self.canvas = new_canvas(
            buffer,
            pagesize=self.grid.page,
            title=f"{self.printout.title} — unit cards",
            subject=f"{self.printout.ruleset_title} · {self.printout.faction_name}",
        )
        cards = cards_for(self.printout, combine=self.combine, rules=self.rules, trackers=self.trackers)
        faces = [face for card in cards for face in self._fitted_faces(card)]
        if not faces:
            self._draw_no_units()
        pages = self._pages(faces)
        for number, placed in enumerate(pages or [[]]):
            if number:
                self.canvas.showPage()
            if self.grid.crop_marks:
                self._draw_crop_marks(len(placed))
            self._draw_print_note()
            for face, box in placed:
                assert face.style is not None  # every fitted face has its sizes
                self.style = face.style
                self._draw_face(face, box)
        self.canvas.save()
        return buffer.getvalue()

    def _draw_print_note(self) -> None:
        """Cards are sized to the millimetre: "fit to page" would shrink them. The note
        stays 5 mm or more from the paper's edge, below the cards, or above them when the
        space below is the crop marks' (poker cards on Letter)."""
        footer = self.style.footer
        _left, bottom = self.grid.origin
        note = POKER_NOTE if self.grid.crop_marks else PRINT_NOTE
        descent, ascent = 0.25 * footer.size, 0.8 * footer.size
        y = EDGE + descent
        if y + ascent + 1 > bottom:
            y = self.grid.page[1] - EDGE - ascent
        self.canvas.setFillColor(footer.color)
        draw_string(self.canvas, self.grid.page[0] / 2, y, note, footer.font, footer.size, "centre")

    # -- measuring ---------------------------------------------------------------------
    def _header(self, title: str, cost: str) -> tuple[float, list[str], float]:
        """Height of the name band, the name's lines and their size: the name shrinks
        to fit beside the cost, and wraps when even the smallest size is too wide."""
        key = (title, cost, self.style.text.size)
        if key not in self._headers:
            style = self.style
            room = self.width - (width_of(cost, BOLD, style.cost.size) + 6 if cost else 0)
            size = fit_size(title, style.name.font, style.name.size, room, style.name_min)
            lines = wrap(title, style.name.font, size, room)
            height = len(lines) * style.name.sized(size).leading + 6
            self._headers[key] = (height, lines, size)
        return self._headers[key]

    def _title(self, card: CardData, number: int) -> str:
        title = isolate(card.title)  # "4× {name} (continued)": the count and word stay put
        title = f"{card.copies}× {title}" if card.copies > 1 else title
        return f"{title} (continued)" if number > 1 else title

    def _cost(self, card: CardData) -> str:
        return f"{card.cost} each" if card.cost and card.copies > 1 else card.cost

    def _subtitle_lines(self, card: CardData) -> list[str]:
        return (
            wrap(card.subtitle, self.style.subtitle.font, self.style.subtitle.size, self.width) if card.subtitle else []
        )

    def _stats_height(self, card: CardData) -> float:
        return self.style.stat_label.leading + self.style.stat_value.leading + 5 if card.stats else 0

    def _footer_height(self) -> float:
        return self.style.footer.leading + 2

    def _body_room(self, card: CardData, number: int) -> float:
        frame_height = self.grid.card[1] - 2 * self.grid.inset
        used = self._header(self._title(card, number), self._cost(card))[0] + self._footer_height()
        used += 2 * self.style.padding
        if number == 1:
            used += len(self._subtitle_lines(card)) * self.style.subtitle.leading + self._stats_height(card) + 4
        return frame_height - used

    def _rows(self, card: CardData) -> list[Row]:
        style = self.style
        # Each unit of a combined card ("4× War Dancers") is ticked apart: its own boxes.
        apart = card.copies > 1
        rows = self._unit_rows(card, trackers=not apart)
        for hero in card.heroes:
            rows.append(Row("rule", 4, keep_with_next=True))
            title = f"{isolate(hero.title)} · {hero.cost}" if hero.cost else hero.title
            rows.extend(self._keep(self._text_rows([("Joined hero: ", style.label.font), (title, style.label.font)])))
            if hero.stats:
                stats = " · ".join(f"{label} {value}" for label, value in hero.stats)
                rows.extend(self._text_rows([(stats, style.text.font)]))
            rows.extend(self._unit_rows(hero, trackers=not apart))
        if apart:
            rows.extend(self._copies_tracker_rows(card))
        if card.meanings:
            rows.append(Row("heading", style.label.leading + 2, "What the rules do", keep_with_next=True))
            for name, text in card.meanings:
                rows.extend(self._text_rows([(f"{name}: ", style.label.font), (text, style.text.font)]))
                rows.append(Row("gap", 1))
        spells, spell_rule = card.spells, card.spell_rule
        for hero in card.heroes:
            if not spells and hero.spells:
                spells, spell_rule = hero.spells, f"{isolate(hero.title)}, {hero.spell_rule}"
        if spells:
            rows.append(Row("heading", style.label.leading + 2, f"Spells · {spell_rule}", keep_with_next=True))
            for i, (name, cost, text) in enumerate(spells):
                rows.append(Row("gap", 1))
                spell = self._text_rows([(f"{name} ({cost}) ", style.label.font), (text, style.text.font)])
                if i == len(spells) - 2:
                    # The last two spells stay together: a "(continued)" card never holds one alone.
                    for row in spell:
                        row.keep_with_next = True
                rows.extend(spell)
            if len(spells) >= 2:
                rows[-len(spell) - 1].keep_with_next = True  # the gap before the last spell
        while rows and rows[-1].kind == "gap":
            rows.pop()
        return rows

    def _unit_rows(self, card: CardData, *, trackers: bool = True) -> list[Row]:
        """Weapons, rules, type, upgrades and trackers of a unit (or of a hero joined to it)."""
        style = self.style
        rows: list[Row] = []
        if card.weapons:
            rows.append(self._head_row(card.columns))
            room = self._body_room(card, 2) - rows[-1].height
            rows.extend(self._weapon_row(card.columns, cells, room) for cells in card.weapons)
            rows.append(Row("gap", 3))
        for label, text in (("Rules:", card.rules), ("Type:", card.type_notes)):
            if text:
                rows.extend(self._text_rows([(label + " ", style.label.font), (text, style.text.font)]))
                rows.append(Row("gap", 2))
        for text in card.some_models:
            name, _colon, rules = text.partition(": ")
            rows.extend(self._text_rows([(name + ": ", style.label.font), (rules, style.text.font)]))
            rows.append(Row("gap", 2))
        if card.upgrades:
            rows.extend(self._text_rows([("Upgrades: ", style.label.font), (card.upgrades, style.text.font)]))
            rows.append(Row("gap", 2))
        if card.joined:
            rows.extend(self._text_rows([(card.joined[0] + ": ", style.label.font), (card.joined[1], style.text.font)]))
            rows.append(Row("gap", 2))
        for tracker in card.trackers if trackers else ():
            rows.extend(self._tracker_rows(tracker))
            rows.append(Row("gap", 2))
        return rows

    def _copies_tracker_rows(self, card: CardData) -> list[Row]:
        """A combined card's boxes, unit by unit under "Unit 1 of 4", …: each unit's own
        wounds, Shaken and Activated, and its joined heroes' wounds named by the hero."""
        style = self.style
        if not card.trackers and not any(hero.trackers for hero in card.heroes):
            return []
        rows: list[Row] = []
        for number in range(1, card.copies + 1):
            rows.append(Row("heading", style.label.leading + 2, f"Unit {number} of {card.copies}", keep_with_next=True))
            trackers = list(card.trackers)
            for hero in card.heroes:
                trackers += [replace(t, label=f"{isolate(hero.title)}: {t.label.lower()}") for t in hero.trackers]
            for tracker in trackers:
                rows.extend(self._tracker_rows(tracker))
                rows.append(Row("gap", 2))
        return rows

    @staticmethod
    def _keep(rows: list[Row]) -> list[Row]:
        for row in rows:
            row.keep_with_next = True
        return rows

    def _tracker_rows(self, tracker: Tracker) -> list[Row]:
        """The tracker's label, then its boxes (TICK_BOX apart by TICK_GAP), a wider gap
        between groups, wrapping onto further lines when they run past the card's width."""
        style = self.style
        box, pitch = TICK_BOX, TICK_BOX + TICK_GAP
        label = tracker.label + " "
        label_width = width_of(label, style.label.font, style.text.size)
        rows: list[Row] = []
        if label_width > self.width / 2:
            rows.extend(self._keep(self._text_rows([(label, style.label.font)])))
            label, label_width = "", 0.0
        line: list[float] = []
        lines: list[list[float]] = []
        x = label_width
        for group in tracker.groups:
            need = group * pitch - TICK_GAP
            if line and x + need > self.width:
                lines.append(line)
                x, line = 0.0, []
            for _ in range(group):
                if x + box > self.width + 0.01:
                    lines.append(line)
                    x, line = 0.0, []
                line.append(x)
                x += pitch
            x += box / 2  # a model's boxes stand apart from the next model's
        lines.append(line)
        for i, offsets in enumerate(lines):
            rows.append(Row("boxes", box + TICK_GAP, (label if i == 0 else "", offsets, box), keep_with_next=i == 0))
        return rows

    def _text_rows(self, spans: list[tuple[str, str]]) -> list[Row]:
        """A paragraph's lines. One of up to four lines stays on one card; a longer one
        splits, but never leaves a single line on either card."""
        lines = wrap_spans(spans, self.style.text.size, self.width)
        last = len(lines) - 1
        if len(lines) <= KEEP_TOGETHER:
            keep = set(range(last))
        else:
            keep = {0, last - 1}
        return [Row("text", self.style.text.leading, line, i in keep) for i, line in enumerate(lines)]

    def _column_widths(self, columns: tuple[Column, ...]) -> list[float]:
        total = sum(column.weight for column in columns)
        return [self.width * column.weight / total for column in columns]

    def _head_row(self, columns: tuple[Column, ...]) -> Row:
        head = self.style.table_head
        cells = []
        for column, width in zip(columns, self._column_widths(columns), strict=True):
            title = column.title
            if width_of(title, head.font, self.style.cell_min) > width - 2:
                title = SHORT_HEADS.get(title, title)  # never under 6 pt: a shorter word
            size = fit_size(title, head.font, head.size, width - 2, self.style.cell_min)
            cells.append(([title], size))
        # One size for every heading: the largest at which each fits its column.
        size = min(size for _title, size in cells)
        cells = [(title, size) for title, _size in cells]
        return Row("head", head.sized(size).leading + 2, (columns, cells), keep_with_next=True)

    def _weapon_row(self, columns: tuple[Column, ...], texts: tuple[str, ...], room: float) -> Row:
        cell_style = self.style.cell
        cells: list[tuple[list[str], float]] = []
        for i, (column, width, text) in enumerate(zip(columns, self._column_widths(columns), texts, strict=True)):
            size = cell_style.size
            if column.number:
                size = fit_size(text, cell_style.font, size, width - 2, self.style.cell_min)
            elif i == 0:  # a weapon's name rather shrinks a little than wraps
                smaller = fit_size(text, cell_style.font, size, width - 2, max(size * NAME_SHRINK, TEXT_MIN))
                size = smaller if width_of(text, cell_style.font, smaller) <= width - 2 else size
            cells.append((wrap(text, cell_style.font, size, width - 2), size))
        # A row never outgrows an empty card: cut the longest cells short.
        most = max(1, int((room - 2) // cell_style.leading))
        cells = [(lines[:most] if len(lines) <= most else [*lines[: most - 1], "…"], size) for lines, size in cells]
        height = max(len(lines) * cell_style.sized(size).leading for lines, size in cells) + 2
        return Row("weapon", height, (columns, cells))

    def _fitted_faces(self, card: CardData) -> list[Face]:
        """The card's faces. A poker card's text takes the largest size at which the card
        fits on one face (a card that fits at none keeps the normal size); a sheet card's
        its normal size. Either way, a card that needs a "(continued)" card sets its text
        one step smaller (never under 6 pt) when that makes it fit on one."""
        normal = self.style
        faces = self._faces(card)
        if self.grid.crop_marks and len(faces) == 1:
            faces = self._grown_faces(card, faces)
        elif len(faces) > 1 and self.smaller is not None:
            self.style = self.smaller
            fitted = self._faces(card)
            if len(fitted) < len(faces):
                faces = fitted
        for face in faces:
            face.style = self.style
            face.height = self._face_height(face)
        self.style = normal
        return faces

    def _grown_faces(self, card: CardData, faces: list[Face]) -> list[Face]:
        """The faces at the largest text size that keeps the card on one face; `faces`
        are those at the normal size (one). The smallest step up is tried first (a full
        card stops there), then the largest (a sparse card stops there), then the sizes
        between by halving."""
        normal = self.style
        sizes = [size for size in POKER_SIZES if size > normal.text.size]  # largest first

        def one_face(size: float) -> list[Face] | None:
            self.style = card_text_at(normal, size)
            tried = self._faces(card) if self._words_fit(card) else []
            return tried if len(tried) == 1 else None

        smallest = one_face(sizes[-1]) if sizes else None
        if smallest is None:
            self.style = normal
            return faces
        best: tuple[CardStyles, list[Face]] = (self.style, smallest)
        if len(sizes) > 1:
            largest = one_face(sizes[0])
            if largest is not None:
                return largest  # self.style is its size
            low, high = 1, len(sizes) - 2  # between the largest (too large) and the smallest (fits)
            while low <= high:
                middle = (low + high) // 2
                fitted = one_face(sizes[middle])
                if fitted is not None:
                    best, high = (self.style, fitted), middle - 1
                else:
                    low = middle + 1
        self.style = best[0]
        return best[1]

    def _words_fit(self, card: CardData) -> bool:
        """No word of a weapons table's text cells is wider than its column at the
        current size: larger text that would break "Hacking Knife" into "Hackin / g"
        does not fit."""
        cell = self.style.cell
        for each in (card, *card.heroes):
            widths = self._column_widths(each.columns)
            for texts in each.weapons:
                for column, width, text in zip(each.columns, widths, texts, strict=True):
                    if not column.number and any(width_of(w, cell.font, cell.size) > width - 2 for w in text.split()):
                        return False
        return True

    def _face_height(self, face: Face) -> float:
        """The frame height its content needs (poker cards: always the card's)."""
        full = self.grid.card[1] - 2 * self.grid.inset
        if self.grid.crop_marks:
            return full
        room = self._body_room(face.card, face.number)
        used = full - room + sum(row.height for row in face.rows)
        return min(full, max(used, MIN_HEIGHT))

    def _pages(self, faces: list[Face]) -> list[list[tuple[Face, tuple[float, float, float, float]]]]:
        """Where each face goes. Poker cards: the grid, nine a page. Sheet cards: in
        newspaper columns, each card as tall as its content, in list order."""
        grid = self.grid
        boxes = grid.boxes()
        if grid.crop_marks:
            return [list(zip(faces[i : i + len(boxes)], boxes, strict=False)) for i in range(0, len(faces), len(boxes))]
        left, bottom = grid.origin
        top = bottom + grid.rows * grid.card[1] + (grid.rows - 1) * grid.gap
        pages: list[list] = [[]]
        column, y = 0, top
        for face in faces:
            height = face.height + 2 * grid.inset
            if y - height < bottom - 0.01:
                column += 1
                y = top
                if column >= grid.columns:
                    pages.append([])
                    column = 0
            x = left + column * (grid.card[0] + grid.gap)
            pages[-1].append((face, (x, y - height, grid.card[0], height)))
            y -= height + grid.gap
        return pages

    def _faces(self, card: CardData) -> list[Face]:
        rows = self._rows(card)
        head = rows[0] if rows and rows[0].kind == "head" else None
        faces = [Face(card, 1, [])]
        room = self._body_room(card, 1)
        i = 0
        while i < len(rows):
            row = rows[i]
            need, j = row.height, i
            while rows[j].keep_with_next and j + 1 < len(rows):
                j += 1
                need += rows[j].height
            face = faces[-1]
            if need > room and (face.number == 1 or any(r.kind != "head" for r in face.rows)):
                faces.append(Face(card, len(faces) + 1, []))
                room = self._body_room(card, len(faces))
                if row.kind == "weapon" and head is not None:
                    faces[-1].rows.append(head)
                    room -= head.height
                continue
            if not (row.kind == "gap" and not face.rows):
                face.rows.append(row)
                room -= row.height
            i += 1
        for face in faces:
            while face.rows and face.rows[-1].kind in ("gap", "head", "heading"):
                face.rows.pop()
            face.total = len(faces)
        return faces

    # -- drawing -----------------------------------------------------------------------
    def _draw_no_units(self) -> None:
        x, y, w, h = self.grid.boxes()[0]
        text = self.style.text
        draw_line(self.canvas, [(f"{self.printout.title} has no units yet.", text.font)], x, y + h - 12, text.size)

    def _draw_crop_marks(self, filled: int) -> None:
        """Short lines in the page margin on the cutting lines of the `filled` cards of
        this page, clear of the cards and at least 5 mm from the paper's edge (printers
        do not print closer)."""
        canvas, grid = self.canvas, self.grid
        left, bottom = grid.origin
        w, h = grid.card
        rows = -(-filled // grid.columns)
        columns = min(filled, grid.columns)
        right = left + columns * w
        top = bottom + grid.rows * h
        lowest = top - rows * h
        offset, length, edge = MARK_OFFSET, 5 * mm, EDGE
        canvas.setStrokeColor(LINE)
        canvas.setLineWidth(0.4)

        def mark(x0, y0, x1, y1):
            if abs(x1 - x0) + abs(y1 - y0) >= MARK_MIN - 0.01:
                canvas.line(x0, y0, x1, y1)

        page_w, page_h = grid.page
        for i in range(columns + 1):
            x = left + i * w
            mark(x, top + offset, x, min(top + offset + length, page_h - edge))
            mark(x, lowest - offset, x, max(lowest - offset - length, edge))
        for i in range(rows + 1):
            y = top - i * h
            mark(left - offset, y, max(left - offset - length, edge), y)
            mark(right + offset, y, min(right + offset + length, page_w - edge), y)

    def _draw_face(self, face: Face, box: tuple[float, float, float, float]) -> None:
        inset, pad = self.grid.inset, self.style.padding
        x, y, w, h = box[0] + inset, box[1] + inset, box[2] - 2 * inset, box[3] - 2 * inset
        self._draw_frame(x, y, w, h)
        top = self._draw_header(face, x, y + h, w)
        if face.number == 1:
            top = self._draw_subtitle(face.card, x + pad, top)
            top = self._draw_stats(face.card, x + pad, top)
        left = x + pad
        for row in face.rows:
            self._draw_row(row, left, top)
            top -= row.height
        self._draw_footer(face, x + pad, y + pad, w - 2 * pad)

    def _draw_frame(self, x: float, y: float, w: float, h: float) -> None:
        self.canvas.setStrokeColor(ACCENT)
        self.canvas.setLineWidth(0.8)
        self.canvas.roundRect(x, y, w, h, 4, stroke=1, fill=0)

    def _draw_header(self, face: Face, x: float, top: float, w: float) -> float:
        canvas, style, pad = self.canvas, self.style, self.style.padding
        cost = self._cost(face.card)
        height, lines, size = self._header(self._title(face.card, face.number), cost)
        band = height + pad - 3
        canvas.setFillColor(ACCENT)
        path = canvas.beginPath()  # the band follows the frame's rounded top corners
        path.moveTo(x, top - band)
        path.lineTo(x, top - 4)
        path.arcTo(x, top - 8, x + 8, top, startAng=180, extent=-90)
        path.lineTo(x + w - 4, top)
        path.arcTo(x + w - 8, top - 8, x + w, top, startAng=90, extent=-90)
        path.lineTo(x + w, top - band)
        path.close()
        canvas.drawPath(path, stroke=0, fill=1)
        name = style.name.sized(size)
        y = top - pad + 1 - size
        if cost:
            canvas.setFillColor(style.cost.color)  # not the band's own colour
            draw_string(canvas, x + w - pad, y, cost, style.cost.font, style.cost.size, "right")
        for line in lines:
            draw_line(canvas, [(line, name.font)], x + pad, y, size, name.color)
            y -= name.leading
        return top - band - 3

    def _draw_subtitle(self, card: CardData, x: float, top: float) -> float:
        subtitle = self.style.subtitle
        for line in self._subtitle_lines(card):
            draw_line(self.canvas, [(line, subtitle.font)], x, top - subtitle.size, subtitle.size, subtitle.color)
            top -= subtitle.leading
        return top - 1

    def _draw_stats(self, card: CardData, x: float, top: float) -> float:
        if not card.stats:
            return top
        canvas, label_style, value_style = self.canvas, self.style.stat_label, self.style.stat_value
        height = self._stats_height(card) - 2
        gap = 3
        width = (self.width - gap * (len(card.stats) - 1)) / len(card.stats)
        canvas.setLineWidth(0.5)
        for i, (label, value) in enumerate(card.stats):
            left = x + i * (width + gap)
            canvas.setFillColor(SHADE)
            canvas.setStrokeColor(LINE)
            canvas.rect(left, top - height, width, height, stroke=1, fill=1)
            centre = left + width / 2
            if width_of(label, label_style.font, TEXT_MIN) > width - 3:
                label = SHORT_STAT_LABELS.get(label, label)  # never smaller than 6 pt: a shorter word
            label_size = fit_size(label, label_style.font, label_style.size, width - 3, TEXT_MIN)
            canvas.setFillColor(label_style.color)
            draw_string(canvas, centre, top - 1.5 - label_style.size, label, label_style.font, label_size, "centre")
            value_size = fit_size(value, value_style.font, value_style.size, width - 3, TEXT_MIN)
            canvas.setFillColor(value_style.color)
            draw_string(canvas, centre, top - height + 2.5, value, value_style.font, value_size, "centre")
        return top - height - 5

    def _draw_row(self, row: Row, x: float, top: float) -> None:
        canvas, style = self.canvas, self.style
        if row.kind == "text":
            draw_line(canvas, row.content, x, top - style.text.size, style.text.size, style.text.color)
        elif row.kind == "heading":
            canvas.setStrokeColor(LINE)
            canvas.setLineWidth(0.4)
            canvas.line(x, top - 0.5, x + self.width, top - 0.5)
            draw_line(canvas, [(row.content, style.label.font)], x, top - 1.5 - style.label.size, style.label.size)
        elif row.kind in ("head", "weapon"):
            self._draw_cells(row, x, top)
        elif row.kind == "rule":
            canvas.setStrokeColor(ACCENT)
            canvas.setLineWidth(0.6)
            canvas.line(x, top - 2, x + self.width, top - 2)
        elif row.kind == "boxes":
            label, offsets, box = row.content
            if label:
                baseline = top - box / 2 - style.text.size * 0.35  # the label centred on its boxes
                draw_line(canvas, [(label, style.label.font)], x, baseline, style.text.size, style.text.color)
            canvas.setStrokeColor(INK)
            canvas.setLineWidth(0.6)
            for offset in offsets:
                canvas.rect(x + offset, top - box, box, box, stroke=1, fill=0)

    def _draw_cells(self, row: Row, x: float, top: float) -> None:
        canvas = self.canvas
        head = row.kind == "head"
        text_style: Style = self.style.table_head if head else self.style.cell
        if head:
            canvas.setFillColor(SHADE)
            canvas.rect(x, top - row.height, self.width, row.height, stroke=0, fill=1)
        columns, cells = row.content
        left = x
        for (lines, size), width, column in zip(cells, self._column_widths(columns), columns, strict=True):
            leading = text_style.sized(size).leading
            y = top - 1 - size
            canvas.setFillColor(text_style.color)
            for line in lines:
                if column.number:
                    draw_string(canvas, left + width / 2, y, line, text_style.font, size, "centre")
                else:
                    draw_string(canvas, left + 1, y, line, text_style.font, size)
                y -= leading
            left += width
        canvas.setStrokeColor(LINE)
        canvas.setLineWidth(0.3)
        canvas.line(x, top - row.height, x + self.width, top - row.height)

    def _draw_footer(self, face: Face, x: float, bottom: float, width: float) -> None:
        canvas, footer = self.canvas, self.style.footer
        right_parts = []
        if face.card.problems:
            right_parts.append(f"{face.card.problems} {'problem' if face.card.problems == 1 else 'problems'}")
        if face.total > 1:
            right_parts.append(f"{face.number}/{face.total}")
        right = " · ".join(right_parts)
        right_width = width_of(right, footer.font, footer.size) if right else 0
        if right:
            canvas.setFillColor(ERROR if face.card.problems else footer.color)
            draw_string(canvas, x + width, bottom + 1, right, footer.font, footer.size, "right")
        left = clip(face.card.footer, footer.font, footer.size, width - right_width - 6)
        canvas.setFillColor(footer.color)
        draw_string(canvas, x, bottom + 1, left, footer.font, footer.size)
