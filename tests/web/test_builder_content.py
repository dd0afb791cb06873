"""What the builder page shows besides the list itself, through Django's test client:
unit profiles before adding, spells on casters, rules that open in place, the Arena
composition card, command groups as check boxes; and the small things: `next` kept
through log-in and sign-up, "an Age of Fantasy list", the favicon."""

import re
from html import unescape
from pathlib import Path
from types import SimpleNamespace

import pytest

from armybuilder.armyforge.books.imports import book_import
from armybuilder.engine.results import EntryResult
from armybuilder.lists.models import ArmyList
from armybuilder.memo import clear_all
from armybuilder.web import presenters
from tests.conftest import SHARED, require_shared


@pytest.fixture
def army_list(wardens, client) -> ArmyList:
    assert client.post("/new/aof/", {"faction": "test-wardens", "points": "1500"}).status_code == 302
    return ArmyList.objects.get()


def act(client, army_list, **fields):
    army_list.refresh_from_db()
    return client.post(f"/lists/{army_list.pk}/act/", {"version": army_list.version, **fields})


def page_of(client, army_list, query: str = "") -> str:
    response = client.get(f"/lists/{army_list.pk}/{query}")
    assert response.status_code == 200
    return response.content.decode()


def block(page: str, start: str, end: str) -> str:
    """The page's text from `start` up to the next `end`."""
    begin = page.index(start)
    return page[begin : page.index(end, begin)]


def text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_every_unit_to_add_opens_on_its_profile(army_list, client):
    profile = block(page_of(client, army_list), '<details class="profile" id="profile-wardens">', "</details>\n")
    words = text(profile)
    assert "Wardens [10] Q4+ D5+" in words
    assert "110 pts for 10 models" in words
    assert '10× Sling 12", A1' in words and "10× Spear Melee, A1 Counter" in words
    assert "Shieldbrothers" in words


def test_a_casters_entry_lists_the_books_spells_and_others_do_not(army_list, client):
    act(client, army_list, action="add", unit="warden-captain")  # Caster(1)
    act(client, army_list, action="add", unit="wardens")
    page = page_of(client, army_list)
    captain = text(block(page, 'id="entry-e1"', "</article>"))
    assert "Spells · Caster(1) Spark (1): Test spell text." in captain
    assert "Spells" not in text(block(page, 'id="entry-e2"', "</article>"))


def test_a_rule_name_opens_on_what_it_does_without_a_tooltip(army_list, client):
    act(client, army_list, action="add", unit="warden-captain")
    act(client, army_list, action="add", unit="wardens")
    page = page_of(client, army_list)
    captain = block(page, 'id="entry-e1"', "</article>")
    tough = block(captain, '<details class="rule"><summary>Tough(3)</summary>', "</details>")
    assert "Tough" in text(tough.split("</summary>")[1])  # the core rule's summary
    assert 'href="/rules/aof/#rule-tough"' in tough
    wardens = block(page, 'id="entry-e2"', "</article>")
    faction_rule = '<details class="rule"><summary>Shieldbrothers</summary><span class="rule-text">Test rule text.'
    assert faction_rule in wardens
    assert '<details class="rule"><summary>Counter</summary>' in wardens  # a weapon's rule too
    assert "title=" not in block(
        page, '<section id="list-panel" tabindex="-1" aria-labelledby="entries-title">', "</section>"
    )


def test_the_arena_composition_card_counts_the_warband(db, client, make_arena_book):
    clear_all()
    book_import(data=make_arena_book())
    assert client.post("/new/aof-arena/", {"faction": "test-pit"}).status_code == 302
    army_list = ArmyList.objects.get()
    act(client, army_list, action="add", unit="boss")
    act(client, army_list, action="add", unit="thug")
    card = block(page_of(client, army_list), '<section class="composition" id="composition"', "</section>")
    rows = [text(row) for row in re.findall(r"<tr class=.*?</tr>", card, re.S)]
    assert rows == ["Leader Pit Boss 1 1", "Fighters Pit Thug 1 too few 2–4", "Models in all 2 too few 3–5"]
    act(client, army_list, action="add", unit="thug")
    card = block(page_of(client, army_list), '<section class="composition" id="composition"', "</section>")
    assert 'class="state-ok" data-group="Fighters"' in card and 'class="state-ok" data-group="Models in all"' in card


def test_an_arena_weapon_profile_reads_in_the_cards_order_on_every_database(db, client, make_arena_book):
    """PostgreSQL gives a book's JSON keys back in its own order; the builder says the
    profile as the cards do (accuracy, strength, damage, critical)."""
    clear_all()
    book_import(data=make_arena_book())
    assert client.post("/new/aof-arena/", {"faction": "test-pit"}).status_code == 302
    army_list = ArmyList.objects.get()
    act(client, army_list, action="add", unit="boss")
    entry = block(page_of(client, army_list), '<article class="entry', "</article>")
    assert "accuracy 4, strength 3, damage 2, critical +1 damage" in text(entry)


