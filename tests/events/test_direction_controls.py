"""Issue 37, names: an event's name, description and the sections of its own rules refuse
Unicode direction controls, over the API and from the page's form; a list kept from
before the rule is not entered, and one already entered is shown isolated on the roster."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from armybuilder.events import services as event_services
from armybuilder.events.format import EventError
from armybuilder.events.models import EventPack, Submission
from armybuilder.lists.models import ArmyList
from tests.conftest import wardens_list
from tests.events.test_events import pack_data
from tests.web.test_events import client_of, field_block, pack_form, text_of

RLO = "\u202e"
NAME_REFUSED = (
    "The event's name holds Unicode direction controls (U+202E), which turn the text around them: "
    "remove them and use letters, digits, spaces and punctuation."
)
User = get_user_model()


@pytest.fixture
def organiser(db):
    return User.objects.create_user("org", password="not-a-real-pass-123")


def test_an_event_named_with_an_override_is_refused_over_the_api(wardens, organiser):
    client = APIClient()
    client.force_authenticate(organiser)
    response = client.post("/api/events/", pack_data(name=f"{RLO}RTL"), format="json")
    assert response.status_code == 400
    assert response.json() == {"name": [NAME_REFUSED]}
    assert not EventPack.objects.exists()


def test_the_description_and_a_rule_s_section_refuse_isolates_by_field(wardens, organiser):
    added = {"code": "one_dragon", "kind": "max_units", "params": {"max": 1}, "section": "Club\u2066 rules"}
    with pytest.raises(EventError) as refused:
        event_services.pack_create(
            organiser=organiser, data=pack_data(description="Bring \u2068dice", limits_added=[added])
        )
    assert set(refused.value.errors) == {"description", "limits_added"}
    assert "U+2068" in refused.value.errors["description"][0]
    assert "U+2066" in refused.value.errors["limits_added"]["0"]["section"][0]


def test_the_new_event_form_names_the_problem_next_to_the_name_and_makes_nothing(wardens, organiser):
    response = client_of(organiser).post("/events/new/", pack_form(name=f"{RLO}RTL"))
    assert response.status_code == 400
    assert NAME_REFUSED in field_block(text_of(response), "name")
    assert not EventPack.objects.exists()


@pytest.fixture
def pack(wardens, organiser):
    return event_services.pack_create(organiser=organiser, data=pack_data())


def test_a_list_kept_from_before_the_rule_is_not_entered_until_renamed(pack):
    player = User.objects.create_user("player", password="not-a-real-pass-123")
    kept = wardens_list(player, ["wardens"])
    ArmyList.objects.filter(pk=kept.pk).update(name=f"{RLO}RTL")
    kept.refresh_from_db()
    with pytest.raises(EventError) as refused:
        event_services.submission_submit(pack=pack, player=player, army_list=kept)
    assert "The list name holds Unicode direction controls (U+202E)" in refused.value.errors["list"][0]
    assert not Submission.objects.exists()


def test_a_submission_kept_from_before_the_rule_is_isolated_on_the_roster(pack, organiser):
    player = User.objects.create_user("player", password="not-a-real-pass-123")
    entered = wardens_list(player, ["wardens"], event=pack, name="Fine")
    submission = event_services.submission_submit(pack=pack, player=player, army_list=entered)
    Submission.objects.filter(pk=submission.pk).update(data={**submission.data, "name": f"{RLO}RTL"})
    EventPack.objects.filter(pk=pack.pk).update(name=f"Night{RLO} Club")
    page = client_of(organiser).get(pack.path).content.decode()
    assert f'<span class="muted list-name"><bdi>{RLO}RTL</bdi></span>' in page
    assert f"<h2><bdi>Night{RLO} Club</bdi></h2>" in page
    mine = client_of(player).get(pack.path).content.decode()
    assert f"<strong><bdi>{RLO}RTL</bdi></strong>" in mine
