"""No dead ends: an error page offers a way on, and the builder never pastes one inside
itself when a live change is answered with an error."""

import re

import pytest
from playwright.sync_api import Page, expect

from armybuilder.lists.models import ArmyList
from tests.support.browser import OUTPUT, fits_the_screen

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def start(page: Page) -> ArmyList:
    page.goto(page.base_url + "/new/aof/")
    page.check("input[name=faction][value=human-empire]")
    page.fill("#points", "2000")
    page.get_by_role("button", name="Create list").click()
    expect(page).to_have_url(re.compile(r"/lists/\d+/"))
    # The builder's script has taken over its forms (else a click is a plain form post,
    # which a busy machine showed: the 502 page itself, not the builder's message).
    page.wait_for_load_state("load")
    return ArmyList.objects.get(pk=int(re.search(r"/lists/(\d+)/", page.url).group(1)))


def nothing_pasted(page: Page) -> None:
    """One page: one site header, no second heading or layout inside the workspace."""
    expect(page.locator("header.top")).to_have_count(1)
    expect(page.locator("#workspace .site, #workspace h1, #workspace main")).to_have_count(0)


def test_plus_on_a_list_deleted_in_another_tab_says_so_with_a_way_on(open_page):
    page = open_page(DESKTOP)
    army_list = start(page)
    ArmyList.objects.filter(pk=army_list.pk).delete()  # as the list page of another tab does

    page.locator("button[aria-label^='Add Militia Rabble (']").click()

    message = page.locator("#workspace .messages[aria-live=assertive] li.error")
    expect(message).to_contain_text("This list is no longer among yours: it may have been deleted in another tab")
    expect(message.get_by_role("link", name="Your lists", exact=True)).to_have_attribute("href", "/lists/")
    expect(message.get_by_role("link", name="Start a list")).to_have_attribute("href", "/")
    expect(message.get_by_role("link", name="Log in to see your lists")).to_have_count(1)  # a visitor's list
    nothing_pasted(page)
    page.screenshot(path=str(OUTPUT / "error-list-gone-in-builder.png"))
    message.get_by_role("link", name="Your lists", exact=True).click()
    expect(page).to_have_url(re.compile(r"/lists/$"))


def test_an_error_from_a_proxy_is_a_message_not_a_pasted_page(open_page):
    page = open_page(DESKTOP)
    start(page)
    page.route(
        re.compile(r".*/act/$"),
        lambda route: route.fulfill(status=502, content_type="text/html", body="<html><h1>502 Bad Gateway</h1></html>"),
    )

    page.locator("button[aria-label^='Add Militia Rabble (']").click()

    message = page.locator("#workspace .messages[aria-live=assertive] li.error")
    expect(message).to_have_text("That change was not made: the site answered 502.")
    expect(page.locator("article.entry")).to_have_count(0)
    nothing_pasted(page)


@pytest.mark.parametrize("screen", [DESKTOP, PHONE], ids=["1280", "390"])
def test_the_404_page_offers_a_log_in_and_the_lists(open_page, screen):
    page = open_page(screen)
    response = page.goto(page.base_url + "/lists/99999/")
    assert response.status == 404
    expect(page.get_by_role("heading", name="Not found")).to_be_visible()
    expect(page.get_by_text("No such list among yours.")).to_be_visible()
    log_in = page.get_by_role("link", name="Log in to see your lists")
    expect(log_in).to_have_attribute("href", "/accounts/login/?next=/lists/99999/")
    fits_the_screen(page, screen["width"])
    page.screenshot(path=str(OUTPUT / f"error-404-{screen['width']}.png"), full_page=True)
    log_in.click()
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/lists/99999/$"))
