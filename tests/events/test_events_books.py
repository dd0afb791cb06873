"""An event pack's rule for the versions of army books (issue 22, item 7): "current" (the
default) asks every list to be on its book's current version, "any" lets players keep the
version they built on. A submission records the version its list is built on; the API,
the organiser's page, the CSV and the combined roster show it. Real data: the official
Army Forge Wood Elves at 3.5.1 and 3.5.2 (../shared/armyforge/), whose Giant Beetle
costs 225 pts in 3.5.1 and 230 in 3.5.2."""

import csv
import io
import json
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from armybuilder.accounts import services as accounts
from armybuilder.armyforge.books.imports import book_import
from armybuilder.events import format as pack_format
from armybuilder.events import services as event_services
from armybuilder.events.models import EventPack, Submission
from armybuilder.events.rules import BOOKS_WORDS
from armybuilder.exports.pdf_style import ERROR
from armybuilder.lists import services
from armybuilder.lists import submissions as list_submissions
from armybuilder.lists.format import parse_list_body
from armybuilder.lists.models import ArmyList
from armybuilder.memo import clear_all
from tests.conftest import SHARED, require_shared
from tests.events.test_event_files import page_texts
from tests.support.pdf_pixels import colour_near, page_images, seen

pytestmark = pytest.mark.usefixtures("fresh_caches")  # the file and book caches emptied around each test

ARMYFORGE = SHARED / "armyforge"
User = get_user_model()
MOVE_ON = (
    "Event rule: Grove Moot plays the current Wood Elves book, 3.5.2; this list is built on 3.5.1. To move it on, "
    'open it in the builder: "Review the update" shows what changes, "Update to 3.5.2" moves it; then submit it '
    "again."
)


def wood_elves(version: str) -> dict:
    """The Army Forge Wood Elves of `version` (3.5.1 or 3.5.2)."""
    folder = ARMYFORGE if version == "3.5.2" else ARMYFORGE / version
    return json.loads(require_shared(folder / "aof--wood-elves.json").read_text())


def giant_beetle() -> str:
    return next(unit["id"] for unit in wood_elves("3.5.2")["units"] if unit["name"] == "Giant Beetle")


@pytest.fixture
def people(db) -> dict:
    """Each shown by a display name of their own: "elder" is the elder's display name, not their username."""
    names = ("organiser", "elder", "sprout")
    password = "not-a-real-pass-123"
    return {
        name: accounts.user_create(username=f"{name}-login", password=password, display_name=name) for name in names
    }


def beetle_list(owner, name: str) -> ArmyList:
    body = {
        "name": name,
        "system": "aof",
        "faction": "wood-elves",
        "points_limit": 1000,
        "entries": [{"id": "e1", "unit": giant_beetle()}],
    }
    return services.army_list_create(data=parse_list_body(body)[0], owner=owner)


@pytest.fixture
def lists(people) -> dict:
    """The elder's Giant Beetle built on Wood Elves 3.5.1; then 3.5.2 came out, and the
    sprout built theirs on it."""
    clear_all()
    book_import(data=wood_elves("3.5.1"), system="aof")
    old = beetle_list(people["elder"], "Old Grove")
    book_import(data=wood_elves("3.5.2"), system="aof")
    new = beetle_list(people["sprout"], "New Grove")
    return {"old": ArmyList.objects.get(pk=old.pk), "new": new}


def pack_of(organiser, **changes) -> EventPack:
    data = {
        "name": "Grove Moot",
        "ruleset": "aof",
        "points_limit": 1000,
        "deadline": (timezone.now() + timedelta(days=7)).isoformat(),
        **changes,
    }
    return event_services.pack_create(organiser=organiser, data=data)


@pytest.fixture
def moot(people, lists) -> EventPack:
    """Grove Moot, which plays the current books (the default), with both lists submitted."""
    pack = pack_of(people["organiser"])
    for player, army_list in (("elder", lists["old"]), ("sprout", lists["new"])):
        event_services.submission_submit(pack=pack, player=people[player], army_list=army_list)
    return pack


