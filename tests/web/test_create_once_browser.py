"""Three quick Enters on "Create list" make one list (issue 26, "mistakes undone"), with
and without JavaScript, on a desktop and a phone."""

import re

import pytest
from playwright.sync_api import expect

from armybuilder.lists.models import ArmyList

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_three_quick_enters_on_create_list_make_one_list(open_page, viewport, javascript):
    page = open_page(viewport, javascript=javascript)
    page.goto(f"{page.base_url}/new/aof/")
    page.get_by_label("Human Empire").check()
    page.get_by_label("List name (optional)").fill("Quick Fingers")
    button = page.get_by_role("button", name="Create list")
    button.focus()
    for _ in range(3):
        page.keyboard.press("Enter", delay=10)
    expect(page).to_have_url(re.compile(r"/lists/\d+/$"))
    expect(page.locator("#entries-title")).to_be_visible()
    assert page.url == f"{page.base_url}/lists/{ArmyList.objects.get().pk}/"
    assert list(ArmyList.objects.values_list("name", flat=True)) == ["Quick Fingers"]
