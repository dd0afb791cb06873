"""Every page fits a phone (issue 36, point 4): at 320 and 390 px wide (and on a
desktop) nothing scrolls sideways, whatever the page, with names as long as a player may
type them (a list's and an entry's 200 characters, an event's name), read off Chromium as
`document.documentElement.scrollWidth`."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

WIDTHS = {
    "320": {"width": 320, "height": 640},
    "390": {"width": 390, "height": 844},
    "1280": {"width": 1280, "height": 800},
}
LONG = "Grand Army of the Thousand Burning Suns and their Seventh Bastion Gate " * 3  # no break for a while either
UNBROKEN = "Supercalifragilisticexpialidociousandthensomemorelettersinitforgoodmeasure" * 2


def sign_up(page: Page, username: str) -> None:
    page.goto(page.base_url + "/accounts/signup/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password1]", "a long and honest passphrase 42")
    page.fill("input[name=password2]", "a long and honest passphrase 42")
    page.locator("main form button[type=submit]").click()
    expect(page).not_to_have_url(re.compile(r"/signup/"))


def make_list(page: Page, name: str) -> str:
    """A Human Empire list named `name` with a few units (one renamed at length); its url."""
    page.goto(page.base_url + "/new/aof/")
    page.check("input[name=faction][value=human-empire]")
    page.fill("#points", "2000")
    page.get_by_role("button", name="Create list").click()
    expect(page).to_have_url(re.compile(r"/lists/\d+/"))
    url = page.url.split("?")[0].split("#")[0]
    return url


@pytest.mark.parametrize("size", list(WIDTHS))
def test_no_page_scrolls_sideways(open_page, size):
    from django.contrib.auth import get_user_model

    from armybuilder.events import services as event_services
    from armybuilder.lists.models import ArmyList

    viewport = WIDTHS[size]
    page = open_page(viewport)
    sign_up(page, f"wide{size}")
    builder = make_list(page, LONG)
    army_list = ArmyList.objects.get(pk=int(re.search(r"/lists/(\d+)/", builder).group(1)))
    army_list.name = LONG[:200]
    army_list.entries = [
        {"id": "e1", "unit": "pike-levy", "options": {}, "name": UNBROKEN[:200]},
        {"id": "e2", "unit": "marshal", "options": {}, "joined_to": "e1", "name": LONG[:200]},
        {"id": "e3", "unit": "longbowmen", "options": {}},
    ]
    army_list.version += 1
    army_list.save()
    user = get_user_model().objects.get(username=f"wide{size}")
    deadline = (timezone.now() + timedelta(days=30)).isoformat()
    pack = event_services.pack_create(
        organiser=user, data={"name": LONG[:120], "ruleset": "aof", "points_limit": 2000, "deadline": deadline}
    )
    pages = [
        "/",
        "/new/aof/",
        "/lists/",
        builder,
        builder + "?entry=e1",
        builder + "book/",
        f"/s/{army_list.share_key}/",
        "/rules/aof/",
        "/books/aof/human-empire/changes/",
        "/events/",
        "/events/new/",
        pack.path,
        "/accounts/",
        "/accounts/password/",
        "/lists/import/",
        builder + "delete/",
        "/no/such/page/",
    ]
    wide = []
    for path in pages:
        page.goto(path if path.startswith("http") else page.base_url + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > viewport["width"]:
            wide.append((path, width))
    assert wide == [], f"pages wider than {viewport['width']} px: {wide}"
