"""The OpenAPI schema tells clients every answer each endpoint can give, with the
rulesets and factions of this site as enums (armybuilder/api/schema.py)."""

import pytest
from django.db import DatabaseError

from armybuilder.armyforge.books.imports import book_import
from factions.models import Ruleset
from tests.conftest import aof_book

SYSTEMS = ["aof", "aof-arena", "aof-regiments", "aof-skirmish", "opf"]
ERRORS = ["400", "403", "429", "503"]  # any request: a NUL, a bad token, throttles, the database
BODY = ["413", "415"]  # too large, or a content type the endpoint does not read

DOCUMENTED = {
    ("post", "/api/auth/token/"): ["200", *ERRORS, *BODY],
    ("delete", "/api/auth/token/"): ["204", "401", *ERRORS],
    ("get", "/api/events/"): ["200", "404", *ERRORS],
    ("post", "/api/events/"): ["201", "401", *ERRORS, *BODY],
    ("get", "/api/events/{key}/"): ["200", "404", *ERRORS],
    ("patch", "/api/events/{key}/"): ["200", "404", "409", *ERRORS, *BODY],
    ("delete", "/api/events/{key}/"): ["204", "404", *ERRORS],
    ("get", "/api/events/{key}/submissions/"): ["200", "404", *ERRORS],
    ("post", "/api/events/{key}/submissions/"): ["201", "401", "404", "409", *ERRORS, *BODY],
    ("get", "/api/events/{key}/submissions/{id}/"): ["200", "404", *ERRORS],
    ("get", "/api/factions/"): ["200", *ERRORS],
    ("get", "/api/factions/{system}/{slug}/"): ["200", "404", *ERRORS],
    ("get", "/api/factions/{system}/{slug}/versions/"): ["200", "404", *ERRORS],
    ("get", "/api/factions/{system}/{slug}/versions/{version}/"): ["200", "404", *ERRORS],
    ("get", "/api/factions/{system}/{slug}/changes/"): ["200", "404", *ERRORS],
    ("post", "/api/factions/import/"): ["200", "201", *ERRORS, *BODY],
    ("get", "/api/health/"): ["200", "400"],
    ("get", "/api/lists/"): ["200", "404", *ERRORS],
    ("post", "/api/lists/"): ["201", *ERRORS, *BODY],
    ("post", "/api/lists/import/"): ["201", *ERRORS, *BODY],
    ("get", "/api/lists/{id}/"): ["200", "404", *ERRORS],
    ("put", "/api/lists/{id}/"): ["200", "404", "409", *ERRORS, *BODY],
    ("delete", "/api/lists/{id}/"): ["204", "404", *ERRORS],
    ("post", "/api/lists/{id}/clone/"): ["201", "404", *ERRORS],
    ("post", "/api/lists/{id}/upgrade/"): ["200", "404", "409", *ERRORS, *BODY],
    ("post", "/api/lists/{id}/enter/"): ["200", "404", "409", *ERRORS, *BODY],
    ("get", "/api/lists/{id}/export/{kind}"): ["200", "404", *ERRORS],
    ("post", "/api/lists/{id}/share/rotate/"): ["200", "404", *ERRORS],
    ("get", "/api/shared/{key}/"): ["200", "404", *ERRORS],
    ("post", "/api/shared/{key}/clone/"): ["201", "404", *ERRORS],
    ("get", "/api/shared/{key}/export/{kind}"): ["200", "404", *ERRORS],
    ("get", "/api/systems/"): ["200", *ERRORS],
    ("get", "/api/systems/{system}/"): ["200", "404", *ERRORS],
    ("get", "/api/systems/{system}/export"): ["200", "404", *ERRORS],
    ("get", "/api/systems/{system}/armyforge-rules/"): ["200", "404", *ERRORS],
    ("post", "/api/systems/{system}/variants/"): ["201", "404", *ERRORS, *BODY],
    ("post", "/api/systems/import/"): ["201", *ERRORS, *BODY],
    ("post", "/api/validate/"): ["200", "400", "413", "415", "429", "503"],
    # An event's files, for its organiser and staff.
    ("get", "/api/events/{key}/roster.pdf"): ["200", "404", "422", *ERRORS],  # 422: too many entries to print
    ("get", "/api/events/{key}/submissions.csv"): ["200", "404", *ERRORS],
}


