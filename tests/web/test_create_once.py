"""One list per form (issue 26, "mistakes undone"): "Create list" and "Build a list for
this event" carry a one-off key written into the page, so the same form sent again (a
double click, Enter pressed three times, a resend after a lost answer) opens the list
the first send made instead of making another."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from armybuilder.events import services as event_services
from armybuilder.lists.models import ArmyList
from tests.support.concurrency import at_once

PASSWORD = "a-long-test-pass-4821"


def form_key(page) -> str:
    match = re.search(rb'name="once" value="([^"]+)"', page.content)
    assert match, "the form carries no one-off key"
    return match.group(1).decode()


def new_list_form(client, **changes) -> dict:
    return {
        "faction": "test-wardens",
        "points": "1500",
        "name": "Patrol",
        "once": form_key(client.get("/new/aof/")),
        **changes,
    }


def test_the_same_create_form_sent_three_times_makes_one_list(wardens, client):
    form = new_list_form(client)
    answers = [client.post("/new/aof/", form) for _ in range(3)]
    army_list = ArmyList.objects.get()
    assert {(a.status_code, a["Location"]) for a in answers} == {(302, f"/lists/{army_list.pk}/")}


def test_each_page_load_is_a_new_form_and_makes_its_own_list(wardens, client):
    first, second = new_list_form(client), new_list_form(client)
    assert first["once"] != second["once"]
    client.post("/new/aof/", first)
    client.post("/new/aof/", second)
    assert ArmyList.objects.count() == 2


def test_a_form_without_a_key_still_makes_a_list_each_time(wardens, client):
    """A page saved before the key existed (or a hand-made post) keeps working."""
    for _ in range(2):
        assert client.post("/new/aof/", {"faction": "test-wardens", "points": "1500"}).status_code == 302
    assert ArmyList.objects.count() == 2


def test_someone_else_s_key_makes_nothing_and_says_why(wardens, client):
    form = new_list_form(client)
    client.post("/new/aof/", form)
    stranger = Client()
    answer = stranger.post("/new/aof/", form)
    assert answer.status_code == 400
    assert b"This form was already used: reload the page" in answer.content
    assert ArmyList.objects.count() == 1
    assert form_key(answer) != form["once"], "the page answered offers a fresh form"


def test_a_key_the_site_never_writes_is_refused(wardens, client):
    answer = client.post("/new/aof/", new_list_form(client, once="<script>"))
    assert answer.status_code == 400 and b"one-off key is not one this site writes" in answer.content
    assert not ArmyList.objects.exists()


def test_the_event_build_form_sent_twice_makes_one_list(wardens):
    organiser = get_user_model().objects.create_user("org", password=PASSWORD)
    player = get_user_model().objects.create_user("player", password=PASSWORD)
    pack = event_services.pack_create(
        organiser=organiser,
        data={
            "name": "Club Night",
            "ruleset": "aof",
            "points_limit": 500,
            "deadline": timezone.now() + timezone.timedelta(days=7),
        },
    )
    client = Client()
    client.force_login(player)
    form = {"faction": "test-wardens", "name": "", "once": form_key(client.get(pack.path))}
    answers = [client.post(f"{pack.path}build/", form) for _ in range(2)]
    army_list = ArmyList.objects.get(owner=player)
    assert [a["Location"] for a in answers] == [f"/lists/{army_list.pk}/"] * 2


@pytest.mark.postgres
def test_sends_at_the_same_moment_make_one_list(transactional_db):
    """Five sends of one form at once, each on its own connection: one list, and every
    answer leads to it."""
    from armybuilder.armyforge.books.imports import book_import
    from armybuilder.memo import clear_all
    from factions.services import sync_rulesets
    from tests.conftest import aof_book

    sync_rulesets()  # a transactional test empties the tables the migrations filled
    clear_all()
    book_import(data=aof_book())
    owner = get_user_model().objects.create_user("quick", password=PASSWORD)
    client = Client()
    client.force_login(owner)
    form = new_list_form(client)

    def send():
        mine = Client()
        mine.force_login(owner)
        return mine.post("/new/aof/", form)

    answers = at_once(5, send)
    army_list = ArmyList.objects.get(owner=owner)
    assert [a["Location"] for a in answers] == [f"/lists/{army_list.pk}/"] * 5
