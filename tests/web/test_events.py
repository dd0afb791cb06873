"""The event pages (armybuilder/web/events.py) through Django's test client: who may see
and do what (404, never 403; the log-in page where one is needed), a pack made and
changed through its forms, bad input named next to its field, submissions, the
organiser's table in a fixed number of queries, and the builder's event box."""

import html
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from armybuilder.accounts import services as accounts
from armybuilder.events import format as pack_format
from armybuilder.events import services as event_services
from armybuilder.events.models import EventPack, Submission
from armybuilder.lists import selectors as list_selectors
from armybuilder.lists.models import ArmyList
from tests.conftest import wardens_list as make_list

User = get_user_model()
PASSWORD = "not-a-real-pass-123"


def deadline(days: int = 7) -> str:
    """A deadline as the form's date-and-time field sends it (read in settings.TIME_ZONE)."""
    return (timezone.now() + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M")


def pack_form(**changes) -> dict:
    fields = {
        "name": "Club Night",
        "description": "Thursday games.",
        "ruleset": "aof",
        "points_limit": "355",
        "deadline": deadline(),
    }
    return {**fields, **changes}


@pytest.fixture
def people(db):
    made = {
        "organiser": User.objects.create_user("org", password=PASSWORD),
        "staff": User.objects.create_user("staffer", password=PASSWORD, is_staff=True),
        "submitter": accounts.user_create(username="player-one", password=PASSWORD, display_name="Ada"),
        "other": User.objects.create_user("other", password=PASSWORD),
    }
    return made


def client_of(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def clients(people):
    return {role: client_of(user) for role, user in people.items()} | {"anonymous": Client()}


@pytest.fixture
def pack(wardens, people):
    """Club Night at 355 pts, single units at most 30% of the points (106 pts), with the
    submitter's legal list submitted."""
    data = {
        "name": "Club Night",
        "description": "Thursday games.",
        "ruleset": "aof",
        "points_limit": 355,
        "deadline": timezone.now() + timedelta(days=7),
        "limit_changes": {"unit_too_expensive": {"percent": 30}},
    }
    made = event_services.pack_create(organiser=people["organiser"], data=data)
    legal = make_list(people["submitter"], ["wardens-0"], event=made, name="Cohort alone")  # 60 pts
    event_services.submission_submit(pack=made, player=people["submitter"], army_list=legal)
    return made


def text_of(response) -> str:
    """The page as a reader sees its text (entities such as &quot; read back)."""
    return html.unescape(response.content.decode())


def field_block(page: str, name: str) -> str:
    """The `.field` box holding the control named `name`: where its errors must be."""
    for block in page.split('<div class="field">')[1:]:
        if f'name="{name}"' in block.split("</div>")[0]:
            return block.split("</div>")[0]
    raise AssertionError(f"no field {name}")


# -- who may see and do what -----------------------------------------------------------------
ROLES = ["organiser", "staff", "submitter", "other", "anonymous"]


@pytest.mark.parametrize("role", ROLES)
def test_anyone_with_the_link_reads_the_pack_and_only_its_managers_see_every_submission(pack, clients, role):
    page = text_of(clients[role].get(pack.path))
    assert "Club Night" in page and "No single unit may cost more than 30% of the points limit" in page
    sees_table = role in ("organiser", "staff")
    assert ('id="submissions"' in page) == sees_table
    assert ("roster.pdf" in page and "submissions.csv" in page) == sees_table
    assert ("Cohort alone" in page) == (role in ("organiser", "staff", "submitter"))
    assert ("Your submission" in page) == (role == "submitter")
    assert ("/edit/" in page) == sees_table
    assert ("Submit one of your lists" in page) == (role != "anonymous")


@pytest.mark.parametrize("role", ROLES)
def test_changing_or_deleting_someone_else_s_pack_is_a_404(pack, clients, role):
    client = clients[role]
    allowed = role in ("organiser", "staff")
    expected = 200 if allowed else 404
    assert client.get(f"{pack.path}edit/").status_code == expected
    assert client.get(f"{pack.path}delete/").status_code == expected
    form = {"rule": "basics", "version": pack.version, **pack_form(name="Taken over")}
    assert client.post(f"{pack.path}edit/", form).status_code == (302 if allowed else 404)
    assert EventPack.objects.get().name == ("Taken over" if allowed else "Club Night")
    if not allowed:
        assert client.post(f"{pack.path}delete/").status_code == 404
        assert EventPack.objects.exists()


def test_staff_and_the_organiser_may_delete_a_pack(pack, clients):
    response = clients["staff"].post(f"{pack.path}delete/")
    assert response.status_code == 302 and response["Location"] == "/events/"
    assert not EventPack.objects.exists() and not Submission.objects.exists()
    assert "Deleted Club Night." in text_of(clients["staff"].get("/events/"))


def test_a_pack_that_does_not_exist_is_a_404_on_every_page(wardens, clients):
    for path in ("/events/nope/", "/events/nope/edit/", "/events/nope/delete/"):
        assert clients["organiser"].get(path).status_code == 404
    assert clients["organiser"].post("/events/nope/submit/", {"army_list": 1}).status_code == 404


@pytest.mark.parametrize("path", ["/events/new/", "submit", "build"])
def test_anonymous_makers_and_submitters_go_to_the_log_in_page(pack, clients, path):
    target = path if path.startswith("/") else f"{pack.path}{path}/"
    response = clients["anonymous"].post(target, {"army_list": "1", "faction": "test-wardens", **pack_form()})
    assert response.status_code == 302
    next_page = "/events/new/" if path.startswith("/") else pack.path
    assert response["Location"] == f"/accounts/login/?next={next_page}"
    assert EventPack.objects.count() == 1 and Submission.objects.count() == 1
    assert ArmyList.objects.count() == 1


def test_the_new_pack_page_sends_a_visitor_to_log_in_first(wardens, clients):
    response = clients["anonymous"].get("/events/new/")
    assert response.status_code == 302 and response["Location"] == "/accounts/login/?next=/events/new/"
    assert clients["other"].get("/events/new/").status_code == 200


def test_the_events_page_lists_a_user_s_packs_and_asks_a_visitor_to_log_in(pack, clients, people):
    mine = text_of(clients["organiser"].get("/events/"))
    assert "New event pack" in mine and pack.path in mine and "Age of Fantasy 3.2.0" in mine and "open" in mine
    entered = text_of(clients["submitter"].get("/events/"))
    assert "Packs you entered" in entered and pack.path in entered
    assert pack.path not in text_of(clients["other"].get("/events/"))
    assert pack.path in text_of(clients["staff"].get("/events/"))
    visitor = text_of(clients["anonymous"].get("/events/"))
    assert pack.path not in visitor and 'href="/accounts/login/?next=/events/"' in visitor


@pytest.mark.parametrize("role", ["organiser", "staff", "submitter", "other"])
def test_anyone_signed_in_submits_their_own_list_and_again_replacing_it(pack, clients, people, role):
    for name in ("First try", "Second try"):
        army_list = make_list(people[role], ["wardens-0"], event=pack, name=name)
        response = clients[role].post(f"{pack.path}submit/", {"army_list": army_list.pk}, follow=True)
        assert f"Submitted {name} to Club Night." in text_of(response)
    mine = Submission.objects.get(player=people[role])
    assert mine.data["name"] == "Second try"
    own = text_of(clients[role].get(pack.path)).split('id="your-submission"', 1)[1].split("</section>", 1)[0]
    assert "Second try" in own and "✔ valid" in own and "Submit again" in text_of(clients[role].get(pack.path))
    assert Submission.objects.count() == (1 if role == "submitter" else 2)


def test_a_player_may_not_submit_someone_else_s_list(pack, clients, people):
    theirs = make_list(people["other"], ["wardens"])
    response = clients["submitter"].post(f"{pack.path}submit/", {"army_list": theirs.pk})
    assert response.status_code == 404
    assert Submission.objects.get().data["name"] == "Cohort alone"


# -- making and changing a pack through its forms ----------------------------------------------
def test_a_pack_made_through_the_form_opens_on_its_page(wardens, clients):
    response = clients["other"].post("/events/new/", pack_form(name="Spring Open", points_limit="750"))
    pack = EventPack.objects.get()
    assert response.status_code == 302 and response["Location"] == pack.path
    assert (pack.name, pack.points_limit, pack.ruleset.slug, pack.organiser.username) == (
        "Spring Open",
        750,
        "aof",
        "other",
    )
    page = text_of(clients["other"].get(pack.path))
    assert "Made Spring Open." in page and "Armies of 750 pts" in page
    assert 'At most 1 hero per 500 pts <span class="source">rulebook: Force Organisation</span>' in page


def test_the_new_pack_form_names_the_time_zone_and_every_ruleset(wardens, clients, settings):
    page = text_of(clients["other"].get("/events/new/"))
    assert f"read as {settings.TIME_ZONE} time" in page
    for title in ("Age of Fantasy 3.2.0", "Age of Fantasy: Arena", "One Page Fantasy"):
        assert title in page


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"name": " "}, "name", "Give the event a name."),
        ({"points_limit": "lots"}, "points_limit", "A whole number of points."),
        ({"points_limit": "0"}, "points_limit", "Points must be between 1 and"),
        ({"points_limit": "500", "ruleset": "aof-arena"}, "points_limit", "has no points: leave it empty"),
        ({"deadline": "next thursday"}, "deadline", "A date and a time"),
        ({"ruleset": "warhammer"}, "ruleset", "Select a valid choice"),
    ],
)
def test_a_bad_new_pack_is_named_next_to_its_field_and_makes_nothing(wardens, clients, changes, field, words):
    response = clients["other"].post("/events/new/", pack_form(**changes))
    assert response.status_code == 400
    assert words in field_block(text_of(response), field)
    assert not EventPack.objects.exists()


