"""PDF exports of a list — unit cards, roster sheet, rules reference —, drawn from its
printout (`printouts.printout_get` loads everything a PDF shows; the renderers in the
`pdf_*` modules only draw), and the printing options of a query string. The files'
responses and their cache are armybuilder/downloads.py's.

Query parameters: `paper` (a4, letter), `layout` (cards: sheet, poker), `combine`
(cards: 1 for one card per distinct unit, "3× ..."), `rules` (cards: 1 to print what
each rule does), `trackers` (cards: 1 for wound, spell-token, Shaken and Activated boxes
to tick in play), `sheet` (roster: 1 for the one-page army sheet, `pdf_sheet`),
`base_url` (the site's address for the share link in the roster's QR code: see
downloads.share_url).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from armybuilder.exports.pdf_cards import LAYOUTS, UnitCardsPdf
from armybuilder.exports.pdf_data import Printout
from armybuilder.exports.pdf_reference import RulesReferencePdf
from armybuilder.exports.pdf_roster import RosterPdf
from armybuilder.exports.pdf_sheet import ArmySheetPdf
from armybuilder.exports.pdf_style import PAPERS

PDF_KINDS: tuple[str, ...] = ("cards.pdf", "roster.pdf", "reference.pdf")
TRUE, FALSE = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")


@dataclass(frozen=True, slots=True)
class PrintOptions:
    paper: str = "a4"
    layout: str = "sheet"
    combine: bool = False
    base_url: str = ""
    rules: bool = False  # cards: each special rule's meaning printed on the card
    trackers: bool = False  # cards: boxes to tick in play (wounds, spell tokens, Shaken, Activated)
    sheet: bool = False  # roster: the one-page army sheet instead

    def drawing(self, kind: str) -> PrintOptions:
        """Only what changes the `kind` of file (its cache key): a form sends every
        choice to every file, and the roster does not vary with the cards' layout."""
        if kind == "cards.pdf":
            return PrintOptions(self.paper, self.layout, self.combine, rules=self.rules, trackers=self.trackers)
        return PrintOptions(self.paper, sheet=self.sheet and kind == "roster.pdf")


def print_options(params: dict[str, Any]) -> PrintOptions:
    """The printing options of a query string; ValueError names a bad one."""
    paper = paper_option(params)
    layout = str(params.get("layout", "sheet")).lower()
    combine = str(params.get("combine", "")).lower()
    rules = str(params.get("rules", "")).lower()
    sheet = str(params.get("sheet", "")).lower()
    trackers = str(params.get("trackers", "")).lower()
    if layout not in LAYOUTS:
        raise ValueError(f'layout must be one of {", ".join(LAYOUTS)}, not "{layout}"')
    if combine not in TRUE + FALSE:
        raise ValueError(f'combine must be 1 or 0, not "{combine}"')
    if rules not in TRUE + FALSE:
        raise ValueError(f'rules must be 1 or 0, not "{rules}"')
    if sheet not in TRUE + FALSE:
        raise ValueError(f'sheet must be 1 or 0, not "{sheet}"')
    if trackers not in TRUE + FALSE:
        raise ValueError(f'trackers must be 1 or 0, not "{trackers}"')
    base_url = str(params.get("base_url", ""))
    return PrintOptions(
        paper, layout, combine in TRUE, base_url, rules in TRUE, trackers=trackers in TRUE, sheet=sheet in TRUE
    )


def render_list_pdf(printout: Printout, kind: str, options: PrintOptions) -> bytes:
    """Draw one of the list's PDFs from its printout (no queries)."""
    if kind == "cards.pdf":
        return UnitCardsPdf(
            printout,
            layout=options.layout,
            paper=options.paper,
            combine=options.combine,
            rules=options.rules,
            trackers=options.trackers,
        ).render()
    if kind == "roster.pdf" and options.sheet:
        return ArmySheetPdf(printout, paper=options.paper).render()
    if kind == "roster.pdf":
        return RosterPdf(printout, paper=options.paper).render()
    if kind == "reference.pdf":
        return RulesReferencePdf.for_list(printout, paper=options.paper).render()
    raise LookupError(kind)


def paper_option(params: dict[str, Any]) -> str:
    """The `paper` of a query string; ValueError names a bad one."""
    paper = str(params.get("paper", "a4")).lower()
    if paper not in PAPERS:
        raise ValueError(f'paper must be one of {", ".join(PAPERS)}, not "{paper}"')
    return paper
