"""The What changed page: a book's changes between two versions it holds, side by side,
read from the real Army Forge books at 3.5.1 and 3.5.2 (../shared/armyforge/)."""

import html
import re

import pytest

from factions.services import armybook_import
from tests.test_book_versions import armyforge_book


def text(response) -> str:
    """The page's words, tags removed and spaces squeezed."""
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())))


@pytest.fixture
def wood_elves(db):
    armybook_import(data=armyforge_book("aof--wood-elves.json", "3.5.1"), system="aof")
    armybook_import(data=armyforge_book("aof--wood-elves.json"), system="aof")


def test_what_changed_shows_costs_old_and_new_side_by_side(client, wood_elves):
    response = client.get("/books/aof/wood-elves/changes/")
    assert response.status_code == 200
    page = text(response)
    assert "What changed in Wood Elves 3.5.2" in page and "compared with 3.5.1" in page
    assert "Giant Beetle Cost 225 pts 230 pts (+5)" in page
    assert "Forest Ancient Cost 750 pts 755 pts (+5)" in page
    assert "2 units cost more, 0 less" in page
    assert "Mounted Weavers" not in page  # "Magic Knights" then, "Magic Cavalry" now: cavalry both
    assert "Insect Attack Text" in page  # a spell's words changed


def test_what_changed_between_two_versions_chosen_and_back(client, wood_elves):
    back = text(client.get("/books/aof/wood-elves/changes/", {"from": "3.5.2", "to": "3.5.1"}))
    assert "What changed in Wood Elves 3.5.1" in back
    assert "Giant Beetle Cost 230 pts 225 pts (−5)" in back


def test_a_version_not_held_is_a_clear_400_and_an_unknown_book_a_404(client, wood_elves):
    response = client.get("/books/aof/wood-elves/changes/", {"from": "2.0.0"})
    assert response.status_code == 400
    assert 'Wood Elves has no version "2.0.0" here: it holds 3.5.1, 3.5.2.' in text(response)
    assert client.get("/books/aof/nobody/changes/").status_code == 404


def test_options_removed_and_added_are_named_with_their_section(client, db):
    armybook_import(data=armyforge_book("aof--ratmen.json", "3.5.1"), system="aof")
    armybook_import(data=armyforge_book("aof--ratmen.json"), system="aof")
    page = text(client.get("/books/aof/ratmen/changes/"))
    assert "Assassin (Takedown Strike) (Upgrade with one) Option removed" in page
    assert "Master Assassin (Takedown Strike) (Upgrade with one) New option" in page


def test_the_rules_page_links_each_book_with_versions_to_what_changed(client, wood_elves):
    page = client.get("/rules/aof/").content.decode()
    assert 'href="/books/aof/wood-elves/changes/"' in page
    assert "What changed in 3.5.2" in page and "2 versions held" in page


def test_a_book_with_one_version_says_so(client, db):
    armybook_import(data=armyforge_book("aof--ratmen.json"), system="aof")
    page = text(client.get("/books/aof/ratmen/changes/"))
    assert "Ratmen holds only 3.5.2 here." in page
