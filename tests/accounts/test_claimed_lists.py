"""Signed in, said so (issue 36, point 5): after signing up or logging in, the page the
player lands on says how many of the browser's lists moved to the account (nothing when
none did), and the start page speaks to a signed-in player as one."""

import re

import pytest
from django.test import Client

from armybuilder.accounts import services as accounts
from armybuilder.lists import services
from armybuilder.lists.format import parse_list_body
from armybuilder.lists.models import ArmyList
from armybuilder.lists.visitors import SESSION_KEY

PASSWORD = "a-long-pass-phrase-1"
SIGN_UP = {"username": "newcomer", "password1": PASSWORD, "password2": PASSWORD}


def messages_on(page: str) -> list[str]:
    return re.findall(r'<ul class="messages"[^>]*>\s*<li[^>]*>(.*?)</li>', page)


def lists_of_a_visitor(client: Client, count: int) -> None:
    """`count` lists made in this browser without an account."""
    client.get("/new/aof/")  # the new-list page gives the browser its visitor id
    visitor = client.session[SESSION_KEY]
    for number in range(count):
        body = {"name": f"List {number}", "system": "aof", "faction": "test-wardens", "points_limit": 500}
        data, _handle = parse_list_body({**body, "entries": []})
        services.army_list_create(data=data, owner=None, visitor=visitor)


@pytest.fixture
def member(db):
    return accounts.user_create(username="member", password=PASSWORD)


def test_signing_up_says_how_many_lists_came_along(wardens, client):
    lists_of_a_visitor(client, 2)
    response = client.post("/accounts/signup/", {**SIGN_UP, "next": "/lists/"}, follow=True)
    assert response.redirect_chain == [("/lists/", 302)]
    assert messages_on(response.content.decode()) == ["2 lists from this browser are now in your account."]
    assert ArmyList.objects.filter(owner__username="newcomer").count() == 2
    # Said once: the next page says nothing more.
    assert messages_on(client.get("/lists/").content.decode()) == []


def test_signing_up_from_the_builder_says_so_on_the_builder(wardens, client):
    """The header's "Sign up" comes back to the page it was on: most often a list."""
    lists_of_a_visitor(client, 1)
    army_list = ArmyList.objects.get()
    response = client.post("/accounts/signup/", {**SIGN_UP, "next": f"/lists/{army_list.pk}/"}, follow=True)
    assert response.redirect_chain == [(f"/lists/{army_list.pk}/", 302)]
    assert messages_on(response.content.decode()) == ["1 list from this browser is now in your account."]


def test_logging_in_says_one_list_came_along(wardens, member, client):
    lists_of_a_visitor(client, 1)
    response = client.post("/accounts/login/", {"username": "member", "password": PASSWORD}, follow=True)
    assert response.redirect_chain == [("/", 302)]
    assert messages_on(response.content.decode()) == ["1 list from this browser is now in your account."]


def test_nothing_is_said_when_no_list_moved(wardens, member, client):
    client.get("/new/aof/")  # a visitor id, but no list
    response = client.post("/accounts/login/", {"username": "member", "password": PASSWORD}, follow=True)
    assert messages_on(response.content.decode()) == []
    response = Client().post("/accounts/signup/", SIGN_UP, follow=True)
    assert messages_on(response.content.decode()) == []


def test_lists_already_claimed_are_not_counted_again(wardens, member, client):
    lists_of_a_visitor(client, 2)
    first = client.post("/accounts/login/", {"username": "member", "password": PASSWORD}, follow=True)
    assert messages_on(first.content.decode()) == ["2 lists from this browser are now in your account."]
    client.post("/accounts/logout/")
    response = client.post("/accounts/login/", {"username": "member", "password": PASSWORD}, follow=True)
    assert messages_on(response.content.decode()) == []


def test_the_start_page_tells_a_visitor_no_account_is_needed(db, client):
    page = client.get("/").content.decode()
    assert "No account needed" in page and 'class="greeting"' not in page


def test_the_start_page_greets_a_signed_in_player_and_points_to_their_lists(member, client):
    client.force_login(member)
    page = client.get("/").content.decode()
    assert "No account needed" not in page
    greeting = page.split('<p class="greeting">', 1)[1].split("</p>", 1)[0]
    assert greeting.startswith("Hello, member.")  # no display name chosen: their username, theirs to see
    assert '<a href="/lists/">My lists</a>' in greeting
    version = accounts.account_get(user=member).version
    accounts.account_update(user=member, email="", display_name="Sir Member", version=version)
    assert '<p class="greeting">Hello, Sir Member.' in client.get("/").content.decode()
