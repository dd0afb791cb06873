"""The admin's writes to rows players write too (armybuilder/lists/admin.py): a list, an
event pack, a display name. Each edit is checked as the site checks it, and saved with a
compare-and-swap on the version the change form was opened at, so a player's save made
while staff edited is never undone."""

import json
import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connections

from armybuilder.accounts import services as accounts
from armybuilder.accounts.models import Profile
from armybuilder.armyforge.books.imports import book_import
from armybuilder.events import services as event_services
from armybuilder.events.models import EventPack
from armybuilder.lists import admin, services
from armybuilder.lists.format import parse_list_body
from armybuilder.lists.models import ArmyList
from armybuilder.memo import clear_all
from factions.models import Ruleset
from factions.services import sync_rulesets
from tests.conftest import wardens_list
from tests.events.test_events import pack_data
from tests.support.admin_forms import change_form, save

LIST_CHANGED = (
    "This list was changed by its owner while you edited it: nothing was saved; reload to see the current list."
)
PACK_CHANGED = (
    "This event pack was changed by its organiser while you edited it: nothing was saved; "
    "reload to see the current event pack."
)
PROFILE_CHANGED = (
    "This profile was changed by its user while you edited it: nothing was saved; reload to see the current profile."
)


def page_text(response) -> str:
    """The page as its reader sees the words (the admin escapes quotes)."""
    return response.content.decode().replace("&quot;", '"').replace("&#x27;", "'")


@pytest.fixture
def player(db):
    return get_user_model().objects.create_user("player-one", password="not-a-real-pass-123")


@pytest.fixture
def army_list(wardens, player) -> ArmyList:
    return wardens_list(player, ["wardens"], name="Border Watch", points=500)


@pytest.fixture
def pack(wardens, player) -> EventPack:
    return event_services.pack_create(organiser=player, data=pack_data(points_limit=500))


@pytest.fixture
def profile(player) -> Profile:
    accounts.account_update(user=player, email="", display_name="Rude Name", version=0)
    return Profile.objects.get(user=player)


def player_saves_list(army_list: ArmyList, name: str) -> None:
    """The player renames the list in the builder (through the service its API calls)."""
    data, _handle = parse_list_body({**army_list.as_armylist(), "name": name})
    services.army_list_update(army_list=army_list, data=data, based_on=army_list.version)


# -- lists ------------------------------------------------------------------------------------
def test_a_list_edited_in_the_admin_is_saved_with_its_version_bumped(admin_client, army_list):
    url, data = change_form(admin_client, army_list)
    assert data["based_on"] == ["1"]
    data["name"] = ["Border Watch, moderated"]
    data["entries"] = [json.dumps([{"id": "e0", "unit": "wardens"}, {"id": "e1", "unit": "warden-captain"}])]
    assert save(admin_client, url, data).status_code == 302
    army_list.refresh_from_db()
    assert (army_list.name, army_list.version, army_list.book_version) == ("Border Watch, moderated", 2, "1.0.0")
    assert [entry["unit"] for entry in army_list.entries] == ["wardens", "warden-captain"]
    assert army_list.entries[1] == {
        "id": "e1",
        "unit": "warden-captain",
        "options": {},
        "combined": False,
        "joined_to": None,
        "name": None,
    }


def test_a_list_built_for_an_event_keeps_it_when_saved_unchanged(admin_client, pack, player):
    entered = wardens_list(player, ["wardens"], event=pack, points=500)
    assert admin_client.get("/admin/lists/armylist/", {"q": "test-wardens"}).status_code == 200
    url, data = change_form(admin_client, entered)
    assert data["event"] == [pack.key]
    assert save(admin_client, url, data).status_code == 302
    entered.refresh_from_db()
    assert (entered.event_id, entered.version, [entry["unit"] for entry in entered.entries]) == (
        pack.key,
        2,
        ["wardens"],
    )


def test_the_fields_players_do_not_own_are_not_on_the_list_s_form(admin_client, army_list):
    url, data = change_form(admin_client, army_list)
    assert not {"owner", "visitor", "share_key", "version", "form_key", "validation", "created"} & set(data)
    data["share_key"] = ["chosen-by-staff"]
    assert save(admin_client, url, data).status_code == 302
    assert ArmyList.objects.get(pk=army_list.pk).share_key == army_list.share_key


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([{"id": "e0"}], "entries[0].unit: This field is required."),
        ({"e0": {"unit": "wardens"}}, 'Expected a list of items but got type "dict".'),
        (
            [{"id": "e0", "unit": "wardens", "joined_to": "e9"}, {"id": "e0", "unit": "wardens"}],
            'entries[0].joined_to: No entry with id "e9".',
        ),
        ([{"id": "e0", "unit": "wardens"}, {"id": "e1", "unit": "wardenz"}], 'No unit "wardenz" in Test Wardens.'),
    ],
    ids=["entry-without-unit", "not-a-list", "joined-to-nothing", "unknown-unit"],
)
def test_entries_the_site_would_refuse_are_named_and_nothing_is_saved(admin_client, army_list, entries, message):
    url, data = change_form(admin_client, army_list)
    data["name"] = ["Renamed"]
    data["entries"] = [json.dumps(entries)]
    response = save(admin_client, url, data)
    assert response.status_code == 200  # the form again, with the problem
    assert message in page_text(response)
    assert ArmyList.objects.get(pk=army_list.pk).name == "Border Watch"


