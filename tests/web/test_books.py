"""The What changed page: a book's changes between two versions it holds, side by side,
read from the real Army Forge books at 3.5.1 and 3.5.2 (../shared/armyforge/)."""

import html
import re

import pytest

from armybuilder.armyforge.books.imports import book_import
from tests.factions.test_book_versions import armyforge_book


def text(response) -> str:
    """The page's words, tags removed and spaces squeezed."""
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())))


@pytest.fixture
def wood_elves(db):
    book_import(data=armyforge_book("aof--wood-elves.json", "3.5.1"), system="aof")
    book_import(data=armyforge_book("aof--wood-elves.json"), system="aof")


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
    book_import(data=armyforge_book("aof--ratmen.json", "3.5.1"), system="aof")
    book_import(data=armyforge_book("aof--ratmen.json"), system="aof")
    page = text(client.get("/books/aof/ratmen/changes/"))
    assert "Assassin (Takedown Strike) (Upgrade with one) Option removed" in page
    assert "Master Assassin (Takedown Strike) (Upgrade with one) New option" in page


def test_the_rules_page_links_each_book_with_versions_to_what_changed(client, wood_elves):
    page = client.get("/rules/aof/").content.decode()
    assert 'href="/books/aof/wood-elves/changes/"' in page
    assert "What changed in 3.5.2" in page and "2 versions held" in page


def test_a_book_with_one_version_says_so(client, db):
    book_import(data=armyforge_book("aof--ratmen.json"), system="aof")
    page = text(client.get("/books/aof/ratmen/changes/"))
    assert "Ratmen holds only 3.5.2 here." in page


def test_a_unit_newly_taking_options_and_a_package_are_named_as_a_player_reads_them(client, db, make_aof_book):
    """The captain takes the troops' package in 2.0.0: the package is named by its sections,
    and each of its options is added to the captain at its price, not a price change."""
    book_import(data=make_aof_book())
    newer = make_aof_book()
    newer["version"] = "2.0.0"
    newer["units"][0]["upgrades"] = ["HERO", "TROOPS"]
    book_import(data=newer)
    page = text(client.get("/books/aof/test-wardens/changes/"))
    assert "Warden Captain Upgrades taken — Upgrade one model with, Replace all Spears" in page
    assert "TROOPS" not in page
    assert "Halberds (Replace all Spears) Added to Warden Captain — 10 pts" in page
    assert "Cost for" not in page


def test_core_rules_the_book_names_have_a_table_of_their_own(client, db, make_aof_book):
    older = make_aof_book()
    older["rules"] += [
        {"name": "Thrust", "rated": False, "text": "Old thrust words.", "core": True},
        {"name": "Vanguard", "rated": False, "text": "Move up to 9 inches after deploying."},
    ]
    book_import(data=older)
    newer = make_aof_book()
    newer["version"] = "2.0.0"
    newer["rules"] += [
        {"name": "Thrust", "rated": False, "text": "New thrust words.", "core": True},
        {"name": "Vanguard", "rated": False, "text": "", "core": True},
    ]
    book_import(data=newer)
    page = text(client.get("/books/aof/test-wardens/changes/"))
    assert "2 core rules changed" in page
    assert "Core rules the book names" in page
    assert "Thrust Text Old thrust words. New thrust words." in page
    assert (
        "Vanguard Now a core rule (was the book's own) Move up to 9 inches after deploying. "
        "Army Forge's core rule (its text is not in this book)"
    ) in page
    assert "No army rule changed." in page


def test_ratmen_3_5_3_describing_takedown_is_no_army_rule_change(client, db):
    book_import(data=armyforge_book("aof--ratmen.json"), system="aof")
    book_import(data=armyforge_book("aof--ratmen.json", "3.5.3"), system="aof")
    page = text(client.get("/books/aof/ratmen/changes/"))
    rules = page[page.index("Army rules") : page.index("Spells")]
    assert "Takedown Text" not in rules and "Takedown Strike Text" in rules
    assert "a rule from a newer rulebook" not in page
    # Both name Takedown as a core rule of Army Forge's; only 3.5.3 words it: no change of a rule.
    assert "Core rules the book names" not in page and "Takedown Now" not in page