@pytest.fixture
def openapi(db, api_client):
    book_import(data=aof_book())

    def get() -> dict:
        return api_client.get("/api/schema/?format=json").json()

    return get


def operations(schema: dict):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield method, path, operation


def test_every_operation_documents_each_status_it_answers(openapi):
    schema = openapi()

    documented = {(method, path): sorted(op["responses"]) for method, path, op in operations(schema)}

    assert documented == {key: sorted(statuses) for key, statuses in DOCUMENTED.items()}


def test_every_error_answer_is_documented_as_json_with_a_detail_or_field_errors(openapi):
    schema = openapi()
    components = schema["components"]["schemas"]

    for method, path, operation in operations(schema):
        for status, response in operation["responses"].items():
            if int(status) < 400:
                continue
            ref = response["content"]["application/json"]["schema"]["$ref"]
            component = components[ref.rsplit("/", 1)[1]]
            assert "detail" in component["properties"], (method, path, status)
            assert response["description"], (method, path, status)


def test_throttled_and_unavailable_answers_say_when_to_try_again(openapi):
    responses = openapi()["paths"]["/api/lists/"]["get"]["responses"]

    assert list(responses["429"]["headers"]) == ["Retry-After"]
    assert list(responses["503"]["headers"]) == ["Retry-After"]


def test_systems_and_factions_are_enums_of_what_the_site_holds(openapi):
    schema = openapi()
    paths, components = schema["paths"], schema["components"]["schemas"]

    def parameter(method, path, name):
        return next(p for p in paths[path][method]["parameters"] if p["name"] == name)["schema"]

    assert parameter("get", "/api/systems/{system}/", "system")["enum"] == SYSTEMS
    assert parameter("get", "/api/factions/", "system")["enum"] == SYSTEMS
    assert parameter("get", "/api/factions/{system}/{slug}/", "system")["enum"] == SYSTEMS
    assert parameter("get", "/api/factions/{system}/{slug}/", "slug")["enum"] == ["test-wardens"]
    assert parameter("post", "/api/factions/import/", "system")["enum"] == SYSTEMS
    assert parameter("get", "/api/systems/{system}/export", "system")["enum"] == SYSTEMS
    assert parameter("post", "/api/systems/{system}/variants/", "system")["enum"] == SYSTEMS
    for component in ("EventPackRequest", "PatchedEventPackRequest"):
        assert components[component]["properties"]["ruleset"]["enum"] == SYSTEMS
    for component in ("ArmyListRequest", "ArmyListUpdateRequest"):
        assert components[component]["properties"]["system"]["enum"] == SYSTEMS
        assert components[component]["properties"]["faction"]["enum"] == ["test-wardens"]


def test_a_new_army_book_is_in_the_next_schema(openapi):
    openapi()
    book = aof_book()
    book.update(slug="iron-wardens", name="Iron Wardens")
    book_import(data=book)

    faction = openapi()["components"]["schemas"]["ArmyListRequest"]["properties"]["faction"]

    assert faction["enum"] == ["iron-wardens", "test-wardens"]


def test_without_the_catalogue_tables_the_schema_has_plain_strings(openapi, monkeypatch):
    """`manage.py spectacular` on a database that is not migrated yet."""

    def no_table(*args, **kwargs):
        raise DatabaseError('relation "factions_ruleset" does not exist')

    monkeypatch.setattr(Ruleset.objects, "order_by", no_table)

    schema = openapi()

    assert schema["components"]["schemas"]["ArmyListRequest"]["properties"]["system"] == {
        "type": "string",
        "minLength": 1,
        "maxLength": 40,
    }


def test_the_armylist_body_refuses_unknown_fields_and_blank_ids(openapi):
    components = openapi()["components"]["schemas"]

    assert components["ArmyListRequest"]["additionalProperties"] is False
    assert components["EntryRequest"]["additionalProperties"] is False
    assert components["EntryRequest"]["properties"]["id"]["pattern"].startswith("[^\\t\\n")


