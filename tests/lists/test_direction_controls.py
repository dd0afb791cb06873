"""Issue 37, names: a list's name, notes and units' own names refuse Unicode direction
controls (a list named with U+202E before "RTL" read "LTR" on its share page), over the
API and from the builder, and a list kept from before the rule is shown isolated."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from armybuilder.lists.format import _entry_in_detail, _plain_entry, check_list_shape
from armybuilder.lists.models import ArmyList
from tests.api.test_lists import list_body
from tests.web.test_builder_content import act
from tests.web.test_builder_content import army_list as army_list  # the fixture: a list made on the page

RLO = "\u202e"
NAME_REFUSED = (
    "The list name holds Unicode direction controls (U+202E), which turn the text around them: "
    "remove them and use letters, digits, spaces and punctuation."
)


@pytest.fixture
def owner(db):
    return get_user_model().objects.create_user("owner", password="a-long-pass-phrase-1")


def owner_client(owner) -> APIClient:
    client = APIClient()
    client.force_authenticate(owner)
    return client


def test_a_list_named_with_an_override_is_refused_over_the_api_and_nothing_is_saved(wardens, owner):
    response = owner_client(owner).post("/api/lists/", list_body(name=f"{RLO}RTL"), format="json")
    assert response.status_code == 400
    assert response.json() == {"name": [NAME_REFUSED]}
    assert not ArmyList.objects.exists()


def test_a_put_with_an_isolate_in_a_unit_s_own_name_is_refused_naming_the_entry(wardens, owner):
    client = owner_client(owner)
    made = client.post("/api/lists/", list_body(), format="json").json()
    entries = list_body()["entries"]
    entries[1] = {**entries[1], "name": "Left\u2067 right\u2069"}
    body = list_body(entries=entries, version=made["version"])
    response = client.put(f"/api/lists/{made['id']}/", body, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "entries": {
            "1": {
                "name": [
                    "The unit's own name holds Unicode direction controls (U+2067, U+2069), which turn the text "
                    "around them: remove them and use letters, digits, spaces and punctuation."
                ]
            }
        }
    }
    assert ArmyList.objects.get().entries[1].get("name") is None


def test_the_validate_endpoint_refuses_notes_with_an_embedding(wardens):
    response = APIClient().post("/api/validate/", list_body(notes="a\u202bb"), format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["notes"]
    assert "U+202B" in response.json()["notes"][0]


def test_the_fast_entry_check_leaves_a_name_with_a_control_to_the_detailed_one():
    entry = {"id": "e1", "unit": "wardens", "name": f"{RLO}Bob"}
    assert _plain_entry(entry) is None
    _entry, errors = _entry_in_detail(entry)
    assert "U+202E" in errors["name"][0]
    assert _plain_entry({**entry, "name": "Bob\u200d"}) is not None  # a joiner is writing, not a control


def test_a_backup_s_list_kept_from_before_the_rule_is_still_read():
    body = {**list_body(name=f"{RLO}RTL"), "points_limit": 1500}
    assert check_list_shape(body)[1] == {"name": [NAME_REFUSED]}
    assert check_list_shape(body, kept=True)[1] == {}


def answer(client, response) -> str:
    """The page the builder answers an action with (after its redirect, if any)."""
    if response.status_code == 302:
        response = client.get(response["Location"])
    return response.content.decode()


def test_the_builder_s_settings_refuse_the_name_and_say_why(army_list, client):
    response = act(client, army_list, action="settings", name=f"{RLO}RTL", points_limit="1500", notes="")
    army_list.refresh_from_db()
    assert army_list.name == ""
    page = answer(client, response)
    assert NAME_REFUSED in page


def test_the_builder_s_rename_of_a_unit_refuses_an_override(army_list, client):
    act(client, army_list, action="add", unit="wardens")
    army_list.refresh_from_db()
    entry = army_list.entries[0]["id"]
    response = act(client, army_list, action="rename", entry=entry, name=f"{RLO}Bob")
    army_list.refresh_from_db()
    assert army_list.entries[0].get("name") is None
    page = answer(client, response)
    assert "The unit&#x27;s own name holds Unicode direction controls (U+202E)" in page


def isolated(page: str, name: str) -> bool:
    """Whether every place `name` appears in the page is inside a <bdi>."""
    places = [m.start() for m in re.finditer(re.escape(name), page)]
    return bool(places) and all(page.rfind("<bdi>", 0, at) > page.rfind("</bdi>", 0, at) for at in places)


def kept_list() -> ArmyList:
    """A list written before the rule, straight to its table."""
    return ArmyList.objects.create(
        visitor="someone",
        name=f"{RLO}RTL",
        system="aof",
        faction="test-wardens",
        book_version="1.0.0",
        points_limit=1500,
        entries=[
            {"id": "e1", "unit": "wardens", "options": {}, "combined": False, "joined_to": None, "name": "Bo\u202eb"}
        ],
    )


def test_a_list_kept_from_before_the_rule_is_shown_isolated_on_its_share_page(wardens, client):
    kept = kept_list()
    page = client.get(f"/s/{kept.share_key}/").content.decode()
    assert f"<h2><bdi>{RLO}RTL</bdi></h2>" in page
    assert isolated(page.split("<body", 1)[1], f"{RLO}RTL")
    assert f"<h3><bdi>Bo{RLO}b</bdi></h3>" in page


def test_a_copy_of_a_list_kept_from_before_the_rule_is_made_without_the_controls(wardens, owner):
    kept = kept_list()
    response = owner_client(owner).post(f"/api/shared/{kept.share_key}/clone/")
    assert response.status_code == 201
    copy = ArmyList.objects.get(pk=response.json()["id"])
    assert (copy.name, copy.entries[0]["name"]) == ("Copy of RTL", "Bob")