def edit(client, pack, **fields):
    pack.refresh_from_db()
    return client.post(f"{pack.path}edit/", {"version": pack.version, **fields})


def test_each_rule_is_changed_by_its_own_form(pack, clients):
    org = clients["organiser"]
    response = edit(org, pack, rule="limit", code="unit_too_expensive", percent="25")
    assert response.status_code == 302 and response["Location"] == f"{pack.path}edit/#limit-unit_too_expensive"
    edit(org, pack, rule="limit", code="too_many_units", per="150", unused="1")
    edit(org, pack, rule="add-limit", kind="max_count", params='{"counts": "heroes", "max": 1}', section="Pack p.2")
    edit(org, pack, rule="armies", factions=["test-wardens"])
    edit(org, pack, rule="ban-option", faction="test-wardens", option="HERO-2a")
    edit(org, pack, rule="cap", faction="test-wardens", unit="wardens", max="1")
    response = edit(org, pack, rule="ban-unit", faction="test-wardens", unit="warden-captain")
    assert response["Location"] == f"{pack.path}edit/?army=test-wardens#bans"
    pack.refresh_from_db()
    assert pack.limit_changes == {"unit_too_expensive": {"percent": 25}}
    assert pack.limits_removed == ["too_many_units"]
    assert pack.limits_added == [
        {
            "code": "event_max_count_1",
            "kind": "max_count",
            "params": {"counts": "heroes", "max": 1},
            "section": "Pack p.2",
        }
    ]
    assert pack.factions == ["test-wardens"]
    assert pack.bans == [
        {"faction": "test-wardens", "option": "HERO-2a"},
        {"faction": "test-wardens", "unit": "warden-captain"},
    ]
    assert pack.caps == [{"faction": "test-wardens", "unit": "wardens", "max": 1}]
    page = text_of(org.get(pack.path))
    for words in (
        "No single unit may cost more than 25% of the points limit",
        "Instead of: No single unit may cost more than 35% of the points limit (rulebook: Force Organisation)",
        "Not used: At most 1 unit per 150 pts",
        "At most 1 hero <span",
        "Only these armies may enter: Test Wardens",
        'Not allowed: the upgrade "Warhorse" (Test Wardens)',
        "Not allowed: Warden Captain (Test Wardens)",
        "At most 1 Wardens (Test Wardens)",
    ):
        assert words in page


