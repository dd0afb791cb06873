"""A new visitor builds lists in the browser, with and without JavaScript."""

import re

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser


def act(page: Page, click) -> None:
    """Do one builder action and wait until the page shows its result, whether it came
    back as a swapped workspace (JavaScript) or a redirect and a new page (no script)."""
    with page.expect_response(lambda r: "/act/" in r.url and r.request.method == "POST"):
        click()
    page.wait_for_load_state()
    # The script swaps the answer in a moment after it arrives; until then the workspace is busy.
    expect(page.locator("#workspace")).not_to_have_attribute("aria-busy", "true")
    expect(page.locator("#points")).to_be_visible()


def start_list(page: Page, ruleset: str, faction: str, points: str | None) -> None:
    page.goto(page.base_url + "/")
    page.get_by_role("link", name=ruleset, exact=True).first.click()
    page.check(f"input[name=faction][value={faction}]")
    if points is not None:
        page.fill("#points", points)
    page.get_by_role("button", name="Create list").click()
    expect(page).to_have_url(re.compile(r"/lists/\d+/"))


def add(page: Page, unit: str) -> None:
    act(page, lambda: page.locator(f"button[aria-label^='Add {unit} (']").click())


def entry(page: Page, label: str):
    return page.locator("article.entry").filter(has=page.locator("a.name", has_text=label))


def open_upgrades(page: Page, label: str, nth: int = 0) -> None:
    unit = entry(page, label).nth(nth)
    if not unit.locator("#editor form").is_visible():  # adding a unit opens its upgrades
        unit.get_by_role("link", name="Upgrades", exact=True).click()
        page.wait_for_load_state()
    expect(unit.locator("#editor form")).to_be_visible()


def choose(page: Page, javascript: bool, check) -> None:
    """Tick a radio or checkbox in the upgrade form and send the form."""
    if javascript:
        act(page, check)
    else:
        check()
        act(page, lambda: page.get_by_role("button", name="Save upgrades").click())


def join(page: Page, javascript: bool, hero: str, target: str) -> None:
    form = entry(page, hero).first.locator("form.join")
    if javascript:
        act(page, lambda: form.locator("select").select_option(label=target))
    else:
        form.locator("select").select_option(label=target)
        act(page, lambda: form.get_by_role("button", name="Set").click())


def issue_codes(page: Page) -> list[str]:
    return page.locator("#issues li").evaluate_all("items => items.map(i => i.dataset.code)")


def share_and_open(page: Page, javascript: bool, browser, expected: list[str]) -> None:
    link = page.locator("#share-link").input_value()
    stranger = browser.new_context(java_script_enabled=javascript)
    try:
        other = stranger.new_page()
        assert stranger.cookies() == []
        other.goto(link)
        for text in expected:
            expect(other.locator("main")).to_contain_text(text)
        expect(other.get_by_role("button", name="Copy to my lists")).to_be_visible()
    finally:
        stranger.close()


def test_a_visitor_builds_a_1500_point_age_of_fantasy_list(page: Page, javascript, chromium_browser):
    start_list(page, "Start an Age of Fantasy list", "human-empire", "1500")
    for unit in [
        "Marshal",
        "Court Magister",
        "Sun Priest",
        "Pike Levy",
        "Longbowmen",
        "Sworn Knights",
        "Household Guard",
        "Field Cannon",
    ]:
        add(page, unit)
    expect(page.locator("article.entry")).to_have_count(8)

    open_upgrades(page, "Pike Levy")
    choose(page, javascript, lambda: page.get_by_label("Sergeant").check())
    choose(page, javascript, lambda: page.get_by_label("Halberds").check())
    act(page, lambda: entry(page, "Pike Levy").get_by_role("button", name="Combine ×2").click())
    join(page, javascript, "Marshal", "Pike Levy")

    pike = entry(page, "Pike Levy")
    expect(pike).to_contain_text("combined")
    expect(pike).to_contain_text("[20]")
    expect(pike.locator(".cost")).to_have_text("225 pts")  # 2x100 + halberds 2x10 + sergeant 5
    expect(entry(page, "Marshal")).to_contain_text("joined to Pike Levy")
    expect(page.locator("#status")).to_contain_text("legal")
    expect(page.locator("#points")).to_have_text("955/1500 pts")

    add(page, "Battle Standard Bearer")  # a fourth hero
    assert "too_many_heroes" in issue_codes(page)
    expect(page.locator("#issues")).to_contain_text("4 heroes, but 1500 pts allows at most 3")
    act(page, lambda: entry(page, "Battle Standard Bearer").get_by_role("button", name=re.compile("^Remove")).click())
    expect(page.locator("#issues-none")).to_be_visible()
    assert issue_codes(page) == []

    share_and_open(page, javascript, chromium_browser, ["Pike Levy", "955/1500 pts", "Legal list"])


