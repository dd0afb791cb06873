"""Mistakes undone: a Remove, or Clear (every unit), is undone from the message that
confirms it, as one more builder action (armybuilder/web/undo.py)."""

import json
import re

import pytest
from django.core import signing

from armybuilder.lists import editing
from armybuilder.lists.models import ArmyList
from armybuilder.web import undo

ALTERED = "This Undo is not one this page was given for this list (it was altered): nothing was put back."


@pytest.fixture
def army_list(wardens, client) -> ArmyList:
    """Wardens (e1); Wardens (2) (e2), named, upgraded and combined, joined by a Warden
    Captain (e3); and a second Warden Captain (e4) on its own."""
    assert client.post("/new/aof/", {"faction": "test-wardens", "points": "1500"}).status_code == 302
    army_list = ArmyList.objects.get()
    for unit in ("wardens", "wardens", "warden-captain", "warden-captain"):
        act(client, army_list, action="add", unit=unit)
    act(client, army_list, action="rename", entry="e2", name="Gate Watch")
    act(client, army_list, action="options", entry="e2", bump="TROOPS-1a:+1")
    act(client, army_list, action="combine", entry="e2", combined="1")
    act(client, army_list, action="join", entry="e3", target="e2")
    return army_list


def act(client, army_list, **fields):
    army_list.refresh_from_db()
    return client.post(f"/lists/{army_list.pk}/act/", {"version": army_list.version, **fields})


def saved(army_list) -> tuple[int, list]:
    army_list.refresh_from_db()
    return army_list.version, army_list.entries


def offered_undo(client, response) -> str:
    """The Undo the message on the builder (after a removal's redirect) offers."""
    page = client.get(response["Location"]).content.decode()
    return re.search(r'name="undo" value="([^"]+)"', page).group(1)


def test_a_removed_unit_comes_back_as_it_was_with_the_hero_that_had_joined_it(army_list, client):
    _version, before = saved(army_list)
    assert before[2] == {**before[2], "id": "e3", "joined_to": "e2"}
    response = act(client, army_list, action="remove", entry="e2")
    assert [(e["id"], e["joined_to"]) for e in saved(army_list)[1]] == [("e1", None), ("e3", None), ("e4", None)]
    page = client.get(response["Location"]).content.decode()
    assert "Removed Gate Watch." in page and re.search(r"<button[^>]*autofocus[^>]*>Undo</button>", page)
    token = re.search(r'name="undo" value="([^"]+)"', page).group(1)

    response = act(client, army_list, action="undo", undo=token)
    assert response.status_code == 302
    assert saved(army_list)[1] == before
    assert "Put back Gate Watch." in client.get(response["Location"]).content.decode()


def test_a_removed_hero_joins_its_unit_again(army_list, client):
    _version, before = saved(army_list)
    token = offered_undo(client, act(client, army_list, action="remove", entry="e3"))
    act(client, army_list, action="undo", undo=token)
    assert saved(army_list)[1] == before


def test_a_live_removal_answers_with_its_undo_and_the_undo_with_the_list_as_it_was(army_list, client):
    _version, before = saved(army_list)
    version = army_list.version
    url = f"/lists/{army_list.pk}/act/"
    response = client.post(url, {"version": version, "action": "remove", "entry": "e1"}, HTTP_X_LIVE="1")
    assert response.status_code == 200 and b"Removed Wardens." in response.content
    shown = " ".join(json.loads(response.content)["html"].values())  # the pieces the page swaps in
    token = re.search(r'name="undo" value="([^"]+)"', shown).group(1)
    response = client.post(url, {"version": version + 1, "action": "undo", "undo": token}, HTTP_X_LIVE="1")
    assert response.status_code == 200 and b"Put back Wardens." in response.content
    assert saved(army_list)[1] == before


def test_clear_removes_every_unit_and_its_undo_puts_them_all_back(army_list, client):
    _version, before = saved(army_list)
    response = act(client, army_list, action="clear")
    assert saved(army_list)[1] == []
    page = client.get(response["Location"]).content.decode()
    assert "Removed all 4 units." in page and 'id="clear-list"' not in page
    token = re.search(r'name="undo" value="([^"]+)"', page).group(1)
    act(client, army_list, action="undo", undo=token)
    assert saved(army_list)[1] == before


