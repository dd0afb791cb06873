"""Usernames are not published (issue 25, point 5): an event's organiser and players are
shown by the display name each chose, or a neutral "Player N", in the API, on the pack's
page, in the CSV and in the combined roster; a username is for logging in only."""

import io
import re

import pdfplumber
import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from armybuilder.accounts import services as accounts
from armybuilder.accounts.models import Profile
from armybuilder.events import services as event_services
from tests.conftest import wardens_list as make_list
from tests.events.test_events import pack_data

User = get_user_model()
PASSWORD = "not-a-real-pass-123"
# Usernames no page may show to anyone but their user; long and odd, so that a hit is one.
ORGANISER_LOGIN, NAMED_LOGIN, NAMELESS_LOGIN = "orgsecretlogin", "adasecretlogin", "bosecretlogin"
USERNAMES = (ORGANISER_LOGIN, NAMED_LOGIN, NAMELESS_LOGIN)


@pytest.fixture
def people(db) -> dict:
    """An organiser and a player who chose display names, and a player who chose none."""
    return {
        "organiser": accounts.user_create(username=ORGANISER_LOGIN, password=PASSWORD, display_name="Club Secretary"),
        "named": accounts.user_create(username=NAMED_LOGIN, password=PASSWORD, display_name="Ada of the Marches"),
        "nameless": User.objects.create_user(NAMELESS_LOGIN, password=PASSWORD),  # as createsuperuser makes one
    }


@pytest.fixture
def pack(wardens, people):
    made = event_services.pack_create(organiser=people["organiser"], data=pack_data())
    for player in ("named", "nameless"):
        army_list = make_list(people[player], ["warden-captain"], event=made, name=f"List of {player}")
        event_services.submission_submit(pack=made, player=people[player], army_list=army_list)
    return made


def client_of(user=None, *, api: bool = False):
    client = APIClient() if api else Client()
    if user is not None:
        client.force_login(user)
    return client


def pdf_text(data: bytes) -> str:
    with pdfplumber.open(io.BytesIO(data)) as document:
        return " ".join(page.extract_text() or "" for page in document.pages)


def everything_shown(pack, organiser) -> dict[str, str]:
    """Every answer that names the organiser or the players, as text."""
    stranger = User.objects.create_user("passer-by", password=PASSWORD)
    api, page = client_of(organiser, api=True), client_of(organiser)
    answers = {
        "API pack, to a stranger": client_of(stranger, api=True).get(f"/api/events/{pack.key}/"),
        "API pack, to nobody": APIClient().get(f"/api/events/{pack.key}/"),
        "API pack": api.get(f"/api/events/{pack.key}/"),
        "API packs": api.get("/api/events/"),
        "API submissions": api.get(f"/api/events/{pack.key}/submissions/"),
        "API CSV": api.get(f"/api/events/{pack.key}/submissions.csv"),
        "page": page.get(pack.path),
        "events page": page.get("/events/"),
        "CSV": page.get(f"/events/{pack.key}/submissions.csv"),
    }
    shown = {}
    for name, response in answers.items():
        assert response.status_code == 200, (name, response.content)
        shown[name] = response.content.decode()
    for route in (f"/events/{pack.key}/roster.pdf", f"/api/events/{pack.key}/roster.pdf"):
        response = (api if route.startswith("/api/") else page).get(route)
        assert response.status_code == 200, (route, response.content)
        shown[route] = pdf_text(response.content)
    return shown


def test_no_answer_about_an_event_contains_the_username_of_its_organiser_or_players(pack, people):
    for name, text in everything_shown(pack, people["organiser"]).items():
        if "<main>" in text:  # a page: the header shows its reader their own username, and nothing else does
            header, text = text.split("<main>", 1)
            assert ORGANISER_LOGIN in header and NAMED_LOGIN not in header and NAMELESS_LOGIN not in header
        assert not [username for username in USERNAMES if username in text], name


def test_the_chosen_display_names_and_the_neutral_name_are_shown_instead(pack, people):
    shown = everything_shown(pack, people["organiser"])
    nameless = accounts.default_name(people["nameless"].pk)
    players = ("Ada of the Marches", nameless)
    for name in ("API submissions", "page", "CSV", "API CSV", f"/events/{pack.key}/roster.pdf"):
        assert all(player in shown[name] for player in players), name
    for name in ("API pack", "API pack, to a stranger", "API pack, to nobody"):
        assert '"organiser":"Club Secretary"' in shown[name].replace(": ", ":"), name
    assert "Organised by Club Secretary." in shown["page"]
    submissions = client_of(people["organiser"], api=True).get(f"/api/events/{pack.key}/submissions/").json()
    assert [submission["player"] for submission in submissions] == list(players)