def test_a_visitor_builds_a_regiments_list(page: Page, javascript, chromium_browser):
    start_list(page, "Start an Age of Fantasy: Regiments list", "dwarf-holds", "500")
    for unit in ["Thane", "Hold Warriors", "Tunnel Rangers", "Bolt Engine"]:
        add(page, unit)
    open_upgrades(page, "Hold Warriors")
    choose(page, javascript, lambda: page.get_by_label("Sergeant").check())
    act(page, lambda: entry(page, "Hold Warriors").get_by_role("button", name="Combine ×2").click())
    join(page, javascript, "Thane", "Hold Warriors")
    expect(entry(page, "Hold Warriors")).to_contain_text("[20]")
    expect(entry(page, "Thane")).to_contain_text("joined to Hold Warriors")
    expect(page.locator("#status")).to_contain_text("legal")

    add(page, "Runesinger")  # a second hero at 500 pts
    assert "too_many_heroes" in issue_codes(page)
    act(page, lambda: entry(page, "Runesinger").get_by_role("button", name=re.compile("^Remove")).click())
    assert "too_many_heroes" not in issue_codes(page)

    share_and_open(page, javascript, chromium_browser, ["Hold Warriors", "Thane", "Legal list"])


def test_a_visitor_builds_an_arena_warband(page: Page, javascript, chromium_browser):
    start_list(page, "Start an Age of Fantasy: Arena list", "dwarf-ironguard", None)
    add(page, "Forge Warden")
    assert "composition" in issue_codes(page)  # too few models yet
    for unit in ["Ironguard Warrior", "Ironguard Warrior", "Quarreller"]:
        add(page, unit)
    open_upgrades(page, "Forge Warden")
    shield = page.locator("#editor form").get_by_label("Ironbound Shield (Shield Wall)")
    if javascript:  # a rule-giving item is taken once a model: a box to tick
        act(page, shield.check)
    else:
        shield.check()
        act(page, lambda: page.locator("#editor form").get_by_role("button", name="Save upgrades").click())
    expect(page.locator("#status")).to_contain_text("legal")
    expect(page.locator("#points")).to_have_text("Warband")

    add(page, "Runecarver")  # a second leader
    expect(page.locator("#issues")).to_contain_text("2 Leader models, but the warband may have at most 1")
    act(page, lambda: entry(page, "Runecarver").get_by_role("button", name=re.compile("^Remove")).click())
    expect(page.locator("#status")).to_contain_text("legal")

    share_and_open(page, javascript, chromium_browser, ["Forge Warden", "Quarreller", "Legal list"])


def test_a_player_builds_from_an_official_army_forge_book(page: Page, javascript, chromium_browser):
    """The Ratmen book as Army Forge publishes it (../shared/armyforge/), imported as a
    player's club would: a list with a combined unit, its command group, a whole-unit swap
    bought for both halves, and a hero joined to it."""
    from armybuilder.armyforge.books.imports import book_import
    from tests.conftest import SHARED, require_shared

    raw = require_shared(SHARED / "armyforge" / "aof--ratmen.json").read_bytes()
    book_import(data=raw, system="aof")
    start_list(page, "Start an Age of Fantasy list", "ratmen", "1500")
    for unit in ["Battle Master", "Warriors", "Weapon Teams"]:
        add(page, unit)
    open_upgrades(page, "Warriors")
    choose(page, javascript, lambda: page.get_by_label("Sergeant").check())
    choose(page, javascript, lambda: page.get_by_label("Spear (A1, Counter)").check())
    act(page, lambda: entry(page, "Warriors").get_by_role("button", name="Combine ×2").click())
    join(page, javascript, "Battle Master", "Warriors")

    warriors = entry(page, "Warriors")
    expect(warriors).to_contain_text("[20]")
    expect(warriors).to_contain_text("20× Spear")
    # Army Forge: 2 × 70 base, the Spears 20 for each half, the Sergeant 5 once.
    expect(warriors.locator(".cost")).to_have_text("185 pts")
    expect(entry(page, "Battle Master")).to_contain_text("joined to Warriors")
    expect(page.locator("#status")).to_contain_text("legal")
    expect(page.locator("#points")).to_have_text("335/1500 pts")  # 45 + 185 + 105
