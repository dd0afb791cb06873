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
from armybuilder.exports import pdf_glossary
from armybuilder.exports.pdf_data import Printout, casts_spells, rules_reached
from armybuilder.exports.pdf_glossary import RULES, Group, glossary, rule_groups, spells_group
from armybuilder.exports.pdf_layout import Flow
from armybuilder.exports.pdf_style import (
    ACCENT,
    BOLD,
    ERROR,
    HEADING,
    INK,
    LINE,
    PAPERS,
    POKER_CARD,
    POKER_SIZE,
    REGULAR,
    SHADE,
    SHEET_CARD,
    TEXT_MIN,
    CardStyles,
    Line,
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
# A poker card's (stats and weapons, rules) sizes, largest first: it takes the largest that fits.
POKER_STEPS = ((10.0, 9.0), (9.5, 8.5), (9.0, 8.0), (8.5, 7.5), (8.0, 7.0))
POKER_FACES = 2  # a unit and its joined heroes fill at most this many poker cards
PAGE = "{page}"  # a card's pointer to the glossary: its page, known once the cards are laid out
CELL_PAD = 2.5  # a table cell's text keeps this far from the next column
UNDER_INDENT = 8  # a weapon's rules printed under its name stand in this far
GLOSSARY_SIZES = (8.0, 7.5, 7.0)  # the glossary after the cards takes the largest that adds no page
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
    glossary: tuple[Group, ...] = ()  # a poker-size glossary card: the spells, or the rules left off the cards
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


def _without_empty_columns(
    columns: tuple[Column, ...], weapons: tuple[tuple[str, ...], ...]
) -> tuple[tuple[Column, ...], tuple[tuple[str, ...], ...]]:
    """The table without a text column no weapon has anything in ("–" in every row): the
    weapons' names get its room instead of wrapping beside it."""
    empty = {
        i for i, column in enumerate(columns) if i and not column.number and all(row[i] == DASH for row in weapons)
    }
    if not empty:
        return columns, weapons
    keep = [i for i in range(len(columns)) if i not in empty]
    return tuple(columns[i] for i in keep), tuple(tuple(row[i] for i in keep) for row in weapons)


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


def card_text_at(style: CardStyles, cell: float, text: float) -> CardStyles:
    """The card's styles with its stats and weapons at `cell` and its text (rules,
    lead-ins) at `text`; headings, stat labels and subtitle grow with them."""
    return replace(
        style,
        subtitle=style.subtitle.sized(max(style.subtitle.size, text)),
        stat_label=style.stat_label.sized(max(style.stat_label.size, cell)),
        stat_value=style.stat_value.sized(max(style.stat_value.size, cell + 1)),
        cell=style.cell.sized(cell),
        table_head=style.table_head.sized(cell),
        text=style.text.sized(text),
        label=style.label.sized(text),
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
@dataclass(frozen=True, slots=True)
class Table:
    """A weapons table laid out at one size: its columns' widths and headings."""

    columns: tuple[Column, ...]
    widths: tuple[float, ...]
    titles: tuple[str, ...]
    fits: bool  # every word of its text cells fits its column
    headed: bool  # and so do its headings, at their size
    wrapped: int  # weapon names that wrap
    below: int | None = None  # the column printed under each weapon's name, not beside it


@dataclass(slots=True)
class Row:
    kind: str  # text | heading | head | weapon | gap | rule | boxes
    height: float
    content: Any = None
    keep_with_next: bool = False
    style: Style | None = None  # a text row's, when not the card's text (a joined hero's stats)


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
        self.poker = layout == "poker"
        self.grid = card_grid(layout, paper)
        self.style: CardStyles = POKER_CARD if layout == "poker" else SHEET_CARD
        self.combine = combine
        frame_width = self.grid.card[0] - 2 * self.grid.inset
        self.width = frame_width - 2 * self.style.padding  # of the card's content
        # Work of one drawing, gone with it, not caches of the process (armybuilder/memo.py):
        # a card is measured again at each size it is tried at. Name bands, weapons tables,
        # paragraphs wrapped at a size (the width is the card's), footer heights, room for
        # rows (by what takes room from them), weapons' cells wrapped to their column, and
        # the faces of each card laid out.
        self._headers: dict[tuple, tuple[float, list[str], float]] = {}
        self._tables: dict[tuple, Table] = {}
        self._wrapped: dict[tuple, list[Line]] = {}
        self._footers: dict[tuple, float] = {}
        self._rooms: dict[tuple, float] = {}
        self._cells: dict[tuple, list[str]] = {}
        self._fitted: dict[CardData, tuple[list[Face], list[str]]] = {}
        self.smaller = smaller_card(self.style)
        # What the cards' rules and spells do, each once: after the cards on the page;
        # on poker cards the rules stay on each card, the spells get a card of their own.
        self.groups = () if self.poker else glossary(printout, rules=rules)
        self.left_out: dict[str, None] = {}  # poker cards' rules explained on the rules cards
        self.glossary_page = 0
        self.glossary_size = GLOSSARY_SIZES[0]

    def render(self) -> bytes:
        buffer = io.BytesIO()
        self.canvas = new_canvas(
            buffer,
            pagesize=self.grid.page,
            title=f"{self.printout.title} — unit cards",
            subject=f"{self.printout.ruleset_title} · {self.printout.faction_name}",
        )
        rules = self.rules and self.poker
        cards = cards_for(self.printout, combine=self.combine, rules=rules, trackers=self.trackers)
        faces = [face for card in cards for face in self._fitted_faces(card)]
        if not faces:
            self._draw_no_units()
        for card in self._glossary_cards():
            faces += self._fitted_faces(card)
        pages = self._pages(faces)
        if self.groups and faces:
            self.glossary_page = len(pages) - 1 + self._glossary_flow(None, start_only=True).pages
            fewest = self._glossary_flow(None, size=GLOSSARY_SIZES[-1]).pages
            self.glossary_size = next(
                size for size in GLOSSARY_SIZES if self._glossary_flow(None, size=size).pages == fewest
            )
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
        if self.groups and faces:
            self.style = SHEET_CARD
            self._glossary_flow(self.canvas, size=self.glossary_size)
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
        key = (title, cost)  # the name band is set in the same sizes at every size of the text
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

    def _footer_height(self, card: CardData) -> float:
        key = (card.footer, card.problems)
        if key not in self._footers:
            self._footers[key] = len(self._footer_lines(card, "")) * self.style.footer.leading + 2
        return self._footers[key]

    def _footer_lines(self, card: CardData, right: str) -> list[tuple[str, str]]:
        """The footer's lines, bottom last, each (left text, right text): the book and
        rules on the left, the card's problems and number on the right. When the card's
        widest right part ("2 problems · 9/9") does not fit beside the left, it goes on a
        line of its own; the left takes two lines at most."""
        footer = self.style.footer
        widest = self._footer_right(card, 9, 9)
        room = self.width - width_of(widest, footer.font, footer.size) - 6
        if width_of(card.footer, footer.font, footer.size) <= room:
            return [(card.footer, right)]
        lefts = wrap(card.footer, footer.font, footer.size, self.width)
        lefts = (
            [*lefts[:1], clip(" ".join(lefts[1:]), footer.font, footer.size, self.width)] if len(lefts) > 1 else lefts
        )
        if width_of(lefts[-1], footer.font, footer.size) <= room:
            return [*((left, "") for left in lefts[:-1]), (lefts[-1], right)]
        return [*((left, "") for left in lefts), ("", right)]

    @staticmethod
    def _footer_right(card: CardData, number: int, total: int) -> str:
        parts = []
        if card.problems:
            parts.append(f"{card.problems} {'problem' if card.problems == 1 else 'problems'}")
        if total > 1:
            parts.append(f"{number}/{total}")
        return " · ".join(parts)

    def _body_room(self, card: CardData, number: int) -> float:
        """The height left for the card's rows on its face `number` at the current size."""
        style = self.style
        key: tuple = (card.title, card.copies, card.cost, card.subtitle, bool(card.stats), card.footer)
        key += (card.problems, min(number, 2), style.text.size, style.cell.size)
        if key not in self._rooms:
            frame_height = self.grid.card[1] - 2 * self.grid.inset
            used = self._header(self._title(card, number), self._cost(card))[0] + self._footer_height(card)
            used += 2 * style.padding
            if number == 1:
                used += len(self._subtitle_lines(card)) * style.subtitle.leading + self._stats_height(card) + 4
            self._rooms[key] = frame_height - used
        return self._rooms[key]

    def _rows(self, card: CardData) -> list[Row]:
        """The card's rows but the explanations of its rules (`_meaning_blocks`): a joined
        hero's part (weapons, rules, boxes) is kept whole, on one card."""
        if card.glossary:
            return self._glossary_rows(card.glossary)
        style = self.style
        # Each unit of a combined card ("4× War Dancers") is ticked apart: its own boxes.
        apart = card.copies > 1
        rows = self._unit_rows(card, trackers=not apart)
        for hero in card.heroes:
            block = [Row("rule", 4)]
            title = f"{isolate(hero.title)} · {hero.cost}" if hero.cost else hero.title
            block += self._text_rows([("Joined hero: ", style.label.font), (title, style.label.font)])
            if hero.stats:
                stats = " · ".join(f"{label} {value}" for label, value in hero.stats)
                block += self._text_rows([(stats, style.cell.font)], style.cell)  # stats: the weapons' size
            block += self._unit_rows(hero, trackers=not apart)
            while block[-1].kind == "gap":
                block.pop()
            rows.extend(self._keep(block[:-1]))
            rows.append(block[-1])
            rows.append(Row("gap", 2))
        if apart:
            rows.extend(self._copies_tracker_rows(card))
        if self.groups and self.rules and card.title:
            pointer = [("What the rules do: ", style.label.font), (f"glossary, page {PAGE}", style.text.font)]
            rows.extend(self._text_rows(pointer))
        while rows and rows[-1].kind == "gap":
            rows.pop()
        return rows

    def _heading(self, title: str, *, keep_with_next: bool = True) -> Row:
        """A heading under a thin line, wrapped to the card's width."""
        label = self.style.label
        lines = wrap(title, label.font, label.size, self.width)
        return Row("heading", len(lines) * label.leading + 2, lines, keep_with_next=keep_with_next)

    def _glossary_rows(self, groups: tuple[Group, ...]) -> list[Row]:
        """A poker-size glossary card's rows: each group under its heading, each entry
        whole on one card."""
        style = self.style
        rows: list[Row] = []
        for group in groups:
            if len(groups) > 1 or group.kind == RULES:
                rows.append(self._heading(group.title))
            for entry in group.entries:
                rows.extend(
                    self._keep(
                        self._text_rows([(f"{entry.heading}: ", style.label.font), (entry.text, style.text.font)])
                    )
                )
                rows.append(Row("gap", 2))
        return rows

    def _meaning_blocks(self, card: CardData) -> list[tuple[str, list[Row]]]:
        """What each of the card's rules does (poker cards with rules), a block each."""
        style = self.style
        blocks = []
        for name, text in card.meanings:
            block = self._text_rows([(f"{name}: ", style.label.font), (text, style.text.font)])
            blocks.append((name, [*self._keep(block), Row("gap", 1)]))
        return blocks

    def _unit_rows(self, card: CardData, *, trackers: bool = True) -> list[Row]:
        """Weapons, rules, type, upgrades and trackers of a unit (or of a hero joined to it)."""
        style = self.style
        rows: list[Row] = []
        if card.weapons:
            columns, weapons = _without_empty_columns(card.columns, card.weapons)
            table = self._table(columns, weapons)
            rows.append(self._head_row(table))
            room = self._body_room(card, 1) - rows[-1].height  # the least room a face has
            rows.extend(self._weapon_row(table, cells, room) for cells in weapons)
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
        if card.spell_rule:
            # The spells are printed once: on a spell card of their own, or after the cards.
            where = "on the spell card" if self.poker else f"glossary, page {PAGE}"
            count = f"{len(card.spells)} spells" if len(card.spells) != 1 else "1 spell"
            spans = [("Spells: ", style.label.font), (f"{card.spell_rule} · {count}, {where}", style.text.font)]
            rows.extend(self._text_rows(spans))
            rows.append(Row("gap", 2))
        for tracker in card.trackers if trackers else ():
            rows.extend(self._tracker_rows(tracker))
            rows.append(Row("gap", 2))
        return rows

    def _copies_tracker_rows(self, card: CardData) -> list[Row]:
        """A combined card's boxes, unit by unit under "Unit 1 of 4", …: each unit's own
        wounds, Shaken and Activated, and its joined heroes' wounds named by the hero."""
        if not card.trackers and not any(hero.trackers for hero in card.heroes):
            return []
        rows: list[Row] = []
        for number in range(1, card.copies + 1):
            rows.append(self._heading(f"Unit {number} of {card.copies}"))
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

    def _text_rows(self, spans: list[tuple[str, str]], style: Style | None = None) -> list[Row]:
        """A paragraph's lines (in the card's text style, or `style`). One of up to four
        lines stays on one card; a longer one splits, but never leaves a single line on
        either card."""
        style = style or self.style.text
        key = (tuple(spans), style.size)
        if key not in self._wrapped:  # the same rule's text, on card after card and tried at several sizes
            self._wrapped[key] = wrap_spans(spans, style.size, self.width)
        lines = self._wrapped[key]
        last = len(lines) - 1
        if len(lines) <= KEEP_TOGETHER:
            keep = set(range(last))
        else:
            keep = {0, last - 1}
        own = style if style != self.style.text else None
        return [Row("text", style.leading, line, i in keep, own) for i, line in enumerate(lines)]

    def _table(self, columns: tuple[Column, ...], weapons: tuple[tuple[str, ...], ...]) -> Table:
        """A weapons table laid out at the current size, the first of these that works:
        1. side by side, every name whole: a number column as wide as its widest number
           and heading, the name as wide as its longest, the rules the rest;
        2. the rules under each weapon's name, the whole row wide, every name whole;
        3. side by side, names wrapping beside rules that need the room;
        each with the headings at their size, then with them shrunk ("Rng", smaller text);
        4. failing all, each text column by its longest word, words broken."""
        cell, head = self.style.cell, self.style.table_head
        key = (columns, weapons, cell.size, head.size, self.width)
        if key not in self._tables:
            self._tables[key] = self._laid_out(columns, weapons)
        return self._tables[key]

    def _laid_out(self, columns: tuple[Column, ...], weapons: tuple[tuple[str, ...], ...]) -> Table:
        cell, head = self.style.cell, self.style.table_head

        def wide(text: str, style: Style) -> float:
            return width_of(text, style.font, style.size) + CELL_PAD

        def longest(i: int, words: bool) -> float:
            parts = [part for row in weapons for part in (row[i].split() if words else [row[i]])]
            return max((wide(part, cell) for part in parts), default=CELL_PAD)

        numbers = [i for i, column in enumerate(columns) if column.number]
        texts = [i for i, column in enumerate(columns) if not column.number]
        name, rest = texts[0], texts[1:]
        short = [SHORT_HEADS.get(column.title, column.title) for column in columns]
        whole = longest(name, False)

        def attempt(heading: Style, below: bool, wrapping: bool) -> Table | None:
            widths = [0.0] * len(columns)
            for i in numbers:
                widths[i] = max(longest(i, False), wide(short[i], heading))
            least = {i: max(longest(i, True), wide(short[i], heading)) for i in texts if not (below and i in rest)}
            room = self.width - sum(widths)
            if sum(least.values()) > room or (
                not wrapping and whole > room - sum(least[i] for i in rest if i in least)
            ):
                return None
            widths[name] = room if below else max(least[name], min(whole, room - sum(least[i] for i in rest)))
            if not below:
                wanted = {i: max(longest(i, False), least[i]) for i in rest}
                spare = room - widths[name] - sum(wanted.values())
                for i in [name, *numbers]:  # full headings ("Weapon", "Range") where the rules have all they want
                    grow = wide(columns[i].title, heading) - widths[i]
                    if 0 < grow <= spare:
                        widths[i] += grow
                        spare -= grow
                left = self.width - sum(widths[i] for i in range(len(columns)) if i not in rest)
                for i in rest:  # the other text columns share what is left by their needs
                    widths[i] = left * least[i] / sum(least[j] for j in rest)
            titles = tuple(
                "" if not width else column.title if wide(column.title, heading) <= width + 0.01 else short[i]
                for i, (column, width) in enumerate(zip(columns, widths, strict=True))
            )
            wrapped = sum(wide(row[name], cell) > widths[name] + 0.01 for row in weapons)
            return Table(columns, tuple(widths), titles, True, heading == head, wrapped, rest[-1] if below else None)

        smallest = head.sized(self.style.cell_min)
        for heading in (head, smallest):
            for below, wrapping in ((False, False), (True, False), (False, True)):
                if below and not rest:
                    continue
                table = attempt(heading, below, wrapping)
                if table is not None:
                    return table
        # Too narrow at this size: each text column by its longest word, words broken.
        widths = [0.0] * len(columns)
        for i in numbers:
            widths[i] = max(longest(i, False), wide(short[i], smallest))
        least = {i: longest(i, True) for i in texts}
        room = self.width - sum(widths)
        for i in texts:
            widths[i] = room * least[i] / sum(least.values())
        return Table(columns, tuple(widths), tuple(short), False, False, len(weapons))

    def _head_row(self, table: Table) -> Row:
        """The table's headings, one size for all: the head style's, or smaller where a
        heading is wider than its column (never under 6 pt)."""
        head = self.style.table_head
        size = min(
            fit_size(title, head.font, head.size, width - CELL_PAD + 1, self.style.cell_min)
            for title, width in zip(table.titles, table.widths, strict=True)
            if width
        )
        cells = [([title], size) for title in table.titles]
        return Row("head", head.sized(size).leading + 2, (table, cells), keep_with_next=True)

    def _weapon_row(self, table: Table, texts: tuple[str, ...], room: float) -> Row:
        """A weapon's cells, every one at the cell size: numbers fit their column, text
        wraps in its own."""
        cell_style = self.style.cell
        size = cell_style.size
        cells = [
            (self._cell_lines(text, size, width) if width else [], size)
            for width, text in zip(table.widths, texts, strict=True)
        ]
        under = texts[table.below] if table.below is not None and texts[table.below] != DASH else ""
        below = wrap(under, cell_style.font, size, self.width - UNDER_INDENT) if under else []
        # A row never outgrows an empty card: cut the longest cells short.
        most = max(1, int((room - 2) // cell_style.leading) - len(below))
        cells = [(lines[:most] if len(lines) <= most else [*lines[: most - 1], "…"], size) for lines, size in cells]
        lines = max(len(lines) for lines, _size in cells) + len(below)
        return Row("weapon", lines * cell_style.leading + 2, (table, cells, below))

    def _cell_lines(self, text: str, size: float, width: float) -> list[str]:
        key = (text, size, width)
        if key not in self._cells:
            self._cells[key] = wrap(text, self.style.cell.font, size, width - CELL_PAD + 1)
        return self._cells[key]

    def _fitted_faces(self, card: CardData) -> list[Face]:
        """The card's faces. A poker card's text takes the largest size at which it needs
        no more cards than at the smallest (`_poker_faces`); a sheet card its normal size,
        or one step smaller (never under 6 pt) when that saves a "(continued)" card. Equal
        cards (the same unit, options and name) are laid out once."""
        if card in self._fitted:
            faces, left_out = self._fitted[card]
            self.left_out.update(dict.fromkeys(left_out))
            return faces
        normal, left_before = self.style, len(self.left_out)
        if self.poker:
            faces = self._poker_faces(card)
        else:
            faces = self._faces(card)
            if len(faces) > 1 and self.smaller is not None:
                self.style = self.smaller
                fitted = self._faces(card)
                if len(fitted) < len(faces):
                    faces = fitted
                else:
                    self.style = normal
        for face in faces:
            face.style = self.style
            face.height = self._face_height(face)
        self.style = normal
        self._fitted[card] = (faces, list(self.left_out)[left_before:])
        return faces

    def _poker_faces(self, card: CardData) -> list[Face]:
        """A poker card at the largest step of POKER_STEPS at which it takes as few cards
        as at the smallest, every word of its weapons fitting its column. With rules, what
        each rule does goes on the card while the unit and its heroes keep to two cards;
        a rule left out is named on the card and explained on the rules cards at the end.
        Leaves self.style at the size chosen."""
        normal = self.style
        at: dict[int, tuple[CardStyles, list[Face], list[str]]] = {}

        def tried(step: int, budget: int | None = None) -> tuple[CardStyles, list[Face], list[str]]:
            if budget is None and step in at:
                self.style = at[step][0]
                return at[step]
            self.style = card_text_at(normal, *POKER_STEPS[step])
            faces, left_out = self._faces_explained(card, budget)
            if budget is None:
                at[step] = (self.style, faces, left_out)
            return self.style, faces, left_out

        smallest = len(POKER_STEPS) - 1
        style, faces, left_out = tried(smallest)
        if len(faces) > POKER_FACES and card.meanings:
            style, faces, left_out = tried(smallest, POKER_FACES)
        else:
            fewest = len(faces)
            _whole, headed, wrapped = self._tables_read(card)

            def fits(step: int) -> bool:
                """As few cards, and weapons that read as well: larger text that would
                break "Hacking Knife" into "Hackin / g", shrink a heading or wrap a name
                whole at the smallest size does not fit."""
                _style, tried_faces, _left = tried(step)
                whole, now_headed, now_wrapped = self._tables_read(card)
                return len(tried_faces) <= fewest and whole and now_headed >= headed and now_wrapped <= wrapped

            # Start at the step the card's fill suggests (text takes room as its size
            # squared), then go up while it fits, or down until it does.
            used = sum(row.height for face in faces for row in face.rows)
            room = sum(self._body_room(card, face.number) for face in faces)
            smallest_text = POKER_STEPS[smallest][1]
            step = next(
                (k for k, (_cell, text) in enumerate(POKER_STEPS) if (text / smallest_text) ** 2 * used <= room),
                smallest,
            )
            if step < smallest and fits(step):
                while step > 0 and fits(step - 1):
                    step -= 1
            else:
                while step < smallest and not fits(step):
                    step += 1
            style, faces, left_out = at[step]
        self.style = style
        self.left_out.update(dict.fromkeys(left_out))
        return faces

    def _faces_explained(self, card: CardData, budget: int | None) -> tuple[list[Face], list[str]]:
        """The card's faces with what its rules do after the rest, each rule whole on a
        card, while the card keeps to `budget` faces (None: any number); and the rules
        left out, which its last face names ("Rules cards: …")."""
        faces = self._faces(card)
        blocks = self._meaning_blocks(card) if card.meanings else []
        if not blocks:
            return faces, []
        heading = self._heading("What the rules do", keep_with_next=False)
        limit = None if budget is None else max(budget, len(faces))
        reserve, pointer = 0.0, []
        for _attempt in range(3):  # room kept on the last card for the line naming what is left out
            placed, left_out = self._place(card, faces, blocks, heading, limit, reserve)
            if not left_out:
                break
            spans = [("Rules cards: ", self.style.label.font), (", ".join(left_out), self.style.text.font)]
            pointer = self._text_rows(spans)
            height = sum(row.height for row in pointer)
            if height <= reserve:
                break
            reserve = height
        out = [Face(card, face.number, list(face.rows)) for face in faces]
        for number, rows in sorted(placed, key=lambda place: place[0]):  # stable: in order on each face
            while len(out) < number:
                out.append(Face(card, len(out) + 1, []))
            face = out[number - 1]
            if not any(row is heading for row in face.rows):
                face.rows.append(heading)
            face.rows.extend(rows)
        if left_out:
            if self._room_left(out[-1]) < sum(row.height for row in pointer):
                out.append(Face(card, len(out) + 1, []))  # only when a rule is taller than a card
            out[-1].rows.extend(pointer)
        for face in out:
            while face.rows and face.rows[-1].kind == "gap":
                face.rows.pop()
            face.total = len(out)
        return out, left_out

    def _place(
        self,
        card: CardData,
        faces: list[Face],
        blocks: list[tuple[str, list[Row]]],
        heading: Row,
        limit: int | None,
        reserve: float,
    ) -> tuple[list[tuple[int, list[Row]]], list[str]]:
        """Where each block goes after `faces`, in order, each on the first face with room
        for it (a new face when none has, never past `limit` faces, keeping `reserve`
        free on the last one allowed): (face number, rows) of those placed, and the names
        of those left out. A face's first block brings the heading."""
        rooms = [self._room_left(face) for face in faces]
        headed = [False] * len(faces)
        placed: list[tuple[int, list[Row]]] = []
        left_out: list[str] = []

        def free(at: int) -> float:  # at: a face's number
            return reserve if limit is not None and at >= limit else 0.0

        for name, rows in blocks:
            height = sum(row.height for row in rows)
            for i, room in enumerate(rooms):
                need = height + (0 if headed[i] else heading.height)
                if need <= room - free(i + 1):
                    break
            else:
                i = len(rooms)
                need = height + heading.height
                if (limit is not None and i >= limit) or need > self._body_room(card, i + 1) - free(i + 1):
                    left_out.append(name)
                    continue
                rooms.append(self._body_room(card, i + 1))
                headed.append(False)
            rooms[i] -= need
            headed[i] = True
            placed.append((i + 1, rows))
        return placed, left_out

    def _room_left(self, face: Face) -> float:
        return self._body_room(face.card, face.number) - sum(row.height for row in face.rows)

    def _tables_read(self, card: CardData) -> tuple[bool, bool, int]:
        """How the card's weapons tables read at the current size: (every word whole,
        every heading at its size, how many names wrap)."""
        tables = [
            self._table(*_without_empty_columns(each.columns, each.weapons))
            for each in (card, *card.heroes)
            if each.weapons
        ]
        return (
            all(table.fits for table in tables),
            all(table.headed for table in tables),
            sum(table.wrapped for table in tables),
        )

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
        self._end = (column, y)
        return pages

    def _faces(self, card: CardData) -> list[Face]:
        """The card's rows shared out over faces: rows kept together move on to the next
        face together, unless even an empty face cannot hold them; a weapons table that
        goes on repeats its heading row."""
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
            started = face.number == 1 or any(r.kind != "head" for r in face.rows)
            too_tall = need > self._body_room(card, len(faces) + 1)  # for any face: fill this one first
            if started and (need > room if not too_tall else row.height > room):
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

    # -- the glossary: what the rules and spells do, once ---------------------------------
    def _glossary_cards(self) -> list[CardData]:
        """Poker cards' spells on a card of their own (more if they need it), and the rules
        left off the unit cards (`left_out`) on rules cards, grouped as in the glossary."""
        if not self.poker:
            return []
        footer = card_footer(self.printout)
        blank = CardData(title="", subtitle="", cost="", stats=(), columns=(), weapons=(), footer=footer)
        cards = []
        spells = spells_group(self.printout)
        if spells is not None:
            title = f"Spells · {self.printout.faction_name}"
            cards.append(replace(blank, title=title, subtitle=spells.note, glossary=(spells,)))
        if self.left_out:
            groups = rule_groups(self.printout, only=self.left_out)
            subtitle = "The rules a card names under “Rules cards”"
            cards.append(replace(blank, title="Rules", subtitle=subtitle, glossary=groups))
        return cards

    def _glossary_flow(self, canvas, *, size: float = GLOSSARY_SIZES[0], start_only: bool = False) -> Flow:
        """The glossary at `size`, flowed down the cards' columns from where the last card
        ends; without a canvas it only measures (`.pages`, counted from the cards' last
        page), with `start_only` up to where it starts."""
        grid = self.grid
        left, bottom = grid.origin
        top = bottom + grid.card[1]
        right = grid.page[0] - left - grid.columns * grid.card[0] - (grid.columns - 1) * grid.gap
        margins = (left, grid.page[1] - top, right, bottom)
        flow = Flow(canvas, page_size=grid.page, margins=margins, columns=grid.columns, gap=grid.gap)
        flow.column, flow.y = self._end
        body, heading = Style(REGULAR, size), HEADING.sized(size + 2)
        flow.space(6)
        flow.ensure(heading.leading * 2 + body.leading * 3)
        if not start_only:
            flow.text("Glossary · what the rules and spells do", heading, after=2)
            pdf_glossary.draw(flow, self.groups, body, HEADING.sized(size + 1))
        return flow

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
            if width_of(label, label_style.font, label_style.size) > width - 3:
                label = SHORT_STAT_LABELS.get(label, label)  # a shorter word rather than smaller text
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
            line = [(text.replace(PAGE, str(self.glossary_page)), font) for text, font in row.content]
            text_style = row.style or style.text
            draw_line(canvas, line, x, top - text_style.size, text_style.size, text_style.color)
        elif row.kind == "heading":
            canvas.setStrokeColor(LINE)
            canvas.setLineWidth(0.4)
            canvas.line(x, top - 0.5, x + self.width, top - 0.5)
            for line in row.content:
                draw_line(canvas, [(line, style.label.font)], x, top - 1.5 - style.label.size, style.label.size)
                top -= style.label.leading
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
        table, cells, *under = row.content
        left, lowest = x, top
        for (lines, size), width, column in zip(cells, table.widths, table.columns, strict=True):
            leading = text_style.sized(size).leading
            y = top - 1 - size
            canvas.setFillColor(text_style.color)
            for line in lines:
                if column.number:
                    draw_string(canvas, left + width / 2, y, line, text_style.font, size, "centre")
                else:
                    draw_string(canvas, left + 1, y, line, text_style.font, size)
                y -= leading
            lowest = min(lowest, y)
            left += width
        for line in under[0] if under else ():  # a weapon's rules under its name (Table.below)
            draw_string(canvas, x + UNDER_INDENT, lowest, line, text_style.font, text_style.size)
            lowest -= text_style.leading
        canvas.setStrokeColor(LINE)
        canvas.setLineWidth(0.3)
        canvas.line(x, top - row.height, x + self.width, top - row.height)

    def _draw_footer(self, face: Face, x: float, bottom: float, width: float) -> None:
        canvas, footer = self.canvas, self.style.footer
        right = self._footer_right(face.card, face.number, face.total)
        y = bottom + 1
        for left, right_part in reversed(self._footer_lines(face.card, right)):
            if right_part:
                canvas.setFillColor(ERROR if face.card.problems else footer.color)
                draw_string(canvas, x + width, y, right_part, footer.font, footer.size, "right")
            if left:
                canvas.setFillColor(footer.color)
                draw_string(canvas, x, y, clip(left, footer.font, footer.size, width), footer.font, footer.size)
            y += footer.leading