def test_a_rule_is_removed_and_a_changed_limit_goes_back_to_the_rulebook(pack, clients):
    org = clients["organiser"]
    edit(org, pack, rule="cap", faction="test-wardens", unit="wardens", max="2")
    edit(org, pack, rule="remove", what="caps", index="0")
    edit(org, pack, rule="limit", code="unit_too_expensive", percent="35")
    pack.refresh_from_db()
    assert (pack.caps, pack.limit_changes) == ([], {})
    page = text_of(org.get(f"{pack.path}edit/"))
    assert 'name="percent" value="35"' in page


@pytest.mark.parametrize(
    ("fields", "name", "words"),
    [
        ({"rule": "limit", "code": "unit_too_expensive", "percent": "0"}, "limit-unit_too_expensive", '"percent" must'),
        ({"rule": "limit", "code": "unit_too_expensive", "percent": "x"}, "limit-unit_too_expensive", "whole number"),
        ({"rule": "ban-unit", "faction": "test-wardens", "unit": "dragon"}, "bans", 'No unit "dragon" in Test'),
        ({"rule": "cap", "faction": "test-wardens", "unit": "wardens", "max": "-1"}, "bans", "A whole number from 0"),
        (
            {"rule": "add-limit", "kind": "max_count", "params": "max 1", "section": ""},
            "add-limit",
            "Write the parameters as JSON",
        ),
        ({"rule": "add-limit", "kind": "max_count", "params": "{}", "section": ""}, "add-limit", '"max" is required'),
        (
            {"rule": "add-limit", "kind": "max_count", "params": "[" * 50_000, "section": ""},
            "add-limit",
            "Write the parameters as JSON",
        ),
        (
            {"rule": "limit", "code": "too_many_heroes", "per": "100000000000000000000"},
            "limit-too_many_heroes",
            '"per" must be a whole number from 1 to 1,000,000',
        ),
        ({"rule": "remove", "what": "bans", "index": "3"}, "bans", "not there any more"),
        ({"rule": "basics", **pack_form(deadline="soon")}, "basics", "A date and a time"),
    ],
)
def test_a_bad_rule_is_named_at_the_form_that_sent_it_and_changes_nothing(pack, clients, fields, name, words):
    before = EventPack.objects.values().get()
    response = edit(clients["organiser"], pack, **fields)
    assert response.status_code == 400
    page = text_of(response)
    section = page.split(f'id="{name}"', 1)[1].split("</section>", 1)[0]  # that part of the page only
    assert words.lower() in section.lower()
    assert page.lower().count(words.lower()) == 1
    assert EventPack.objects.values().get() == before