def test_clear_is_offered_in_the_list_settings_and_refused_on_an_empty_list(wardens, client):
    assert client.post("/new/aof/", {"faction": "test-wardens", "points": "1500"}).status_code == 302
    army_list = ArmyList.objects.get()
    response = act(client, army_list, action="clear")
    assert "The list has no units to remove." in client.get(response["Location"]).content.decode()
    assert saved(army_list) == (1, [])
    act(client, army_list, action="add", unit="wardens")
    assert 'id="clear-list"' in client.get(f"/lists/{army_list.pk}/").content.decode()


def test_an_undo_after_other_changes_puts_the_unit_back_under_a_new_id_if_its_own_is_taken(army_list, client):
    token = offered_undo(client, act(client, army_list, action="remove", entry="e4"))
    act(client, army_list, action="add", unit="wardens")  # takes the id e4
    act(client, army_list, action="undo", undo=token)
    assert [(e["id"], e["unit"]) for e in saved(army_list)[1]] == [
        ("e1", "wardens"),
        ("e2", "wardens"),
        ("e3", "warden-captain"),
        ("e5", "warden-captain"),
        ("e4", "wardens"),
    ]


def test_an_undo_used_once_is_refused_the_second_time(army_list, client):
    token = offered_undo(client, act(client, army_list, action="remove", entry="e1"))
    act(client, army_list, action="undo", undo=token)
    state = saved(army_list)
    response = act(client, army_list, action="undo", undo=token)
    assert "This was undone already: nothing more was put back." in client.get(response["Location"]).content.decode()
    assert saved(army_list) == state


def test_an_undo_is_used_once_whatever_the_session(wardens, client, user):
    """Three sessions of one player (three tabs, a phone and a laptop) sent the same Undo:
    the unit comes back once (issue 37). The key is taken in the database, not the session."""
    from django.test import Client

    client.force_login(user)
    assert client.post("/new/aof/", {"faction": "test-wardens", "points": "1500"}).status_code == 302
    army_list = ArmyList.objects.get()
    for unit in ("wardens", "warden-captain"):
        act(client, army_list, action="add", unit=unit)
    token = offered_undo(client, act(client, army_list, action="remove", entry="e1"))
    others = [Client(), Client()]
    for other in others:
        other.force_login(user)
    assert act(client, army_list, action="undo", undo=token).status_code == 302
    state = saved(army_list)
    assert [e["unit"] for e in state[1]].count("wardens") == 1
    for other in others:
        response = act(other, army_list, action="undo", undo=token)
        assert "This was undone already: nothing more was put back." in other.get(response["Location"]).content.decode()
    assert saved(army_list) == state


def test_an_undo_refused_for_an_old_version_can_still_be_used(army_list, client):
    """A change that is not saved (the list moved on in another tab) lets the Undo's key go."""
    token = offered_undo(client, act(client, army_list, action="remove", entry="e1"))
    version, entries = saved(army_list)
    stale = client.post(f"/lists/{army_list.pk}/act/", {"version": version - 1, "action": "undo", "undo": token})
    assert "changed elsewhere" in client.get(stale["Location"]).content.decode()
    assert saved(army_list) == (version, entries)
    act(client, army_list, action="undo", undo=token)
    assert len(saved(army_list)[1]) == len(entries) + 1


def altered(token: str) -> str:
    """The token with one character of what it carries changed."""
    i = len(token) // 3
    return token[:i] + ("A" if token[i] != "A" else "B") + token[i + 1 :]


def test_an_altered_undo_is_refused_in_words_and_changes_nothing(army_list, client):
    token = offered_undo(client, act(client, army_list, action="remove", entry="e1"))
    state = saved(army_list)
    for sent in (altered(token), "", "not-a-token"):
        response = act(client, army_list, action="undo", undo=sent)
        page = client.get(response["Location"]).content.decode()
        assert f"That change could not be made: {ALTERED}" in page
        assert saved(army_list) == state


def test_an_undo_signed_for_another_list_is_refused(army_list, client):
    other = undo.token(army_list.pk + 1, undo.Removed("Wardens", editing.Removal(((0, army_list.entries[0]),))))
    state = saved(army_list)
    response = act(client, army_list, action="undo", undo=other)
    assert ALTERED in client.get(response["Location"]).content.decode()
    assert saved(army_list) == state


