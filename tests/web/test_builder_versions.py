"""Moving a list on to a newer version of its army book in the builder (issue 22): the
notice at the top of the builder, the review of the move before anything changes, the
move itself and moving back, through Django's test client with the official Army Forge
books at 3.5.1 and 3.5.2 (../shared/armyforge/)."""

import json
import re
from html import unescape

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from armybuilder.armyforge.books.imports import book_import
from armybuilder.lists import services
from armybuilder.lists.format import parse_list_body
from armybuilder.lists.models import ArmyList
from armybuilder.web import presenters
from factions.models import Faction
from tests.conftest import SHARED, require_shared

ARMYFORGE = SHARED / "armyforge"
BATTLE_MASTER = "bl380Vc"
ASSASSIN = "31nsoKzC"  # in 3.5.1 only: 3.5.2 has a Master Assassin instead
SCOUT_MASTER, SCOUT_MASTER_3_5_2 = "cByHKhW62Q", "tYrIhbQKOm"  # 3.5.2 gave it a new id, in the same section
GIANT_BEETLE, GLADE_LEADER, TREEMEN = "j6eudp0", "2HF3Nnt", "pognt8d"


def import_armyforge(name: str, version: str = "3.5.2") -> None:
    folder = ARMYFORGE if version == "3.5.2" else ARMYFORGE / version
    book_import(data=json.loads(require_shared(folder / name).read_text()), system="aof")


pytestmark = pytest.mark.usefixtures("fresh_engine_cache")


def make_list(owner, faction: str, entries: list[dict], name: str = "Scouts") -> ArmyList:
    body = {"name": name, "system": "aof", "faction": faction, "points_limit": 2000, "entries": entries}
    data, _handle = parse_list_body(body)
    return services.army_list_create(data=data, owner=owner)