def test_a_command_group_allowing_one_is_still_a_box_each(db, client, make_aof_book):
    book = make_aof_book()
    troops = book["packages"][1]["sections"][0]
    troops["label"] = "Upgrade one model with one"
    troops["select"] = {"type": "exactly", "value": 1}
    troops["optional"] = True
    clear_all()
    book_import(data=book)
    assert client.post("/new/aof/", {"faction": "test-wardens", "points": "1500"}).status_code == 302
    army_list = ArmyList.objects.get()
    act(client, army_list, action="add", unit="wardens")
    act(client, army_list, action="options", entry="e1", c="TROOPS-1a")
    editor = block(page_of(client, army_list, "?entry=e1"), 'id="editor"', "</fieldset>")
    assert 'type="checkbox" id="pick-TROOPS-1a" name="c" value="TROOPS-1a" checked' in editor
    assert re.search(r'type="checkbox" id="pick-TROOPS-1b" name="c" value="TROOPS-1b"\s+disabled', editor)
    assert 'type="radio"' not in editor


BUNDLED = Path(__file__).resolve().parents[2] / "factions" / "data" / "books"


def test_command_groups_are_check_boxes_in_every_bundled_and_army_forge_book(db):
    from factions.models import Faction
    from factions.selectors import engine_book_get
    from factions.services import armybook_import_file

    clear_all()
    for path in sorted(BUNDLED.glob("*/*.json")):
        armybook_import_file(path=path)
    for path in sorted(require_shared(SHARED / "armyforge").glob("*.json")):
        book_import(data=path.read_bytes(), system=path.name.split("--")[0])
    controls = {}
    for faction in Faction.objects.select_related("ruleset"):
        book, _ruleset = engine_book_get(system=faction.ruleset.slug, slug=faction.slug)
        for unit in book.units.values():
            result = EntryResult(SimpleNamespace(id="e1", options={}, copies=1), unit, None)
            for view in presenters.section_views(result):
                if view.section.command_only:
                    controls[(faction.slug, unit.name, view.section.label)] = view.control
    assert len(controls) > 50
    assert {key: control for key, control in controls.items() if control != "checkbox"} == {}


def test_the_builders_log_in_and_sign_up_links_come_back_to_it(army_list, client):
    page = page_of(client, army_list, "?entry=e1")
    here = f"/lists/{army_list.pk}/%3Fentry%3De1"
    assert f'href="/accounts/login/?next={here}"' in page and f'href="/accounts/signup/?next={here}"' in page


def test_log_in_returns_to_next_on_this_site_only(client, django_user_model):
    django_user_model.objects.create_user("player", password="a-long-pass-phrase-1")
    form = client.get("/accounts/login/?next=/lists/7/").content.decode()
    assert '<input type="hidden" name="next" value="/lists/7/">' in form
    assert 'href="/accounts/signup/?next=/lists/7/"' in form
    answer = client.post(
        "/accounts/login/", {"username": "player", "password": "a-long-pass-phrase-1", "next": "/lists/7/"}
    )
    assert answer.status_code == 302 and answer["Location"] == "/lists/7/"
    client.logout()
    evil = {"username": "player", "password": "a-long-pass-phrase-1", "next": "https://evil.example/"}
    answer = client.post("/accounts/login/", evil)
    assert answer.status_code == 302 and answer["Location"] == "/"


def test_sign_up_returns_to_next_on_this_site_only(db, client):
    form = client.get("/accounts/signup/?next=/lists/7/").content.decode()
    assert '<input type="hidden" name="next" value="/lists/7/">' in form
    assert 'href="/accounts/login/?next=/lists/7/"' in form
    fields = {"password1": "a-long-pass-phrase-1", "password2": "a-long-pass-phrase-1"}
    answer = client.post("/accounts/signup/", {"username": "first", "next": "/lists/7/", **fields})
    assert answer.status_code == 302 and answer["Location"] == "/lists/7/"
    client.logout()
    assert (
        'value="https://evil.example/"'
        not in client.get("/accounts/signup/?next=https://evil.example/").content.decode()
    )
    answer = client.post("/accounts/signup/", {"username": "second", "next": "https://evil.example/", **fields})
    assert answer.status_code == 302 and answer["Location"] == "/"


def test_the_start_page_says_an_age_of_fantasy_list(db, client):
    page = client.get("/").content.decode()
    assert ">Start an Age of Fantasy list</a>" in page
    assert ">Start an Age of Fantasy: Arena list</a>" in page
    assert ">Start a One Page Fantasy list</a>" in page
    assert "Start a Age" not in page


def test_every_page_links_the_icon_and_favicon_ico_leads_to_it(db, client):
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in client.get("/").content.decode()
    answer = client.get("/favicon.ico")
    assert answer.status_code == 302 and answer["Location"] == "/static/favicon.svg"
