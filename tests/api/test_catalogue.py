"""The read-only catalogue API and the staff import endpoint."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from armybuilder.armyforge.books.imports import book_import
from factions.models import BookVersion, Faction

SYSTEMS = ["aof", "aof-regiments", "aof-skirmish", "opf", "aof-arena"]


@pytest.mark.django_db
def test_systems_lists_exactly_the_five_rulesets(api_client):
    response = api_client.get("/api/systems/")
    assert response.status_code == 200
    summary = [
        {k: r[k] for k in ("slug", "name", "version", "default_points", "max_points", "uses_points")}
        for r in response.json()
    ]
    assert summary == [
        {
            "slug": "aof",
            "name": "Age of Fantasy",
            "version": "3.2.0",
            "default_points": 1500,
            "max_points": None,
            "uses_points": True,
        },
        {
            "slug": "aof-regiments",
            "name": "Age of Fantasy: Regiments",
            "version": "1.7",
            "default_points": 500,
            "max_points": None,
            "uses_points": True,
        },
        {
            "slug": "aof-skirmish",
            "name": "Age of Fantasy: Skirmish",
            "version": "",
            "default_points": 250,
            "max_points": None,
            "uses_points": True,
        },
        {
            "slug": "opf",
            "name": "One Page Fantasy",
            "version": "3.2.0",
            "default_points": 750,
            "max_points": 750,
            "uses_points": True,
        },
        {
            "slug": "aof-arena",
            "name": "Age of Fantasy: Arena",
            "version": "2.1",
            "default_points": None,
            "max_points": None,
            "uses_points": False,
        },
    ]


@pytest.mark.django_db
def test_system_detail_has_limits_in_words_and_core_rules(api_client):
    response = api_client.get("/api/systems/aof/")
    assert response.status_code == 200
    body = response.json()
    assert body["stat_fields"] == ["quality", "defense"]
    assert [(limit["code"], limit["description"]) for limit in body["limits"]] == [
        ("too_many_heroes", "At most 1 hero per 500 pts"),
        (
            "too_many_copies",
            "At most 1 + 1 per 750 pts copies of the same unit (a combined unit counts as one)",
        ),
        ("unit_too_expensive", "No single unit may cost more than 35% of the points limit"),
        ("too_many_units", "At most 1 unit per 150 pts"),
        ("duplicate_command_group", "Each unit may take each command-group upgrade at most once"),
    ]
    assert body["limits"][0]["rule"] == "Age of Fantasy 3.2.0 — Force Organisation"
    assert body["limits"][0]["params"] == {"counts": "heroes", "per": 500}
    tough = next(rule for rule in body["core_rules"] if rule["name"] == "Tough")
    assert tough["rated"] is True and tough["section"] and len(tough["text"]) > 20


@pytest.mark.django_db
def test_regiments_limits_are_data_rows(api_client):
    body = api_client.get("/api/systems/aof-regiments/").json()
    assert [limit["code"] for limit in body["limits"]] == [
        "needs_hero",
        "too_many_heroes",
        "too_many_big_units",
        "invalid_formation",
        "duplicate_command_group",
        "large_game",
        "small_game",
    ]
    big = body["limits"][2]
    assert big["params"] == {"counts": "types", "types": ["monster", "chariot", "artillery"], "per": 250}
    assert big["description"] == "At most 1 Monster or Chariot or Artillery per 250 pts"


@pytest.mark.django_db
def test_unknown_system_is_404(api_client):
    assert api_client.get("/api/systems/warhammer/").status_code == 404


@pytest.mark.django_db
def test_factions_list_filters_by_system(api_client, make_aof_book, make_arena_book):
    book_import(data=make_aof_book(units=4))
    book_import(data=make_arena_book())

    everything = api_client.get("/api/factions/").json()
    assert {(f["system"], f["slug"]) for f in everything} == {
        ("aof", "test-wardens"),
        ("aof-arena", "test-pit"),
    }

    response = api_client.get("/api/factions/", {"system": "aof"})
    assert response.json() == [
        {
            "system": "aof",
            "slug": "test-wardens",
            "name": "Test Wardens",
            "version": "1.0.0",
            "units": 4,
            "versions": 1,
            "source": "upload",
            "armyforge_id": None,
        }
    ]


@pytest.mark.django_db
def test_factions_list_with_unknown_system_is_400(api_client):
    response = api_client.get("/api/factions/", {"system": "nope"})
    assert response.status_code == 400
    assert response.json() == {"system": ['unknown system "nope"']}


@pytest.mark.django_db
def test_faction_book_is_the_armybook_document(api_client, make_aof_book):
    book = make_aof_book()
    book_import(data=book)
    response = api_client.get("/api/factions/aof/test-wardens/")
    assert response.status_code == 200
    assert response.json() == book


@pytest.mark.django_db
def test_missing_faction_is_404(api_client, make_aof_book):
    book_import(data=make_aof_book())
    assert api_client.get("/api/factions/aof/nobody/").status_code == 404
    assert api_client.get("/api/factions/opf/test-wardens/").status_code == 404


@pytest.mark.django_db
def test_faction_book_query_count_does_not_grow_with_the_book(api_client, make_aof_book, make_arena_book):
    small = make_aof_book(units=3)
    big = make_aof_book(units=40)
    big["slug"] = "big-wardens"
    book_import(data=small)
    book_import(data=big)
    assert len(BookVersion.objects.get(faction__slug="big-wardens").document["units"]) == 40

    counts = []
    for slug in ("test-wardens", "big-wardens"):
        with CaptureQueriesContext(connection) as queries:
            assert api_client.get(f"/api/factions/aof/{slug}/").status_code == 200
        counts.append(len(queries))
    book_import(data=make_arena_book())
    with CaptureQueriesContext(connection) as queries:
        assert api_client.get("/api/factions/aof-arena/test-pit/").status_code == 200
    counts.append(len(queries))

    assert counts[0] == counts[1]
    assert counts[0] <= 12
    assert counts[2] <= counts[0]  # Arena: no packages to prefetch sections from


# -- staff import -------------------------------------------------------------------
@pytest.mark.django_db
def test_import_endpoint_needs_staff(api_client, user_client, make_aof_book):
    assert api_client.post("/api/factions/import/", make_aof_book(), format="json").status_code in (401, 403)
    assert user_client.post("/api/factions/import/", make_aof_book(), format="json").status_code == 403
    assert not Faction.objects.exists()


@pytest.mark.django_db
def test_staff_import_creates_the_faction(staff_client, make_aof_book):
    response = staff_client.post("/api/factions/import/", make_aof_book(), format="json")
    assert response.status_code == 201
    assert response.json() == {
        "system": "aof",
        "slug": "test-wardens",
        "name": "Test Wardens",
        "status": "new book",
        "version": "1.0.0",
        "current": "1.0.0",
        "source": "upload",
        "replaced_version": None,
        "message": "Added Test Wardens (aof/test-wardens) 1.0.0: 3 units, 2 packages, 5 options",
        "warnings": [],
    }


@pytest.mark.django_db
def test_staff_import_accepts_a_file_upload(staff_client, make_aof_book):
    import io
    import json

    upload = io.BytesIO(json.dumps(make_aof_book()).encode())
    upload.name = "wardens.json"
    response = staff_client.post("/api/factions/import/", {"file": upload}, format="multipart")
    assert response.status_code == 201
    assert Faction.objects.filter(slug="test-wardens").exists()


@pytest.mark.django_db
def test_bad_book_is_400_with_the_path_and_changes_nothing(staff_client, make_aof_book):
    book = make_aof_book()
    book["units"][0]["upgrades"] = ["HERO", "Z"]
    response = staff_client.post("/api/factions/import/", book, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "detail": 'units[0].upgrades[1]: unknown package "Z"',
        "errors": [{"path": "units[0].upgrades[1]", "message": 'unknown package "Z"'}],
        "warnings": [],
    }
    assert not Faction.objects.exists()


@pytest.mark.django_db
def test_bad_json_body_is_400(staff_client):
    response = staff_client.post("/api/factions/import/", data="{nope", content_type="application/json")
    assert response.status_code == 400
    assert "JSON parse error" in response.json()["detail"]


@pytest.mark.django_db
def test_openapi_schema_is_served_and_valid(api_client):
    from io import StringIO

    from django.core.management import call_command

    call_command("spectacular", "--validate", "--fail-on-warn", stdout=StringIO())
    response = api_client.get("/api/schema/")
    assert response.status_code == 200
    assert b"/api/factions/{system}/{slug}/" in response.content
    docs = api_client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"swagger-ui" in docs.content and b"cdn.jsdelivr" not in docs.content  # served by us


@pytest.mark.django_db
def test_systems_list_follows_a_ruleset_change(api_client, django_assert_max_num_queries):
    from factions.admin_checks import catalogue_change_check
    from factions.models import Ruleset

    api_client.get("/api/systems/")
    with django_assert_max_num_queries(1):  # served from the serialized copy
        assert api_client.get("/api/systems/").status_code == 200
    ruleset = Ruleset.objects.get(slug="opf")
    ruleset.name = "One Page Fantasy (edited)"
    ruleset.save()
    catalogue_change_check(objects=[ruleset])  # what the admin does on every save
    names = [r["name"] for r in api_client.get("/api/systems/").json()]
    assert "One Page Fantasy (edited)" in names
