"""Share links read from a hostile or broken Army Forge (issue 37): an answer trickled a
byte at a time, headers that never end, a hang, redirects elsewhere, bad text, and many
imports at once. Each import ends by its deadline with a plain sentence in Army Forge's
name (never its address or a socket's error), nothing is saved, and at most so many
share links are read at once, site-wide.

Elapsed times are measured against a generous bound: it is the correctness bound (a
worker is held no longer than the deadline), not a benchmark."""

from __future__ import annotations

import random
import threading
import time

import pytest
from rest_framework.test import APIClient

from armybuilder.armyforge.lists.imports import BUSY, MAX_SHARE_TIMEOUT, TOO_OFTEN, list_from_armyforge_link
from armybuilder.lists.format import ListFormatError
from armybuilder.lists.models import ArmyList
from tests.armyforge.test_lists import WOOD_ELVES, book, import_book, texts
from tests.support import armyforge_lists as af
from tests.support.armyforge_standin import ArmyForgeStandIn

MARGIN = 1.0  # what an import may run past its deadline on a loaded machine
LINK = "https://army-forge.onepagerules.com/share?id=Qq1"


@pytest.fixture
def shared(armyforge, db):
    """The stand-in sharing a Wood Elves list as "Qq1", the book held here."""
    import_book(WOOD_ELVES)
    armyforge.share("Qq1", af.share_api(af.random_list(book(WOOD_ELVES), random.Random(6))))
    return armyforge


def signed_in(django_user_model, name: str) -> APIClient:
    client = APIClient()
    client.force_authenticate(django_user_model.objects.create_user(name, password="a-long-pass-phrase-1"))
    return client


def timed_import(client: APIClient, link: str = LINK) -> tuple[float, int, str]:
    """(seconds taken, status, every word of the answer) of importing `link`."""
    started = time.monotonic()
    response = client.post("/api/lists/import/", {"armyforge": link}, format="json")
    return time.monotonic() - started, response.status_code, texts(response.json())


def refused_plainly(said: str, armyforge: ArmyForgeStandIn) -> None:
    assert armyforge.url not in said and "127.0.0.1" not in said and "Errno" not in said, said
    assert ArmyList.objects.count() == 0


@pytest.mark.parametrize(
    "hostile",
    [
        lambda af: af.trickle("Qq1", 2),  # a byte every 2 s, the attack's rate: a read's timeout never fires
        lambda af: af.slow_headers("Qq1", 0.2),
        lambda af: af.hang("Qq1", 30),
    ],
    ids=["trickled-body", "trickled-headers", "hang"],
)
def test_a_share_link_import_ends_by_its_deadline_whatever_army_forge_does(shared, settings, hostile):
    """The deadline is the share link's own (5 s), the sync's longer timeout notwithstanding."""
    settings.ARMYFORGE_TIMEOUT = 15
    client = APIClient()  # a visitor
    assert timed_import(client, "NotShared")[1] == 400  # the first request's start-up is not the deadline's
    hostile(shared)
    elapsed, status, said = timed_import(client)
    assert status == 400
    assert said == "The shared list \u201cQq1\u201d could not be read: Army Forge did not answer in time."
    assert MAX_SHARE_TIMEOUT <= elapsed < MAX_SHARE_TIMEOUT + MARGIN, elapsed
    refused_plainly(said, shared)
    assert shared.shares_read == ["NotShared", "Qq1"]  # asked once


@pytest.mark.parametrize(
    "elsewhere",
    ["{other}/api/tts?id=Qq1", "ftp://127.0.0.1/list", "https://{host}/api/tts?id=Qq1", "http://localhost/"],
    ids=["other-port", "ftp", "other-scheme", "other-host"],
)
def test_a_share_link_redirected_elsewhere_is_refused_and_not_followed(shared, player_client, elsewhere):
    with ArmyForgeStandIn(shared.folder) as other:
        other.share("Qq1", shared.shares["Qq1"])
        host = shared.url.removeprefix("http://")
        shared.redirect("Qq1", elsewhere.format(other=other.url, host=host))
        elapsed, status, said = timed_import(player_client)
        assert other.requests == []
    assert status == 400
    assert said == (
        "The shared list \u201cQq1\u201d could not be read: Army Forge sent the request to another address, "
        "which is not followed."
    )
    refused_plainly(said, shared)


def test_a_share_link_redirected_within_army_forge_is_followed(shared, player_client):
    shared.share("Qq2", shared.shares["Qq1"])
    shared.redirect("Qq1", "/api/tts?id=Qq2")
    response = player_client.post("/api/lists/import/", {"armyforge": LINK}, format="json")
    assert response.status_code == 201, response.content[:500]
    assert shared.shares_read == ["Qq1", "Qq2"]