def test_a_change_made_from_an_old_page_is_refused(pack, clients):
    response = clients["organiser"].post(
        f"{pack.path}edit/",
        {"rule": "cap", "version": pack.version - 1, "faction": "test-wardens", "unit": "wardens", "max": "1"},
    )
    assert response.status_code == 400 and "was changed after the page was opened" in text_of(response)
    assert EventPack.objects.get().caps == []


def test_an_unknown_change_is_a_400(pack, clients):
    assert edit(clients["organiser"], pack, rule="explode").status_code == 400


# -- building and submitting ---------------------------------------------------------------------
def test_a_player_builds_a_list_for_the_event_and_submits_it(pack, clients, people):
    player = clients["other"]
    response = player.post(f"{pack.path}build/", {"faction": "test-wardens", "name": ""})
    army_list = ArmyList.objects.get(owner=people["other"])
    assert response.status_code == 302 and response["Location"] == f"/lists/{army_list.pk}/"
    assert (army_list.event_id, army_list.points_limit, army_list.name) == (
        pack.key,
        355,
        "Test Wardens for Club Night",
    )
    page = text_of(player.get(pack.path))
    changed = timezone.localtime(army_list.updated).strftime("%-d %b %Y, %H:%M")
    assert (
        f'<option value="{army_list.pk}" >Test Wardens for Club Night · Test Wardens 1.0.0 · 0/355 pts · '
        f"changed {changed} · built for this event</option>"
    ) in page
    response = player.post(f"{pack.path}submit/", {"army_list": army_list.pk})
    assert response.status_code == 302
    page = text_of(player.get(pack.path))
    assert "Submitted Test Wardens for Club Night to Club Night." in page
    assert "Your submission" in page and "✔ valid" in page
    assert Submission.objects.get(player=people["other"]).data["event"] == pack.key


def submit_options(page: str) -> dict[str, str]:
    """The "Submit one of your lists" menu: {list id: what its option says}."""
    menu = page.split('id="submit-army_list"', 1)[1].split("</select>", 1)[0]
    return dict(re.findall(r'<option value="(\d+)" [^>]*>([^<]*)</option>', menu))