@pytest.fixture
def player(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def scouts(user) -> ArmyList:
    """A Ratmen list built on 3.5.1 whose Battle Master takes an Assassin; then 3.5.2 comes out."""
    import_armyforge("aof--ratmen.json", "3.5.1")
    made = make_list(user, "ratmen", [{"id": "boss", "unit": BATTLE_MASTER, "options": {ASSASSIN: 1}}])
    import_armyforge("aof--ratmen.json")
    return made


def page_text(response) -> str:
    """The page's words, as a reader sees them (tags gone, spaces squeezed; a name's
    isolating <bdi> is no break between words)."""
    html = re.sub(r"</?bdi>", "", response.content.decode())
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def notice(response) -> str:
    html = response.content.decode()
    found = re.search(r'<section class="notice[^"]*" id="book-notice".*?</section>', html, re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", found.group(0)))).strip() if found else ""


# -- the notice --------------------------------------------------------------------------------
def test_a_wood_elves_list_on_3_5_1_is_told_what_3_5_2_changes(player, user):
    import_armyforge("aof--wood-elves.json", "3.5.1")
    units = [GIANT_BEETLE, GLADE_LEADER, TREEMEN]
    made = make_list(user, "wood-elves", [{"id": f"e{i}", "unit": unit} for i, unit in enumerate(units)])
    import_armyforge("aof--wood-elves.json")

    page = player.get(f"/lists/{made.pk}/")
    assert page.status_code == 200
    said = notice(page)
    assert said.startswith("Wood Elves 3.5.2 is out: 1 of your 3 units changes cost, +5 pts.")
    assert "Review the update" in said and "What changed in the book" in said
    html = page.content.decode()
    assert f'href="/lists/{made.pk}/book/?to=3.5.2"' in html
    assert 'href="/books/aof/wood-elves/changes/?from=3.5.1&amp;to=3.5.2"' in html
    assert "army book updated since" not in html
    assert "375/2000 pts" in html  # its 3.5.1 prices until it moves: 225 + 30 + 120


def test_the_notice_of_the_ratmen_update_names_the_option_it_drops_with_a_real_minus(player, scouts):
    said = notice(player.get(f"/lists/{scouts.pk}/"))
    assert said.startswith("Ratmen 3.5.2 is out: your one unit changes cost, \u221215 pts.")
    assert "Updating drops an upgrade 3.5.2 no longer offers: Assassin (Takedown Strike) from Battle Master." in said


def test_a_list_on_the_current_version_has_no_notice(player, user):
    import_armyforge("aof--ratmen.json")
    made = make_list(user, "ratmen", [{"id": "boss", "unit": BATTLE_MASTER}])
    page = player.get(f"/lists/{made.pk}/")
    assert notice(page) == "" and 'id="book-notice"' not in page.content.decode()
    assert f'<a href="/lists/{made.pk}/book/" title="The army book\'s versions"><bdi>Ratmen</bdi> 3.5.2</a>' in (
        page.content.decode()
    )


def test_a_list_whose_book_is_gone_still_says_so(player, scouts):
    Faction.objects.filter(slug="ratmen").delete()
    page = player.get(f"/lists/{scouts.pk}/")
    assert notice(page) == 'The army book "ratmen" is no longer in the catalogue: this list cannot be priced.'
    review = player.get(f"/lists/{scouts.pk}/book/")
    assert review.status_code == 400
    assert 'The army book "ratmen" is no longer in the catalogue: the list cannot move.' in page_text(review)


def test_the_builder_of_a_pinned_list_runs_the_same_queries_for_1_and_20_units(
    player, scouts, django_assert_max_num_queries
):
    counts = {}
    for total in (1, 20):
        entries = [{"id": f"e{i}", "unit": BATTLE_MASTER, "options": {ASSASSIN: 1}} for i in range(total)]
        ArmyList.objects.filter(pk=scouts.pk).update(entries=entries)
        player.get(f"/lists/{scouts.pk}/")  # warm the two versions' books
        with CaptureQueriesContext(connection) as queries:
            said = notice(player.get(f"/lists/{scouts.pk}/"))
        assert said.startswith("Ratmen 3.5.2 is out:") and f"{15 * total} pts" in said
        counts[total] = len(queries)
    assert counts[1] == counts[20], counts
    # The session, the user, the list, its book's handle, the core rules; the dry run's two handles in a savepoint.
    with django_assert_max_num_queries(9):
        player.get(f"/lists/{scouts.pk}/")


def test_the_notice_counts_a_removed_unit_apart_from_the_units_that_change_cost(player, user, make_aof_book):
    book_import(data=make_aof_book())
    entries = [{"id": "hero", "unit": "warden-captain"}, {"id": "troops", "unit": "wardens"}]
    made = make_list(user, "test-wardens", entries)
    newer = make_aof_book()
    newer["version"] = "2.0.0"
    newer["units"], newer["packages"] = newer["units"][:1], newer["packages"][:1]
    book_import(data=newer)
    said = notice(player.get(f"/lists/{made.pk}/"))
    assert said.startswith("Test Wardens 2.0.0 is out: no unit changes cost; 1 unit removed.")
    assert "Updating removes a unit 2.0.0 no longer has: Wardens." in said


def test_the_notice_of_a_move_that_leaves_the_list_over_its_points_says_so(player, user):
    made = ratmen_3_5_2_list(user, points=2155)
    said = notice(player.get(f"/lists/{made.pk}/"))
    assert said.startswith("Ratmen 3.5.3 is out: ")
    assert "After the move: 2,350 of 2,155 pts, 195 over; 2 issues." in said


# -- the review --------------------------------------------------------------------------------
# God-Titan, Giant Blessed Beast, Blessed Platform, Militia, Giant Rats, Night Scouts: with the
# heroes and machines of `ratmen_3_5_2_list`, a legal 2,155 pts list on 3.5.2, 2,350 pts on 3.5.3.
BIG_UNITS = ("SthvnvH", "lNrKPTx", "bIbOg6H", "L63ELXt", "etbxZuh", "6vA1AhE")


def ratmen_3_5_2_list(owner, points: int) -> ArmyList:
    """A Ratmen 3.5.2 list whose Battle Master's Pet Giant Rat 3.5.3 moved to "Upgrade with
    one" under a new id, whose Weapon Teams lose their Spotter Rat; then 3.5.3 comes out."""
    import_armyforge("aof--ratmen.json")
    entries = [
        {"id": "boss", "unit": BATTLE_MASTER, "options": {"fNwHbYSW": 1}},
        {"id": "champion", "unit": "IDU9HOb", "options": {"gXK-r3-Tei": 1}},
        {"id": "roller", "unit": "nlL4SRE", "options": {"oFtD5yoJ": 1}},
        {"id": "team", "unit": "wXtqtYK", "options": {"KYZ4pSrM": 1}},
        *({"id": f"more-{i}", "unit": unit} for i, unit in enumerate(BIG_UNITS)),
    ]
    made = make_list(owner, "ratmen", entries)
    ArmyList.objects.filter(pk=made.pk).update(points_limit=points)
    import_armyforge("aof--ratmen.json", "3.5.3")
    made.refresh_from_db()
    return made


def test_the_review_shows_the_options_kept_under_new_ids_and_what_the_moved_list_breaks(player, user):
    made = ratmen_3_5_2_list(user, points=2155)
    text = page_text(player.get(f"/lists/{made.pk}/book/?to=3.5.3"))
    assert "Battle Master 55 → 65 pts (+10) Keeps Pet Giant Rat (Repel Ambushers) , now in “Upgrade with one”: " in text
    assert "10 → 15 pts a pick" in text
    assert "Champion 35 → 40 pts (+5) Keeps Pet Giant Rat (Repel Ambushers) : 10 → 15 pts a pick" in text
    assert (
        "Drops Spotter Rat (Defense Debuff) : Weapon Teams can no longer take Spotter Rat (Defense Debuff) in 3.5.3"
    ) in text
    assert "After the move: 2,350 of 2,155 pts, 195 over; 2 issues ." in text
    assert "2350 pts is 195 over the 2155 pts limit" in text
    assert "God-Titan costs 830 pts, but no unit may cost more than 754 pts (35% of 2155 pts)" in text


def test_the_review_of_a_move_that_leaves_the_list_legal_says_so(player, scouts):
    text = page_text(player.get(f"/lists/{scouts.pk}/book/?to=3.5.2"))
    assert "After the move: 45 of 2,000 pts; no issues : the list is legal." in text


def test_the_review_lists_the_battle_master_dropping_scout_master_and_changes_nothing(player, scouts):
    version = scouts.version
    review = player.get(f"/lists/{scouts.pk}/book/?to=3.5.2")
    assert review.status_code == 200
    text = page_text(review)
    assert "Update “Scouts” to Ratmen 3.5.2" in text
    assert "Your one unit changes cost, \u221215 pts : 60 → 45 pts." in text
    assert "Battle Master 60 → 45 pts (\u221215)" in text
    assert "Drops Assassin (Takedown Strike) : Ratmen 3.5.2 has no Assassin (Takedown Strike) any more" in text
    assert "Total 60 → 45 pts (\u221215)" in text
    html = review.content.decode()
    assert 'name="csrfmiddlewaretoken"' in html
    assert f'<input type="hidden" name="version" value="{version}">' in html
    assert '<button type="submit" class="primary">Update to 3.5.2</button>' in html
    scouts.refresh_from_db()
    assert (scouts.version, scouts.book_version, scouts.entries[0]["options"]) == (version, "3.5.1", {ASSASSIN: 1})


def test_the_review_defaults_to_the_current_version_and_offers_every_version_held(player, scouts):
    html = player.get(f"/lists/{scouts.pk}/book/").content.decode()
    assert "Update to 3.5.2" in html
    options = re.findall(r'<option value="([^"]+)"[^>]*>([^<]+)</option>', html)
    assert [(value, label.split(" · ")[0]) for value, label in options] == [
        ("3.5.2", "3.5.2 (current)"),
        ("3.5.1", "3.5.1 (this list)"),
    ]


def test_a_version_not_held_is_named_and_nothing_moves(player, scouts):
    version = scouts.version
    review = player.get(f"/lists/{scouts.pk}/book/?to=9.9.9")
    assert review.status_code == 400
    assert 'Ratmen has no version "9.9.9" here: it holds 3.5.1, 3.5.2.' in page_text(review)
    moved = player.post(f"/lists/{scouts.pk}/book/move/", {"to": "9.9.9", "version": version}, follow=True)
    assert 'The list was not moved: Ratmen has no version "9.9.9" here: it holds 3.5.1, 3.5.2.' in page_text(moved)
    scouts.refresh_from_db()
    assert (scouts.version, scouts.book_version) == (version, "3.5.1")


def test_someone_elses_list_is_not_found_and_does_not_move(client, scouts, staff_user):
    client.force_login(staff_user)
    assert client.get(f"/lists/{scouts.pk}/book/").status_code == 404
    assert client.post(f"/lists/{scouts.pk}/book/move/", {"to": "3.5.2", "version": scouts.version}).status_code == 404
    scouts.refresh_from_db()
    assert scouts.book_version == "3.5.1"


# -- the move ----------------------------------------------------------------------------------
def test_update_moves_the_list_and_the_builder_shows_the_new_total_and_no_notice(player, scouts):
    response = player.post(f"/lists/{scouts.pk}/book/move/", {"to": "3.5.2", "version": scouts.version})
    assert (response.status_code, response["Location"]) == (302, f"/lists/{scouts.pk}/")
    builder = player.get(response["Location"])
    html = builder.content.decode()
    assert "Moved to Ratmen 3.5.2: the list is now 45 pts (was 60)." in page_text(builder)
    assert '<span class="points" id="points">45/2000 pts</span>' in html
    assert notice(builder) == ""
    scouts.refresh_from_db()
    assert (scouts.book_version, scouts.entries[0]["options"]) == ("3.5.2", {})


def test_a_stale_review_moves_nothing_and_says_the_list_changed_elsewhere(player, scouts):
    seen = scouts.version
    ArmyList.objects.filter(pk=scouts.pk).update(name="Renamed in another tab", version=seen + 1)
    response = player.post(f"/lists/{scouts.pk}/book/move/", {"to": "3.5.2", "version": seen}, follow=True)
    assert response.redirect_chain == [(f"/lists/{scouts.pk}/book/?to=3.5.2", 302)]
    text = page_text(response)
    assert f"This list was changed elsewhere (it is now at version {seen + 1}); it was not moved." in text
    assert "Update “Renamed in another tab” to Ratmen 3.5.2" in text  # the review, as the list is now
    scouts.refresh_from_db()
    assert (scouts.version, scouts.book_version, scouts.entries[0]["options"]) == (seen + 1, "3.5.1", {ASSASSIN: 1})


def test_a_move_without_the_version_it_was_based_on_is_refused(player, scouts):
    response = player.post(f"/lists/{scouts.pk}/book/move/", {"to": "3.5.2"}, follow=True)
    assert "The list was not moved: The form did not say which version of the list it was made from." in (
        page_text(response)
    )
    scouts.refresh_from_db()
    assert scouts.book_version == "3.5.1"


def test_moving_back_to_3_5_1_is_reviewed_then_made(player, scouts):
    moved = services.army_list_upgrade(army_list=scouts).army_list
    review = player.get(f"/lists/{moved.pk}/book/?to=3.5.1")
    text = page_text(review)
    assert "Move “Scouts” to Ratmen 3.5.1" in text and "Move back to 3.5.1" in text
    assert "Battle Master 45 → 45 pts Kept as it is" in text and "Keep 3.5.2" in text
    response = player.post(f"/lists/{moved.pk}/book/move/", {"to": "3.5.1", "version": moved.version}, follow=True)
    assert "Moved to Ratmen 3.5.1: the list is now 45 pts (was 45)." in page_text(response)
    assert notice(response).startswith("Ratmen 3.5.2 is out: no unit changes cost.")
    moved.refresh_from_db()
    assert moved.book_version == "3.5.1"


def test_a_visitor_moves_their_own_list_on(client, db):
    import_armyforge("aof--ratmen.json", "3.5.1")
    assert client.post("/new/aof/", {"faction": "ratmen", "points": "1000", "name": "Mine"}).status_code == 302
    made = ArmyList.objects.get()
    client.post(f"/lists/{made.pk}/act/", {"version": made.version, "action": "add", "unit": BATTLE_MASTER})
    made.refresh_from_db()
    options = {"version": made.version, "action": "options", "entry": "e1", "partial": "1", "set": f"{ASSASSIN}=1"}
    client.post(f"/lists/{made.pk}/act/", options)
    import_armyforge("aof--ratmen.json")
    made.refresh_from_db()
    assert made.entries[0]["options"] == {ASSASSIN: 1}
    assert notice(client.get(f"/lists/{made.pk}/")).startswith("Ratmen 3.5.2 is out")
    response = client.post(f"/lists/{made.pk}/book/move/", {"to": "3.5.2", "version": made.version}, follow=True)
    assert "Moved to Ratmen 3.5.2: the list is now 45 pts (was 60)." in page_text(response)


# -- the words ---------------------------------------------------------------------------------
def report(*costs: tuple[int, int], dropped: int = 0, removed: int = 0) -> dict:
    entries = [
        {"id": f"e{i}", "unit": f"Unit {i}", "cost": list(cost), "dropped": [], "removed": False}
        for i, cost in enumerate(costs)
    ]
    for entry in entries[:removed]:
        entry.update(removed=True, reason="gone")
    for i in range(dropped):
        entries[-1]["dropped"].append({"option": f"o{i}", "label": f"Option {i}", "reason": "gone"})
    total = [sum(c[0] for c in costs), sum(c[1] for c in costs)]
    return {"from": "1.0", "to": "2.0", "total_points": total, "entries": entries}


@pytest.mark.parametrize(
    ("costs", "words"),
    [
        ([(100, 100), (50, 50)], "Orcs 2.0 is out: no unit changes cost."),
        ([(100, 90), (50, 50), (20, 20)], "Orcs 2.0 is out: 1 of your 3 units changes cost, \u221210 pts."),
        ([(100, 90), (50, 60)], "Orcs 2.0 is out: 2 of your 2 units change cost, ±0 pts."),
        ([(100, 105)], "Orcs 2.0 is out: your one unit changes cost, +5 pts."),
        ([], "Orcs 2.0 is out: no unit changes cost."),
    ],
)
def test_the_notice_counts_the_units_that_change_cost_and_signs_the_points(costs, words):
    assert presenters.move_view(report(*costs), "Orcs").headline() == words


def test_a_removed_unit_is_counted_apart_from_the_units_that_change_cost():
    view = presenters.move_view(report((120, 0), (100, 90), (50, 50), removed=1), "Orcs")
    assert view.headline() == "Orcs 2.0 is out: 1 of your 3 units changes cost, \u221210 pts; 1 unit removed."
    only_removed = presenters.move_view(report((120, 0), (50, 50), removed=1), "Orcs")
    assert only_removed.headline() == "Orcs 2.0 is out: no unit changes cost; 1 unit removed."
    assert [row.changes_cost for row in view.rows] == [False, True, False]
    assert [row.change for row in view.rows] == ["\u2212120", "\u221210", ""]


@pytest.mark.parametrize(
    ("validation", "words"),
    [
        (
            {"valid": False, "total_points": 2405, "points_limit": 2000, "issues": [{}] * 3},
            "2,405 of 2,000 pts, 405 over; 3 issues",
        ),
        ({"valid": True, "total_points": 1870, "points_limit": 2000, "issues": []}, "1,870 of 2,000 pts; no issues"),
        ({"valid": False, "total_points": 300, "points_limit": None, "issues": [{}]}, "300 pts; 1 issue"),
    ],
)
def test_what_the_moved_list_is_in_one_line(validation, words):
    view = presenters.move_view({**report((100, 100)), "validation": validation}, "Orcs")
    assert view.after_words() == f"After the move: {words}"
    assert (f"After the move: {words}." in view.details()) is not validation["valid"]


def test_the_notice_names_two_dropped_options_and_counts_the_rest():
    view = presenters.move_view(report((100, 0), (50, 40), dropped=3, removed=1), "Orcs")
    assert view.details() == [
        "Updating drops 3 upgrades 2.0 no longer offers: Option 0 from Unit 1, Option 1 from Unit 1 and 1 more.",
        "Updating removes a unit 2.0 no longer has: Unit 0.",
    ]


def test_a_list_built_on_a_version_no_longer_kept_is_told_which_prices_it_shows(player, scouts):
    ArmyList.objects.filter(pk=scouts.pk).update(book_version="3.4.0")
    said = notice(player.get(f"/lists/{scouts.pk}/"))
    assert said.startswith("Ratmen 3.4.0 is no longer kept here: this list is priced with 3.5.2.")
    assert "What changed" not in said
    review = page_text(player.get(f"/lists/{scouts.pk}/book/"))
    assert "Update “Scouts” to Ratmen 3.5.2" in review and "What changed in Ratmen" not in review
    # Its prices were 3.5.2's already; an option that version does not know is named by its id.
    assert "No unit changes cost : 45 → 45 pts." in review
    assert f"Drops {ASSASSIN} : Ratmen 3.5.2 has no {ASSASSIN} any more" in review