def test_an_answer_that_is_no_list_says_so_in_plain_words(shared, player_client):
    shared.share("Qq1", {"hello": "world"})
    _elapsed, status, said = timed_import(player_client)
    assert (status, said) == (400, "Army Forge answered \u201cQq1\u201d with something that is not a list.")
    refused_plainly(said, shared)


BAD = {"nul": "\x00", "lone-surrogate": "\ud800", "lone-low-surrogate": "a\udfffb"}


def _armyId(document, bad):
    document["armyId"] = bad


def _gameSystem(document, bad):
    document["gameSystem"] = bad


def _joinToUnit(document, bad):
    document["units"][0]["joinToUnit"] = bad


@pytest.mark.parametrize("bad", BAD.values(), ids=BAD.keys())
@pytest.mark.parametrize(
    ("spoil", "where"),
    [(_armyId, "armyId"), (_gameSystem, "gameSystem"), (_joinToUnit, "units[0].joinToUnit")],
    ids=["armyId", "gameSystem", "joinToUnit"],
)
def test_bad_text_in_a_shared_list_is_a_clear_error_not_a_500(shared, player_client, spoil, where, bad):
    document = shared.shares["Qq1"]
    spoil(document, bad)
    shared.share("Qq1", document)
    response = player_client.post("/api/lists/import/", {"armyforge": LINK}, format="json")
    assert response.status_code == 400, response.content[:500]
    assert texts(response.json()) == (
        "The shared list \u201cQq1\u201d could not be read: Army Forge's answer holds a NUL character or a lone "
        f"surrogate (at {where}), which no field here accepts."
    )
    refused_plainly(texts(response.json()), shared)


def test_bad_text_through_the_import_page_is_a_message_not_a_500(shared, client):
    document = shared.shares["Qq1"]
    document["armyId"] = "\ud800"
    shared.share("Qq1", document)
    response = client.post("/lists/import/", {"armyforge": LINK}, follow=True)
    assert response.status_code == 200
    page = response.content.decode("utf-8")
    assert "Army Forge&#x27;s answer holds a NUL character or a lone surrogate (at armyId)" in page, page[-3000:]
    assert ArmyList.objects.count() == 0


def test_one_share_link_is_read_at_a_time_and_another_is_refused_at_once(shared, settings):
    """An Army Forge that hangs holds one worker at most: a second import, from anyone,
    is refused at once with "try again", not queued behind the first."""
    settings.ARMYFORGE_TIMEOUT, settings.ARMYFORGE_SHARE_IMPORTS = 3, 1
    shared.hang("Qq1", 30)
    first: list[BaseException] = []

    def import_in_background() -> None:
        try:
            list_from_armyforge_link(LINK, requester="user-1")
        except ListFormatError as exc:
            first.append(exc)

    reading = threading.Thread(target=import_in_background)
    reading.start()
    try:
        while shared.shares_read != ["Qq1"]:  # the first read has reached Army Forge
            time.sleep(0.01)
        elapsed, status, said = timed_import(APIClient())
        assert (status, said) == (400, BUSY)
        assert reading.is_alive(), elapsed  # refused while the first read still waits: not queued behind it
        assert shared.shares_read == ["Qq1"]  # the second never asked Army Forge
    finally:
        reading.join()
    assert "did not answer in time" in str(first[0])
    shared.clear()
    # The slot is free again once the first read ended.
    response = APIClient().post("/api/lists/import/", {"armyforge": LINK}, format="json")
    assert response.status_code == 201, response.content[:500]


def test_two_slots_let_two_share_links_be_read_at_once(shared, settings):
    settings.ARMYFORGE_TIMEOUT, settings.ARMYFORGE_SHARE_IMPORTS = 1, 2
    shared.hang("Qq1", 30)
    results: list[str] = []

    def import_in_background() -> None:
        try:
            list_from_armyforge_link(LINK)
        except ListFormatError as exc:
            results.append(str(exc))

    readers = [threading.Thread(target=import_in_background) for _ in range(3)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    assert sorted("in time" in said for said in results) == [False, True, True]
    assert sum(BUSY in said for said in results) == 1
    assert len(shared.shares_read) == 2


def test_each_player_imports_so_many_share_links_a_minute(shared, settings, django_user_model):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "armyforge_imports": "2/min"}
    shared.fail("Qq1", 503)
    one, other = signed_in(django_user_model, "one"), signed_in(django_user_model, "other")
    for _ in range(2):
        assert "Army Forge answered with an error (503)" in timed_import(one)[2]
    assert timed_import(one)[1:] == (400, TOO_OFTEN)
    assert "(503)" in timed_import(other)[2]  # another player is not held back
    assert shared.shares_read == ["Qq1"] * 3


@pytest.fixture
def player_client(db, django_user_model) -> APIClient:
    return signed_in(django_user_model, "forge-importer")
