"""The share page (/s/<key>/): what an opponent needs to see of a list, rendered once per
version of the list and its army book, through Django's test client."""

import html
import json
import re
from pathlib import Path

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from armybuilder.lists.models import ArmyList
from factions.models import Faction

BOOKS = Path(__file__).resolve().parents[2] / "factions" / "data" / "books"

# The Warden Captain (with a Great Axe and a Warhorse) joined to the Wardens (with a
# Sergeant and Halberds); the captain comes first in the list.
CAPTAIN = {"id": "e1", "unit": "warden-captain", "options": {"HERO-1a": 1, "HERO-2a": 1}, "joined_to": "e2"}
WARDENS = {"id": "e2", "unit": "wardens", "options": {"TROOPS-1a": 1, "TROOPS-2a": 1}}


def shared_list(entries, *, system="aof", faction="test-wardens", points_limit=1500) -> ArmyList:
    return ArmyList.objects.create(
        visitor="someone",
        name="Border Patrol",
        system=system,
        faction=faction,
        book_version="1.0.0",
        points_limit=points_limit,
        entries=[{"combined": False, "joined_to": None, "name": None, **entry} for entry in entries],
    )


def page_of(client, army_list: ArmyList) -> str:
    response = client.get(f"/s/{army_list.share_key}/")
    assert response.status_code == 200
    return response.content.decode()


def text(fragment: str) -> str:
    """The words of an HTML fragment, as a reader sees them."""
    words = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())
    return re.sub(r" ([,.:;])", r"\1", words)


def table_rows(page: str) -> list[list[str]]:
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in re.findall(r"<tr[^>]*>(.*?)</tr>", page, re.S)]
    return [[text(cell) for cell in cells] for cells in rows if cells]


def unit_cards(page: str) -> dict[str, str]:
    """Each unit's card by entry id, as text (a unit's card holds its joined hero's)."""
    starts = [(m.start(), m.group(1)) for m in re.finditer(r'<article class="unit[^"]*" id="entry-([^"]+)"', page)]
    cards = {}
    for start, entry_id in starts:
        depth, position = 0, start
        for tag in re.finditer(r"<(/?)article\b", page[start:]):
            depth += -1 if tag.group(1) else 1
            if depth == 0:
                position = start + tag.end()
                break
        cards[entry_id] = text(page[start:position])
    return cards


@pytest.fixture
def patrol(wardens) -> ArmyList:
    return shared_list([CAPTAIN, WARDENS])


def test_each_unit_shows_its_quality_and_defense(patrol, client):
    cards = unit_cards(page_of(client, patrol))
    assert "Q4+ D4+" in cards["e1"]  # the captain
    assert "Q4+ D5+" in cards["e2"]  # the wardens


def test_each_weapon_has_a_profile_line_with_range_attacks_and_rules(patrol, client):
    rows = table_rows(page_of(client, patrol))
    assert ["Great Axe", "Melee", "3", "AP(1)"] in rows
    assert ["10× Halberd", "Melee", "1", "AP(1)"] in rows
    assert ["10× Sling", '12"', "1", "–"] in rows


def test_a_joined_hero_is_shown_inside_the_unit_it_leads(patrol, client):
    page = page_of(client, patrol)
    cards = unit_cards(page)
    assert "Joined to Wardens" in cards["e1"]
    assert "Warden Captain" in cards["e2"] and "Led by Warden Captain" in cards["e2"]
    assert page.index('id="entry-e2"') < page.index('id="entry-e1"')  # the unit, then its hero


def test_the_upgrades_taken_are_named_on_their_unit(patrol, client):
    cards = unit_cards(page_of(client, patrol))
    assert "Upgrades: Great Axe, Warhorse" in cards["e1"]
    assert "Upgrades: Sergeant, Halberds" in cards["e2"]


def test_the_totals_give_points_models_and_units(patrol, client):
    page = text(page_of(client, patrol))
    assert "225/1500 pts · 11 models · 2 units · Legal list" in page  # 70+5+20, 110+5+15


def test_validation_issues_are_listed_and_shown_on_their_unit(wardens, client):
    army_list = shared_list([CAPTAIN, WARDENS, {"id": "e3", "unit": "ghost-riders", "options": {}}], points_limit=200)
    page = page_of(client, army_list)
    issues = text(re.search(r'<section class="validation".*?</section>', page, re.S).group(0))
    assert re.search(r"Not legal: \d+ issues", issues)
    assert "225 pts is 25 over the 200 pts limit" in issues
    assert re.search(r'<a href="#entry-e3"><bdi>[^<]*ghost-riders', page)
    assert "ghost-riders" in unit_cards(page)["e3"] and "not in the army book" in unit_cards(page)["e3"]


def test_the_special_rules_the_list_uses_are_explained_on_the_page(patrol, client):
    page = page_of(client, patrol)
    glossary = text(re.search(r'<section class="glossary".*?</section>', page, re.S).group(0))
    assert "Shieldbrothers Test rule text." in glossary  # the army book's own
    assert "Tough(X) · in this list Tough(3)" in glossary and "Fast" in glossary  # core rules
    assert "Spells Spark (1): Test spell text." in glossary  # the captain is a Caster
    assert 'id="rule-ap"' in page and '<a href="#rule-ap">AP(1)</a>' in page  # a weapon's rule leads to its meaning