def test_the_lists_listing_stays_paginated(openapi):
    schema = openapi()
    ok = schema["paths"]["/api/lists/"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]

    page = schema["components"]["schemas"][ok["$ref"].rsplit("/", 1)[1]]

    assert sorted(page["properties"]) == ["count", "next", "previous", "results"]


def test_a_made_list_links_to_what_can_be_done_with_it(openapi):
    links = openapi()["paths"]["/api/lists/"]["post"]["responses"]["201"]["links"]

    expected = """GetList lists_retrieve  UpdateList lists_update  DeleteList lists_destroy
                  CloneList lists_clone_create  RotateShareKey lists_share_rotate_create
                  ExportList lists_export_retrieve""".split()
    assert {name: link["operationId"] for name, link in links.items()} == dict(
        zip(expected[::2], expected[1::2], strict=True)
    )
    assert links["GetList"]["parameters"] == {"id": "$response.body#/id"}
    assert links["UpdateList"]["requestBody"]["version"] == "$response.body#/version"


def test_lists_are_open_to_visitors_and_the_token_endpoint_to_anyone(openapi):
    paths = openapi()["paths"]

    assert paths["/api/lists/"]["post"]["security"] == [{"cookieAuth": []}, {"tokenAuth": []}, {}]
    assert paths["/api/auth/token/"]["post"]["security"] == [{}]
    assert {} not in paths["/api/auth/token/"]["delete"]["security"]


def test_an_empty_system_filter_is_refused_like_any_system_not_in_the_enum(openapi, api_client):
    response = api_client.get("/api/factions/?system=")

    assert response.status_code == 400
    assert response.json() == {"system": ['unknown system ""']}


def test_an_event_pack_body_is_as_strict_as_its_checks(openapi):
    components = openapi()["components"]["schemas"]

    for component in ("EventPackRequest", "PatchedEventPackRequest", "LimitRowRequest", "BanRequest", "CapRequest"):
        assert components[component]["additionalProperties"] is False, component
    assert components["BanRequest"]["oneOf"] == [{"required": ["unit"]}, {"required": ["option"]}]
    assert components["EventPackRequest"]["required"] == ["deadline", "name", "ruleset"]
    assert "required" not in components["PatchedEventPackRequest"]


def test_organising_and_submitting_need_an_account_and_reading_a_pack_does_not(openapi):
    paths = openapi()["paths"]

    assert paths["/api/events/"]["post"]["security"] == [{"cookieAuth": []}, {"tokenAuth": []}]
    assert paths["/api/events/{key}/submissions/"]["post"]["security"] == [{"cookieAuth": []}, {"tokenAuth": []}]
    assert {} in paths["/api/events/{key}/"]["get"]["security"]
    # A pack's key is as long as its column allows (shorter than a list's share key).
    assert paths["/api/events/{key}/"]["get"]["parameters"][0]["schema"]["pattern"] == "^[A-Za-z0-9_-]{1,32}$"
    assert paths["/api/shared/{key}/"]["get"]["parameters"][0]["schema"]["pattern"] == "^[A-Za-z0-9_-]{1,64}$"


def test_a_made_pack_links_to_what_can_be_done_with_it(openapi):
    paths = openapi()["paths"]
    links = paths["/api/events/"]["post"]["responses"]["201"]["links"]
    page = paths["/api/events/"]["get"]["responses"]["200"]["links"]
    submitted = paths["/api/events/{key}/submissions/"]["post"]["responses"]["201"]["links"]

    assert {name: link["operationId"] for name, link in links.items()} == {
        "GetEvent": "events_retrieve",
        "UpdateEvent": "events_partial_update",
        "DeleteEvent": "events_destroy",
        "ListSubmissions": "events_submissions_list",
        "Submit": "events_submissions_create",
    }
    assert links["GetEvent"]["parameters"] == {"key": "$response.body#/key"}
    assert page["GetEvent"]["parameters"] == {"key": "$response.body#/results/0/key"}
    assert submitted["GetSubmission"] == {
        "operationId": "events_submissions_retrieve",
        "parameters": {"key": "$request.path.key", "id": "$response.body#/id"},
    }