def test_an_organiser_without_a_display_name_is_a_player_n_too(wardens, people):
    pack = event_services.pack_create(organiser=people["nameless"], data=pack_data())
    answer = APIClient().get(f"/api/events/{pack.key}/").json()
    assert answer["organiser"] == accounts.default_name(people["nameless"].pk)
    assert NAMELESS_LOGIN not in client_of(people["nameless"]).get(pack.path).content.decode().split("<main>", 1)[1]


def test_the_neutral_name_is_the_same_every_time_and_tells_nothing_of_the_account(db):
    users = [User.objects.create_user(f"user-{n}", password=PASSWORD) for n in range(20)]
    names = [accounts.default_name(user.pk) for user in users]
    assert all(re.fullmatch(r"Player [1-9]\d{5}", name) for name in names)
    assert names == [accounts.default_name(user.pk) for user in users]  # stable
    assert len(set(names)) == len(names)
    assert not any(name.endswith(f" {user.pk}") for name, user in zip(names, users, strict=True))  # not the id


def test_the_neutral_name_changes_with_the_secret_key(db, settings):
    before = accounts.default_name(1)
    settings.SECRET_KEY = "another-secret-key-for-this-test-only-0123456789"
    assert accounts.default_name(1) != before


def test_a_renamed_player_shows_in_the_next_combined_roster(pack, people, fresh_caches):
    organiser = client_of(people["organiser"])
    assert "Ada of the Marches" in pdf_text(organiser.get(f"/events/{pack.key}/roster.pdf").content)
    account = accounts.account_get(user=people["named"])
    accounts.account_update(user=people["named"], email="", display_name="Ada the Bold", version=account.version)
    text = pdf_text(organiser.get(f"/events/{pack.key}/roster.pdf").content)
    assert "Ada the Bold" in text and "Ada of the Marches" not in text


def test_the_organiser_s_page_still_takes_the_same_queries_for_2_and_for_12_players(pack, people, wardens):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client_of(people["organiser"]).get(pack.path).status_code == 200
        return len(captured)

    few = queries()
    for n in range(10):
        player = accounts.user_create(username=f"more-{n}", password=PASSWORD, display_name=f"Player Two {n}")
        event_services.submission_submit(
            pack=pack, player=player, army_list=make_list(player, ["warden-captain"], event=pack)
        )
    assert queries() == few


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("  Ada of the Marches  ", "Ada of the Marches"),
        ("a" * 40, "a" * 40),
        ("小林", "小林"),
        ("नमस्ते", "नमस्ते"),  # Devanagari, with a virama
        ("👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"),  # joined by zero-width joiners
        ("", ""),
        ("   ", ""),
        ("Player One", "Player One"),
    ],
)
def test_a_display_name_is_kept_trimmed(typed, kept):
    assert accounts.display_name_clean(typed) == (kept, [])


@pytest.mark.parametrize(
    ("typed", "problems"),
    [
        ("a" * 41, ["The display name is 41 characters long; it may have at most 40."]),
        (
            "Ada\nBold",
            [
                "The display name holds control or invisible characters (U+000A): use letters, digits, spaces and "
                "punctuation."
            ],
        ),
        (
            "Ada\u202eevil\u200b",
            [
                "The display name holds control or invisible characters (U+200B, U+202E): use letters, digits, spaces "
                "and punctuation."
            ],
        ),
        ("player 42", ['"player 42" is how the site names players who chose no name: choose another.']),
        (
            "Player\t" + "4" * 40,
            [
                "The display name is 47 characters long; it may have at most 40.",
                "The display name holds control or invisible characters (U+0009): use letters, digits, spaces and "
                "punctuation.",
                f'"Player\t{"4" * 40}" is how the site names players who chose no name: choose another.',
            ],
        ),
        (None, ["The display name should be text."]),
    ],
    ids=["too-long", "line-break", "direction-override", "site-name", "every-problem", "not-text"],
)
def test_a_bad_display_name_is_refused_naming_every_problem(typed, problems):
    assert accounts.display_name_clean(typed)[1] == problems


def test_a_refused_display_name_changes_nothing(people):
    account = accounts.account_get(user=people["named"])
    with pytest.raises(accounts.AccountError) as refused:
        accounts.account_update(user=people["named"], email="", display_name="x" * 41, version=account.version)
    assert list(refused.value.errors) == ["display_name"]
    assert Profile.objects.get(user=people["named"]).display_name == "Ada of the Marches"


def test_the_api_schema_says_the_names_are_display_names(db):
    schemas = APIClient().get("/api/schema/?format=json").json()["components"]["schemas"]
    for schema, field in (("EventPackOut", "organiser"), ("SubmissionOut", "player")):
        description = schemas[schema]["properties"][field]["description"]
        assert description.startswith(f"The {field}'s display name") and "Never their username" in description
