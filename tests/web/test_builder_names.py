"""On the builder's page (issue 26, "hard to see"): entries of the same name are told
apart, a unit names the hero joined to it, and a hero that joins a unit sits with it."""

from __future__ import annotations

import re

from tests.web import test_builder_content

army_list = test_builder_content.army_list  # the fixture: a Test Wardens list made on the page
act = test_builder_content.act


def add(client, army_list, unit: str) -> str:
    act(client, army_list, action="add", unit=unit)
    army_list.refresh_from_db()
    return army_list.entries[-1]["id"]


def headings(page: str) -> list[str]:
    return re.findall(r'<a class="name" href="[^"]*" data-open><bdi>([^<]*)</bdi></a>', page)


def test_same_named_entries_are_told_apart_on_the_page_and_in_the_join_choice(army_list, client):
    first, second = add(client, army_list, "wardens-0"), add(client, army_list, "wardens-0")
    captain = add(client, army_list, "warden-captain")
    page = client.get(f"/lists/{army_list.pk}/").content.decode()
    assert headings(page)[:2] == ["Wardens Cohort 0", "Wardens Cohort 0 (2)"]
    choice = page.split(f'id="join-{captain}"', 1)[1].split("</select>", 1)[0]
    options = re.findall(r'<option value="(\w+)" >([^<]+)</option>', choice)
    assert options == [(first, "Wardens Cohort 0"), (second, "Wardens Cohort 0 (2)")]
    assert 'aria-label="Remove Wardens Cohort 0 (2)"' in page


def test_a_joined_hero_sits_after_its_unit_which_names_it(army_list, client):
    unit = add(client, army_list, "wardens-0")
    add(client, army_list, "wardens-0")
    captain = add(client, army_list, "warden-captain")
    act(client, army_list, action="move", entry=captain, step="up")
    act(client, army_list, action="move", entry=captain, step="up")
    army_list.refresh_from_db()
    assert [e["id"] for e in army_list.entries][0] == captain
    act(client, army_list, action="join", entry=captain, target=unit)
    army_list.refresh_from_db()
    assert [e["id"] for e in army_list.entries][:2] == [unit, captain]
    page = client.get(f"/lists/{army_list.pk}/").content.decode()
    unit_piece = page.split(f'id="entry-{unit}"', 1)[1].split("</header>", 1)[0]
    assert '<span class="joined-by">with <bdi>Warden Captain</bdi></span>' in unit_piece
    act(client, army_list, action="join", entry=captain, target="")
    army_list.refresh_from_db()
    assert [e["id"] for e in army_list.entries][:2] == [unit, captain], "leaving stays in place"


def test_issue_codes_stay_in_the_api_and_off_the_page(army_list, client):
    """The page says what is wrong and where the rulebook says so; the stable codes
    (`points_over_limit`, …) are for the API's clients, not for players."""
    for _ in range(5):  # too many copies of one unit, too many units
        add(client, army_list, "wardens-0")
    codes = {issue["code"] for issue in client.get(f"/api/lists/{army_list.pk}/").json()["validation"]["issues"]}
    assert {"too_many_copies"} <= codes
    page = client.get(f"/lists/{army_list.pk}/").content.decode()
    shown = re.sub(r"<[^>]+>", " ", page)  # the text a player reads, not the attributes
    assert [code for code in codes if code in shown] == []
