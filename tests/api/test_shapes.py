"""Each API answer is made by the output serializer the OpenAPI schema documents, in one
step where a listing makes many (to_representation): every answer carries the fields its
serializer declares (the optional ones where they apply) and no other, so the schema
cannot drift from what the API sends."""

import pytest
from rest_framework import serializers

from armybuilder.api.event_views import EventPackOutSerializer, PackConflictSerializer, SubmissionOutSerializer
from armybuilder.api.list_views import (
    ArmyListOutSerializer,
    ImportedListOutSerializer,
    SharedListOutSerializer,
    UpgradeReportSerializer,
)
from armybuilder.api.serializers import (
    ConflictSerializer,
    EntryValidationSerializer,
    HealthSerializer,
    ImportErrorSerializer,
    ImportResultSerializer,
    IssueSerializer,
    ValidationSerializer,
)
from tests.api import test_events, test_lists
from tests.api.test_lists import client_for, list_body
from tests.conftest import aof_book

# The lists' and the packs' own fixtures: a list, its owner; a pack, its people, a submission.
owner, owned_list = test_lists.owner, test_lists.owned_list
people, pack, submission = test_events.people, test_events.pack, test_events.submission


def assert_documented(answer: dict, serializer: serializers.Serializer) -> None:
    declared = serializer.fields
    required = {name for name, field in declared.items() if field.required}
    assert set(answer) - set(declared) == set(), "answered but not documented"
    assert required - set(answer) == set(), "documented but not answered"


def assert_validation_documented(validation: dict) -> None:
    assert_documented(validation, ValidationSerializer())
    for entry in validation["entries"]:
        assert_documented(entry, EntryValidationSerializer())
    for issue in validation["issues"]:
        assert_documented(issue, IssueSerializer())


def test_a_list_answer_in_each_form_is_as_documented(owned_list, owner):
    client = client_for(owner)
    shared_key = owned_list["share_url"].rstrip("/").rsplit("/", 1)[-1]

    [listed] = client.get("/api/lists/").json()["results"]
    shared = client.get(f"/api/shared/{shared_key}/").json()
    imported = client.post("/api/lists/import/", list_body(points_limit=1), format="json").json()

    for answer in (owned_list, listed):
        assert_documented(answer, ArmyListOutSerializer())
    assert_documented(shared, SharedListOutSerializer())
    assert_documented(imported, ImportedListOutSerializer())
    assert "points_over_limit" in [issue["code"] for issue in imported["validation"]["issues"]]
    for answer in (owned_list, listed, shared, imported):
        assert_validation_documented(answer["validation"])


def test_a_validation_a_move_and_a_conflict_are_as_documented(owned_list, owner):
    client = client_for(owner)
    at = f"/api/lists/{owned_list['id']}/"

    validation = client.post("/api/validate/", list_body(points_limit=1), format="json").json()
    moved = client.post(f"{at}upgrade/", {"dry_run": True}, format="json").json()
    stale = client.put(at, {**list_body(), "version": owned_list["version"] + 5}, format="json")

    assert_validation_documented(validation)
    assert validation["issues"]
    assert_documented(moved["list"], ArmyListOutSerializer())
    assert_documented(moved["report"], UpgradeReportSerializer())
    assert stale.status_code == 409
    assert_documented(stale.json(), ConflictSerializer())


def test_a_pack_a_submission_and_a_list_built_for_a_pack_are_as_documented(people, pack, submission):
    organiser = client_for(people["organiser"])
    entered = client_for(people["submitter"]).post(
        f"/api/lists/{_a_list(people['submitter'])}/enter/", {"event": pack["key"]}, format="json"
    )
    stale = organiser.patch(f"/api/events/{pack['key']}/", {"version": pack["version"] + 5}, format="json")

    assert_documented(pack, EventPackOutSerializer())
    assert_documented(organiser.get("/api/events/").json()["results"][0], EventPackOutSerializer())
    assert_documented(submission, SubmissionOutSerializer())
    assert_validation_documented(submission["validation"])
    assert entered.status_code == 200 and "event" in entered.json()
    assert_documented(entered.json(), ArmyListOutSerializer())
    assert stale.status_code == 409
    assert_documented(stale.json(), PackConflictSerializer())
    assert_documented(stale.json()["pack"], EventPackOutSerializer())


def _a_list(player) -> int:
    made = client_for(player).post("/api/lists/", {**list_body(), "points_limit": 355, "entries": []}, format="json")
    assert made.status_code == 201, made.content
    return made.json()["id"]


@pytest.mark.parametrize("good", [True, False])
def test_an_import_s_answer_is_as_documented(wardens, staff_client, good):
    book = aof_book()
    book.update(slug="iron-wardens", name="Iron Wardens") if good else book.update(units="none")

    response = staff_client.post("/api/factions/import/", book, format="json")

    assert response.status_code == (201 if good else 400), response.content
    assert_documented(response.json(), ImportResultSerializer() if good else ImportErrorSerializer())


def test_the_health_check_is_as_documented(api_client):
    assert_documented(api_client.get("/api/health/").json(), HealthSerializer())