def test_the_submit_menu_tells_lists_of_one_name_apart(pack, clients, people):
    """Lists of one name (a copy kept before a change, say) differ in their book's version,
    their points or when they were last changed: each option says all of them."""
    player = people["other"]
    older = make_list(player, ["wardens"], name="Border Patrol")
    newer = make_list(player, ["wardens", "warden-captain"], name="Border Patrol")
    ArmyList.objects.filter(pk=older.pk).update(updated=timezone.now() - timedelta(days=3))
    older.refresh_from_db()
    options = submit_options(text_of(clients["other"].get(pack.path)))
    when = {a.pk: timezone.localtime(a.updated).strftime("%-d %b %Y, %H:%M") for a in (older, newer)}
    assert options == {
        str(newer.pk): f"Border Patrol · Test Wardens 1.0.0 · 180/355 pts · changed {when[newer.pk]}",
        str(older.pk): f"Border Patrol · Test Wardens 1.0.0 · 110/355 pts · changed {when[older.pk]}",
    }
    assert list(options) == [str(newer.pk), str(older.pk)]  # the last changed first


def test_the_submit_menu_says_an_unnamed_list_s_points_and_a_list_built_for_the_event(pack, clients, people):
    player = people["other"]
    here = make_list(player, ["wardens"], event=pack)
    elsewhere = make_list(player, [])
    options = submit_options(text_of(clients["other"].get(pack.path)))
    assert options[str(here.pk)].startswith("Unnamed list · Test Wardens 1.0.0 · 110/355 pts · changed ")
    assert options[str(here.pk)].endswith(" · built for this event")
    assert options[str(elsewhere.pk)].startswith("Unnamed list · Test Wardens 1.0.0 · 0/355 pts · changed ")
    assert "built for this event" not in options[str(elsewhere.pk)]


def test_a_build_with_an_army_the_event_does_not_take_is_refused(pack, clients):
    event_services.pack_update(pack=pack, data={"factions": ["test-wardens"]})
    response = clients["other"].post(f"{pack.path}build/", {"faction": "orc-hordes"})
    assert response.status_code == 400
    assert "This event does not take that army." in field_block(text_of(response), "faction")
    assert not ArmyList.objects.filter(owner__username="other").exists()


def test_a_submission_of_no_list_names_the_field(pack, clients):
    response = clients["other"].post(f"{pack.path}submit/", {"army_list": ""})
    assert response.status_code == 400 and "Pick one of your lists." in text_of(response)


def test_a_submission_after_the_deadline_is_refused_saying_when_it_closed(pack, clients, people):
    EventPack.objects.filter(pk=pack.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    army_list = make_list(people["other"], ["wardens"])
    response = clients["other"].post(f"{pack.path}submit/", {"army_list": army_list.pk}, follow=True)
    page = text_of(response)
    assert re.search(r"Submissions to Club Night closed at \d{4}-\d\d-\d\d \d\d:\d\d UTC\.", page)
    assert "Submissions closed" in page and "Submit one of your lists" not in page
    assert not Submission.objects.filter(player=people["other"]).exists()


def test_the_organiser_sees_each_submission_checked_against_the_event_s_rules(pack, clients, people):
    too_dear = make_list(people["other"], ["wardens"], event=pack, name="Big Wardens")  # 110 of 355: 31%
    event_services.submission_submit(pack=pack, player=people["other"], army_list=too_dear)
    page = text_of(clients["organiser"].get(pack.path))
    rows = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0].split("<tr")[1:]
    assert len(rows) == 2
    assert "<strong>Ada</strong>" in rows[0] and "✔ valid" in rows[0] and "60/355" in rows[0]
    other = accounts.default_name(people["other"].pk)
    assert f"<strong>{other}</strong>" in rows[1] and "✘ 1 issue" in rows[1] and "110/355" in rows[1]
    assert "Event rule: " in rows[1] and "30% of 355 pts" in rows[1] and "(Club Night — event rule)" in rows[1]


def test_the_organiser_s_page_runs_the_same_queries_for_2_and_40_submissions(pack, clients, people):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            response = clients["organiser"].get(pack.path)
        assert response.status_code == 200
        return len(captured)

    def submit(start: int, end: int) -> None:
        for i in range(start, end):
            who = User.objects.create_user(f"p{i}", password=PASSWORD)
            units = ["wardens", "warden-captain"] if i % 2 else ["wardens"]
            event_services.submission_submit(pack=pack, player=who, army_list=make_list(who, units, event=pack))

    submit(0, 1)  # with the fixture's, 2
    fresh_2, stored_2 = queries(), queries()
    submit(1, 39)
    fresh_40, stored_40 = queries(), queries()
    assert text_of(clients["organiser"].get(pack.path)).count("<tr class=") == 40
    assert (fresh_2, stored_2) == (fresh_40, stored_40)