def test_every_problem_with_the_entries_is_named_at_once(admin_client, army_list):
    url, data = change_form(admin_client, army_list)
    data["entries"] = [json.dumps([{"id": "e0"}, {"id": "e1", "unit": "wardens", "options": {"TROOPS-1a": -1}}])]
    page = page_text(save(admin_client, url, data))
    assert "entries[0].unit: This field is required." in page
    assert "entries[1].options.TROOPS-1a: Ensure this value is greater than or equal to 0." in page
    assert ArmyList.objects.get(pk=army_list.pk).version == 1


def test_a_book_version_the_book_does_not_hold_is_refused_and_empty_is_the_current_one(admin_client, army_list):
    url, data = change_form(admin_client, army_list)
    assert data["book_version"] == ["1.0.0"]
    data["book_version"] = ["9.9.9"]
    response = save(admin_client, url, data)
    assert 'The army book "test-wardens" has no version "9.9.9" here: it holds 1.0.0.' in page_text(response)
    assert ArmyList.objects.get(pk=army_list.pk).version == 1
    ArmyList.objects.filter(pk=army_list.pk).update(book_version="0.9.0")  # an old pin, say
    url, data = change_form(admin_client, army_list)
    data["book_version"] = [""]
    assert save(admin_client, url, data).status_code == 302
    assert ArmyList.objects.get(pk=army_list.pk).book_version == "1.0.0"


def test_a_unit_the_list_already_had_is_kept_when_its_book_no_longer_has_it(admin_client, army_list):
    """A list pinned to a book version can hold a unit a later version dropped (the site
    reports it, as an issue): staff renaming such a list are not stopped by it."""
    ArmyList.objects.filter(pk=army_list.pk).update(entries=[{"id": "e0", "unit": "gone-unit"}])
    url, data = change_form(admin_client, army_list)
    data["name"] = ["Renamed"]
    assert save(admin_client, url, data).status_code == 302
    assert ArmyList.objects.get(pk=army_list.pk).name == "Renamed"


def staff_rename(admin_client, army_list: ArmyList, *, meanwhile=lambda: None):
    """Staff open the list's change form, and, after whatever happens `meanwhile`, save a
    new name from it."""
    url, data = change_form(admin_client, army_list)
    meanwhile()
    data["name"] = ["Staff's name"]
    return save(admin_client, url, data)


def assert_the_player_s_save_stands(response, army_list: ArmyList) -> None:
    assert response.status_code == 200  # the form again, with the message
    assert LIST_CHANGED in page_text(response)
    army_list.refresh_from_db()
    assert (army_list.name, army_list.version) == ("The player's own name", 2)


def test_a_list_its_player_saved_meanwhile_is_not_overwritten(admin_client, army_list):
    response = staff_rename(
        admin_client, army_list, meanwhile=lambda: player_saves_list(army_list, "The player's own name")
    )
    assert_the_player_s_save_stands(response, army_list)


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_a_player_save_between_the_admin_s_check_and_its_write_is_not_overwritten(
    admin_client, make_aof_book, monkeypatch
):
    """The player's save (from a connection of its own, committed) lands after the form's
    check passed: the admin's write finds the list moved on, writes nothing, and the form
    says so."""
    sync_rulesets()  # transactional tests may run after one that emptied the tables
    clear_all()
    book_import(data=make_aof_book())
    player = get_user_model().objects.create_user("player-one", password="not-a-real-pass-123")
    army_list = wardens_list(player, ["wardens"], name="Border Watch", points=500)

    def player_saves_first(**kwargs):
        def save() -> None:
            try:
                player_saves_list(ArmyList.objects.get(pk=army_list.pk), "The player's own name")
            finally:
                connections.close_all()

        thread = threading.Thread(target=save)
        thread.start()
        thread.join()
        return services.army_list_update(**kwargs)

    monkeypatch.setattr(admin, "army_list_update", player_saves_first)
    assert_the_player_s_save_stands(staff_rename(admin_client, army_list), army_list)