def rows_of(pack: EventPack) -> dict[str, list_submissions.SubmissionRow]:
    submissions = list(pack.submissions.select_related("player"))
    return {row.player_name: row for row in list_submissions.submission_rows(pack, submissions)}


def book_issues(row: list_submissions.SubmissionRow) -> list[dict]:
    return [issue for issue in row.issues if issue["code"] == "event_book_version"]


# -- the rule ----------------------------------------------------------------------------------
def test_a_pack_plays_the_current_books_unless_it_says_otherwise(people):
    assert pack_of(people["organiser"]).books == "current"
    assert pack_of(people["organiser"], books="any").books == "any"


def test_under_current_books_a_list_on_an_older_version_is_told_to_move_on(moot):
    rows = rows_of(moot)
    elder, sprout = rows["elder"], rows["sprout"]
    assert (elder.book_version, elder.book_latest, elder.book_changed) == ("3.5.1", "3.5.2", True)
    assert elder.submission.data["book_version"] == "3.5.1"
    assert book_issues(elder) == [
        {
            "code": "event_book_version",
            "severity": "error",
            "message": MOVE_ON,
            "entry": None,
            "rule": "Grove Moot — event rule",
        }
    ]
    assert elder.valid is False
    assert elder.validation["total_points"] == 225  # still priced as the version it is built on
    assert (sprout.book_version, sprout.book_changed, book_issues(sprout)) == ("3.5.2", False, [])
    assert sprout.validation["total_points"] == 230


def test_a_list_moved_on_to_the_current_version_and_submitted_again_has_no_such_issue(moot, people, lists):
    moved = services.army_list_upgrade(army_list=lists["old"]).army_list
    assert moved.book_version == "3.5.2"
    assert book_issues(rows_of(moot)["elder"]), "the submission is a frozen copy: it keeps 3.5.1 until submitted again"

    event_services.submission_submit(pack=moot, player=people["elder"], army_list=moved)

    elder = rows_of(moot)["elder"]
    assert (elder.book_version, elder.submission.data["book_version"], book_issues(elder)) == ("3.5.2", "3.5.2", [])
    assert elder.validation["total_points"] == 230
    assert Submission.objects.filter(player=people["elder"]).count() == 1


def test_the_review_of_a_move_checks_a_list_built_for_the_event_by_the_events_rules(moot, lists):
    """Moving the sprout's list, built for Grove Moot, back to 3.5.1 would break the event's
    rule on versions: the report's validation of the moved list says so, and moving it on
    to the current version again says nothing of it."""
    entered = services.army_list_enter(army_list=lists["new"], pack=moot)
    back = services.army_list_upgrade(army_list=entered, book_version="3.5.1", dry_run=True).report
    assert [issue["code"] for issue in back["validation"]["issues"]] == ["event_book_version"]
    assert back["validation"]["valid"] is False
    moved = services.army_list_upgrade(army_list=entered, book_version="3.5.1").army_list
    forward = services.army_list_upgrade(army_list=moved, dry_run=True).report
    assert (forward["validation"]["valid"], forward["validation"]["issues"]) == (True, [])


def test_under_any_books_a_list_keeps_its_version_and_its_prices(moot, people, lists):
    relaxed = pack_of(people["organiser"], name="Open Glade", books="any")
    event_services.submission_submit(pack=relaxed, player=people["elder"], army_list=lists["old"])

    elder = rows_of(relaxed)["elder"]
    assert (elder.book_version, book_issues(elder)) == ("3.5.1", [])
    assert elder.validation["total_points"] == 225
    assert [e["cost"] for e in elder.validation["entries"]] == [225]
    strict = rows_of(moot)["elder"]
    assert {i["code"] for i in elder.issues} == {i["code"] for i in strict.issues} - {"event_book_version"}


def test_changing_the_rule_checks_the_submissions_again(moot):
    assert book_issues(rows_of(moot)["elder"])
    event_services.pack_update(pack=moot, data={"books": "any"})
    assert book_issues(rows_of(moot)["elder"]) == []
    event_services.pack_update(pack=moot, data={"name": "Grove Moot"})  # another change keeps the rule
    assert EventPack.objects.get(pk=moot.pk).books == "any"


