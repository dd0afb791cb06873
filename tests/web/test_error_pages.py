"""Error pages (armybuilder/errors.py, NotAllowedPageMiddleware): every 400, 403, 404, 405
and 500 of a page is a page in the site's layout with a way on; the API's stay JSON."""

import re

import pytest
from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.db import connection
from django.test import Client, RequestFactory

from armybuilder import errors
from armybuilder.web import builder
from tests.conftest import wardens_list
from tests.project.test_production import database_gone


def ways_on(response) -> dict[str, str]:
    """The error page's ways on, by their words: where each goes."""
    html = response.content.decode()
    assert '<header class="top">' in html, "the page is not in the site's layout"
    way = re.search(r'<p class="way-on" data-way-on>(.*?)</p>', html).group(1)
    return {words: href.replace("&amp;", "&") for href, words in re.findall(r'<a href="([^"]*)">([^<]*)</a>', way)}


@pytest.fixture
def players_list(wardens, user):
    return wardens_list(user, ["wardens"], name="Gate Watch")


def test_a_logged_out_visit_to_a_players_list_is_a_404_that_offers_a_log_in_back_to_it(players_list, client):
    response = client.get(f"/lists/{players_list.pk}/?entry=e0")
    assert response.status_code == 404
    assert b"No such list among yours." in response.content and b"Gate Watch" not in response.content
    assert ways_on(response) == {
        "Log in to see your lists": f"/accounts/login/?next=/lists/{players_list.pk}/%3Fentry%3De0",
        "Your lists": "/lists/",
        "Start a list": "/",
    }


def test_logged_in_the_404_page_offers_no_log_in(players_list, client, django_user_model):
    client.force_login(django_user_model.objects.create_user("someone-else"))
    response = client.get(f"/lists/{players_list.pk}/")
    assert response.status_code == 404
    assert ways_on(response) == {"Your lists": "/lists/", "Start a list": "/"}


