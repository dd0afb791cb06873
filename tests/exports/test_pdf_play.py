"""Printouts to play from (issue 35), read off the drawn pages of official Army Forge books
(../shared/armyforge, 3.5.2 and 3.5.3, never copied here): cards with rules end with a
glossary that explains each rule and spell once; poker cards hold a unit and its joined
hero on two cards at most, at sizes a player reads at arm's length, every cell of a row at
one size, weapon names unbroken, footers whole; spells once, on a spell card."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field

import pdfplumber
import pytest

from armybuilder.exports.pdf_data import rules_named
from armybuilder.lists import selectors
from armybuilder.printouts import printout_get
from tests.exports.test_pdf import card_boxes, card_texts, flat, pages, render
from tests.exports.test_pdf_sheet import official_list

BOOKS = ["aof--wood-elves.json", "aof--ratmen.json", "3.5.3/aof--ratmen.json", "aof--chivalrous-kingdoms.json"]
GLOSSARY = "Glossary · what the rules and spells do"


pytestmark = pytest.mark.usefixtures("fresh_caches")


def printout_of(army_list):
    return printout_get(army_list=army_list, share_url="", handle=None)


def column_pages(data: bytes) -> list[str]:
    """Each page's text read column by column, as a player reads sheet cards and the
    glossary after them."""
    with pdfplumber.open(io.BytesIO(data)) as document:
        return [
            " ".join(
                page.crop((left, 0, left + page.width / 2, page.height)).extract_text() or ""
                for left in (0, page.width / 2)
            )
            for page in document.pages
        ]


def explained(text: str) -> str:
    """The first words of a rule's or a spell's text, as they read in the flattened page."""
    return flat(text)[:40]


# -- 1. a glossary once per printout ---------------------------------------------------------
@pytest.mark.parametrize("book", BOOKS)
def test_cards_with_rules_explain_each_rule_and_spell_once_after_the_cards(user, book):
    army_list = official_list(user, book, 2000)
    printout = printout_of(army_list)
    data = render(army_list, "cards.pdf", rules=1)
    drawn = column_pages(data)
    text = flat(" ".join(drawn))
    assert text.count(GLOSSARY) == 1
    glossary_page = next(n for n, page in enumerate(drawn, 1) if GLOSSARY in flat(page))
    before, glossary = text.split(GLOSSARY)
    names = rules_named(printout)
    assert len(names) >= 8
    for name in names:
        rule = printout.rules.get(name)
        if rule is not None and rule.text:
            said = re.compile(rf"(^| ){re.escape(name)}(\([^)]*\))? {re.escape(explained(rule.text))}")
            assert len(said.findall(text)) == 1, name  # once, and in the glossary
            assert said.search(glossary), name
    for name, cost, spell in printout.spells if "Spells" in glossary else ():
        assert text.count(f"{name} ({cost}) {explained(spell)}") == 1, name
    # Grouped as Army Forge groups them: the army's rules, its spells, then the core rules.
    order = [glossary.find("Army rules · "), glossary.find("Spells Cast by"), glossary.find("core rules")]
    present = [at for at in order if at >= 0]
    assert present == sorted(present) and order[0] >= 0
    # Every card names its rules and points to the glossary's page.
    cards = [flat(card) for card in card_texts(data)]
    for card in cards:
        if "Rules: " in card:
            assert f"What the rules do: glossary, page {glossary_page}" in card, card[:60]
        if "Spells: " in card:
            assert re.search(rf"Spells: Caster\(\d\) · \d spells, glossary, page {glossary_page}", card), card[:60]


def test_40_entries_with_rules_take_at_most_a_page_more_than_without(user):
    army_list = official_list(user, "aof--wood-elves.json", 6500)
    assert len(selectors.army_list_load(army_list).validation.entries) >= 40
    plain = len(pages(render(army_list, "cards.pdf")))
    assert len(pages(render(army_list, "cards.pdf", rules=1))) <= plain + 1


# -- 3. poker cards that hold a unit ---------------------------------------------------------
@dataclass
class Card:
    title: str  # the name band's text, "(continued)" included
    text: str  # flattened
    lines: list[list[dict]] = field(default_factory=list)  # the characters of each line, top first
    bottom: float = 0.0  # the frame's bottom, from the page's top


def poker_cards(data: bytes) -> list[Card]:
    """Every poker card in print order, read off the page: its title, text and lines."""
    cards = []
    with pdfplumber.open(io.BytesIO(data)) as document:
        for page in document.pages:
            for x, y, w, h in card_boxes(page, "poker"):
                top = page.height - y - h
                inside = page.within_bbox((x, top, x + w, top + h))
                chars = [c for c in inside.chars if c["text"].strip()]
                rows: dict[int, list[dict]] = {}
                for char in chars:
                    rows.setdefault(round(char["bottom"]), []).append(char)
                lines = [sorted(rows[key], key=lambda c: c["x0"]) for key in sorted(rows)]
                # The name band: white bold text on the accent, at the card's top.
                band = [c for c in chars if c["top"] < top + 26 and "Bold" in c["fontname"]]
                title = flat(inside.crop((x, top, x + w, top + 26)).extract_text() or "")
                cards.append(Card(title if band else "", flat(inside.extract_text() or ""), lines, top + h))
    return cards


def line_text(line: list[dict]) -> str:
    words, last = [], None
    for char in line:
        if last is not None and char["x0"] - last > 1.0:
            words.append(" ")
        words.append(char["text"])
        last = char["x1"]
    return "".join(words)


def on_band(line: list[dict]) -> bool:
    return tuple(line[0]["non_stroking_color"] or ()) in ((1, 1, 1), (1,))


def is_footer(text: str) -> bool:
    return bool(re.fullmatch(r"(.*(Age of Fantasy|3\.\d\.\d).*|\d+ problems?( · \d+/\d+)?|\d+/\d+)", text))


def units_of(army_list):
    validation = selectors.army_list_load(army_list).validation
    return [result for result in validation.in_print_order if result.leader is None]


@pytest.mark.parametrize("book", BOOKS)
def test_a_unit_and_its_joined_hero_take_at_most_two_poker_cards_the_heros_part_on_one(user, book):
    army_list = official_list(user, book, 2000)
    data = render(army_list, "cards.pdf", layout="poker", rules=1, trackers=1)
    cards = poker_cards(data)
    validation = selectors.army_list_load(army_list).validation
    # A unit's cards: its first and the "(continued)" ones after it, in print order.
    groups: list[list[Card]] = []
    for card in cards:
        if "(continued)" in card.title:
            groups[-1].append(card)
        else:
            groups.append([card])
    titles = [group[0].title for group in groups]
    for result in units_of(army_list):
        assert any(title.startswith(result.label) for title in titles), result.label
    for group in groups:
        if not group[0].title.startswith(("Spells · ", "Rules")):
            assert len(group) <= 2, [card.title for card in group]
    heroes = [result for result in validation.entries if result.leader is not None]
    assert heroes
    for hero in heroes:
        (card,) = [card for card in cards if f"Joined hero: {hero.label}" in card.text]
        part = card.text[card.text.index(f"Joined hero: {hero.label}") :]
        for weapon in hero.loadout.weapons:
            assert weapon.name in part, (hero.label, weapon.name)
        assert "Rules: " in part and "Wounds" in part  # its rules and its boxes beside its weapons


@pytest.mark.parametrize("book", BOOKS)
def test_poker_text_is_7_pt_or_more_and_stats_and_weapons_8_pt_or_more_one_size_a_row(user, book):
    army_list = official_list(user, book, 2000)
    data = render(army_list, "cards.pdf", layout="poker", rules=1, trackers=1)
    checked_rows = 0
    for card in poker_cards(data):
        # The name band (white on the accent) and the footer apart.
        body = [line for line in card.lines if not on_band(line) and not is_footer(line_text(line))]
        assert min(c["size"] for line in body for c in line) >= 7 - 0.01, card.title
        in_table = False
        for line in body:
            text = line_text(line)
            if text.startswith("Weapon") or text.startswith("Wpn"):
                in_table = True
            elif re.match(r"(Rules|Upgrades|Spells|Joined|What|Wounds|Type|\d+ models?)", text):
                in_table = False
            if in_table or text.startswith(("Models", "Quality")):
                sizes = {round(c["size"], 2) for c in line}
                assert len(sizes) == 1, (card.title, text, sizes)  # one size a row
                assert min(sizes) >= 8 - 0.01, (card.title, text)
                checked_rows += 1
    assert checked_rows > 10


@pytest.mark.parametrize("book", BOOKS)
def test_a_poker_weapon_name_wraps_only_beside_rules_that_need_the_room(user, book):
    """A weapon's name stands whole on one line of its card, unless the rules beside it
    take the rest of the row: the table gives the name its room first."""
    army_list = official_list(user, book, 2000)
    data = render(army_list, "cards.pdf", layout="poker", rules=1, trackers=1)
    lines = [line_text(line) for card in poker_cards(data) for line in card.lines]
    whole = 0
    for result in units_of(army_list):
        for weapon in result.loadout.weapons:
            if any(weapon.name in line for line in lines):
                whole += 1
            else:
                assert weapon.rules, weapon.name  # wrapped beside an empty rules cell
    assert whole >= 10


@pytest.mark.parametrize("book", BOOKS)
def test_every_poker_footer_is_whole(user, book):
    army_list = official_list(user, book, 2000)
    printout = printout_of(army_list)
    footer = f"{printout.faction_name} {printout.book_version} · {printout.ruleset_title}"
    for card in poker_cards(render(army_list, "cards.pdf", layout="poker", rules=1, trackers=1)):
        assert footer in card.text, card.title
        assert "…" not in line_text(card.lines[-1]) and "…" not in line_text(card.lines[-2])


@pytest.mark.parametrize("book", ["aof--wood-elves.json", "aof--ratmen.json", "3.5.3/aof--ratmen.json"])
def test_poker_cards_print_each_spell_once_on_a_spell_card(user, book):
    army_list = official_list(user, book, 2000)
    printout = printout_of(army_list)
    data = render(army_list, "cards.pdf", layout="poker", rules=1)
    cards = poker_cards(data)
    text = " ".join(card.text for card in cards)
    spell_cards = [card for card in cards if card.title.startswith(f"Spells · {printout.faction_name}")]
    assert spell_cards
    for name, cost, spell in printout.spells:
        assert text.count(f"{name} ({cost}): {explained(spell)[:30]}") == 1, name
        assert any(f"{name} ({cost}):" in card.text for card in spell_cards), name
    casters = [card for card in cards if "Spells: Caster(" in card.text]
    assert casters and all("on the spell card" in card.text for card in casters)
    assert "Cast by " in spell_cards[0].text


@pytest.mark.parametrize("book", BOOKS)
def test_each_rule_a_poker_card_names_is_explained_on_it_or_on_the_rules_cards(user, book):
    army_list = official_list(user, book, 2000)
    printout = printout_of(army_list)
    data = render(army_list, "cards.pdf", layout="poker", rules=1, trackers=1)
    cards = poker_cards(data)
    rules_cards = " ".join(card.text for card in cards if card.title.startswith("Rules"))
    for result in units_of(army_list):
        own = " ".join(card.text for card in cards if card.title.startswith(result.label))
        for rule in result.loadout.rules:
            meaning = printout.rules.get(rule.name)
            if meaning is None or not meaning.text:
                continue
            on_card = f"{rule.name}: {explained(meaning.text)[:25]}" in own
            elsewhere = re.search(rf"Rules cards: [^:]*\b{re.escape(rule.name)}\b", own) and (
                f"{rule.name}" in rules_cards
            )
            assert on_card or elsewhere, (result.label, rule.name)
