"""The army sheet (`roster.pdf?sheet=1`): the list as a page to play from, like Army
Forge's print view, a row per unit with what a player looks up during a game.

The list's name, ruleset, faction and book version and its total over the limit at the
top; then one row per entry with its Quality, Defense, Tough (Arena: Move/Rush, Evasion,
Toughness, Stamina, Health), models and cost, in the engine's print order (a hero joined
to a unit in the row after that unit, named with it), a combined unit marked. Under the
name, in the row, the unit's weapons as Army Forge labels them ("5x Longbow (30", A1)"),
its special rules (a caster's level in bold) and the upgrades taken; the spells of the
list's casters once at the foot. Nothing is under 7 pt, so that 2,000 points of a book
fit one A4 or Letter page and 4,000 two; a longer list goes on to more pages with the
table's head row again (`TablePages`).
"""

from __future__ import annotations

import io

from armybuilder.engine.results import EntryResult
from armybuilder.engine.rulesets import policy_or_default
from armybuilder.exports import pdf_style
from armybuilder.exports.pdf_cards import upgrades_taken, weapons_fought_with
from armybuilder.exports.pdf_data import SPELL_RULES, Printout, casts_spells
from armybuilder.exports.pdf_roster import MARGIN, CellLines, Column, TablePages, TableRow, list_status
from armybuilder.exports.pdf_style import (
    ACCENT,
    BODY,
    BODY_BOLD,
    BOLD,
    MUTED,
    PAPERS,
    POINTS,
    REGULAR,
    STATUS,
    SUBTITLE,
    TITLE,
    TITLE_MIN,
    Line,
    Span,
    Style,
    isolate,
)
from armybuilder.exports.text import weapon_text

DASH = "–"
# The width in points of each stat column a ruleset's policy names.
STAT_WIDTHS = {"Quality": 44, "Defense": 46, "Tough": 38}
STAT_WIDTHS |= {"Move/Rush": 52, "Evasion": 46, "Toughness": 56, "Stamina": 46, "Health": 40}
NAME_MIN = 7  # a long name is set down to this size; longer ones wrap
ROW_PADDING = 2  # points above and below a row's text
DETAIL = Style(REGULAR, 7)  # weapons, rules, upgrades and spells: the smallest a player reads at the table
SPELLS_HEADING = Style(BOLD, 9, ACCENT)
FOOTER = Style(REGULAR, 7, MUTED)