# -- event packs ------------------------------------------------------------------------------
def test_a_pack_edited_in_the_admin_is_saved_with_its_version_bumped(admin_client, pack):
    url, data = change_form(admin_client, pack)
    assert "organiser" not in data  # chosen when the pack was made
    data["points_limit"] = ["750"]
    data["caps"] = ['[{"faction": "test-wardens", "unit": "wardens", "max": 1}]']
    assert save(admin_client, url, data).status_code == 302
    pack.refresh_from_db()
    assert (pack.points_limit, pack.version) == (750, 2)
    assert pack.caps == [{"faction": "test-wardens", "unit": "wardens", "max": 1}]


def test_a_pack_made_in_the_admin_is_checked_and_saved(admin_client, wardens, player):
    form = {
        "organiser": player.pk,
        "name": "Club Night",
        "ruleset": Ruleset.objects.get(slug="aof").pk,
        "points_limit": "500",
        "deadline_0": "2030-01-02",
        "deadline_1": "18:00:00",
        "factions": "[]",
        "limit_changes": "{}",
        "limits_removed": "[]",
        "limits_added": "[]",
        "bans": '[{"faction": "test-wardens", "unit": "dragon"}]',
        "caps": "[]",
        "books": "current",
    }
    response = admin_client.post("/admin/events/eventpack/add/", form)
    assert 'bans[0].unit: No unit "dragon" in Test Wardens.' in page_text(response)
    assert not EventPack.objects.exists()
    form["bans"] = "[]"
    assert admin_client.post("/admin/events/eventpack/add/", form).status_code == 302
    assert EventPack.objects.get().organiser == player


def test_a_bad_pack_rule_is_named_where_it_is_and_nothing_is_saved(admin_client, pack):
    url, data = change_form(admin_client, pack)
    data["points_limit"] = ["750"]
    data["caps"] = ['[{"faction": "test-wardens", "unit": "dragon", "max": 1}]']
    response = save(admin_client, url, data)
    assert response.status_code == 200
    assert 'caps[0].unit: No unit "dragon" in Test Wardens.' in page_text(response)
    pack.refresh_from_db()
    assert (pack.points_limit, pack.caps, pack.version) == (500, [], 1)


def test_a_pack_its_organiser_changed_meanwhile_is_not_overwritten(admin_client, pack):
    url, data = change_form(admin_client, pack)
    event_services.pack_update(pack=EventPack.objects.get(pk=pack.pk), data={"name": "Club Night (moved)"}, based_on=1)
    data["points_limit"] = ["750"]
    response = save(admin_client, url, data)
    assert response.status_code == 200
    assert PACK_CHANGED in page_text(response)
    pack.refresh_from_db()
    assert (pack.name, pack.points_limit, pack.version) == ("Club Night (moved)", 500, 2)


# -- display names ----------------------------------------------------------------------------
def test_staff_find_a_profile_by_username_or_display_name(admin_client, profile):
    for query in ("player-one", "Rude"):
        page = admin_client.get("/admin/accounts/profile/", {"q": query}).content.decode()
        assert "player-one" in page and "Rude Name" in page


def test_staff_change_a_display_name_and_its_version_is_bumped(admin_client, profile):
    url, data = change_form(admin_client, profile)
    data["display_name"] = ["  Polite Name "]
    assert save(admin_client, url, data).status_code == 302
    profile.refresh_from_db()
    assert (profile.display_name, profile.version) == ("Polite Name", 2)


def test_staff_empty_a_display_name_and_others_see_the_site_s_name(admin_client, profile, player):
    url, data = change_form(admin_client, profile)
    data["display_name"] = [""]
    assert save(admin_client, url, data).status_code == 302
    assert accounts.display_name(get_user_model().objects.get(pk=player.pk)) == accounts.default_name(player.pk)


def test_a_display_name_with_a_control_character_is_refused(admin_client, profile):
    url, data = change_form(admin_client, profile)
    data["display_name"] = ["Polite\u0007Name"]
    response = save(admin_client, url, data)
    assert response.status_code == 200
    assert "The display name holds control or invisible characters (U+0007)" in page_text(response)
    profile.refresh_from_db()
    assert (profile.display_name, profile.version) == ("Rude Name", 1)


def test_a_display_name_its_user_changed_meanwhile_is_not_overwritten(admin_client, profile, player):
    url, data = change_form(admin_client, profile)
    accounts.account_update(user=player, email="", display_name="Their New Name", version=profile.version)
    data["display_name"] = ["Polite Name"]
    response = save(admin_client, url, data)
    assert response.status_code == 200
    assert PROFILE_CHANGED in page_text(response)
    profile.refresh_from_db()
    assert (profile.display_name, profile.version) == ("Their New Name", 2)