def test_an_unknown_address_is_a_404_page_that_shows_no_url_patterns(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert b"There is nothing at this address." in response.content and b"tried" not in response.content
    assert set(ways_on(response)) == {"Log in to see your lists", "Your lists", "Start a list"}


@pytest.mark.parametrize("path, allow", [("/lists/{pk}/act/", "POST"), ("/accounts/logout/", "POST, OPTIONS")])
def test_a_form_address_opened_directly_is_a_405_page_keeping_the_allow_header(players_list, client, path, allow):
    client.force_login(players_list.owner)
    response = client.get(path.format(pk=players_list.pk))
    assert response.status_code == 405 and response["Allow"] == allow
    assert b"Not opened this way" in response.content
    assert ways_on(response) == {"Your lists": "/lists/", "Start a list": "/"}


@pytest.mark.parametrize("method, status", [("post", 404), ("get", 405)])
def test_logged_out_a_form_address_offers_a_log_in_to_their_lists_not_back_to_the_form(wardens, client, method, status):
    response = getattr(client, method)("/lists/99999/act/", {"action": "add", "unit": "wardens", "version": "1"})
    assert response.status_code == status
    assert ways_on(response)["Log in to see your lists"] == "/accounts/login/?next=/lists/"


def test_a_form_posted_with_a_stale_csrf_token_is_a_403_page(players_list):
    client = Client(enforce_csrf_checks=True)
    client.force_login(players_list.owner)
    response = client.post(f"/lists/{players_list.pk}/act/", {"action": "add", "unit": "wardens"})
    assert response.status_code == 403
    assert b"This form has expired" in response.content
    assert ways_on(response) == {"Your lists": "/lists/", "Start a list": "/"}


def test_too_many_form_fields_is_a_400_page(players_list, client, settings):
    """Refused before the session is read: the page does not guess who is logged in."""
    client.force_login(players_list.owner)
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 10
    response = client.post("/new/aof/", {f"field{i}": "x" for i in range(20)})
    assert response.status_code == 400
    assert b"That request could not be read" in response.content
    assert ways_on(response) == {"Your lists": "/lists/", "Start a list": "/"}
    assert b"Log in" not in response.content and b"Log out" not in response.content


@pytest.mark.parametrize(
    "exception, status, heading",
    [(SuspiciousOperation, 400, b"That request could not be read"), (PermissionDenied, 403, b"Not allowed")],
)
def test_a_refusal_raised_in_a_view_is_a_page(db, client, monkeypatch, exception, status, heading):
    def refuse(*args, **kwargs):
        raise exception

    monkeypatch.setattr(builder, "render", refuse)
    response = client.get("/")
    assert response.status_code == status and heading in response.content
    assert set(ways_on(response)) == {"Log in to see your lists", "Your lists", "Start a list"}


def test_a_crash_in_a_view_is_a_500_page(db, monkeypatch):
    def crash(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(builder, "render", crash)
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 500
    assert b"Something went wrong" in response.content and b"boom" not in response.content
    assert ways_on(response) == {"Your lists": "/lists/", "Start a list": "/"}


def test_the_500_page_needs_no_database_and_no_session():
    """(No `db` fixture: a query would fail the test.) The request has no user and no
    session, as when their middleware is what failed."""
    response = errors.server_error(RequestFactory().get("/lists/"))
    assert response.status_code == 500
    assert ways_on(response) == {"Your lists": "/lists/", "Start a list": "/"}
    assert b"Log in" not in response.content  # no one is known to be logged out


def test_a_500_page_that_cannot_be_rendered_falls_back_to_djangos_plain_one(monkeypatch):
    def broken():
        raise RuntimeError("no links")

    monkeypatch.setattr(errors, "site_links", broken)
    response = errors.server_error(RequestFactory().get("/lists/"))
    assert response.status_code == 500 and b"Server Error (500)" in response.content


def test_the_503_page_links_the_site_though_it_has_no_request(wardens, client):
    with connection.execute_wrapper(database_gone):
        response = client.get("/lists/")
    assert response.status_code == 503
    assert '<a href="/lists/">My lists</a>' in response.content.decode()


def test_the_api_keeps_its_json_errors(wardens, api_client):
    assert api_client.get("/api/no-such-thing/").json() == {"detail": "Not found."}
    not_allowed = api_client.put("/api/systems/", {}, format="json")
    assert not_allowed.status_code == 405 and not_allowed["Content-Type"] == "application/json"
    assert not_allowed.json() == {"detail": 'Method "PUT" not allowed.'}


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("/lists/99999/", "No such list among yours."),
        ("/s/no-such-key/", "No list has this share link (it may have been replaced by a new one)."),
        ("/s/no-such-key/copy/", "No list has this share link (it may have been replaced by a new one)."),
        ("/events/no-such-key/", "No event pack has this link."),
        ("/events/no-such-key/edit/", "No event pack has this link."),
        ("/rules/no-such-game/", "No such ruleset."),
        ("/new/no-such-game/", "No such ruleset."),
        ("/books/aof/no-such-book/changes/", "No such army book."),
    ],
)
def test_a_lookup_that_finds_nothing_is_a_404_page_in_its_own_words(wardens, client, path, words):
    response = client.post(path) if path.endswith("/copy/") else client.get(path)

    assert response.status_code == 404
    assert words in response.content.decode()
    assert ways_on(response)


@pytest.mark.parametrize(
    ("path", "detail"),
    [
        ("/api/lists/99999/", "Not found."),
        ("/api/shared/no-such-key/", "Not found."),
        ("/api/events/no-such-key/", "Not found."),
        ("/api/events/no-such-key/submissions/", "Not found."),
        ("/api/systems/no-such-game/", 'no ruleset "no-such-game"'),
        ("/api/factions/aof/no-such-book/versions/", 'no faction "no-such-book" in ruleset "aof"'),
        ("/api/factions/aof/no-such-book/", 'no faction "no-such-book" in ruleset "aof"'),
    ],
)
def test_a_lookup_that_finds_nothing_is_the_api_s_json_404(wardens, api_client, path, detail):
    response = api_client.get(path)

    assert (response.status_code, response.json()) == (404, {"detail": detail})
