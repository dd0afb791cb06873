"""An event in the browser, as the people in it click through it: the organiser signs up
and makes a pack (single units at most 30% of the points instead of 35%), one player
builds a list from the pack's page and another enters a list they had for it by its
link, both submit, and the organiser's page shows both, checked: one valid, the other
with the issue that names the event's rule. The organiser's page is photographed on a
desktop and on a phone."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from tests.support.browser import OUTPUT, fits_the_screen

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PASSWORD = "a-long-test-pass-4821"


@pytest.fixture
def person(open_page):
    """A new browser of its own for each person (their own cookies), at a screen size."""
    return lambda viewport=DESKTOP: open_page(viewport)


def sign_up(page: Page, username: str, then: str, display_name: str = "") -> None:
    page.goto(f"{page.base_url}{then}")
    page.get_by_role("link", name="Sign up").first.click()
    page.get_by_label("Username:").fill(username)
    page.get_by_label("Display name (optional):").fill(display_name)
    page.get_by_label("Password:", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation:").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page.locator("header.top")).to_contain_text(username)


def add(page: Page, unit: str) -> None:
    count = page.locator("article.entry").count()
    page.locator(f"button[aria-label^='Add {unit} (']").click()
    expect(page.locator("article.entry")).to_have_count(count + 1)


def make_pack(page: Page) -> str:
    """The organiser's pack, made and changed through its forms; its address."""
    page.goto(f"{page.base_url}/events/")
    page.get_by_role("link", name="New event pack").click()
    page.get_by_label("Name").fill("Club Night")
    page.get_by_label("Description").fill("Thursday games at the club: 500 points, painted or not.")
    page.get_by_label("Ruleset").select_option(label="Age of Fantasy 3.2.0")
    page.get_by_label("Points").fill("500")
    closes = timezone.localtime(timezone.now() + timedelta(days=14)).strftime("%Y-%m-%dT%H:%M")
    page.get_by_label("Submissions close").fill(closes)
    page.get_by_role("button", name="Make the pack").click()
    expect(page.locator(".messages")).to_contain_text("Made Club Night.")
    address = page.url

    page.get_by_role("link", name="Edit").click()
    limit = page.locator("#limit-unit_too_expensive")
    expect(limit).to_contain_text("No single unit may cost more than 35% of the points limit")
    limit.get_by_label("Percent of the points").fill("30")
    limit.get_by_role("button", name="Save").click()
    expect(page.locator(".messages")).to_contain_text(
        "Saved: No single unit may cost more than 30% of the points limit."
    )
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / "event-edit-1280.png"), full_page=True)
    page.get_by_role("link", name="Back to the pack's page").click()
    expect(page.locator("#event-rules")).to_contain_text("No single unit may cost more than 30% of the points limit")
    return address


def submit(page: Page, list_name: str) -> None:
    """On the pack's page: pick the list and submit it."""
    choice = page.locator("#submit-army_list option", has_text=list_name).get_attribute("value")
    page.get_by_label("Your list", exact=True).select_option(choice)
    page.get_by_role("button", name="Submit").click()
    expect(page.locator(".messages")).to_contain_text(f"Submitted {list_name} to Club Night.")
    expect(page.locator("#your-submission")).to_contain_text(list_name)


def test_an_organiser_sees_two_submissions_checked_against_the_event_s_rules(person):
    organiser = person()
    sign_up(organiser, "organiser", "/events/")
    address = make_pack(organiser)

    # The first player builds a list from the pack's page: it comes at the event's size.
    first = person()
    sign_up(first, "ann", address.removeprefix(first.base_url), display_name="Ann of the Marches")
    first.get_by_label("Army", exact=True).select_option(label="Human Empire")
    first.get_by_label("List name (optional)").fill("Ann's Empire")
    first.get_by_role("button", name="Build a list").click()
    expect(first).to_have_url(re.compile(r"/lists/\d+/"))
    expect(first.locator("#event")).to_contain_text("Club Night")
    expect(first.locator("#event")).to_contain_text("No single unit may cost more than 30% of the points limit")
    for unit in ("Marshal", "Pike Levy", "Longbowmen"):
        add(first, unit)
    expect(first.locator("#points")).to_have_text("285/500 pts")
    expect(first.locator("#status")).to_contain_text("legal")
    first.locator("#event").get_by_role("link", name="Club Night").click()
    submit(first, "Ann's Empire")
    expect(first.locator("#your-submission")).to_contain_text("✔ valid")

    # The second had a list already, and enters it by pasting the pack's link.
    second = person()
    sign_up(second, "bob", "/")
    second.get_by_role("link", name="Start an Age of Fantasy list").click()
    second.check("input[name=faction][value=human-empire]")
    second.fill("#points", "1000")
    second.fill("#name", "Bob's Giant")
    second.get_by_role("button", name="Create list").click()
    add(second, "Hill Giant Mercenary")
    add(second, "Marshal")
    second.get_by_label("Event", exact=True).fill(address)
    second.get_by_role("button", name="Build for this event").click()
    expect(second.locator(".messages")).to_contain_text("This list is built for Club Night.")
    expect(second.locator("#points")).to_have_text("295/500 pts")
    expect(second.locator("#issues")).to_contain_text("Event rule:")
    expect(second.locator("#event")).to_contain_text("Submissions close")
    second.screenshot(path=str(OUTPUT / "event-builder-1280.png"), full_page=True)
    second.locator("#event").get_by_role("link", name="Club Night").click()
    submit(second, "Bob's Giant")
    expect(second.locator("#your-submission")).to_contain_text("✘ 1 issue")

    organiser.reload()
    rows = organiser.locator("#submissions tbody tr")
    expect(rows).to_have_count(2)
    # Each player by the name they chose, or "Player" and a number: never by their username.
    expect(rows.nth(0)).to_contain_text("Ann of the Marches")
    expect(rows.nth(0)).to_contain_text("285/500")
    expect(rows.nth(0)).to_contain_text("✔ valid")
    expect(rows.nth(1)).to_contain_text(re.compile(r"Player \d{6}"))
    expect(organiser.locator("#submissions")).not_to_contain_text(re.compile(r"\b(ann|bob)\b"))
    expect(rows.nth(1)).to_contain_text("295/500")
    expect(rows.nth(1)).to_contain_text("✘ 1 issue")
    expect(rows.nth(1)).to_contain_text("Event rule: ")
    expect(rows.nth(1)).to_contain_text("30% of 500 pts")
    expect(rows.nth(1)).to_contain_text("Club Night — event rule")
    expect(organiser.get_by_role("link", name="Combined roster (PDF)")).to_be_visible()
    expect(organiser.get_by_role("link", name="Submissions (CSV)")).to_be_visible()
    organiser.screenshot(path=str(OUTPUT / "event-organiser-1280.png"), full_page=True)

    # The same page on the organiser's phone: nothing scrolls sideways, every control fits a thumb.
    phone = person(PHONE)
    phone.context.add_cookies(organiser.context.cookies())
    phone.goto(address)
    expect(phone.locator("#submissions")).to_contain_text("Event rule: ")
    fits_the_screen(phone, PHONE["width"])
    phone.screenshot(path=str(OUTPUT / "event-organiser-390.png"), full_page=True)
    phone.get_by_role("link", name="Edit").click()
    expect(phone.locator("#limit-unit_too_expensive")).to_contain_text("30%")
    fits_the_screen(phone, PHONE["width"])
    phone.screenshot(path=str(OUTPUT / "event-edit-390.png"), full_page=True)
