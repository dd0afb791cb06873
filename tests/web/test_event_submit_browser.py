"""The event's "Submit one of your lists" menu in the browser (issue 36, point 6), on
phones (by touch) and a desktop: a player with two lists of one name and one built for
the event tells them apart by book and version, points and when each was last changed,
and submits the older one. Nothing runs off the side of the screen."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from tests.support.browser import OUTPUT, SIZES, fits_the_screen, press

pytestmark = pytest.mark.browser

PASSWORD = "a-long-test-pass-4821"


def human_list(owner, name: str, units: list[str], *, event=None):
    """A saved Human Empire list (the bundled book) of `owner`, one entry per unit id."""
    from armybuilder.lists import services
    from armybuilder.lists.format import parse_list_body

    body = {
        "name": name,
        "system": "aof",
        "faction": "human-empire",
        "points_limit": 500,
        "entries": [{"id": f"e{i}", "unit": unit} for i, unit in enumerate(units)],
    }
    if event is not None:
        body["event"] = event.key
    data, _handle = parse_list_body(body)
    return services.army_list_create(data=data, owner=owner)


def changed(army_list) -> str:
    return timezone.localtime(army_list.updated).strftime("%-d %b %Y, %H:%M")


@pytest.fixture
def club_night(books):
    from armybuilder.events import services as event_services

    organiser = get_user_model().objects.create_user("organiser", password=PASSWORD)
    data = {"name": "Club Night", "ruleset": "aof", "points_limit": 500, "deadline": timezone.now() + timedelta(days=7)}
    return event_services.pack_create(organiser=organiser, data=data)


@pytest.mark.parametrize("viewport", SIZES, ids=[str(size["width"]) for size in SIZES])
def test_a_player_tells_lists_of_one_name_apart_and_submits_the_older(open_page, club_night, viewport):
    from armybuilder.lists.models import ArmyList

    player = get_user_model().objects.create_user("ann", password=PASSWORD)
    older = human_list(player, "Border Patrol", ["pike-levy"])
    ArmyList.objects.filter(pk=older.pk).update(updated=timezone.now() - timedelta(days=3))
    older.refresh_from_db()
    newer = human_list(player, "Border Patrol", ["marshal", "pike-levy"])
    for_the_event = human_list(player, "", ["longbowmen"], event=club_night)
    version = older.book_version

    page = open_page(viewport)
    width = viewport["width"]
    page.goto(f"{page.base_url}/accounts/login/?next={club_night.path}")
    page.get_by_label("Username:").fill("ann")
    page.get_by_label("Password:").fill(PASSWORD)
    press(page, page.get_by_role("button", name="Log in"))
    expect(page.get_by_role("heading", name="Submit one of your lists")).to_be_visible()

    menu = page.get_by_label("Your list", exact=True)
    expect(menu.locator("option")).to_have_text(
        [
            f"Unnamed list · Human Empire {version} · 115/500 pts · changed {changed(for_the_event)}"
            " · built for this event",
            f"Border Patrol · Human Empire {version} · 170/500 pts · changed {changed(newer)}",
            f"Border Patrol · Human Empire {version} · 100/500 pts · changed {changed(older)}",
        ]
    )
    fits_the_screen(page, width)
    card = page.locator("section.card", has=page.get_by_role("heading", name="Submit one of your lists"))
    card.scroll_into_view_if_needed()
    OUTPUT.mkdir(exist_ok=True)
    card.screenshot(path=str(OUTPUT / f"event-submit-menu-{width}.png"))
    # A picture of every option as the menu lists them (a headless browser draws no open
    # menu): the same select, shown as a list box for the photograph only.
    menu.evaluate("select => { select.size = select.options.length; }")
    card.screenshot(path=str(OUTPUT / f"event-submit-options-{width}.png"))
    menu.evaluate("select => { select.size = 0; }")

    menu.select_option(str(older.pk))
    press(page, page.get_by_role("button", name="Submit", exact=True))
    expect(page.locator(".messages")).to_contain_text("Submitted Border Patrol to Club Night.")
    expect(page.locator("#your-submission")).to_contain_text("Border Patrol")
    expect(page.locator("#your-submission")).to_contain_text("100/500 pts")
    fits_the_screen(page, width)
