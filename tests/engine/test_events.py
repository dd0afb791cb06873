"""Event rules in the engine (engine/events.py): an event's changes, bans and caps are limit
rows of its own, and their issues say that an event set them."""

from armybuilder.engine import validate_list
from armybuilder.engine.book import Limit
from armybuilder.engine.events import Ban, Cap, EventRules, event_ruleset
from tests.support.engine_helpers import army, book, codes, hero, only, option, ruleset, section, unit

BOOK = book(
    "aof",
    [
        hero("captain", upgrades=["MOUNT"]),
        unit("warriors", cost=100),
        unit("dragon", type="monster", size=1, cost=465),
        unit("giant", type="monster", size=1, cost=300),
    ],
    [{"id": "MOUNT", "sections": [section("MOUNT-1", "upgrade", [option("wolf", 20, label="Wolf Mount")])]}],
)
CLUB = EventRules(name="Club Night", changes={"unit_too_expensive": {"percent": 30}})


def check(rules: EventRules, entries: list[dict], points: int = 1500, faction: str = "test"):
    return validate_list(BOOK, event_ruleset(ruleset("aof"), rules, faction), army("aof", points, entries))


def test_a_lowered_cap_refuses_a_unit_at_31_percent_and_names_the_event_rule():
    dragon = [{"id": "d", "unit": "dragon"}]  # 465 of 1500 pts: 31%
    assert "unit_too_expensive" not in codes(validate_list(BOOK, ruleset("aof"), army("aof", 1500, dragon)))
    issue = only(check(CLUB, dragon), "unit_too_expensive")
    assert issue.message.startswith("Event rule: ")
    assert "30% of 1500 pts" in issue.message and "450 pts" in issue.message
    assert issue.rule == "Club Night — event rule"
    assert issue.entry == "d"


def test_a_unit_at_the_lowered_cap_is_legal():
    giant = [{"id": "g", "unit": "giant"}]  # 300 of 1000 pts: exactly 30%
    assert "unit_too_expensive" not in codes(check(CLUB, giant, points=1000))


def test_a_removed_limit_is_not_checked_and_the_others_still_are():
    rules = EventRules(name="Open", removed=("too_many_copies",))
    many = [{"id": f"w{i}", "unit": "warriors"} for i in range(4)]  # 1500 pts allows 3 copies
    assert "too_many_copies" in codes(validate_list(BOOK, ruleset("aof"), army("aof", 1500, many)))
    assert "too_many_copies" not in codes(check(rules, many))
    heroes = [{"id": f"c{i}", "unit": "captain"} for i in range(4)]
    assert "too_many_heroes" in codes(check(rules, heroes))


def test_an_added_limit_row_of_an_existing_kind_is_checked():
    two_copies = Limit("two_copies", "copies", {"base": 2, "per": 100_000}, "error", "")
    rules = EventRules(name="Doubles", removed=("too_many_copies",), added=(two_copies,))
    issue = only(check(rules, [{"id": f"w{i}", "unit": "warriors"} for i in range(3)]), "two_copies")
    assert issue.message.startswith("Event rule: 3 copies of Warriors, but 1500 pts allows at most 2 ")
    assert issue.entry == "w2"


def test_a_banned_unit_and_a_banned_option_are_issues_of_the_entries_using_them():
    rules = EventRules(name="Club Night", bans=(Ban("test", unit="giant"), Ban("test", option="wolf")))
    validation = check(rules, [{"id": "g", "unit": "giant"}, {"id": "c", "unit": "captain", "options": {"wolf": 1}}])
    banned = [issue for issue in validation.issues if issue.code == "banned"]
    assert [(i.entry, i.message) for i in banned] == [
        ("g", "Event rule: Giant may not be fielded"),
        ("c", 'Event rule: Captain takes "Wolf Mount", which may not be taken'),
    ]
    assert not validation.valid


def test_bans_and_caps_apply_only_to_the_faction_they_name():
    rules = EventRules(name="Club Night", bans=(Ban("orcs", unit="giant"),), caps=(Cap("orcs", "dragon", 0),))
    assert check(rules, [{"id": "g", "unit": "giant"}, {"id": "d", "unit": "dragon"}], points=3000).valid


def test_a_cap_of_one_dragon():
    rules = EventRules(name="Club Night", caps=(Cap("test", "dragon", 1),))
    two = [{"id": "d1", "unit": "dragon"}, {"id": "d2", "unit": "dragon"}]
    issue = only(check(rules, two, points=3000), "unit_cap")
    assert issue.message == "Event rule: at most 1 Dragon, but the list has 2 (a combined unit is one)"
    assert issue.entry == "d2"
    assert "unit_cap" not in codes(check(rules, two[:1], points=3000))


def test_only_the_allowed_factions_may_enter():
    rules = EventRules(name="Club Night", factions=("orcs", "elves"))
    issue = only(check(rules, []), "faction_not_allowed")
    assert issue.message == "Event rule: Test Army is not one of the armies allowed (orcs, elves)"
    assert check(EventRules(name="Club Night", factions=("test",)), []).valid


def test_the_event_s_game_size_is_the_list_s():
    rules = EventRules(name="Club Night", points=1500)
    assert check(rules, [], points=1500).valid
    issue = only(check(rules, [], points=2000), "event_points")
    assert issue.message == "Event rule: the game is played at 1500 pts, but this list is set to 2000 pts"


def test_a_list_of_another_ruleset_is_told_which_the_event_plays():
    rules = EventRules(name="Club Night", ruleset="aof-club", ruleset_title="AoF Club Rules 3.2.0")
    issue = only(check(rules, []), "event_ruleset")
    assert issue.message == (
        "Event rule: the event is played with AoF Club Rules 3.2.0, but this list is for Age of Fantasy 3.2.0"
    )
    assert check(EventRules(name="Club Night", ruleset="aof", ruleset_title="Age of Fantasy 3.2.0"), []).valid


def test_turning_force_organisation_off_does_not_leave_the_event_s_rules():
    dragon = [{"id": "d", "unit": "dragon"}]
    club = event_ruleset(ruleset("aof"), CLUB, "test")
    off = validate_list(BOOK, club, army("aof", 1500, dragon, force_org=False))
    assert "unit_too_expensive" in codes(off)
    heroes = [{"id": f"c{i}", "unit": "captain"} for i in range(4)]
    assert "too_many_heroes" in codes(validate_list(BOOK, club, army("aof", 1500, heroes, force_org=False)))