class ArmySheetPdf(TablePages):
    footer_style = FOOTER

    def __init__(self, printout: Printout, *, paper: str = "a4"):
        self.printout = printout
        self.page_size = PAPERS[paper]
        self.width = self.page_size[0] - 2 * MARGIN
        stats = [(title, STAT_WIDTHS[title]) for title in policy_or_default(printout.family).stat_columns]
        columns = [
            Column("#", 20, "right"),
            Column("Unit", 0),
            *(Column(title, width, "right") for title, width in stats),
            Column("Models", 42, "right"),
        ]
        self._fit_columns(columns, points=printout.uses_points)

    def render(self) -> bytes:
        buffer = io.BytesIO()
        canvas = self._new_canvas(buffer, self.printout, "army sheet")
        self.canvas = canvas
        self.flow = self._new_flow(canvas)
        self._draw_rows()
        self._draw_spells()
        canvas.save()
        return buffer.getvalue()

    # -- page furniture ----------------------------------------------------------------
    def _footer(self) -> str:
        printout = self.printout
        book = f"{isolate(printout.faction_name)} {printout.book_version}"
        return f"Armybuilder army sheet · {printout.ruleset_title} · {book}"

    def _running_head(self) -> str:
        return f"{isolate(self.printout.title)} — army sheet (continued)"

    def _draw_header(self) -> float:
        """The list's name, its book and its total; returns the height drawn."""
        printout, canvas, width = self.printout, self.canvas, self.width
        y = self.page_size[1] - MARGIN
        size = pdf_style.fit_size(printout.title, TITLE.font, TITLE.size, width, TITLE_MIN)
        for title_line in pdf_style.wrap(printout.title, TITLE.font, size, width):
            pdf_style.draw_line(canvas, [(title_line, TITLE.font)], MARGIN, y - size, size, TITLE.color)
            y -= TITLE.sized(size).leading
        book = f"{printout.ruleset_title} · {isolate(printout.faction_name)} · army book {printout.book_version}"
        if printout.book_changed:
            book += f" ({printout.current_book_version} is out)"
        for line in pdf_style.wrap_spans([(book, SUBTITLE.font)], SUBTITLE.size, width):
            pdf_style.draw_line(canvas, line, MARGIN, y - SUBTITLE.size, SUBTITLE.size, SUBTITLE.color)
            y -= SUBTITLE.leading
        y -= 4
        status, colour = list_status(printout.validation)
        spans = [(self._total(), POINTS.font), (f"  {self._count()}", REGULAR)]
        for line in pdf_style.wrap_spans(spans, POINTS.size, width):
            pdf_style.draw_line(canvas, line, MARGIN, y - POINTS.size, POINTS.size, POINTS.color)
            y -= POINTS.leading
        for status_line in pdf_style.wrap(status, STATUS.font, STATUS.size, width):
            pdf_style.draw_line(canvas, [(status_line, STATUS.font)], MARGIN, y - STATUS.size, STATUS.size, colour)
            y -= STATUS.leading
        return self.page_size[1] - MARGIN - y + 8

    def _total(self) -> str:
        validation = self.printout.validation
        if not self.printout.uses_points:
            return "Warband"
        if validation.points_limit is None:
            return f"{validation.total_points} pts"
        return f"{validation.total_points} / {validation.points_limit} pts"

    def _count(self) -> str:
        entries = self.printout.validation.entries
        units, models = len(entries), sum(result.models for result in entries)
        return f"{units} {'unit' if units == 1 else 'units'} · {models} {'model' if models == 1 else 'models'}"

    # -- the table -----------------------------------------------------------------------
    def _draw_rows(self) -> None:
        flow = self.flow
        head = self._head_row()
        flow.block(head.height, head.draw)
        self._in_table = True
        labels = {result.entry.id: result.label for result in self.printout.validation.entries}
        for number, result in enumerate(self.printout.validation.in_print_order, 1):
            row = self._row(number, result, labels[result.joined] if result.joined is not None else "")
            row.shade = number % 2 == 0
            flow.block(row.height, row.draw)
        self._in_table = False

    def _row(self, number: int, result: EntryResult, leads: str) -> TableRow:
        """An entry's row; `leads` is the label of the unit a hero has joined."""
        entry, unit, loadout = result.entry, result.unit, result.loadout
        name = [("↳ " if leads else "", BODY.font), (result.label, BODY_BOLD.font)]
        if entry.name and unit is not None:
            name.append((f" ({isolate(unit.name)})", BODY.font))
        if unit is None:
            name.append((" not in the army book", REGULAR))
        if entry.combined:
            name.append((" · combined", REGULAR))
        if leads:
            name.append((f" · joined to {isolate(leads)}", REGULAR))
        stats = {key: str(value) for key, value in (unit.stats if unit is not None else {}).items()}
        tough = loadout.rating("Tough") if loadout is not None else None
        values = {
            "#": str(number),
            "Quality": f"{stats['quality']}+" if "quality" in stats else DASH,
            "Defense": f"{stats['defense']}+" if "defense" in stats else DASH,
            "Tough": str(tough) if tough is not None else DASH,
            "Move/Rush": "/".join(stats[key] for key in ("move", "rush") if key in stats) or DASH,
            "Evasion": stats.get("evasion", DASH),
            "Toughness": stats.get("toughness", DASH),
            "Stamina": stats.get("stamina", DASH),
            "Health": stats.get("health", DASH),
            "Models": str(result.models),
            "Pts": str(result.cost),
        }
        cells = []
        for column in self.columns:
            if column.title == "Unit":
                cells.append(self._name_cell([span for span in name if span[0]]))
            else:
                cells.append([([(values[column.title], BODY.font)], BODY)])
        height = max(sum(style.leading for _line, style in cell) for cell in cells) + 2 * ROW_PADDING
        details = pdf_style.wrap_spans(self._details(result), DETAIL.size, self._details_width()) if unit else []
        return UnitRow(self, cells, height + len(details) * DETAIL.leading, details=details)

    def _details_width(self) -> float:
        """From the unit's name to the page's right margin: the stat columns are empty there."""
        return self.width - self.columns[0].width - 6

    def _details(self, result: EntryResult) -> list[Span]:
        """ "Weapons: 5x Longbow (30", A1), … · Rules: Strider, Caster(2), … · Upgrades: …" """
        loadout, unit = result.loadout, result.unit
        if loadout is None or unit is None:
            return []
        weapons = weapons_fought_with(result, self.printout.family)
        hexes = not self.printout.uses_points  # Arena measures in hexes, as its text export does
        spans: list[Span] = []
        if weapons:
            spans += [("Weapons: ", BOLD), (", ".join(weapon_text(w, hexes=hexes) for w in weapons), REGULAR)]
        rules: list[Span] = []
        for rule in loadout.rules:
            rules += [(", ", REGULAR)] if rules else []
            rules.append((str(rule), BOLD if rule.name in SPELL_RULES else REGULAR))
        rules += [(f"; {group}", REGULAR) for group in loadout.some]  # "1 model (Weapon Team): Tough(3)"
        if rules:
            spans += [(" · " if spans else "", REGULAR), ("Rules: ", BOLD), *rules]
        upgrades = upgrades_taken(result, self.printout.family)
        if upgrades:
            spans += [(" · " if spans else "", REGULAR), ("Upgrades: ", BOLD), (upgrades, REGULAR)]
        return [span for span in spans if span[0]]

    # -- the spells, once ------------------------------------------------------------------
    def _draw_spells(self) -> None:
        """The faction's spells at the foot, once for all the list's casters, who are named."""
        printout, flow = self.printout, self.flow
        labels = {result.entry.id: result.label for result in printout.validation.entries}
        casters = []
        for result in printout.validation.in_print_order:
            caster = casts_spells(result.loadout.every_rule) if result.loadout is not None else None
            if caster is not None:
                casters.append(f"{labels[result.entry.id]} ({caster})")
        if not casters or not printout.spells:
            return
        width = flow.column_width
        heading = pdf_style.wrap_spans([("Spells", BOLD)], SPELLS_HEADING.size, width)
        cast_by = pdf_style.wrap_spans([("Cast by ", BOLD), (", ".join(casters), REGULAR)], DETAIL.size, width)
        paragraphs = [
            pdf_style.wrap_spans([(f"{name} ({cost}): ", BOLD), (text, REGULAR)], DETAIL.size, width)
            for name, cost, text in printout.spells
        ]
        # The heading stays with the casters and the first spell.
        flow.space(6)
        flow.ensure(SPELLS_HEADING.leading + (len(cast_by) + len(paragraphs[0])) * DETAIL.leading)
        flow.lines(heading, SPELLS_HEADING)
        flow.lines(cast_by, DETAIL)
        for lines in paragraphs:
            flow.lines(lines, DETAIL)

    def _name_cell(self, spans: list[tuple[str, str]]) -> list[tuple[pdf_style.Line, Style]]:
        """The unit's name and notes on one line, set a little smaller (half-point steps,
        down to NAME_MIN) when that is enough, else wrapped at the body size."""
        room = self.columns[1].width - 6
        natural = pdf_style.line_width(spans, BODY.size)
        fitted = int(BODY.size * room / natural * 2) / 2 if natural > room else BODY.size
        style = BODY.sized(fitted) if fitted >= NAME_MIN else BODY
        return [(line, style) for line in pdf_style.wrap_spans(spans, style.size, room)]


class UnitRow(TableRow):
    """A table row, then under the unit's name its weapons, rules and upgrades, across
    the stat columns to the right margin."""

    def __init__(self, table: ArmySheetPdf, cells: list[CellLines], height: float, *, details: list[Line]):
        super().__init__(table, cells, height)
        self.details = details

    def draw(self, x: float, top: float, width: float) -> None:
        super().draw(x, top, width)
        left = x + self.table.columns[0].width + 3
        y = top - self.height + ROW_PADDING + len(self.details) * DETAIL.leading
        for line in self.details:
            pdf_style.draw_line(self.table.canvas, line, left, y - DETAIL.size, DETAIL.size, DETAIL.color)
            y -= DETAIL.leading