@pytest.mark.parametrize(
    "removed",
    [
        [[0, {"id": "e9", "unit": "wardens", "options": {"x": -1}}]],
        [[0, {"id": "e9", "unit": "wardens", "extra": 1}]],
        [[-1, {"id": "e9", "unit": "wardens"}]],
        [[0, "e9"]],
        [],
    ],
    ids=["bad-picks", "unknown-field", "bad-place", "not-an-entry", "nothing"],
)
def test_an_undo_carrying_a_malformed_entry_is_refused_even_when_signed(army_list, client, removed):
    """Were the site's key ever known to someone, an Undo still puts back only well-formed
    entries."""
    body = {"key": "k", "what": "Wardens", "removed": removed, "unjoined": {}}
    forged = signing.dumps(body, salt=f"{undo.SALT}:{army_list.pk}", compress=True)
    state = saved(army_list)
    response = act(client, army_list, action="undo", undo=forged)
    assert ALTERED in client.get(response["Location"]).content.decode()
    assert saved(army_list) == state


def test_an_undo_from_a_stale_page_is_refused(army_list, client):
    url = f"/lists/{army_list.pk}/act/"
    response = act(client, army_list, action="remove", entry="e1")
    token = offered_undo(client, response)
    version, _entries = saved(army_list)
    act(client, army_list, action="rename", entry="e4", name="Elsewhere")
    state = saved(army_list)
    response = client.post(url, {"version": version, "action": "undo", "undo": token}, HTTP_X_LIVE="1")
    assert response.status_code == 409 and b"changed elsewhere" in response.content
    assert saved(army_list) == state
    act(client, army_list, action="undo", undo=token)  # from the page as it is now: still good
    assert [e["id"] for e in saved(army_list)[1]] == ["e1", "e2", "e3", "e4"]


def test_an_undo_older_than_a_day_is_refused(army_list, client, monkeypatch):
    token = offered_undo(client, act(client, army_list, action="remove", entry="e1"))
    state = saved(army_list)
    monkeypatch.setattr(undo, "MAX_AGE", -1)
    response = act(client, army_list, action="undo", undo=token)
    assert "This Undo is more than a day old" in client.get(response["Location"]).content.decode()
    assert saved(army_list) == state


# -- putting back, as a change to the entries (lists/editing.py) ----------------------------------
def entry(entry_id: str, unit: str = "wardens", joined_to: str | None = None) -> dict:
    return editing.blank_entry(entry_id, unit) | {"joined_to": joined_to}


def test_a_hero_joined_elsewhere_since_is_left_where_it_is():
    before = [entry("e1"), entry("e2", "warden-captain", joined_to="e1"), entry("e3")]
    after, removal = editing.remove_entry(before, "e1")
    after = editing.set_joined(after, "e2", "e3")
    assert editing.restore_entries(after, removal) == [entry("e1"), entry("e3"), entry("e2", "warden-captain", "e3")]


def test_a_hero_put_back_stays_unjoined_if_its_unit_has_another_hero_now():
    before = [entry("e1"), entry("e2", "warden-captain", joined_to="e1"), entry("e3", "warden-captain")]
    after, removal = editing.remove_entry(before, "e2")
    after = editing.set_joined(after, "e3", "e1")
    restored = editing.restore_entries(after, removal)
    assert [(e["id"], e["joined_to"]) for e in restored] == [("e1", None), ("e2", None), ("e3", "e1")]


def test_a_whole_list_put_back_into_a_list_begun_again_keeps_its_heroes_with_their_units():
    before = [entry("e1"), entry("e2", "warden-captain", joined_to="e1")]
    emptied, removal = editing.remove_entries(before, ["e1", "e2"])
    begun, _new = editing.add_entry(emptied, "wardens")  # takes the id e1
    restored = editing.restore_entries(begun, removal)
    assert [(e["id"], e["joined_to"]) for e in restored] == [("e3", None), ("e2", "e3"), ("e1", None)]


def test_the_largest_list_cleared_comes_back_whole(wardens, client):
    """500 entries: the Undo's form outgrows the message cookie and travels in the session."""
    assert client.post("/new/aof/", {"faction": "test-wardens", "points": "1500"}).status_code == 302
    army_list = ArmyList.objects.get()
    army_list.entries = [editing.blank_entry(f"e{i}", "wardens") | {"name": f"Watch {i}"} for i in range(1, 501)]
    army_list.save()
    before = saved(army_list)[1]
    token = offered_undo(client, act(client, army_list, action="clear"))
    assert len(token) < 20_000
    act(client, army_list, action="undo", undo=token)
    assert saved(army_list)[1] == before
