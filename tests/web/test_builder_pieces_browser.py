"""The page puts together the pieces a live action sends back (web/fragments.py): after
any series of actions it is the page a fresh load draws; quick clicks all land; without
JavaScript every action is a full page post, as before."""

import re

import pytest
from playwright.sync_api import Page, expect

from armybuilder.lists.models import ArmyList
from tests.web.test_builder_keeps_up_browser import open_upgrades, settled, start

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1400, "height": 1000}
PHONE_NETWORK = {"offline": False, "latency": 150, "downloadThroughput": -1, "uploadThroughput": -1}
# The line in the panel that says what the last Add did ("Added Archers · Upgrades · Undo"): once, like a message.
ADDED = re.compile(r'(<p class="added" id="added" role="status">).*?(</p>)', re.S)
TOKEN = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*"')
MESSAGES = re.compile(r'<ul class="messages".*?</ul>', re.S)


def workspace_html(page: Page) -> str:
    """The workspace as html, the CSRF tokens blanked (each load masks it anew) and the
    messages and the line an Add leaves left out: they say what the last action did
    ("Removed … [Undo]"), once."""
    return ADDED.sub(r"\1\2", MESSAGES.sub("", TOKEN.sub(r'\1"', page.inner_html("#workspace"))))


def same_as_a_fresh_load(page: Page, army_list: ArmyList) -> None:
    shown = workspace_html(page)
    selected = page.locator("article.entry.selected")
    query = f"?entry={selected.get_attribute('id').removeprefix('entry-')}" if selected.count() else ""
    fresh = page.context.new_page()
    fresh.goto(f"{page.base_url}/lists/{army_list.pk}/{query}")
    assert shown == workspace_html(fresh)
    fresh.close()


def upgrades(page: Page, entry_id: str):
    def open_():
        page.locator(f"#entry-{entry_id}").get_by_role("link", name="Upgrades", exact=True).click()
        expect(page.locator(f"#entry-{entry_id} #editor")).to_be_visible()

    return open_


def test_after_each_action_the_page_is_what_a_fresh_load_draws(open_page):
    page = open_page(DESKTOP)
    army_list = start(page, "Pike Levy", "Marshal", "Militia Rabble")
    page.evaluate("window.__same_page = true")
    steps = [  # (whether it changes the list, what the player does)
        (True, lambda: page.locator("#add-longbowmen").click()),
        (False, upgrades(page, "e1")),
        (True, lambda: page.locator("#pick-D1b").check()),  # a check box
        (True, lambda: page.locator("#pick-E1a").check()),  # a pick-one
        (True, lambda: page.locator("#combine-e1").click()),
        (True, lambda: page.locator("#join-e2").select_option("e1")),
        (True, lambda: page.locator("#down-e1").click()),
        (True, lambda: page.locator("#duplicate-e3").click()),
        (False, upgrades(page, "e3")),
        (True, lambda: page.locator("#more-J1a").click()),
        (True, lambda: page.locator("#remove-e4").click()),
        (True, lambda: (page.fill("#rename-e1", "Front Rank"), page.locator("#rename-button-e1").click())),
        (
            True,
            lambda: (
                page.fill("#list-name", "Renamed"),
                page.locator("#settings").get_by_role("button", name="Save", exact=True).click(),
            ),
        ),
        (True, lambda: page.locator("#up-e3").click()),
    ]
    for changes, do in steps:
        version = army_list.version
        do()
        if changes:
            army_list = settled(page, army_list, version + 1)
        same_as_a_fresh_load(page, army_list)
    assert page.evaluate("window.__same_page") is True  # no reload on the way
    assert [e["id"] for e in army_list.entries] == ["e2", "e3", "e1", "e5"]
    expect(page.locator("#entries-title")).to_have_text("Renamed")


def test_the_workspace_is_busy_while_a_change_is_on_its_way(open_page):
    """aria-busy from the click until the answer is drawn: assistive technology (and a
    script driving the page) can tell a change still coming from one already shown."""
    page = open_page(DESKTOP)
    army_list = start(page, "Pike Levy")
    workspace = page.locator("#workspace")
    expect(workspace).not_to_have_attribute("aria-busy", "true")
    held = []
    page.route("**/act/", lambda route: held.append(route))  # the request waits here until let go
    page.locator("#add-longbowmen").click()
    expect(workspace).to_have_attribute("aria-busy", "true")
    expect(page.locator("article.entry")).to_have_count(1)
    page.wait_for_timeout(100)  # the routed request is caught while Playwright waits
    assert len(held) == 1
    held[0].continue_()
    page.unroute("**/act/")
    expect(workspace).not_to_have_attribute("aria-busy", "true")
    expect(page.locator("article.entry")).to_have_count(2)
    assert settled(page, army_list, army_list.version + 1).entries[1]["unit"]


def press(page: Page, selector: str, hold_ms: int = 50) -> None:
    """A click as a finger or a mouse makes it: pressed, held a moment, released."""
    button, box = page.locator(selector), None
    while box is None:  # (None while an answer is swapping it)
        button.wait_for()
        box = button.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.wait_for_timeout(hold_ms)
    page.mouse.up()


@pytest.mark.parametrize("round_", range(5), ids=lambda n: f"round-{n + 1}")
def test_ten_quick_clicks_on_plus_land_ten_fifty_times_in_a_row(open_page, round_):
    """On a phone's network (150 ms a round trip) the answers to the first clicks come
    back while the next ones are being made. An answer that arrives while the button is
    held down waits for its release: swapped in between, it would take the pressed
    button away, and the click with it. Fifty times: five rounds of ten in a row on one
    page, which the test workers share out."""
    page = open_page(DESKTOP)
    army_list = start(page, "Militia Rabble")
    open_upgrades(page, "e1")
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", PHONE_NETWORK)
    for trial in range(round_ * 10, round_ * 10 + 10):
        version = army_list.version
        for _ in range(10):
            press(page, "#more-J1a")
            page.wait_for_timeout(30)
        army_list = settled(page, army_list, version + 10)
        assert army_list.entries[0]["options"] == {"J1a": 10}, f"trial {trial + 1}"
        expect(page.locator("#o-J1a")).to_have_value("10")
        page.locator("#o-J1a").evaluate(
            "el => { el.value = '0'; el.dispatchEvent(new Event('change', {bubbles: true})) }"
        )
        army_list = settled(page, army_list, version + 11)
        assert army_list.entries[0]["options"] == {}
    expect(page.locator(".messages")).to_have_count(0)


def test_without_javascript_every_action_is_a_full_page_post(open_page):
    page = open_page(DESKTOP, javascript=False)
    army_list = start(page, "Pike Levy", "Longbowmen")
    page.locator("#entry-e1").get_by_role("link", name="Upgrades", exact=True).click()
    page.locator("#pick-D1a").check()
    page.get_by_role("button", name="Save upgrades").click()
    expect(page.locator("#pick-D1a")).to_be_checked()
    page.locator("#remove-e2").click()
    expect(page.locator("article.entry")).to_have_count(1)
    army_list.refresh_from_db()
    assert army_list.entries[0]["options"] == {"D1a": 1} and army_list.version == 5
