"""Large printouts (issue 37): a PDF of more than LARGE_PRINTOUT entries takes one of the
site's few slots for them (settings.LARGE_PRINTOUTS_AT_ONCE), shared by every worker
through the cache, so that large printouts asked together cannot hold every worker. One
more is refused at once with 503 and Retry-After; a file drawn already is still served,
and smaller printouts are drawn whatever the large ones do."""

import time

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from armybuilder.cache import slot
from armybuilder.downloads import LARGE_PRINTOUT, LARGE_PRINTOUT_SECONDS
from armybuilder.events import services as event_services
from armybuilder.lists.models import ArmyList
from tests.conftest import wardens_list

pytestmark = pytest.mark.usefixtures("fresh_caches")
BUSY = "Other large printouts are being drawn just now: try again in a few seconds."


def held():
    """Every large printout's slot, as another worker drawing one holds it."""
    return slot("large-printout", 1, seconds=LARGE_PRINTOUT_SECONDS)


def _list_of(visitor: APIClient, entries: int) -> str:
    body = {
        "name": "Horde",
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 100_000,
        "entries": [{"id": f"e{i}", "unit": "wardens"} for i in range(entries)],
    }
    created = visitor.post("/api/lists/", body, format="json")
    assert created.status_code == 201, created.content
    return f"/api/lists/{created.json()['id']}/export/cards.pdf"


def test_a_large_printout_is_refused_at_once_while_another_is_drawn_and_drawn_after(wardens):
    visitor = APIClient()
    url = _list_of(visitor, LARGE_PRINTOUT + 1)
    with held() as taken:
        assert taken
        refused = visitor.get(url)
        assert refused.status_code == 503
        assert refused.json() == {"detail": BUSY}
        assert int(refused["Retry-After"]) > 0
    drawn = visitor.get(url)
    assert drawn.status_code == 200 and drawn.content.startswith(b"%PDF")
    with held():
        served = visitor.get(url)  # drawn already: from the cache, no slot needed
        assert served.status_code == 200 and served.content == drawn.content


def test_a_printout_of_up_to_the_bound_is_drawn_whatever_the_large_ones_do(wardens):
    visitor = APIClient()
    url = _list_of(visitor, LARGE_PRINTOUT)
    with held():
        drawn = visitor.get(url, {"layout": "poker"})
    assert drawn.status_code == 200 and drawn.content.startswith(b"%PDF")


def test_the_slots_are_shared_and_freed(settings):
    settings.LARGE_PRINTOUTS_AT_ONCE = 2
    with slot("large-printout", 2, seconds=60) as first, slot("large-printout", 2, seconds=60) as second:
        with slot("large-printout", 2, seconds=60) as third:
            assert (first, second, third) == (True, True, False)
    with slot("large-printout", 2, seconds=60) as again:
        assert again  # freed when the blocks ended


def test_a_slot_whose_holder_died_is_freed_after_its_seconds_and_stays_with_its_new_holder():
    stuck = slot("large-printout", 1, seconds=1)
    assert stuck.__enter__()  # its worker is killed while drawing: the block never ends
    with slot("large-printout", 1, seconds=60) as meanwhile:
        assert not meanwhile
    time.sleep(1.5)  # the cache lets the slot go after its second
    with slot("large-printout", 1, seconds=60) as after:
        assert after
        stuck.__exit__(None, None, None)  # ending late, it frees nothing of the new holder's
        with slot("large-printout", 1, seconds=60) as third:
            assert not third


def test_an_events_large_roster_waits_its_turn_too(wardens):
    organiser = get_user_model().objects.create_user("organiser")
    deadline = (timezone.now() + timezone.timedelta(days=30)).isoformat()
    pack = event_services.pack_create(
        organiser=organiser, data={"name": "Horde Cup", "ruleset": "aof", "points_limit": 100_000, "deadline": deadline}
    )
    for number in range(2):
        player = get_user_model().objects.create_user(f"player-{number}")
        army_list = wardens_list(player, ["wardens"] * (LARGE_PRINTOUT // 2 + 1), event=pack, points=100_000)
        event_services.submission_submit(pack=pack, player=player, army_list=army_list)
    page = Client()
    page.force_login(organiser)
    with held():
        refused = page.get(f"/events/{pack.key}/roster.pdf")
        assert refused.status_code == 503 and int(refused["Retry-After"]) > 0
        assert refused.content.decode() == BUSY
    drawn = page.get(f"/events/{pack.key}/roster.pdf")
    assert drawn.status_code == 200 and drawn.content.startswith(b"%PDF")


def test_a_list_of_more_entries_than_a_printout_holds_prints_its_rules_reference_only(wardens, monkeypatch):
    from armybuilder import downloads

    monkeypatch.setattr(downloads, "MAX_PRINTED_ENTRIES", 3)
    visitor = APIClient()
    cards = _list_of(visitor, 4)
    exports = cards.removesuffix("cards.pdf")
    for kind, params in (("cards.pdf", {}), ("cards.pdf", {"layout": "poker"}), ("roster.pdf", {"sheet": "1"})):
        refused = visitor.get(exports + kind, params)
        assert refused.status_code == 422
        assert refused.json() == {
            "detail": "This list has 4 entries; unit cards and rosters print at most 3 (a 10,000-point list has about "
            "80): split it into lists of 3 or fewer to print them. Its rules reference prints, and its text and "
            "JSON exports hold every entry."
        }
    assert visitor.get(exports + "reference.pdf").content.startswith(b"%PDF")
    text = visitor.get(exports + "text")
    assert text.status_code == 200 and text.content.decode().count("Wardens [") == 4  # every entry
    # The builder's print form says so, and offers the rules reference alone.
    page = visitor.get(exports.replace("/api/lists/", "/lists/").removesuffix("export/")).content.decode()
    assert "unit cards and rosters print at most 3" in page
    form = page[page.index('<form class="print-choices"') :]
    form = form[: form.index("</form>")]
    assert form.count("<button") == 1 and f'formaction="{exports}reference.pdf"' in form
    # So does the share page's, for anyone with the link.
    key = ArmyList.objects.get(pk=int(exports.split("/")[3])).share_key
    shared = Client().get(f"/s/{key}/").content.decode()
    assert "unit cards and rosters print at most 3" in shared
    form = shared[shared.index('<form class="print-choices"') :]
    form = form[: form.index("</form>")]
    assert form.count("<button") == 1 and f'formaction="/api/shared/{key}/export/reference.pdf"' in form
    assert "Unit cards" not in form  # (no choices for files it does not offer)
    # At the bound, the cards print, and the forms offer every file.
    within = _list_of(visitor, 3)
    assert visitor.get(within).content.startswith(b"%PDF")
    page = visitor.get(within.replace("/api/lists/", "/lists/").removesuffix("export/cards.pdf")).content.decode()
    assert "print at most" not in page and page.count('formaction="/api/lists/') == 4
    key = ArmyList.objects.get(pk=int(within.split("/")[3])).share_key
    shared = Client().get(f"/s/{key}/").content.decode()
    assert "print at most" not in shared and shared.count(f'formaction="/api/shared/{key}/export/') == 4
