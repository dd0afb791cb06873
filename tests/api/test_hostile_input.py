"""Inputs anyone can send: each is a 400 or a form error naming what is wrong, never a
500, and nothing is saved. (NUL characters: test_production.py.)"""

import copy
import io
import json

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from armybuilder.lists.models import ArmyList
from tests.armyforge.test_interop import AOF_LIST, load

DEEP = b'{"format": "armylist/1", "notes": ' + b"[" * 5000 + b"]" * 5000 + b"}"
LONE_SURROGATE = (
    b'{"format": "armylist/1", "name": "\\ud800", "system": "aof", "faction": "test-wardens", '
    b'"points_limit": 1000, "entries": []}'
)
BIG_INTEGER = json.dumps(
    {"format": "armylist/1", "system": "aof", "faction": "test-wardens", "points_limit": 2**70, "entries": []}
).encode()


@pytest.mark.parametrize("raw", [DEEP, LONE_SURROGATE, BIG_INTEGER], ids=["deep", "lone-surrogate", "big-integer"])
def test_the_web_list_import_refuses_json_it_cannot_keep(wardens, client, raw):
    upload = io.BytesIO(raw)
    upload.name = "odd.json"
    response = client.post("/lists/import/", {"file": upload}, follow=True)
    assert response.status_code == 200
    text = response.content.decode()
    assert "odd.json is not" in text
    assert not ArmyList.objects.exists()


@pytest.mark.parametrize("raw", [DEEP, LONE_SURROGATE, BIG_INTEGER], ids=["deep", "lone-surrogate", "big-integer"])
@pytest.mark.parametrize("path", ["/api/lists/", "/api/lists/import/", "/api/validate/"])
def test_the_api_refuses_json_it_cannot_keep(wardens, path, raw):
    response = APIClient().post(path, raw, content_type="application/json")
    assert response.status_code == 400
    body = response.json()
    if raw is BIG_INTEGER:
        assert body == {"points_limit": ["A valid integer is required."]}
    else:
        assert "JSON parse error" in body["detail"]
    assert not ArmyList.objects.exists()


@pytest.fixture
def forge_client(db):
    from armybuilder.armyforge.books.imports import book_import
    from armybuilder.memo import clear_all
    from tests.armyforge.test_interop import AOF_BOOK

    clear_all()
    book_import(data=load(AOF_BOOK))
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_user("forger", password="a-long-pass-phrase-1"))
    yield client
    clear_all()


def _mutated(change):
    data = copy.deepcopy(load(AOF_LIST))
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "errors"),
    [
        (
            lambda d: d.update(gameSystem="²"),
            {
                "gameSystem": [
                    'This is a list of Army Forge game system "²"; the site builds lists of Age of Fantasy, '
                    "Age of Fantasy: Skirmish and Age of Fantasy: Regiments (Army Forge's aof, aofs and aofr)."
                ]
            },
        ),
        (
            lambda d: d.update(gameSystem="9" * 5000),
            {
                "gameSystem": [
                    f'This is a list of Army Forge game system "{"9" * 39}\u2026"; the site builds lists of Age of '
                    "Fantasy, Age of Fantasy: Skirmish and Age of Fantasy: Regiments (Army Forge's aof, aofs and aofr)."
                ]
            },
        ),
        (
            lambda d: d["list"]["units"][0].update(joinToUnit=["s3Guard"]),
            {"list": {"units": {"0": {"joinToUnit": ["Expected the selection id of another unit, or null."]}}}},
        ),
        (
            lambda d: d["list"]["units"][0].update(joinToUnit={"id": "s3Guard"}),
            {"list": {"units": {"0": {"joinToUnit": ["Expected the selection id of another unit, or null."]}}}},
        ),
        (
            lambda d: d["list"]["units"][1].update(combined=[1]),
            {"list": {"units": {"1": {"combined": ["Expected true or false."]}}}},
        ),
        (
            lambda d: d["list"]["units"][1].update(customName={"x": 1}),
            {"list": {"units": {"1": {"customName": ["Expected a string."]}}}},
        ),
    ],
    ids=["superscript-digit", "5000-digits", "join-list", "join-object", "combined-list", "name-object"],
)
def test_an_army_forge_list_with_odd_values_is_a_400_naming_the_field(forge_client, change, errors):
    response = forge_client.post("/api/lists/import/", _mutated(change), format="json")
    assert response.status_code == 400, response.content
    assert response.json() == errors
    assert not ArmyList.objects.exists()


def test_the_web_import_of_an_odd_army_forge_list_says_what_is_wrong(forge_client, client):
    upload = io.BytesIO(json.dumps(_mutated(lambda d: d["list"]["units"][0].update(joinToUnit={}))).encode())
    upload.name = "forge.json"
    text = client.post("/lists/import/", {"file": upload}, follow=True).content.decode()
    assert "forge.json is not a list we can read: Expected the selection id of another unit, or null." in text
    assert not ArmyList.objects.exists()


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/"])
def test_a_log_in_with_a_very_long_username_is_refused_and_counted(db, client, path):
    from axes.models import AccessAttempt

    response = client.post(path, {"username": "x" * 100_000, "password": "wrong"})
    assert response.status_code == 200  # the form again, with its error
    assert AccessAttempt.objects.get().username == "x" * 255


def test_an_api_token_request_with_a_very_long_username_is_refused(db):
    response = APIClient().post("/api/auth/token/", {"username": "x" * 100_000, "password": "wrong"}, format="json")
    assert response.status_code == 400


def test_a_builder_action_naming_a_huge_entry_goes_back_to_the_list(wardens, client):
    assert client.post("/new/aof/", {"faction": "test-wardens", "points": "1500"}).status_code == 302
    army_list = ArmyList.objects.get()
    response = client.post(
        f"/lists/{army_list.pk}/act/", {"action": "rename", "version": "1", "entry": "e" * 20_000, "name": "x"}
    )
    assert response.status_code == 302 and response["Location"] == f"/lists/{army_list.pk}/"
    army_list.refresh_from_db()
    assert army_list.version == 1


def test_a_multipart_body_without_a_boundary_is_a_clear_400(wardens, caplog):
    response = APIClient().generic("POST", "/api/lists/import/", b"--x--", content_type="multipart/form-data")
    assert response.status_code == 400
    assert response.json()["detail"].startswith("The multipart body could not be read")
    assert not [r for r in caplog.records if r.levelname == "ERROR"]  # nothing logged as a failure
