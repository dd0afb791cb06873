"""Ruleset variants through the API: made from a ruleset, exported and imported as
ruleset/1 by staff (anyone exports), shown with their base, and in the schema's enums."""

import json

import pytest
from rest_framework.test import APIClient

from factions.models import Ruleset
from factions.selectors import ruleset_document, ruleset_get

VARIANTS = "/api/systems/aof/variants/"
IMPORT = "/api/systems/import/"


@pytest.fixture
def club(staff_client) -> dict:
    response = staff_client.post(VARIANTS, {"slug": "aof-club", "name": "AoF Club Rules"}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def export(client: APIClient, system: str) -> dict:
    response = client.get(f"/api/systems/{system}/export")
    assert response.status_code == 200, response.content
    return json.loads(response.content)


def test_a_new_variant_is_a_copy_of_its_source_playing_its_game(club, api_client):
    aof = api_client.get("/api/systems/aof/").json()
    assert (club["slug"], club["base"], club["name"], club["version"]) == ("aof-club", "aof", "AoF Club Rules", "3.2.0")
    assert club["limits"] == [
        {**limit, "rule": limit["rule"].replace("Age of Fantasy", "AoF Club Rules")} for limit in aof["limits"]
    ]
    assert (club["stat_fields"], club["unit_types"]) == (aof["stat_fields"], aof["unit_types"])
    assert api_client.get("/api/systems/aof-club/").json() == club


def test_the_rulesets_name_their_base(club, api_client):
    bases = {r["slug"]: r["base"] for r in api_client.get("/api/systems/").json()}
    assert bases == {
        "aof": None,
        "aof-arena": None,
        "aof-regiments": None,
        "aof-skirmish": None,
        "opf": None,
        "aof-club": "aof",
    }


def test_a_variant_of_a_variant_plays_the_same_base(club, staff_client):
    response = staff_client.post(
        "/api/systems/aof-club/variants/", {"slug": "aof-club-summer", "name": "Summer League"}, format="json"
    )
    assert response.status_code == 201, response.content
    assert response.json()["base"] == "aof"


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"slug": "aof", "name": "Mine"}, "slug", '"aof" is taken'),
        ({"slug": "Club Rules", "name": "Mine"}, "slug", "Lower-case letters and digits only"),
        ({"slug": "x" * 41, "name": "Mine"}, "slug", "40 characters"),
        ({"slug": "aof-mine"}, "name", "required"),
        ({"slug": "aof-mine", "name": "x" * 101}, "name", "100 characters"),
    ],
)
def test_a_bad_variant_is_refused_with_its_field_errors(staff_client, body, field, words):
    response = staff_client.post(VARIANTS, body, format="json")
    assert response.status_code == 400, response.content
    assert words in response.json()[field][0]
    assert Ruleset.objects.count() == 5


def test_a_variant_of_no_ruleset_is_a_404(staff_client):
    response = staff_client.post("/api/systems/warhammer/variants/", {"slug": "x", "name": "X"}, format="json")
    assert response.status_code == 404


def test_the_export_is_the_ruleset_1_document_to_download(club, api_client):
    response = api_client.get("/api/systems/aof-club/export")
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == 'attachment; filename="aof-club.ruleset.json"'
    assert json.loads(response.content) == ruleset_document(ruleset=ruleset_get(slug="aof-club"))
    assert export(api_client, "aof")["base"] is None
    assert api_client.get("/api/systems/warhammer/export").status_code == 404


def test_export_then_import_under_a_new_slug_gives_the_same_document(club, staff_client, api_client):
    document = export(api_client, "aof-club")
    document["limits"][0]["params"] = {**document["limits"][0]["params"], "per": 400}
    moved = {**document, "slug": "aof-club-moved"}

    response = staff_client.post(IMPORT, moved, format="json")

    assert response.status_code == 201, response.content
    assert (response.json()["slug"], response.json()["base"]) == ("aof-club-moved", "aof")
    assert response.json() == api_client.get("/api/systems/aof-club-moved/").json()
    assert export(api_client, "aof-club-moved") == moved


def test_an_import_replaces_the_variant_of_its_slug(club, staff_client, api_client):
    document = {**export(api_client, "aof-club"), "name": "AoF Club Rules (autumn)"}
    assert staff_client.post(IMPORT, document, format="json").status_code == 201
    assert api_client.get("/api/systems/aof-club/").json()["name"] == "AoF Club Rules (autumn)"
    assert Ruleset.objects.count() == 6


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda d: d["limits"][0].update(params={}), "limits[0].params"),
        (lambda d: d.update(base="warhammer"), "base"),
        (lambda d: d.update(slug="aof"), "slug"),
        (lambda d: d.pop("name"), ""),
    ],
)
def test_a_bad_document_is_refused_naming_the_path_and_nothing_written(club, staff_client, api_client, change, path):
    document = {**export(api_client, "aof-club"), "slug": "aof-club-bad"}
    change(document)

    response = staff_client.post(IMPORT, document, format="json")

    assert response.status_code == 400, response.content
    body = response.json()
    assert sorted(body) == ["detail", "errors"]
    assert path in [error["path"] for error in body["errors"]]
    assert all(error["message"] for error in body["errors"])
    assert not Ruleset.objects.filter(slug="aof-club-bad").exists()


@pytest.mark.parametrize("who", ["user", "anonymous"])
def test_only_staff_make_or_import_variants(club, user_client, api_client, who):
    client = user_client if who == "user" else api_client
    document = {**export(api_client, "aof-club"), "slug": "aof-club-two"}

    made = client.post(VARIANTS, {"slug": "aof-mine", "name": "Mine"}, format="json")
    imported = client.post(IMPORT, document, format="json")

    assert (made.status_code, imported.status_code) == (403, 403)
    assert Ruleset.objects.count() == 6


def test_the_schema_lists_variants_among_the_systems(club, api_client):
    schema = api_client.get("/api/schema/?format=json").json()
    parameter = next(p for p in schema["paths"]["/api/systems/{system}/"]["get"]["parameters"] if p["name"] == "system")
    assert "aof-club" in parameter["schema"]["enum"]
    components = schema["components"]["schemas"]
    assert "aof-club" in components["ArmyListRequest"]["properties"]["system"]["enum"]
    assert "aof-club" in components["EventPackRequest"]["properties"]["ruleset"]["enum"]


def test_a_pack_may_be_played_with_a_variant(club, wardens, user_client):
    body = {"name": "Club Cup", "ruleset": "aof-club", "points_limit": 750, "deadline": "2999-01-01T00:00:00Z"}
    response = user_client.post("/api/events/", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["ruleset_title"] == "AoF Club Rules 3.2.0"