# -- the builder ---------------------------------------------------------------------------------
def test_the_builder_shows_the_event_of_a_list_built_for_one(pack, clients, people):
    army_list = make_list(people["other"], ["wardens"], event=pack)
    page = text_of(clients["other"].get(f"/lists/{army_list.pk}/"))
    box = page.split('id="event"', 1)[1].split("</section>", 1)[0]
    assert f'<a href="{pack.path}"><bdi>Club Night</bdi></a>' in box
    assert f"Submissions close {timezone.localtime(pack.deadline):%-d %b %Y, %H:%M} UTC" in box
    assert "No single unit may cost more than 30% of the points limit" in box and "event rule" in box
    assert f'value="http://testserver{pack.path}"' in page
    unentered = make_list(people["other"], ["wardens"])
    assert 'id="event"' not in text_of(clients["other"].get(f"/lists/{unentered.pk}/"))


def test_a_list_is_built_for_an_event_by_its_link_and_leaves_it(pack, clients, people):
    army_list = make_list(people["other"], ["wardens"], points=1000)
    response = clients["other"].post(f"/lists/{army_list.pk}/event/", {"event": f"https://example.org{pack.path}"})
    assert response.status_code == 302 and response["Location"] == f"/lists/{army_list.pk}/"
    army_list.refresh_from_db()
    assert (army_list.event_id, army_list.points_limit) == (pack.key, 355)
    assert "This list is built for Club Night." in text_of(clients["other"].get(f"/lists/{army_list.pk}/"))
    clients["other"].post(f"/lists/{army_list.pk}/event/", {"event": pack.key, "leave": "1"})
    army_list.refresh_from_db()
    assert army_list.event_id is None


@pytest.mark.parametrize(
    ("sent", "words"),
    [("https://example.org/events/nope/", "No event pack has this link or key"), ("regiments", "for another game")],
)
def test_a_bad_event_in_the_builder_is_a_form_error(pack, clients, people, sent, words):
    if sent == "regiments":
        data = {"name": "Regiments Night", "ruleset": "aof-regiments", "points_limit": 500, "deadline": pack.deadline}
        sent = event_services.pack_create(organiser=people["organiser"], data=data).key
    army_list = make_list(people["other"], ["wardens"])
    response = clients["other"].post(f"/lists/{army_list.pk}/event/", {"event": sent})
    assert response.status_code == 400
    assert words in field_block(text_of(response), "event")
    army_list.refresh_from_db()
    assert army_list.event_id is None and army_list.version == 1


def test_someone_else_s_list_cannot_be_entered(pack, clients, people):
    army_list = make_list(people["other"], ["wardens"])
    assert clients["submitter"].post(f"/lists/{army_list.pk}/event/", {"event": pack.key}).status_code == 404
    army_list.refresh_from_db()
    assert army_list.event_id is None


# -- what the pages needed of the services -----------------------------------------------------
def test_the_lists_a_pack_may_take_are_the_player_s_of_its_game_built_for_it_first(pack, people):
    from armybuilder.armyforge.books.imports import book_import
    from tests.conftest import arena_book

    book_import(data=arena_book())
    older = make_list(people["other"], ["wardens"], event=pack, name="For the club")
    newer = make_list(people["other"], ["wardens"], name="Newer")
    ArmyList.objects.create(owner=people["other"], system="aof-arena", faction="test-pit", book_version="1.0.0")
    make_list(people["submitter"], ["wardens"], name="Not theirs")
    found = [army_list.name for army_list in list_selectors.lists_to_submit(pack=pack, user=people["other"])]
    assert found == [older.name, newer.name]


def test_a_list_of_another_game_is_not_submitted(pack, people):
    from armybuilder.armyforge.books.imports import book_import
    from tests.conftest import arena_book

    book_import(data=arena_book())
    arena = ArmyList.objects.create(owner=people["other"], system="aof-arena", faction="test-pit", book_version="1")
    with pytest.raises(pack_format.EventError) as caught:
        event_services.submission_submit(pack=pack, player=people["other"], army_list=arena)
    assert "this list is for another game" in str(caught.value.errors["list"])
    assert not Submission.objects.filter(player=people["other"]).exists()
