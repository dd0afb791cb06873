"""Signed in, said so (issue 36, point 5), in the browser on phones and a desktop: a
visitor builds two lists (by touch on a phone), signs up from the start page and lands on it told that both
lists are now in the account, greeted, pointed to My lists; logged out, they build one
more and log in: told of that one. Nothing runs off the side of the screen."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import OUTPUT, SIZES, fits_the_screen, press

pytestmark = pytest.mark.browser

PASSWORD = "a-long-test-pass-4821"


def build_a_list(page: Page, name: str) -> None:
    """A list made on the site's own pages, as a visitor makes one."""
    page.goto(f"{page.base_url}/")
    page.get_by_role("link", name="Start an Age of Fantasy list").click()
    page.check("input[name=faction][value=human-empire]")
    page.fill("#points", "1500")
    page.fill("#name", name)
    press(page, page.get_by_role("button", name="Create list"))
    expect(page).to_have_url(re.compile(r"/lists/\d+/"))


@pytest.mark.parametrize("viewport", SIZES, ids=[str(size["width"]) for size in SIZES])
def test_signing_up_and_logging_in_say_which_lists_came_along(open_page, viewport):
    page = open_page(viewport)
    width = viewport["width"]
    build_a_list(page, "Border Patrol")
    build_a_list(page, "Border Patrol, the second")
    page.goto(f"{page.base_url}/")
    expect(page.locator("main")).to_contain_text("No account needed")

    press(page, page.get_by_role("link", name="Sign up"))
    page.get_by_label("Username:").fill("newcomer")
    page.get_by_label("Password:", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation:").fill(PASSWORD)
    press(page, page.get_by_role("button", name="Create account"))
    expect(page).to_have_url(f"{page.base_url}/")
    expect(page.locator(".messages li")).to_have_text(["2 lists from this browser are now in your account."])
    greeting = page.locator("p.greeting")
    expect(greeting).to_contain_text("Hello, newcomer.")
    expect(page.locator("main")).not_to_contain_text("No account needed")
    fits_the_screen(page, width)
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"signed-up-{width}.png"), full_page=True)

    press(page, greeting.get_by_role("link", name="My lists"))
    expect(page.locator("main tbody tr")).to_have_count(2)
    expect(page.locator(".messages")).to_have_count(0)  # said once, on the page landed on

    # Logged out, the browser is a visitor's again: one more list, then log in.
    press(page, page.get_by_role("button", name="Log out"))
    expect(page.get_by_role("link", name="Log in")).to_be_visible()
    build_a_list(page, "Made while logged out")
    page.goto(f"{page.base_url}/")
    press(page, page.get_by_role("link", name="Log in"))
    page.get_by_label("Username:").fill("newcomer")
    page.get_by_label("Password:").fill(PASSWORD)
    press(page, page.get_by_role("button", name="Log in"))
    expect(page).to_have_url(f"{page.base_url}/")
    expect(page.locator(".messages li")).to_have_text(["1 list from this browser is now in your account."])
    fits_the_screen(page, width)
    page.screenshot(path=str(OUTPUT / f"logged-in-{width}.png"), full_page=True)
    page.goto(f"{page.base_url}/lists/")
    expect(page.locator("main tbody tr")).to_have_count(3)