def test_the_export_buttons_lead_to_the_shared_exports(patrol, client):
    """The files; the PDFs are the print choices' buttons (tests/web/test_print_choices.py)."""
    page = page_of(client, patrol)
    key = patrol.share_key
    for label, path in [("Text", "text"), ("JSON", "json")]:
        assert f'<a class="button" href="/api/shared/{key}/export/{path}">{label}</a>' in page
    for label, path in [("Unit cards", "cards.pdf"), ("Army sheet", "roster.pdf"), ("Roster", "roster.pdf")]:
        address = re.escape(f"/api/shared/{key}/export/{path}")
        assert re.search(rf'<button type="submit" formaction="{address}"[^>]*>{label}<', page)


def test_arena_fighters_show_their_own_stats_and_weapons_in_hexes(db, make_arena_book, client):
    from armybuilder.armyforge.books.imports import book_import

    book_import(data=make_arena_book())
    army_list = shared_list(
        [{"id": f"e{n}", "unit": unit, "options": {}} for n, unit in enumerate(["boss", "thug", "thug"])],
        system="aof-arena",
        faction="test-pit",
        points_limit=None,
    )
    page = page_of(client, army_list)
    assert "Move 3 Rush 5 Eva 3 Tou 3 Sta 4 HP 9" in unit_cards(page)["e0"]
    assert ["Rusted Blade", "Adjacent", "accuracy 4, strength 3, damage 2, critical +1 damage", "–"] in table_rows(page)
    assert "3 models · 3 units · Legal list" in text(page) and " pts" not in text(page)


def test_one_page_fantasy_units_show_the_rules_their_weapon_types_give(db, client):
    from armybuilder.armyforge.books.imports import book_import

    book_import(data=json.loads((BOOKS / "opf" / "free-cities.json").read_text()))
    army_list = shared_list(
        [{"id": "e1", "unit": "penitent-zealots", "options": {}}, {"id": "e2", "unit": "road-wardens", "options": {}}],
        system="opf",
        faction="free-cities",
        points_limit=1000,
    )
    page = page_of(client, army_list)
    assert "Q5+" in unit_cards(page)["e1"]
    rows = table_rows(page)
    assert any(row[0] == "10× Light Mace" and row[-1] == "Piercing, Poison" for row in rows), rows
    assert any(row[0] == "5× Light Swords/Claws" for row in rows), rows  # what a unit without one fights with


def test_a_list_whose_book_is_gone_still_shows_what_was_saved(patrol, client):
    Faction.objects.filter(slug="test-wardens").delete()
    page = page_of(client, patrol)
    assert 'The army book "test-wardens" is no longer in the catalogue' in text(page)
    assert "Saved units: warden-captain, wardens" in text(page)


@pytest.mark.parametrize("hit", [True, False], ids=["cached", "rendered"])
def test_a_long_list_takes_the_same_queries_as_a_short_one(wardens, client, hit):
    """Read once, whatever the length: one query on a cache hit, a fixed handful when
    the page is rendered."""
    counts = []
    for n in (2, 30):
        army_list = shared_list([{"id": f"e{i}", "unit": "wardens", "options": {"TROOPS-1a": 1}} for i in range(n)])
        client.get(f"/s/{army_list.share_key}/")  # warm the book cache, and the page's when `hit`
        if not hit:
            cache.clear()  # the rendered page; this process keeps its copy of the book
        with CaptureQueriesContext(connection) as queries:
            page = page_of(client, army_list)
        assert page.count("Q4+ D5+") == n and len(unit_cards(page)) == n
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
    if hit:
        assert counts == [1, 1]


def _token(page: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def test_readers_who_are_not_signed_in_get_a_ready_page_with_their_own_token(patrol, client):
    from django.test import Client

    from armybuilder.lists.models import ArmyList

    first, second = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    url = f"/s/{patrol.share_key}/"
    page_one, page_two = first.get(url).content.decode(), second.get(url).content.decode()
    assert "<!--csrf-->" not in page_one and _token(page_one) != _token(page_two)
    assert f'href="/accounts/login/?next={url}"' in page_one  # the ready page links back to itself
    # Each reader's token is their own and works: copying the list to their lists.
    before = ArmyList.objects.count()
    copied = second.post(f"/s/{patrol.share_key}/copy/", {"csrfmiddlewaretoken": _token(page_two)})
    assert copied.status_code == 302 and ArmyList.objects.count() == before + 1


def test_a_signed_in_reader_sees_their_own_header(patrol, client, django_user_model):
    reader = django_user_model.objects.create_user("opponent", password="a-long-pass-phrase-1")
    client.get(f"/s/{patrol.share_key}/")  # a ready page for visitors exists now
    client.force_login(reader)
    page = client.get(f"/s/{patrol.share_key}/").content.decode()
    assert "opponent" in page and "Log out" in page and "Sign up" not in page
