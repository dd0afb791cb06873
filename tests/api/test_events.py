"""The event packs API (armybuilder/api/event_views.py): who may read, change and delete
a pack and see its submissions (404, never 403, to everyone else), the field errors of
bad bodies, frozen submissions, the deadline, and lists built for a pack."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from armybuilder.accounts import services as accounts
from armybuilder.armyforge.books.imports import book_import
from armybuilder.events.models import EventPack, Submission
from armybuilder.events.rules import BOOKS_WORDS
from armybuilder.lists.models import ArmyList
from tests.conftest import arena_book
from tests.events.test_events import pack_data as pack_body  # Club Night: 355 pts, 30% in one unit

User = get_user_model()
EVENTS = "/api/events/"
ROLES = ("organiser", "staff", "submitter", "other", "anonymous")


def list_body(units: list[str], *, points: int = 355, **changes) -> dict:
    entries = [{"id": f"e{i}", "unit": unit} for i, unit in enumerate(units)]
    return {"system": "aof", "faction": "test-wardens", "points_limit": points, "entries": entries, **changes}


def client_for(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def make_list(user, units: list[str] = ("warden-captain",), **changes) -> dict:
    response = client_for(user).post("/api/lists/", list_body(list(units), **changes), format="json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def people(db, staff_user) -> dict:
    """The organiser and the submitter chose display names; the other player did not."""
    password = "not-a-real-pass-123"
    return {
        "organiser": accounts.user_create(username="org", password=password, display_name="Club Secretary"),
        "staff": staff_user,
        "submitter": accounts.user_create(username="player-one", password=password, display_name="Ada"),
        "other": User.objects.create_user("someone", password=password),
        "anonymous": None,
    }


@pytest.fixture
def pack(wardens, people) -> dict:
    response = client_for(people["organiser"]).post(EVENTS, pack_body(), format="json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def submission(pack, people) -> dict:
    submitted = make_list(people["submitter"], ["wardens"])
    response = client_for(people["submitter"]).post(
        f"{EVENTS}{pack['key']}/submissions/", {"list": submitted["id"]}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


# -- who may do what --------------------------------------------------------------------------
EXPECTED = {
    # action: statuses for (organiser, staff, submitter, other, anonymous)
    "read pack": (200, 200, 200, 200, 200),
    "change pack": (200, 200, 404, 404, 404),
    "delete pack": (204, 204, 404, 404, 404),
    "list submissions": (200, 200, 200, 404, 404),
    "read one submission": (200, 200, 200, 404, 404),
    "submit": (201, 201, 201, 201, 401),
}


def _act(action: str, client: APIClient, pack: dict, submission: dict, own_list: int):
    at = f"{EVENTS}{pack['key']}/"
    return {
        "read pack": lambda: client.get(at),
        "change pack": lambda: client.patch(at, {"name": "Club Night II"}, format="json"),
        "delete pack": lambda: client.delete(at),
        "list submissions": lambda: client.get(f"{at}submissions/"),
        "read one submission": lambda: client.get(f"{at}submissions/{submission['id']}/"),
        "submit": lambda: client.post(f"{at}submissions/", {"list": own_list}, format="json"),
    }[action]()


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("action", list(EXPECTED))
def test_who_may_do_what_to_a_pack_and_its_submissions(action, role, people, pack, submission):
    user = people[role]
    own_list = make_list(user)["id"] if user is not None else ArmyList.objects.get(owner=people["submitter"]).pk
    before = (EventPack.objects.count(), Submission.objects.count(), EventPack.objects.get().version)

    response = _act(action, client_for(user), pack, submission, own_list)

    assert response.status_code == EXPECTED[action][ROLES.index(role)], response.content
    if response.status_code >= 400:
        assert (EventPack.objects.count(), Submission.objects.count(), EventPack.objects.get().version) == before
        assert "detail" in response.json()


def test_organiser_and_staff_see_every_submission_and_a_player_their_own(people, pack, submission):
    second = make_list(people["other"], ["warden-captain"])
    client_for(people["other"]).post(f"{EVENTS}{pack['key']}/submissions/", {"list": second["id"]}, format="json")
    submissions = f"{EVENTS}{pack['key']}/submissions/"

    def players(role):
        return [s["player"] for s in client_for(people[role]).get(submissions).json()]

    someone = accounts.default_name(people["other"].pk)
    assert players("organiser") == players("staff") == ["Ada", someone]
    assert players("submitter") == ["Ada"]
    assert players("other") == [someone]


def test_the_organiser_sees_an_empty_list_of_submissions_before_anyone_submits(people, pack):
    response = client_for(people["organiser"]).get(f"{EVENTS}{pack['key']}/submissions/")
    assert (response.status_code, response.json()) == (200, [])


def test_anonymous_organising_is_told_to_sign_in(wardens):
    response = APIClient().post(EVENTS, pack_body(), format="json")
    assert response.status_code == 401
    assert response.json()["detail"].startswith("Sign in")
    assert response["WWW-Authenticate"] == "Token"
    assert not EventPack.objects.exists()


def test_the_caller_s_packs_are_paginated_as_lists_are(people, pack, submission):
    def keys(role):
        response = client_for(people[role]).get(EVENTS)
        assert response.status_code == 200
        page = response.json()
        assert sorted(page) == ["count", "next", "previous", "results"]
        return [p["key"] for p in page["results"]]

    mine = client_for(people["other"]).post(EVENTS, pack_body(name="Someone's Cup"), format="json").json()
    assert keys("organiser") == [pack["key"]]
    assert keys("submitter") == [pack["key"]]  # entered
    assert keys("other") == [mine["key"]]
    assert sorted(keys("staff")) == sorted([pack["key"], mine["key"]])
    assert keys("anonymous") == []


def test_listing_packs_and_submissions_takes_as_many_queries_for_one_as_for_many(people, pack, submission):
    organiser = client_for(people["organiser"])
    for name in ("Second", "Third"):
        organiser.post(EVENTS, pack_body(name=name), format="json")
    for role in ("other", "staff"):
        entered = make_list(people[role])
        client_for(people[role]).post(f"{EVENTS}{pack['key']}/submissions/", {"list": entered["id"]}, format="json")

    def queries(path, client):
        client.get(path)  # (stores the validations worked out)
        with CaptureQueriesContext(connection) as context:
            assert client.get(path).status_code == 200
        return len(context.captured_queries)

    submissions = f"{EVENTS}{pack['key']}/submissions/"
    many = (queries(EVENTS, organiser), queries(submissions, organiser))
    one = (queries(EVENTS, client_for(people["submitter"])), queries(submissions, client_for(people["submitter"])))
    assert many == one


# -- what a pack and a submission say -----------------------------------------------------------
def test_a_pack_in_json(people, pack):
    assert list(pack) == [
        "key",
        "url",
        "name",
        "description",
        "ruleset",
        "ruleset_title",
        "points_limit",
        "deadline",
        "open",
        "organiser",
        "factions",
        "limit_changes",
        "limits_removed",
        "limits_added",
        "bans",
        "caps",
        "books",
        "rules",
        "version",
        "created",
        "updated",
        "can_manage",
    ]
    assert pack["url"] == f"http://testserver/events/{pack['key']}/"
    assert (pack["organiser"], pack["ruleset_title"], pack["open"], pack["version"]) == (
        "Club Secretary",
        "Age of Fantasy 3.2.0",
        True,
        1,
    )
    assert {
        "text": "No single unit may cost more than 30% of the points limit",
        "source": "event rule",
        "changed": "No single unit may cost more than 35% of the points limit (rulebook: Force Organisation)",
    } in pack["rules"]
    assert pack["can_manage"] is True
    assert pack["books"] == "current"
    assert {"text": BOOKS_WORDS["current"], "source": "event rule", "changed": ""} in pack["rules"]
    assert client_for(people["other"]).get(f"{EVENTS}{pack['key']}/").json()["can_manage"] is False


def test_a_change_names_only_what_changes(people, pack):
    response = client_for(people["organiser"]).patch(
        f"{EVENTS}{pack['key']}/", {"caps": [{"faction": "test-wardens", "unit": "wardens", "max": 1}]}, format="json"
    )
    assert response.status_code == 200, response.content
    changed = response.json()
    assert (changed["name"], changed["points_limit"], changed["version"]) == ("Club Night", 355, 2)
    assert changed["caps"] == [{"faction": "test-wardens", "unit": "wardens", "max": 1}]
    assert {"text": "At most 1 Wardens (Test Wardens)", "source": "event rule", "changed": ""} in changed["rules"]


def test_a_submission_in_json(submission):
    assert list(submission) == [
        "id",
        "player",
        "faction",
        "faction_name",
        "book_version",
        "total_points",
        "points_limit",
        "valid",
        "issues",
        "submitted_at",
        "list",
        "validation",
    ]
    assert (submission["player"], submission["faction"], submission["faction_name"]) == (
        "Ada",
        "test-wardens",
        "Test Wardens",
    )
    assert (submission["total_points"], submission["points_limit"]) == (110, 355)
    assert submission["book_version"] == submission["list"]["book_version"] == "1.0.0"
    assert submission["list"]["format"] == "armylist/1"
    assert submission["list"]["event"] == EventPack.objects.get().key
    assert submission["issues"] == submission["validation"]["issues"]
    assert sorted(submission["validation"]) == ["entries", "issues", "points_limit", "total_points", "valid"]


# -- refused bodies -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"name": " "}, "name", "required"),
        ({"ruleset": "warhammer"}, "ruleset", 'Unknown ruleset "warhammer"'),
        ({"points_limit": "lots"}, "points_limit", "whole number"),
        ({"deadline": "2026-12-31T18:00:00"}, "deadline", "time zone"),
        ({"deadline": "0001-01-01T00:00:00+01:00"}, "deadline", "between the years"),
        ({"limit_changes": {"unit_too_expensive": {"percent": 0}}}, "limit_changes", '"percent" must be'),
        ({"limits_removed": [["too_many_heroes"]]}, "limits_removed", "no limit"),
        ({"factions": [{"slug": "test-wardens"}]}, "factions", "No army book"),
        ({"bans": [{"faction": "test-wardens", "unit": ["wardens"]}]}, "bans", "No unit"),
        ({"bans": [{"faction": ["test-wardens"], "unit": "wardens"}]}, "bans", "No army book"),
        ({"bans": [{"faction": "test-wardens", "option": {}}]}, "bans", "No upgrade option"),
        ({"bans": [{"faction": "test-wardens", "unit": ""}]}, "bans", 'No unit ""'),
        ({"caps": [{"faction": {}, "unit": "wardens", "max": 1}]}, "caps", "No army book"),
        ({"ruleset": "aof-arena"}, "points_limit", "has no points"),
        ({"colour": "red"}, "colour", "Unknown field"),
        ({"books": "latest"}, "books", 'Either "current"'),
        ({"books": ["any"]}, "books", 'or "any"'),
    ],
)
def test_a_bad_pack_is_refused_with_its_field_errors_and_nothing_written(people, wardens, changes, field, words):
    response = client_for(people["organiser"]).post(EVENTS, pack_body(**changes), format="json")
    assert response.status_code == 400, response.content
    assert words in str(response.json()[field])
    assert not EventPack.objects.exists()


@pytest.mark.parametrize("body", [[], "a pack", {"deadline": "next thursday"}])
def test_a_change_that_is_not_a_pack_is_refused_and_the_pack_kept(people, pack, body):
    response = client_for(people["organiser"]).patch(f"{EVENTS}{pack['key']}/", body, format="json")
    assert response.status_code == 400, response.content
    assert EventPack.objects.get().version == 1


@pytest.mark.parametrize(("body", "field"), [({}, "list"), ({"list": "mine"}, "list"), ([], "non_field_errors")])
def test_a_submission_must_name_a_list(people, pack, body, field):
    response = client_for(people["submitter"]).post(f"{EVENTS}{pack['key']}/submissions/", body, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert not Submission.objects.exists()


def test_someone_else_s_list_cannot_be_submitted(people, pack):
    theirs = make_list(people["other"])
    response = client_for(people["submitter"]).post(
        f"{EVENTS}{pack['key']}/submissions/", {"list": theirs["id"]}, format="json"
    )
    assert response.status_code == 404
    assert not Submission.objects.exists()


def test_after_the_deadline_a_submission_is_refused_with_a_sentence(people, pack):
    closed = (timezone.now() - timedelta(hours=1)).isoformat()
    client_for(people["organiser"]).patch(f"{EVENTS}{pack['key']}/", {"deadline": closed}, format="json")
    entered = make_list(people["submitter"])

    response = client_for(people["submitter"]).post(
        f"{EVENTS}{pack['key']}/submissions/", {"list": entered["id"]}, format="json"
    )

    assert response.status_code == 409
    assert response.json()["detail"].startswith("Submissions to Club Night closed at ")
    assert not Submission.objects.exists()
    assert client_for(people["submitter"]).get(f"{EVENTS}{pack['key']}/").json()["open"] is False


# -- frozen copies and the event's rules --------------------------------------------------------
def test_a_submission_is_frozen_when_the_list_changes(people, pack, submission):
    player = client_for(people["submitter"])
    army_list = player.get(f"/api/lists/{ArmyList.objects.get(owner=people['submitter']).pk}/").json()
    at = f"{EVENTS}{pack['key']}/submissions/{submission['id']}/"

    changed = player.put(
        f"/api/lists/{army_list['id']}/",
        {**list_body(["warden-captain", "warden-captain"], points=355), "version": army_list["version"]},
        format="json",
    )

    assert changed.status_code == 200, changed.content
    again = player.get(at).json()
    assert again == submission
    assert [e["unit"] for e in again["list"]["entries"]] == ["wardens"]


def test_a_pack_at_30_percent_refuses_a_unit_at_31_percent_in_validation_and_submissions(people, pack, submission):
    body = list_body(["wardens"])  # 110 of 355 pts: 31%

    entered = APIClient().post("/api/validate/", {**body, "event": pack["key"]}, format="json").json()
    plain = APIClient().post("/api/validate/", body, format="json").json()

    for issues in (entered["issues"], submission["issues"]):
        found = [i for i in issues if i["code"] == "unit_too_expensive"]
        assert len(found) == 1
        assert found[0]["message"].startswith("Event rule: ")
        assert "30% of 355 pts" in found[0]["message"]
        assert found[0]["rule"] == "Club Night — event rule"
    assert submission["valid"] is False
    assert "unit_too_expensive" not in [i["code"] for i in plain["issues"]]


# -- building a list for a pack -------------------------------------------------------------------
def test_a_list_built_for_a_pack_takes_its_points_and_rules(people, pack):
    army_list = make_list(people["submitter"], ["wardens"], points=1000)
    player = client_for(people["submitter"])

    response = player.post(f"/api/lists/{army_list['id']}/enter/", {"event": pack["key"]}, format="json")

    assert response.status_code == 200, response.content
    entered = response.json()
    assert (entered["event"], entered["points_limit"], entered["version"]) == (pack["key"], 355, 2)
    assert "unit_too_expensive" in [i["code"] for i in entered["validation"]["issues"]]
    left = player.post(f"/api/lists/{army_list['id']}/enter/", {"event": None}, format="json").json()
    assert "event" not in left
    assert "unit_too_expensive" not in [i["code"] for i in left["validation"]["issues"]]


def test_a_list_of_another_game_is_not_built_for_a_pack(people, pack):
    book_import(data=arena_book())
    warband = {
        "system": "aof-arena",
        "faction": "test-pit",
        "points_limit": None,
        "entries": [{"id": "e1", "unit": "boss"}],
    }
    army_list = client_for(people["submitter"]).post("/api/lists/", warband, format="json").json()

    response = client_for(people["submitter"]).post(
        f"/api/lists/{army_list['id']}/enter/", {"event": pack["key"]}, format="json"
    )

    assert response.status_code == 400
    assert "another game" in response.json()["event"][0]
    assert ArmyList.objects.get(pk=army_list["id"]).event_id is None


@pytest.mark.parametrize(
    ("body", "words"), [({"event": "no-such-pack"}, 'No event pack "no-such-pack"'), ({}, "required")]
)
def test_building_for_a_pack_needs_the_key_of_one(people, pack, body, words):
    army_list = make_list(people["submitter"])
    response = client_for(people["submitter"]).post(f"/api/lists/{army_list['id']}/enter/", body, format="json")
    assert response.status_code == 400
    assert words in response.json()["event"][0]


def test_someone_else_s_list_is_not_built_for_a_pack(people, pack):
    theirs = make_list(people["other"])
    response = client_for(people["submitter"]).post(
        f"/api/lists/{theirs['id']}/enter/", {"event": pack["key"]}, format="json"
    )
    assert response.status_code == 404
    assert ArmyList.objects.get(pk=theirs["id"]).event_id is None


def test_a_deadline_in_any_zone_is_kept_in_utc(people, wardens):
    """Python takes offsets up to 24 hours, PostgreSQL none beyond 15:59."""
    body = pack_body(deadline="2999-06-08T21:51:51-16:02")
    response = client_for(people["organiser"]).post(EVENTS, body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["deadline"] == "2999-06-09T13:53:51+00:00"
    assert client_for(people["organiser"]).get(f"{EVENTS}{response.json()['key']}/").json()["deadline"] == (
        "2999-06-09T13:53:51+00:00"
    )


def test_the_readme_s_worked_example_makes_the_pack_it_describes(db, user_client):
    """The README's example body, as written, organises a pack whose rule refuses the Hill
    Giant Mercenary with the words the README gives."""
    import json as json_module
    import re
    from pathlib import Path

    from factions.services import bundled_books_load

    bundled_books_load()
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    example = readme[readme.index("**A worked example.**") :]
    body = json_module.loads(re.search(r"-d '(\{.*?\})'", example, re.S).group(1))
    response = user_client.post("/api/events/", body, format="json")
    assert response.status_code == 201, response.content
    key = response.json()["key"]
    listed = {
        "system": "aof",
        "faction": "human-empire",
        "points_limit": 500,
        "entries": [{"id": "g", "unit": "hired-giant"}],
        "event": key,
    }
    issues = user_client.post("/api/validate/", listed, format="json").json()["issues"]
    found = [i for i in issues if i["code"] == "unit_too_expensive"]
    assert [i["rule"] for i in found] == ["Club Night — event rule"]
    assert found[0]["message"] in " ".join(example.split())


def test_a_share_link_does_not_hand_out_the_event_s_link(wardens, user_client, user):
    from datetime import timedelta

    from django.utils import timezone
    from rest_framework.test import APIClient

    from armybuilder.events import services as event_services

    deadline = (timezone.now() + timedelta(days=3)).isoformat()
    pack = event_services.pack_create(
        organiser=user, data={"name": "Club Night", "ruleset": "aof", "points_limit": 500, "deadline": deadline}
    )
    body = {"system": "aof", "faction": "test-wardens", "points_limit": 500, "entries": [], "event": pack.key}
    made = user_client.post("/api/lists/", body, format="json").json()
    assert made["event"] == pack.key
    key = made["share_url"].rstrip("/").rsplit("/", 1)[-1]
    stranger = APIClient()
    assert "event" not in stranger.get(f"/api/shared/{key}/").json()
    assert "event" not in stranger.get(f"/api/shared/{key}/export/json").json()
    assert pack.key not in stranger.get(f"/s/{key}/").content.decode()


# -- a copy never carries the event ---------------------------------------------------------------
@pytest.mark.parametrize(
    "how",
    [
        "own-api",
        "own-page",
        "shared-api-visitor",
        "shared-api-signed-in",
        "shared-page-visitor",
        "shared-page-signed-in",
    ],
)
def test_a_copy_of_a_list_entered_for_an_event_never_carries_the_event(people, pack, how):
    from django.test import Client

    from armybuilder.lists.models import ArmyList

    army_list = make_list(people["submitter"], ["wardens"], points=1000)
    player = client_for(people["submitter"])
    assert player.post(f"/api/lists/{army_list['id']}/enter/", {"event": pack["key"]}, format="json").status_code == 200
    original = ArmyList.objects.get(pk=army_list["id"])
    key = original.share_key
    if how == "own-api":
        response = player.post(f"/api/lists/{original.pk}/clone/")
    elif how == "own-page":
        page = Client()
        page.force_login(people["submitter"])
        response = page.post(f"/lists/{original.pk}/clone/")
    elif how.startswith("shared-api"):
        response = client_for(people["other"] if how.endswith("signed-in") else None).post(f"/api/shared/{key}/clone/")
    else:
        page = Client()
        if how.endswith("signed-in"):
            page.force_login(people["other"])
        response = page.post(f"/s/{key}/copy/")
    assert response.status_code in (201, 302), response.content
    copy = ArmyList.objects.exclude(pk=original.pk).get()
    assert (copy.event_id, original.event_id) == (None, pack["key"])
    if response.status_code == 201:
        assert "event" not in response.json()
        assert pack["key"] not in response.content.decode()


# -- no lost update ----------------------------------------------------------------------------
def _race(work, threads: int = 10, rounds: int = 20) -> list:
    """Run `work(thread, round)` in `threads` threads at once, `rounds` times each, each
    thread on its own database connection; what each call answered, in no order."""
    import threading

    from django.db import connections

    barrier, answers = threading.Barrier(threads), []

    def run(thread: int) -> None:
        try:
            barrier.wait()
            for turn in range(rounds):
                answers.append(work(thread, turn))
        finally:
            connections.close_all()

    started = [threading.Thread(target=run, args=(n,)) for n in range(threads)]
    for thread in started:
        thread.start()
    for thread in started:
        thread.join()
    return answers


@pytest.fixture
def rulesets(transactional_db):
    """The rulesets in the tables (a transactional test before may have emptied them)."""
    from factions.services import sync_rulesets

    sync_rulesets()


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_changes_to_a_pack_at_once_lose_none_that_were_answered(rulesets, wardens, people):
    """10 organisers' tabs × 20 changes, each naming a description of its own: every
    change answered 200 is in the pack's history (one version each, none written over);
    the others were told 409 and wrote nothing."""
    pack = client_for(people["organiser"]).post(EVENTS, pack_body(), format="json").json()
    organiser = client_for(people["organiser"])

    def change(thread: int, turn: int):
        response = organiser.patch(f"{EVENTS}{pack['key']}/", {"description": f"{thread}.{turn}"}, format="json")
        assert response.status_code in (200, 409), response.content
        body = response.json()
        return (response.status_code, body["version"], body.get("description"))

    answers = _race(change)
    kept = sorted((version, description) for status, version, description in answers if status == 200)
    final = organiser.get(f"{EVENTS}{pack['key']}/").json()
    # Each acknowledged change made its own version, one after another from the first.
    assert [version for version, _ in kept] == list(range(pack["version"] + 1, final["version"] + 1))
    assert final["description"] == kept[-1][1]
    assert len({description for _, description in kept}) == len(kept)
    assert all(status == 409 for status, _, _ in answers if status != 200)


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_entering_a_list_at_once_loses_no_answered_change(rulesets, wardens, people, pack):
    """10 tabs × 20 times build the same list for the event or for none: every answered
    change is one version of the list; a stale one is a 409 and writes nothing."""
    army_list = make_list(people["submitter"], ["wardens"], points=1000)
    player = client_for(people["submitter"])

    def enter(thread: int, turn: int):
        event = pack["key"] if (thread + turn) % 2 else None
        response = player.post(f"/api/lists/{army_list['id']}/enter/", {"event": event}, format="json")
        assert response.status_code in (200, 409), response.content
        return (response.status_code, response.json()["version"], event)

    answers = _race(enter)
    kept = sorted((version, event) for status, version, event in answers if status == 200)
    final = player.get(f"/api/lists/{army_list['id']}/").json()
    assert [version for version, _ in kept] == list(range(army_list["version"] + 1, final["version"] + 1))
    assert final.get("event") == kept[-1][1]
    stale = player.post(
        f"/api/lists/{army_list['id']}/enter/", {"event": None, "version": army_list["version"]}, format="json"
    )
    assert (stale.status_code, stale.json()["version"]) == (409, final["version"])


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("enter", {"event": None, "evnet": "x"}),
        ("submit", {"list": 1, "notes": "hi"}),
    ],
)
def test_a_write_with_a_field_it_does_not_know_is_refused_naming_it(people, pack, path, body):
    army_list = make_list(people["submitter"], ["wardens"], points=355)
    player = client_for(people["submitter"])
    if path == "enter":
        url = f"/api/lists/{army_list['id']}/enter/"
    else:
        url, body = f"{EVENTS}{pack['key']}/submissions/", {**body, "list": army_list["id"]}
    response = player.post(url, body, format="json")
    unknown = "evnet" if path == "enter" else "notes"
    assert (response.status_code, response.json()) == (400, {unknown: ["Unknown field."]})
    assert ArmyList.objects.get(pk=army_list["id"]).version == army_list["version"]
    assert not Submission.objects.exists()
