"""The builder shows what the printouts have, on a desktop and on a phone, with and
without JavaScript: a unit's profile before adding it, a caster's spells, what a rule
does on a tap, the Arena composition card with its counts, command groups as check
boxes; and the small things: back to the list after signing up or logging in, "an Age
of Fantasy list", the icon, long names that wrap."""

import re

import pytest
from playwright.sync_api import Page, expect

from factions.models import CoreRule
from tests.support.browser import OUTPUT, open_adding

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1400, "height": 1000}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def open_page(open_page):
    """A browser at the desktop size unless told otherwise."""
    return lambda viewport=DESKTOP, javascript=True: open_page(viewport, javascript)


def start(page: Page, system: str, faction: str, points: str | None = None) -> None:
    page.goto(f"{page.base_url}/new/{system}/")
    page.check(f"input[name=faction][value={faction}]")
    if points is not None:
        page.fill("#points", points)
    page.get_by_role("button", name="Create list").click()
    expect(page).to_have_url(re.compile(r"/lists/\d+/"))


def add(page: Page, unit_id: str) -> None:
    count = page.locator("article.entry").count()
    unfold_units(page)
    page.locator(f"#add-{unit_id}").click()
    expect(page.locator("article.entry")).to_have_count(count + 1)


def unfold_units(page: Page) -> None:
    """On a phone the units to add are a panel opened from the totals bar: open it."""
    open_adding(page)


def tap(page: Page, locator) -> None:
    locator.scroll_into_view_if_needed()
    locator.tap()


def shot(page: Page, name: str) -> None:
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"builder-content-{name}.png"), full_page=True)


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_units_profile_opens_on_a_tap_before_it_is_added(open_page, javascript):
    page = open_page(PHONE, javascript)
    start(page, "aof", "human-empire", "1500")
    open_adding(page)
    profile = page.locator("#profile-longbowmen")
    longbow = profile.locator(".weapons li", has_text="Longbow")
    expect(longbow).to_be_hidden()
    tap(page, profile.locator("> summary"))
    expect(longbow).to_be_visible()
    expect(longbow).to_have_text('10× Longbow 30", A1')
    expect(profile).to_contain_text("115 pts for 10 models")
    expect(page.locator("article.entry")).to_have_count(0)  # looking adds nothing
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    if javascript:
        shot(page, "phone-profile")