@pytest.mark.parametrize("value", ["latest", "", None, ["any"], {"any": True}, 1])
def test_a_rule_other_than_current_or_any_is_refused_on_its_field(people, value):
    with pytest.raises(pack_format.EventError) as refused:
        pack_of(people["organiser"], books=value)
    assert list(refused.value.errors) == ["books"]
    assert refused.value.errors["books"] == [pack_format.BOOKS_CHOICE]
    assert not EventPack.objects.exists()


# -- the API -----------------------------------------------------------------------------------
def test_the_api_reads_and_writes_the_rule_and_refuses_a_bad_one(people, lists):
    organiser = APIClient()
    organiser.force_authenticate(people["organiser"])
    deadline = (timezone.now() + timedelta(days=7)).isoformat()
    body = {"name": "Grove Moot", "ruleset": "aof", "points_limit": 1000, "deadline": deadline}

    made = organiser.post("/api/events/", {**body, "books": "any"}, format="json")
    assert made.status_code == 201, made.content
    at = f"/api/events/{made.json()['key']}/"
    assert (made.json()["books"], APIClient().get(at).json()["books"]) == ("any", "any")
    assert {"text": BOOKS_WORDS["any"], "source": "event rule", "changed": ""} in made.json()["rules"]

    changed = organiser.patch(at, {"books": "current"}, format="json")
    assert (changed.status_code, changed.json()["books"], changed.json()["version"]) == (200, "current", 2)

    refused = organiser.patch(at, {"books": "newest"}, format="json")
    assert refused.status_code == 400
    assert refused.json() == {"books": [pack_format.BOOKS_CHOICE]}
    assert (EventPack.objects.get().books, EventPack.objects.get().version) == ("current", 2)
    assert organiser.post("/api/events/", body, format="json").json()["books"] == "current"


def test_a_submission_over_the_api_names_its_book_version(people, lists):
    pack = pack_of(people["organiser"])
    player = APIClient()
    player.force_authenticate(people["elder"])
    response = player.post(f"/api/events/{pack.key}/submissions/", {"list": lists["old"].pk}, format="json")
    assert response.status_code == 201, response.content
    submission = response.json()
    assert (submission["book_version"], submission["list"]["book_version"]) == ("3.5.1", "3.5.1")
    assert MOVE_ON in [issue["message"] for issue in submission["issues"]]


def test_the_schema_documents_the_rule_as_a_choice(db, api_client):
    components = api_client.get("/api/schema/?format=json").json()["components"]["schemas"]
    for name in ("EventPackRequest", "PatchedEventPackRequest", "EventPackOut"):
        assert components[name]["properties"]["books"]["allOf"] == [{"$ref": "#/components/schemas/BooksEnum"}]
    assert components["BooksEnum"]["enum"] == ["current", "any"]
    assert "book_version" in components["SubmissionOut"]["properties"]


# -- the organiser's page, the CSV and the combined roster ---------------------------------------
def organiser_client(pack: EventPack) -> Client:
    client = Client()
    client.force_login(pack.organiser)
    return client


def test_the_organiser_s_page_shows_each_submission_s_book_version(moot):
    page = organiser_client(moot).get(moot.path).content.decode()
    rows = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0].split("<tr")[1:]
    elder, sprout = (next(row for row in rows if f"<strong>{name}</strong>" in row) for name in ("elder", "sprout"))
    assert '<td data-label="Book" class="book-version">3.5.1<span class="muted"> (current: 3.5.2)</span></td>' in elder
    assert '<td data-label="Book" class="book-version">3.5.2</td>' in sprout
    assert "plays the current Wood Elves book, 3.5.2; this list is built on 3.5.1" in elder
    assert "event_book_version" not in sprout and "plays the current" not in sprout
    assert BOOKS_WORDS["current"].replace("'", "&#x27;") in page


def test_a_player_sees_the_version_of_their_own_submission(moot, people):
    client = Client()
    client.force_login(people["elder"])
    page = client.get(moot.path).content.decode()
    own = page.split('id="your-submission"', 1)[1].split("</section>", 1)[0]
    assert '<bdi>Wood Elves</bdi> 3.5.1 <span class="muted">(current: 3.5.2)</span>' in own
    assert "plays the current Wood Elves book, 3.5.2" in own


