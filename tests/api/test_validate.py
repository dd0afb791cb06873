"""POST /api/validate/: 200 with the validation of any well-formed list, 400 with field
errors for anything else, never a 500."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from armybuilder.armyforge.books.imports import book_import
from armybuilder.memo import clear_all
from factions.admin_checks import catalogue_change_check
from factions.models import ForceOrgLimit

URL = "/api/validate/"


def body(**overrides):
    data = {
        "format": "armylist/1",
        "name": "Border Patrol",
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 1500,
        "entries": [
            {"id": "e1", "unit": "warden-captain", "options": {"HERO-2a": 1}, "joined_to": "e2"},
            {"id": "e2", "unit": "wardens", "combined": True, "options": {"TROOPS-1a": 1, "TROOPS-2a": 1}},
        ],
    }
    data.update(overrides)
    return data


def test_a_legal_list_validates(api_client, wardens):
    response = api_client.post(URL, body(), format="json")
    assert response.status_code == 200
    # captain 70 + horse 20; wardens 2x110 + sergeant 5 + halberds 2x15
    assert response.json() == {
        "valid": True,
        "total_points": 345,
        "points_limit": 1500,
        "entries": [
            {"id": "e1", "cost": 90, "models": 1, "errors": 0},
            {"id": "e2", "cost": 255, "models": 20, "errors": 0},
        ],
        "issues": [],
    }


def test_an_illegal_list_is_200_with_its_issues(api_client, wardens):
    response = api_client.post(URL, body(points_limit=300), format="json")
    assert response.status_code == 200
    assert response.json()["valid"] is False
    assert response.json()["issues"] == [
        {
            "code": "points_over_limit",
            "severity": "error",
            "entry": None,
            "message": "345 pts is 45 over the 300 pts limit",
            "rule": "Age of Fantasy 3.2.0 — Preparing your Army",
        },
        {
            "code": "too_many_heroes",
            "severity": "error",
            "entry": None,
            "message": "1 hero, but 300 pts allows none (1 per 500 pts; 300 pts is under 500)",
            "rule": "Age of Fantasy 3.2.0 — Force Organisation",
        },
        {
            "code": "unit_too_expensive",
            "severity": "error",
            "entry": "e2",
            "message": "Wardens costs 255 pts, but no unit may cost more than 105 pts (35% of 300 pts)",
            "rule": "Age of Fantasy 3.2.0 — Force Organisation",
        },
    ]


def test_unknown_unit_and_option_ids_are_issues_not_errors(api_client, wardens):
    listed = body(entries=[{"id": "x", "unit": "dragon"}, {"id": "y", "unit": "wardens", "options": {"ZZ": 1}}])
    response = api_client.post(URL, listed, format="json")
    assert response.status_code == 200
    assert [i["code"] for i in response.json()["issues"]] == ["unknown_unit", "unknown_option"]


@pytest.mark.parametrize(
    ("change", "errors"),
    [
        ({"system": "warhammer"}, {"system": ['Unknown system "warhammer".']}),
        ({"faction": "nobody"}, {"faction": ['No faction "nobody" in aof.']}),
        ({"points_limit": "1500"}, {"points_limit": ["A valid integer is required."]}),
        ({"points_limit": 1500.5}, {"points_limit": ["A valid integer is required."]}),
        ({"points_limit": 0}, {"points_limit": ["Ensure this value is greater than or equal to 1."]}),
        ({"points_limit": None}, {"points_limit": ["A points limit is required for this ruleset."]}),
        ({"format": "armylist/9"}, {"format": ['"armylist/9" is not a valid choice.']}),
        ({"force_org": "yes"}, {"force_org": ["Must be a valid boolean."]}),
        (
            {"entries": "all of them"},
            {"entries": {"non_field_errors": ['Expected a list of items but got type "str".']}},
        ),
        ({"colour": "red"}, {"colour": ["Unknown field."]}),
    ],
)
def test_malformed_lists_are_400_with_field_errors(api_client, wardens, change, errors):
    response = api_client.post(URL, body(**change), format="json")
    assert response.status_code == 400
    assert response.json() == errors


@pytest.mark.parametrize("field", ["system", "faction", "points_limit", "entries"])
def test_a_missing_field_is_400(api_client, wardens, field):
    data = body()
    del data[field]
    response = api_client.post(URL, data, format="json")
    assert response.status_code == 400
    assert response.json() == {field: ["This field is required."]}


@pytest.mark.parametrize(
    ("entries", "errors"),
    [
        (
            [{"id": "a", "unit": "wardens"}, {"id": "a", "unit": "wardens"}],
            {"1": {"id": ['Entry id "a" is used twice.']}},
        ),
        ([{"id": "a", "unit": "wardens", "joined_to": "b"}], {"0": {"joined_to": ['No entry with id "b".']}}),
    ],
)
def test_entry_ids_must_be_unique_and_joins_must_name_an_entry(api_client, wardens, entries, errors):
    response = api_client.post(URL, body(entries=entries), format="json")
    assert response.status_code == 400
    assert response.json() == {"entries": errors}


@pytest.mark.parametrize(
    "entry",
    [
        {"id": "a", "unit": "wardens", "options": {"TROOPS-1a": -1}},
        {"id": "a", "unit": "wardens", "options": {"TROOPS-1a": "1"}},
        {"id": "a", "unit": "wardens", "combined": 1},
        {"id": 7, "unit": "wardens"},
        {"unit": "wardens"},
        {"id": "a", "unit": "wardens", "extra": True},
    ],
)
def test_bad_entries_are_400(api_client, wardens, entry):
    response = api_client.post(URL, body(entries=[entry]), format="json")
    assert response.status_code == 400
    assert "entries" in response.json()


def test_bad_json_is_400(api_client, wardens):
    response = api_client.post(URL, data="{not json", content_type="application/json")
    assert response.status_code == 400


def test_arena_lists_send_no_points_limit(db, api_client, make_arena_book):
    clear_all()
    book_import(data=make_arena_book())
    warband = {
        "system": "aof-arena",
        "faction": "test-pit",
        "points_limit": None,
        "entries": [{"id": "b", "unit": "boss"}, {"id": "t1", "unit": "thug"}, {"id": "t2", "unit": "thug"}],
    }
    response = api_client.post(URL, warband, format="json")
    assert response.status_code == 200 and response.json()["valid"] is True
    response = api_client.post(URL, {**warband, "points_limit": 500}, format="json")
    assert response.status_code == 400
    assert response.json() == {"points_limit": ["This ruleset has no points: send null."]}


def test_a_changed_limit_row_changes_the_check_with_no_code_change(api_client, wardens):
    listed = body(
        points_limit=1000,
        entries=[{"id": f"h{i}", "unit": "warden-captain", "options": {"HERO-1a": 0}} for i in range(2)],
    )
    assert api_client.post(URL, listed, format="json").json()["valid"] is True

    limit = ForceOrgLimit.objects.get(ruleset__slug="aof", code="too_many_heroes")
    limit.params = {"counts": "heroes", "per": 1000}
    limit.save()
    catalogue_change_check(objects=[limit])  # as the admin saves it

    issues = api_client.post(URL, listed, format="json").json()["issues"]
    assert [(i["code"], i["message"]) for i in issues] == [
        ("too_many_heroes", "2 heroes, but 1000 pts allows at most 1 (1 per 1000 pts)")
    ]


def test_validation_runs_a_fixed_number_of_queries_whatever_the_list_length(api_client, wardens):
    def queries_for(n: int) -> int:
        listed = body(entries=[{"id": f"e{i}", "unit": "wardens"} for i in range(n)])
        with CaptureQueriesContext(connection) as ctx:
            assert api_client.post(URL, listed, format="json").status_code == 200
        return len(ctx)

    api_client.post(URL, body(), format="json")  # warm the book cache
    assert queries_for(1) == queries_for(200)
    assert queries_for(1) <= 5


def test_the_book_cache_follows_a_reimport(api_client, wardens, make_aof_book):
    assert api_client.post(URL, body(), format="json").json()["total_points"] == 345
    book = make_aof_book()
    book["units"][1]["cost"] = 120
    book_import(data=book)
    assert api_client.post(URL, body(), format="json").json()["total_points"] == 365


# -- fuzzing: no body ever gets a 500 ------------------------------------------------
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(allow_nan=False), st.text(max_size=12)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
unit_ids = st.sampled_from(["warden-captain", "wardens", "wardens-0", "nope", ""]) | st.text(max_size=6)
option_ids = st.sampled_from(["HERO-1a", "HERO-2a", "TROOPS-1a", "TROOPS-1b", "TROOPS-2a", "x"])
entry_ids = st.sampled_from(["e1", "e2", "e3", "e4"])
entry = st.fixed_dictionaries(
    {"id": entry_ids, "unit": unit_ids},
    optional={
        "options": st.dictionaries(option_ids, st.integers(-2, 30), max_size=5) | json_values,
        "combined": st.booleans() | json_values,
        "joined_to": st.none() | entry_ids | json_values,
        "name": st.none() | st.text(max_size=10),
    },
)
list_bodies = st.fixed_dictionaries(
    {
        "system": st.sampled_from(["aof", "aof-regiments", "opf", "aof-arena", "zzz"]) | json_values,
        "faction": st.sampled_from(["test-wardens", "test-pit", "nobody"]) | json_values,
        "points_limit": st.none() | st.integers(-5, 5000) | json_values,
        "entries": st.lists(entry, max_size=8) | json_values,
    },
    optional={
        "force_org": st.booleans() | json_values,
        "format": st.just("armylist/1") | json_values,
        "name": json_values,
    },
)


@pytest.mark.django_db
@settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(payload=st.one_of(list_bodies, list_bodies, list_bodies, json_values))
def test_no_body_ever_gets_a_server_error(api_client, wardens, payload):
    response = api_client.post(URL, data=json.dumps(payload), content_type="application/json")
    assert response.status_code in (200, 400), response.content
    if response.status_code == 200:
        result = response.json()
        assert result["total_points"] == sum(e["cost"] for e in result["entries"])


def test_the_documented_shape_and_the_checker_name_the_same_fields():
    from armybuilder.api.lists import ArmyListSerializer, EntrySerializer
    from armybuilder.lists.format import ENTRY_FIELDS, LIST_FIELDS

    assert set(ArmyListSerializer().fields) == LIST_FIELDS
    assert set(EntrySerializer().fields) == ENTRY_FIELDS


@settings(max_examples=500, deadline=None)
@given(raw=entry | json_values)
def test_the_fast_entry_check_never_accepts_what_the_detailed_check_refuses(raw):
    from armybuilder.lists.format import _entry_in_detail, _plain_entry

    fast = _plain_entry(raw)
    if fast is not None:
        assert _entry_in_detail(raw) == (fast, {})


def test_an_entry_flooded_with_option_ids_is_refused_at_input_naming_it(api_client, wardens):
    # Issue 37: 185,000 ids in one entry, under the 2 MB body cap, once took seconds and
    # tens of MB to answer (an issue each). Now the shape check refuses it at once.
    flooded = body()
    flooded["entries"][1]["options"] = {f"{n:x}": 1 for n in range(185_000)}
    raw = json.dumps(flooded, separators=(",", ":")).encode()
    assert len(raw) < 2 * 1024 * 1024
    response = api_client.post(URL, raw, content_type="application/json")
    assert response.status_code == 400
    refused = 'Entry "e2" (wardens) has 185,000 options; an entry may have at most 200, more than any unit offers.'
    assert response.json() == {"entries": {"1": {"options": [refused]}}}