def test_a_casters_spells_are_listed_on_it(open_page):
    page = open_page()
    start(page, "aof", "human-empire", "1500")
    add(page, "court-magister")
    add(page, "pike-levy")
    spells = page.locator("#entry-e1 .spells")
    expect(spells).to_be_visible()
    expect(spells.locator("h4")).to_have_text("Spells · Caster(2)")
    for name in ["Searing Ray", "Blinding Glare", "Hallowed Ground", "Judgement Bolt", "Dawnburst"]:
        expect(spells).to_contain_text(name)
    expect(page.locator("#entry-e2 .spells")).to_have_count(0)


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_tapping_a_rule_shows_what_it_does(open_page, javascript):
    page = open_page(PHONE, javascript)
    start(page, "aof", "human-empire", "1500")
    add(page, "marshal")
    summary = CoreRule.objects.get(ruleset__slug="aof", name="Tough").summary
    tough = page.locator("#entry-e1 details.rule", has=page.locator("summary", has_text="Tough(3)"))
    expect(tough.locator(".rule-text")).to_be_hidden()
    tap(page, tough.locator("summary"))
    expect(tough.locator(".rule-text")).to_be_visible()
    expect(tough.locator(".rule-text")).to_contain_text(summary)
    counter = page.locator("#profile-pike-levy")  # a weapon's rule, before adding the unit
    unfold_units(page)
    tap(page, counter.locator("> summary"))
    tap(page, counter.locator("details.rule summary", has_text="Counter"))
    expect(counter.locator("details.rule .rule-text")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    if javascript:
        tough.scroll_into_view_if_needed()
        shot(page, "phone-rule")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_the_arena_composition_card_counts_the_warband_as_it_grows(open_page, javascript):
    page = open_page(DESKTOP, javascript)
    start(page, "aof-arena", "dwarf-ironguard")
    card = page.locator("#composition")

    def counts() -> dict[str, str]:
        rows = card.locator("tbody tr")
        return dict(
            zip(
                rows.evaluate_all("rs => rs.map(r => r.dataset.group)"),
                rows.locator("td.count").all_inner_texts(),
                strict=True,
            )
        )

    assert counts() == {
        "Leader": "0 too few",
        "Ironguard": "0 too few",
        "Specialists": "0",
        "Brute": "0",
        "Models in all": "0 too few",
    }
    expect(card).to_contain_text("Forge Warden, Runecarver")
    add(page, "forge-warden")
    add(page, "ironguard-warrior")
    add(page, "quarreller")
    assert counts() == {
        "Leader": "1",
        "Ironguard": "1 too few",
        "Specialists": "1",
        "Brute": "0",
        "Models in all": "3 too few",
    }
    add(page, "ironguard-warrior")
    assert counts()["Ironguard"] == "2" and counts()["Models in all"] == "4"
    expect(page.locator("#status")).to_contain_text("legal")
    if javascript:
        shot(page, "desktop-arena")


def test_a_command_group_is_three_check_boxes_even_where_one_is_allowed(open_page):
    """Army Forge's Skirmish Dwarves: "Upgrade one model with one" of Sergeant, Musician
    and Banner; a box each, the others disabled once one is taken."""
    from armybuilder.armyforge.books.imports import book_import
    from tests.conftest import SHARED, require_shared

    book_import(
        data=require_shared(SHARED / "armyforge" / "aof-skirmish--dwarves.json").read_bytes(), system="aof-skirmish"
    )
    page = open_page()
    start(page, "aof-skirmish", "dwarves", "250")
    page.locator("button[aria-label^='Add Mountain Warriors (']").click()
    editor = page.locator("#entry-e1 #editor")
    boxes = {label: editor.get_by_label(label) for label in ("Sergeant", "Musician", "Banner")}
    for box in boxes.values():
        expect(box).to_have_attribute("type", "checkbox")
    command = editor.locator("fieldset", has=page.get_by_label("Sergeant"))
    expect(command.locator("input")).to_have_count(3)
    boxes["Sergeant"].check()
    expect(page.locator("#entry-e1")).to_contain_text("Upgrades: Sergeant")
    expect(boxes["Sergeant"]).to_be_checked()
    expect(boxes["Musician"]).to_be_disabled()
    expect(boxes["Banner"]).to_be_disabled()


PASSWORD = "a-long-pass-phrase-1"


def sign_up(page: Page, username: str) -> None:
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Create account").click()


def log_in(page: Page, username: str) -> None:
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_signing_up_from_the_builder_comes_back_to_the_list_and_never_off_the_site(open_page, javascript):
    page = open_page(DESKTOP, javascript)
    start(page, "aof", "human-empire", "1500")
    add(page, "pike-levy")
    builder = page.url.split("#")[0]  # the fragment stays with the browser
    page.get_by_role("link", name="Sign up", exact=True).click()
    sign_up(page, "marshal")
    expect(page).to_have_url(builder)
    expect(page.locator("header.top")).to_contain_text("marshal")
    expect(page.locator("article.entry")).to_have_count(1)  # the list came along

    page.get_by_role("button", name="Log out").click()
    page.goto(page.base_url + "/accounts/signup/?next=https://evil.example/")
    sign_up(page, "ranger")
    expect(page).to_have_url(page.base_url + "/")  # never off the site


def test_logging_in_from_the_builder_comes_back_to_the_list_and_never_off_the_site(open_page, django_user_model):
    django_user_model.objects.create_user("marshal", password=PASSWORD)
    page = open_page()
    start(page, "aof", "human-empire", "1500")
    add(page, "pike-levy")
    builder = page.url.split("#")[0]  # the fragment stays with the browser
    page.get_by_role("link", name="Log in", exact=True).click()
    log_in(page, "marshal")
    expect(page).to_have_url(builder)
    expect(page.locator("header.top")).to_contain_text("marshal")
    expect(page.locator("article.entry")).to_have_count(1)

    page.get_by_role("button", name="Log out").click()
    page.goto(page.base_url + "/accounts/login/?next=https://evil.example/")
    log_in(page, "marshal")
    expect(page).to_have_url(page.base_url + "/")  # never off the site


def test_the_way_from_log_in_to_sign_up_keeps_next(open_page):
    page = open_page()
    start(page, "aof", "human-empire", "1500")
    builder = page.url.split("#")[0]  # the fragment stays with the browser
    page.get_by_role("link", name="Log in", exact=True).click()
    page.locator("main").get_by_role("link", name="Sign up").click()
    sign_up(page, "ranger")
    expect(page).to_have_url(builder)


def test_the_start_page_offers_an_age_of_fantasy_list(open_page):
    page = open_page()
    page.goto(page.base_url + "/")
    page.get_by_role("link", name="Start an Age of Fantasy list", exact=True).click()
    expect(page).to_have_url(page.base_url + "/new/aof/")
    page.goto(page.base_url + "/")
    expect(page.get_by_role("link", name="Start a One Page Fantasy list", exact=True)).to_be_visible()


def test_no_page_asks_for_a_missing_icon(open_page):
    page = open_page()
    missing, errors = [], []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    start(page, "aof", "human-empire", "1500")
    page.goto(page.base_url + "/lists/")
    page.wait_for_timeout(500)  # the icon is fetched after the page has loaded
    assert missing == [] and errors == []
    icon = page.request.get(page.base_url + "/favicon.ico")
    assert icon.ok and icon.headers["content-type"].startswith("image/svg+xml")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1400", "390"])
def test_a_200_character_name_does_not_widen_the_page(open_page, viewport):
    page = open_page(viewport)
    start(page, "aof", "human-empire", "1500")
    add(page, "marshal")
    add(page, "pike-levy")
    long_name = "Grand" + "Company" * 27 + "Guards"  # 200 letters, no space to wrap at
    assert len(long_name) == 200
    page.fill("#rename-e2", long_name)
    page.locator("#rename-button-e2").click()
    expect(page.locator("#entry-e2 a.name")).to_have_text(long_name)
    page.fill("#list-name", long_name)
    page.locator("#settings-title + form button[type=submit]").click()
    expect(page.locator("#entries-title")).to_have_text(long_name)
    page.locator("#upgrades-e2").click()
    expect(page.locator("#editor-title")).to_contain_text(long_name)
    expect(page.locator("#join-e1 option", has_text=long_name)).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    side = page.locator("aside.side").bounding_box()
    assert side["x"] + side["width"] <= viewport["width"]
    shot(page, f"long-name-{viewport['width']}")


def test_the_builder_reads_well_on_a_desktop(open_page):
    """Screenshots to look at: profiles, rules and spells open side by side."""
    page = open_page()
    start(page, "aof", "human-empire", "1500")
    add(page, "court-magister")
    add(page, "pike-levy")
    page.locator("#profile-war-gryphon > summary").click()
    page.locator("#entry-e1 details.rule summary", has_text="Caster(2)").click()
    expect(page.locator("#entry-e1 details.rule[open] .rule-text")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= DESKTOP["width"]
    shot(page, "desktop")