def test_the_csv_has_a_book_version_column(moot):
    response = organiser_client(moot).get(f"/events/{moot.key}/submissions.csv")
    assert response.status_code == 200
    header, *rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert header.count("book_version") == 1
    by_player = {row[0]: dict(zip(header, row, strict=True)) for row in rows}
    assert {player: row["book_version"] for player, row in by_player.items()} == {"elder": "3.5.1", "sprout": "3.5.2"}
    assert MOVE_ON in by_player["elder"]["issues"]
    assert "plays the current" not in by_player["sprout"]["issues"]


def test_the_combined_roster_shows_each_book_version_in_its_text_and_on_its_pages(moot):
    response = organiser_client(moot).get(f"/events/{moot.key}/roster.pdf")
    assert response.status_code == 200
    data = response.content
    texts = page_texts(data)
    cover = texts[0]
    assert BOOKS_WORDS["current"] in cover
    assert "# Player Army Book Points Status Issues" in cover
    assert "1 elder Wood Elves 3.5.1 225 / 1000 Not legal" in cover
    assert "2 sprout Wood Elves 3.5.2 230 / 1000" in cover
    elder_page = next(text for text in texts if text.startswith("Player: elder"))
    assert "Wood Elves · army book 3.5.1" in elder_page
    assert MOVE_ON in elder_page
    sprout_page = next(text for text in texts if text.startswith("Player: sprout"))
    assert "army book 3.5.2" in sprout_page and "plays the current" not in sprout_page

    images = page_images(data)
    old = [s for s in seen(data, "3.5.1", images=images) if s.page == 1]
    new = [s for s in seen(data, "3.5.2", images=images) if s.page == 1]
    assert old and all(s.legible and colour_near(s.ink, ERROR) for s in old), old  # the version the event refuses
    assert new and all(s.legible and not colour_near(s.ink, ERROR) for s in new), new


def test_under_any_books_the_roster_says_so_and_flags_no_version(people, lists):
    pack = pack_of(people["organiser"], books="any")
    event_services.submission_submit(pack=pack, player=people["elder"], army_list=lists["old"])
    data = organiser_client(pack).get(f"/events/{pack.key}/roster.pdf").content
    assert BOOKS_WORDS["any"] in page_texts(data)[0]
    old = [s for s in seen(data, "3.5.1") if s.page == 1]
    assert old and all(s.legible and not colour_near(s.ink, ERROR) for s in old), old


# -- the pack's forms ----------------------------------------------------------------------------
def test_the_pack_forms_set_the_rule_and_name_a_bad_one_at_its_field(people, lists):
    client = Client()
    client.force_login(people["organiser"])
    deadline = (timezone.now() + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")
    form = {"name": "Grove Moot", "ruleset": "aof", "points_limit": "1000", "deadline": deadline}
    page = client.get("/events/new/").content.decode()
    assert 'name="books"' in page and '<option value="current" selected>' in page

    made = client.post("/events/new/", {**form, "books": "any"})
    assert made.status_code == 302
    pack = EventPack.objects.get()
    assert pack.books == "any"

    edit = f"{pack.path}edit/"
    assert '<option value="any" selected>' in client.get(edit).content.decode()
    client.post(edit, {"rule": "basics", "version": pack.version, **form, "books": "current"})
    pack.refresh_from_db()
    assert (pack.books, pack.version) == ("current", 2)
    client.post(edit, {"rule": "basics", "version": pack.version, **form})  # a form without it keeps it
    pack.refresh_from_db()
    assert (pack.books, pack.version) == ("current", 3)

    refused = client.post(edit, {"rule": "basics", "version": pack.version, **form, "books": "newest"})
    assert refused.status_code == 400
    field = refused.content.decode().split('name="books"', 1)[1].split("</div>", 1)[0]
    assert "Select a valid choice" in field
    pack.refresh_from_db()
    assert pack.version == 3
