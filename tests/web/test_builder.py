"""The builder's pages and actions through Django's test client (no browser)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from armybuilder.lists.models import ArmyList
from tests.conftest import aof_book, edit_book, part


@pytest.fixture
def army_list(wardens, client) -> ArmyList:
    response = client.post("/new/aof/", {"faction": "test-wardens", "points": "1500", "name": "Patrol"})
    assert response.status_code == 302
    return ArmyList.objects.get()


def act(client, army_list, **fields):
    army_list.refresh_from_db()
    return client.post(f"/lists/{army_list.pk}/act/", {"version": army_list.version, **fields})


def entries(army_list):
    army_list.refresh_from_db()
    return army_list.entries


def test_start_pages_render(wardens, client):
    assert b"Age of Fantasy 3.2.0" in client.get("/").content
    page = client.get("/new/aof/")
    assert page.status_code == 200 and b"Test Wardens" in page.content
    assert client.get("/new/nope/").status_code == 404


def test_a_new_list_needs_an_army_and_a_size(wardens, client):
    response = client.post("/new/aof/", {"faction": "test-wardens", "points": "lots"})
    assert response.status_code == 400 and b"whole number" in response.content
    response = client.post("/new/aof/", {"faction": "nobody", "points": "750"})
    assert response.status_code == 400 and b"No faction" in response.content
    assert not ArmyList.objects.exists()


def test_the_new_list_opens_in_the_builder(army_list, client):
    response = client.get(f"/lists/{army_list.pk}/")
    assert response.status_code == 200
    assert b"0/1500 pts" in response.content and b"Warden Captain" in response.content


def test_every_action_works_as_a_plain_form_post(army_list, client):
    response = act(client, army_list, action="add", unit="wardens")
    assert response.status_code == 302 and response["Location"].endswith("?entry=e1#entry-e1")
    act(client, army_list, action="add", unit="warden-captain")
    act(client, army_list, action="duplicate", entry="e1")
    assert [e["id"] for e in entries(army_list)] == ["e1", "e3", "e2"]
    act(client, army_list, action="move", entry="e2", step="up")
    assert [e["id"] for e in entries(army_list)] == ["e1", "e2", "e3"]
    act(client, army_list, action="rename", entry="e1", name="Gate Watch")
    act(client, army_list, action="options", entry="e1", bump="TROOPS-1a:+1", **{"s:TROOPS-2": "TROOPS-2a"})
    act(client, army_list, action="combine", entry="e1", combined="1")
    act(client, army_list, action="join", entry="e2", target="e1")
    act(client, army_list, action="remove", entry="e3")
    assert entries(army_list) == [
        {
            "id": "e1",
            "unit": "wardens",
            "options": {"TROOPS-1a": 1, "TROOPS-2a": 1},
            "combined": True,
            "joined_to": None,
            "name": "Gate Watch",
        },
        {"id": "e2", "unit": "warden-captain", "options": {}, "combined": False, "joined_to": "e1", "name": None},
    ]
    page = client.get(f"/lists/{army_list.pk}/").content.decode()
    assert "Gate Watch" in page
    assert "joined to <bdi>Gate Watch</bdi>" in page
    assert "325/1500 pts" in page  # 2 x 110 + sergeant 5 + halberds 2 x 15, and the captain's 70


def test_settings_change_the_list(army_list, client):
    act(client, army_list, action="settings", name="Renamed", points_limit="750", notes="n", force_org="")
    army_list.refresh_from_db()
    assert (army_list.name, army_list.points_limit, army_list.force_org, army_list.notes) == (
        "Renamed",
        750,
        False,
        "n",
    )


def test_a_live_action_answers_with_the_workspace(army_list, client):
    response = client.post(
        f"/lists/{army_list.pk}/act/", {"version": 1, "action": "add", "unit": "wardens"}, HTTP_X_LIVE="1"
    )
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    answer = response.json()
    assert 'id="points">110/1500 pts' in answer["html"]["tally"]
    assert [entry_id for entry_id, _hash in answer["entries"]] == ["entry-e1"]
    assert "<html" not in response.content.decode()


def test_a_stale_form_is_refused_and_says_so(army_list, client):
    act(client, army_list, action="add", unit="wardens")
    response = client.post(
        f"/lists/{army_list.pk}/act/", {"version": 1, "action": "add", "unit": "wardens"}, HTTP_X_LIVE="1"
    )
    assert response.status_code == 409
    assert b"changed elsewhere" in response.content
    assert len(entries(army_list)) == 1


def test_a_bad_action_changes_nothing(army_list, client):
    assert act(client, army_list, action="remove", entry="nope").status_code == 302
    assert act(client, army_list, action="explode").status_code == 400
    response = act(client, army_list, action="options", entry="e9", **{"o:x": "-3"})
    assert response.status_code == 302
    assert entries(army_list) == [] and ArmyList.objects.get().version == 1


def test_someone_elses_builder_is_404(army_list, client, django_user_model):
    from django.test import Client

    stranger = Client()
    assert stranger.get(f"/lists/{army_list.pk}/").status_code == 404
    assert (
        stranger.post(f"/lists/{army_list.pk}/act/", {"version": 1, "action": "add", "unit": "wardens"}).status_code
        == 404
    )
    assert entries(army_list) == []


def test_options_that_would_break_a_section_limit_are_disabled_with_the_reason(army_list, client):
    act(client, army_list, action="add", unit="warden-captain")
    page = client.get(f"/lists/{army_list.pk}/?entry=e1").content.decode()
    assert 'name="s:HERO-1"' in page  # pick-one sections are radios
    act(client, army_list, action="add", unit="wardens")
    page = client.get(f"/lists/{army_list.pk}/?entry=e2").content.decode()
    assert 'type="checkbox" id="pick-TROOPS-1a" name="c" value="TROOPS-1a"' in page  # a rule had once: a checkbox


def test_a_counter_stops_when_every_target_item_is_replaced(db, client):
    from factions.services import BOOKS_DIR, armybook_import_file

    armybook_import_file(path=BOOKS_DIR / "aof" / "human-empire.json")
    assert client.post("/new/aof/", {"faction": "human-empire", "points": "1500"}).status_code == 302
    army_list = ArmyList.objects.get()
    act(client, army_list, action="add", unit="militia-rabble")
    act(client, army_list, action="options", entry="e1", **{"o:J1a": "12", "o:J1b": "8"})
    page = client.get(f"/lists/{army_list.pk}/?entry=e1").content.decode()
    # Every Pitchfork replaced: both "+" buttons are disabled, with the reason.
    reason = 'title="&quot;Replace any Pitchfork&quot; allows at most 20 picks (1 per Pitchfork carried)"'
    assert page.count(reason) == 2


def test_my_lists_clone_delete_and_import(army_list, client):
    page = client.get("/lists/").content.decode()
    assert "Patrol" in page and "legal" in page
    response = client.post(f"/lists/{army_list.pk}/clone/")
    assert response.status_code == 302 and ArmyList.objects.count() == 2
    assert b"cannot be undone" in client.get(f"/lists/{army_list.pk}/delete/").content
    assert client.post(f"/lists/{army_list.pk}/delete/").status_code == 302
    assert ArmyList.objects.count() == 1

    from django.core.files.uploadedfile import SimpleUploadedFile

    good = SimpleUploadedFile(
        "l.json", b'{"system": "aof", "faction": "test-wardens", "points_limit": 500, "entries": []}'
    )
    assert client.post("/lists/import/", {"file": good}).status_code == 302
    bad = SimpleUploadedFile("l.json", b'{"system": "aof"}')
    response = client.post("/lists/import/", {"file": bad}, follow=True)
    assert b"not a list we can read" in response.content and ArmyList.objects.count() == 2


def test_copy_a_shared_list_to_my_lists(army_list, client):
    from django.test import Client

    friend = Client()
    response = friend.post(f"/s/{army_list.share_key}/copy/")
    assert response.status_code == 302
    copy = ArmyList.objects.exclude(pk=army_list.pk).get()
    assert friend.get(f"/lists/{copy.pk}/").status_code == 200


def test_rules_page_lists_core_rules_and_limits(wardens, client):
    page = client.get("/rules/aof/").content.decode()
    assert 'id="rule-tough"' in page and "At most 1 hero per 500 pts" in page
    assert client.get("/rules/nope/").status_code == 404


def test_the_builder_page_runs_the_same_queries_for_1_and_50_entries(army_list, client):
    counts = {}
    for total in (1, 50):
        while len(entries(army_list)) < total:
            act(client, army_list, action="add", unit="wardens")
        client.get(f"/lists/{army_list.pk}/?entry=e1")  # warm the book cache
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/lists/{army_list.pk}/?entry=e1").status_code == 200
        counts[total] = len(queries)
    assert len(entries(army_list)) == 50
    assert counts[1] == counts[50], counts


def test_my_lists_names_the_army_and_runs_the_same_queries_for_few_lists_and_many(army_list, client):
    def page():
        with CaptureQueriesContext(connection) as captured:
            response = client.get("/lists/")
        assert response.status_code == 200
        return response.content.decode(), len(captured)

    client.get("/lists/")  # works out and stores the validation
    content, few = page()
    assert "Test Wardens" in content and "test-wardens" not in content.replace('"/lists/', "")
    for _ in range(30):
        client.post(f"/lists/{army_list.pk}/clone/")
    client.get("/lists/")
    content, many = page()
    assert content.count("Copy of Patrol") == 30 and many == few


def test_my_lists_come_in_pages_of_fifty(army_list, client):
    for _ in range(55):
        client.post(f"/lists/{army_list.pk}/clone/")
    client.get("/lists/")  # shows (and so ends) the 55 "copied" messages
    first = client.get("/lists/").content.decode()
    assert first.count("Copy of Patrol") == 50 and "Page 1 of 2" in first and "?page=2" in first
    assert client.get("/lists/?page=2").content.decode().count("Patrol") >= 6


# -- an action renders only what changed ----------------------------------------------
def _templates(response):
    return [t.name for t in response.templates]


def test_an_action_renders_only_the_entries_that_changed(army_list, client):
    for unit in ("wardens", "wardens", "warden-captain", "wardens"):
        act(client, army_list, action="add", unit=unit)
    client.get(f"/lists/{army_list.pk}/?entry=e2")  # every piece rendered once, and kept
    army_list.refresh_from_db()
    response = client.post(
        f"/lists/{army_list.pk}/act/",
        {"version": army_list.version, "action": "options", "entry": "e2", "partial": "1", "set": "TROOPS-1a=1"},
        HTTP_X_LIVE="1",
    )
    assert response.status_code == 200
    rendered = _templates(response)
    assert rendered.count("builder/_entry.html") == 1  # e2 only: the others are as they were
    assert "builder/_units.html" not in rendered
    page = "".join(response.json()["html"].values())  # the page held nothing: every piece is sent
    assert page.count('class="entry') == 4 and 'id="pick-TROOPS-1a" name="c" value="TROOPS-1a" checked' in page
    assert '<h3 id="editor-title" tabindex="-1">Upgrades: <bdi>Wardens (2)</bdi>' in page
    assert "<!--form-head-->" not in page
    forms = 6 + 4  # every entry's buttons belong to 6 forms (the first entry's); each has a name field
    assert page.count('name="version" value=""') >= forms  # every form, for the page to fill in


def test_a_kept_entry_follows_what_it_shows(army_list, client):
    act(client, army_list, action="add", unit="wardens")
    act(client, army_list, action="add", unit="warden-captain")
    act(client, army_list, action="join", entry="e2", target="e1")
    assert "joined to <bdi>Wardens</bdi>" in client.get(f"/lists/{army_list.pk}/").content.decode()
    act(client, army_list, action="rename", entry="e1", name="Old Guard")
    page = client.get(f"/lists/{army_list.pk}/").content.decode()
    assert "joined to <bdi>Old Guard</bdi>" in page  # the hero's piece changed with its unit's name


def test_kept_pieces_go_with_the_book_they_came_from(army_list, client):
    act(client, army_list, action="add", unit="wardens")
    assert "Test Wardens" in client.get(f"/lists/{army_list.pk}/").content.decode()
    old_cost = part(aof_book()["units"], "id", "wardens")["cost"]
    faction = edit_book("test-wardens", lambda book: part(book["units"], "id", "wardens").update(cost=old_cost + 7))
    # The list keeps the version it was built on, and that version's pieces, until it moves on.
    page = client.get(f"/lists/{army_list.pk}/").content.decode()
    assert f"{old_cost + 7} pts" not in page and "your one unit changes cost, +7 pts" in page
    army_list.refresh_from_db()
    faction.refresh_from_db()
    client.post(f"/lists/{army_list.pk}/book/move/", {"to": faction.version, "version": army_list.version})
    page = client.get(f"/lists/{army_list.pk}/").content.decode()
    assert f"{old_cost + 7} pts" in page


# -- issue 36: the totals bar counts units and activations; an Add opens upgrades only to choose from --------------
def test_the_totals_bar_counts_units_against_the_rulesets_limit_and_activations(army_list, client):
    for _ in range(3):
        act(client, army_list, action="add", unit="wardens")
    act(client, army_list, action="add", unit="warden-captain")
    captain = entries(army_list)[-1]["id"]
    act(client, army_list, action="join", entry=captain, target=entries(army_list)[0]["id"])
    page = client.get(f"/lists/{army_list.pk}/").content.decode()
    assert '<span id="units-count">4/10 units</span>' in page  # 1,500 pts: 1 unit per 150 pts
    assert '<span id="activations">3 activations</span>' in page  # the captain acts with its unit
    army_list.refresh_from_db()
    army_list.points_limit = 300
    army_list.save()
    page = client.get(f"/lists/{army_list.pk}/").content.decode()
    assert '<span id="units-count" class="bad">4/2 units</span>' in page


def test_an_add_opens_the_upgrades_only_of_a_unit_that_has_some(wardens, client):
    from armybuilder.armyforge.books.imports import book_import

    book = aof_book()
    book["units"].append({**book["units"][1], "id": "plain", "name": "Plain Wardens", "upgrades": []})
    book_import(data={**book, "slug": "test-plain", "name": "Test Plain"})
    client.post("/new/aof/", {"faction": "test-plain", "points": "1500", "name": "Plain"})
    army_list = ArmyList.objects.get(faction="test-plain")
    response = act(client, army_list, action="add", unit="wardens")
    assert response.status_code == 302 and "?entry=e1" in response["Location"]  # its upgrades open
    response = act(client, army_list, action="add", unit="plain")
    assert response.status_code == 302 and "?entry=" not in response["Location"]  # nothing to choose: no editor
    assert [e["unit"] for e in entries(army_list)] == ["wardens", "plain"]
