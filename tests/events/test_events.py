"""Event packs (armybuilder/events/): an event's own rules, lists built for it and
frozen submissions, checked by the services the API and the pages call."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from armybuilder.events import format as pack_format
from armybuilder.events import selectors as event_selectors
from armybuilder.events import services as event_services
from armybuilder.events.models import Submission
from armybuilder.lists import selectors, services
from armybuilder.lists import submissions as list_submissions
from armybuilder.lists.format import ListFormatError, parse_list_body
from armybuilder.lists.models import ArmyList
from tests.conftest import wardens_list as make_list

User = get_user_model()


def pack_data(**changes) -> dict:
    data = {
        "name": "Club Night",
        "description": "Thursday games at the club.",
        "ruleset": "aof",
        "points_limit": 355,
        "deadline": (timezone.now() + timedelta(days=7)).isoformat(),
        "limit_changes": {"unit_too_expensive": {"percent": 30}},
    }
    return {**data, **changes}


@pytest.fixture
def organiser(db):
    return User.objects.create_user("org", password="not-a-real-pass-123")


@pytest.fixture
def player(db):
    return User.objects.create_user("player-one", password="not-a-real-pass-123")


@pytest.fixture
def pack(wardens, organiser):
    return event_services.pack_create(organiser=organiser, data=pack_data())


def issues_of(army_list: ArmyList) -> list:
    return selectors.army_list_load(army_list).validation.issues


def test_a_pack_that_lowers_the_cap_to_30_percent_refuses_a_unit_at_31_percent(pack, player):
    entered = make_list(player, ["wardens"], event=pack)  # 110 of 355 pts: 31%
    found = [i for i in issues_of(entered) if i.code == "unit_too_expensive"]
    assert len(found) == 1
    assert found[0].message.startswith("Event rule: ")
    assert "30% of 355 pts" in found[0].message
    assert found[0].rule == "Club Night — event rule"
    assert "unit_too_expensive" not in [i.code for i in issues_of(make_list(player, ["wardens"]))]


def test_banning_a_unit_gives_an_issue_on_lists_that_include_it(pack, player):
    event_services.pack_update(pack=pack, data={"bans": [{"faction": "test-wardens", "unit": "warden-captain"}]})
    with_captain = make_list(player, ["warden-captain"], event=pack)
    banned = [i for i in issues_of(with_captain) if i.code == "banned"]
    assert [(i.entry, i.message) for i in banned] == [("e0", "Event rule: Warden Captain may not be fielded")]
    assert not [i for i in issues_of(make_list(player, ["wardens"], event=pack, points=400)) if i.code == "banned"]


def test_a_cap_and_the_allowed_armies(pack, player):
    event_services.pack_update(pack=pack, data={"caps": [{"faction": "test-wardens", "unit": "wardens", "max": 1}]})
    two = make_list(player, ["wardens", "wardens"], event=pack, points=1000)
    assert "Event rule: at most 1 Wardens, but the list has 2 (a combined unit is one)" in [
        i.message for i in issues_of(two)
    ]
    event_services.pack_update(pack=pack, data={"factions": ["test-wardens"]})
    assert "faction_not_allowed" not in [i.code for i in issues_of(two)]


def test_the_pack_s_rules_in_words_each_with_its_source(pack):
    event_services.pack_update(pack=pack, data={"caps": [{"faction": "test-wardens", "unit": "wardens", "max": 1}]})
    view = event_selectors.pack_view(event_selectors.event_pack_get(key=pack.key))
    lines = [(line.text, line.source) for line in view.rules]
    assert ("Armies of 355 pts", "event rule") in lines
    assert ("No single unit may cost more than 30% of the points limit", "event rule") in lines
    assert ("At most 1 hero per 500 pts", "rulebook: Force Organisation") in lines
    assert ("At most 1 Wardens (Test Wardens)", "event rule") in lines
    changed = next(line for line in view.rules if "30%" in line.text)
    assert changed.changed == "No single unit may cost more than 35% of the points limit (rulebook: Force Organisation)"


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"name": " "}, "name", "required"),
        ({"ruleset": "warhammer"}, "ruleset", 'Unknown ruleset "warhammer"'),
        ({"points_limit": 0}, "points_limit", "between 1 and"),
        ({"deadline": "next thursday"}, "deadline", "date and time"),
        ({"deadline": "2026-12-31T18:00:00"}, "deadline", "time zone"),
        ({"limit_changes": {"unit_too_expensive": {"percent": 0}}}, "limit_changes", '"percent" must be'),
        ({"limit_changes": {"no_such_limit": {"max": 1}}}, "limit_changes", 'no limit "no_such_limit"'),
        ({"limits_removed": ["too_many_dragons"]}, "limits_removed", 'no limit "too_many_dragons"'),
        ({"bans": [{"faction": "test-wardens", "unit": "dragon"}]}, "bans", 'No unit "dragon" in Test Wardens'),
        ({"bans": [{"faction": "orcs", "unit": "dragon"}]}, "bans", 'No army book "orcs"'),
        ({"caps": [{"faction": "test-wardens", "unit": "wardens", "max": -1}]}, "caps", "whole number"),
        ({"factions": ["orcs"]}, "factions", 'No army book "orcs"'),
        ({"limits_added": [{"code": "x", "kind": "dice", "params": {}}]}, "limits_added", "One of"),
        ({"colour": "red"}, "colour", "Unknown field"),
    ],
)
def test_a_bad_pack_names_each_problem_by_field_and_makes_nothing(wardens, organiser, changes, field, words):
    from armybuilder.events.models import EventPack

    with pytest.raises(pack_format.EventError) as caught:
        event_services.pack_create(organiser=organiser, data=pack_data(**changes))
    assert field in caught.value.errors
    assert words in str(caught.value.errors[field])
    assert not EventPack.objects.exists()


def test_a_list_naming_no_pack_is_a_field_error(wardens):
    with pytest.raises(ListFormatError) as caught:
        parse_list_body({"system": "aof", "faction": "test-wardens", "points_limit": 500, "entries": [], "event": "x"})
    assert caught.value.errors == {"event": ['No event pack "x" (it may have been deleted).']}


def test_a_submission_is_frozen_and_may_be_made_again_before_the_deadline(pack, player):
    army_list = make_list(player, ["warden-captain"], event=pack)
    first = event_services.submission_submit(pack=pack, player=player, army_list=army_list)
    data, _handle = parse_list_body({**army_list.as_armylist(), "entries": []})
    services.army_list_update(army_list=army_list, data=data, based_on=army_list.version)
    first.refresh_from_db()
    assert [e["unit"] for e in first.data["entries"]] == ["warden-captain"]
    again = event_services.submission_submit(pack=pack, player=player, army_list=ArmyList.objects.get(pk=army_list.pk))
    assert again.pk == first.pk and again.data["entries"] == []
    assert Submission.objects.count() == 1


def test_after_the_deadline_submissions_are_closed(pack, player):
    army_list = make_list(player, ["warden-captain"], event=pack)
    with pytest.raises(event_services.SubmissionsClosed):
        event_services.submission_submit(pack=pack, player=player, army_list=army_list, now=pack.deadline)
    assert not Submission.objects.exists()


def test_each_sees_only_what_is_theirs(pack, organiser, player):
    other = User.objects.create_user("other", password="not-a-real-pass-123")
    staff = User.objects.create_user("staff", password="not-a-real-pass-123", is_staff=True)
    for who in (player, other):
        event_services.submission_submit(pack=pack, player=who, army_list=make_list(who, ["wardens"], event=pack))
    third = User.objects.create_user("third", password="not-a-real-pass-123")
    seen = {
        user.username: sorted(s.player.username for s in event_selectors.submissions_visible(pack, user))
        for user in (organiser, staff, player, third)
    }
    assert seen == {
        "org": ["other", "player-one"],
        "staff": ["other", "player-one"],
        "player-one": ["player-one"],
        "third": [],
    }


def test_the_organiser_s_rows_take_the_same_queries_for_2_and_for_40_submissions(pack, player):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            rows = list_submissions.submission_rows(
                pack, list(event_selectors.submissions_visible(pack, pack.organiser))
            )
        assert all(row.faction_name == "Test Wardens" for row in rows)
        return len(captured)

    def submit(n: int, start: int) -> None:
        for i in range(start, start + n):
            who = User.objects.create_user(f"p{i}", password="not-a-real-pass-123")
            entries = ["wardens", "warden-captain"] if i % 2 else ["wardens"]
            event_services.submission_submit(pack=pack, player=who, army_list=make_list(who, entries, event=pack))

    submit(2, 0)
    fresh_2, stored_2 = queries(), queries()
    submit(38, 2)
    fresh_40, stored_40 = queries(), queries()
    assert (fresh_2, stored_2) == (fresh_40, stored_40)
    assert stored_2 < fresh_2  # the stored validations are used while the stamp holds
    event_services.pack_update(pack=pack, data={"limit_changes": {}})  # a rule changed: all worked out again
    assert queries() == fresh_40


def test_entering_a_list_for_a_variant_s_event_takes_the_variant_and_the_points(wardens, organiser, player):
    from factions.models import Ruleset
    from factions.services import ruleset_variant_create

    ruleset_variant_create(source=Ruleset.objects.get(slug="aof"), slug="aof-club", name="AoF Club Rules")
    pack = event_services.pack_create(organiser=organiser, data=pack_data(ruleset="aof-club", points_limit=1000))
    army_list = services.army_list_enter(army_list=make_list(player, ["wardens"]), pack=pack)
    assert (army_list.system, army_list.points_limit, army_list.event_id) == ("aof-club", 1000, pack.key)
    assert selectors.army_list_load(ArmyList.objects.get(pk=army_list.pk)).validation.valid
    regiments = event_services.pack_create(
        organiser=organiser, data=pack_data(ruleset="aof-regiments", points_limit=500, limit_changes={})
    )
    with pytest.raises(pack_format.EventError):
        services.army_list_enter(army_list=army_list, pack=regiments)


def test_a_list_not_built_for_the_event_is_entered_with_the_event_s_ruleset_and_its_own_points(
    wardens, organiser, player
):
    from factions.models import Ruleset
    from factions.services import ruleset_variant_create

    ruleset_variant_create(source=Ruleset.objects.get(slug="aof"), slug="aof-club", name="AoF Club Rules")
    pack = event_services.pack_create(organiser=organiser, data=pack_data(ruleset="aof-club"))
    submission = event_services.submission_submit(
        pack=pack, player=player, army_list=make_list(player, ["wardens"], points=400)
    )
    assert (submission.data["system"], submission.data["points_limit"]) == ("aof-club", 400)
    [row] = list_submissions.submission_rows(pack, [submission])
    assert [i["message"] for i in row.issues if i["code"] == "event_points"] == [
        "Event rule: the game is played at 355 pts, but this list is set to 400 pts"
    ]
    regiments = event_services.pack_create(
        organiser=organiser, data=pack_data(ruleset="aof-regiments", points_limit=500, limit_changes={})
    )
    with pytest.raises(pack_format.EventError) as caught:
        event_services.submission_submit(pack=regiments, player=player, army_list=make_list(player, ["wardens"]))
    assert "this list is for another game" in str(caught.value.errors["list"])


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"limit_changes": {"too_many_heroes": {"per": 10**20}}}, "limit_changes"),
        ({"limits_added": [{"code": "x", "kind": "max_count", "params": {"max": 1, "colour": "red"}}]}, "limits_added"),
        (
            {"limits_added": [{"code": "x", "kind": "max_count", "params": {"max": 1, "note": "\ud800"}}]},
            "limits_added",
        ),
        (
            {
                "limits_added": [
                    {
                        "code": "x",
                        "kind": "max_count",
                        "params": {"max": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]},
                    }
                ]
            },
            "limits_added",
        ),
        ({"name": "Club\x00Night"}, "name"),
    ],
)
def test_rule_values_the_site_could_not_store_or_hash_are_field_errors(wardens, organiser, changes, field):
    """A number beyond the limits' range, an unknown parameter, a lone surrogate, deep
    nesting or a NUL: each a field error, and no pack (every page reading it would fail)."""
    from armybuilder.events.models import EventPack

    with pytest.raises(pack_format.EventError) as caught:
        event_services.pack_create(organiser=organiser, data=pack_data(**changes))
    assert field in caught.value.errors, caught.value.errors
    assert not EventPack.objects.exists()


def test_a_list_of_a_variant_s_own_book_is_not_entered_for_its_base_s_event(pack, player):
    """A book imported for the variant is not one the event's ruleset uses: the list is
    refused rather than read against the base's book of the same slug."""
    from armybuilder.armyforge.books.imports import book_import
    from factions.models import Ruleset
    from factions.services import ruleset_variant_create
    from tests.conftest import aof_book

    ruleset_variant_create(source=Ruleset.objects.get(slug="aof"), slug="aof-club", name="AoF Club Rules")
    own = aof_book()
    own["system"], own["name"] = "aof-club", "Club Wardens"
    book_import(data=own)
    data, _handle = parse_list_body(
        {"system": "aof-club", "faction": "test-wardens", "points_limit": 355, "entries": []}
    )
    club_list = services.army_list_create(data=data, owner=player)
    for attempt in (
        lambda: services.army_list_enter(army_list=club_list, pack=pack),
        lambda: event_services.submission_submit(pack=pack, player=player, army_list=club_list),
    ):
        with pytest.raises(pack_format.EventError) as caught:
            attempt()
        assert "army book is not one of Age of Fantasy 3.2.0" in str(caught.value.errors)


def test_rules_that_no_longer_apply_are_left_out_of_the_next_change(pack, wardens):
    """A limit the ruleset has dropped since (a variant re-imported, say) does not block
    every later change to the pack: it is left out; one sent anew is still refused."""
    from factions.models import ForceOrgLimit

    both = {"unit_too_expensive": {"percent": 30}, "too_many_heroes": {"per": 1000}}
    event_services.pack_update(pack=pack, data={"limit_changes": both})
    ForceOrgLimit.objects.filter(ruleset__slug="aof", code="too_many_heroes").delete()
    changed = event_services.pack_update(
        pack=event_selectors.event_pack_get(key=pack.key), data={"name": "Club Night II"}
    )
    assert changed.name == "Club Night II"
    assert changed.limit_changes == {"unit_too_expensive": {"percent": 30}}
    with pytest.raises(pack_format.EventError):
        event_services.pack_update(pack=changed, data={"limit_changes": {"too_many_heroes": {"per": 1000}}})
