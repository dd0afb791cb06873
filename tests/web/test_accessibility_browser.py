"""axe-core in Chromium on the pages people meet (issue 26): the start page, the builder
(empty, and 50 entries with an upgrade editor open), My lists, a share page, a rules
page, an event pack's page and the log-in page, on a desktop and a phone. No serious or
critical violation may remain; the lesser ones are printed for whoever looks next."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from playwright.sync_api import expect

from armybuilder.events import services as event_services
from armybuilder.lists.models import ArmyList
from bench.benchenv import bench_list
from factions.selectors import engine_book_get

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
BLOCKING = ("serious", "critical")


@pytest.fixture
def player(books):
    return get_user_model().objects.create_user("axe-player", password="a-long-test-pass-4821")


def signed_in(open_page, user, viewport):
    """A browser of its own with the user's session cookie."""
    client = Client()
    client.force_login(user)
    page = open_page(viewport)
    page.context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": page.base_url,
            }
        ]
    )
    return page


def _list(player, book, name: str, points: int, entries: list[dict]) -> ArmyList:
    return ArmyList.objects.create(
        owner=player,
        name=name,
        system="aof",
        faction="human-empire",
        book_version=book.version,
        points_limit=points,
        entries=[{"combined": False, "joined_to": None, "name": None, **e} for e in entries],
    )


def pages_to_check(player) -> dict[str, str]:
    book, _ruleset = engine_book_get(system="aof", slug="human-empire")
    body = bench_list(book, 50)
    empty = _list(player, book, "Empty", 1000, [])
    big = _list(player, book, "Fifty", body["points_limit"], body["entries"])
    pack = event_services.pack_create(
        organiser=player,
        data={"name": "Club Night", "ruleset": "aof", "points_limit": 1000, "deadline": "2999-12-31T18:00:00+00:00"},
    )
    return {
        "start": "/",
        "builder-empty": f"/lists/{empty.pk}/",
        "builder-50-editor": f"/lists/{big.pk}/?entry=e3",
        "my-lists": "/lists/",
        "share": big.share_path,
        "rules": "/rules/aof/",
        "event": f"/events/{pack.key}/",
    }


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_serious_accessibility_violation(open_page, player, viewport):
    axe = Axe()
    found = {}
    page = signed_in(open_page, player, viewport)
    pages = pages_to_check(player)
    for name, path in pages.items():
        page.goto(page.base_url + path)
        result = axe.run(page).response
        assert result["passes"], f"axe checked nothing on {name}"
        print(name, page.title(), len(result["passes"]), "rules passed")
        found[name] = result["violations"]
    # The builder with its units to add open (on a phone, the panel over the list) and a unit just added.
    page.goto(page.base_url + pages["builder-empty"])
    if page.locator(".totals .open-adding").is_visible():
        page.locator(".totals .open-adding").click()
    page.locator("#units-panel button[id^=add-]").first.click()
    expect(page.locator("#added")).to_contain_text("Added ")
    page.fill("#unit-search", "a")
    found["builder, adding"] = axe.run(page).response["violations"]
    login = open_page(viewport)
    login.goto(login.base_url + "/accounts/login/")
    found["log-in"] = axe.run(login).response["violations"]
    blocking = [
        f"{name}: {v['id']} ({v['impact']}) {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for name, violations in found.items()
        for v in violations
        if v["impact"] in BLOCKING
    ]
    for name, violations in found.items():
        for v in violations:
            if v["impact"] not in BLOCKING:
                print(f"{name}: {v['id']} ({v['impact']}) {v['help']}")
    assert blocking == [], "\n".join(blocking)
