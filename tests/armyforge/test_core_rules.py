"""Army Forge's core rules (the rules official books name without describing them): read
by `sync_armyforge` before each ruleset's books and kept as versions
(armybuilder/armyforge/rules.py), served by GET /api/systems/{system}/armyforge-rules/ and
shown in the admin. The stand-in Army Forge answers the real core rules of Age of Fantasy
(../shared/armyforge/common-rules/aof-4.json) for each game system unless a test
registers others."""

import copy
import json
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from armybuilder.armyforge.client import common_rules_url
from armybuilder.armyforge.rules import MAX_RULES, armyforge_rules_store, fetched_day
from armybuilder.armyforge.sync import INDENT, armyforge_sync
from armybuilder.stamps import content_hash
from factions import models
from factions.selectors import armyforge_rules_find
from factions.services import ruleset_variant_create
from tests.armyforge.test_sync import sync
from tests.conftest import SHARED, require_shared
from tests.support.armyforge_standin import rules_key

AOF_RULES = SHARED / "armyforge" / "common-rules" / "aof-4.json"


def army_forges_rules() -> dict:
    """Army Forge's answer for Age of Fantasy, as ../shared holds it."""
    return json.loads(require_shared(AOF_RULES).read_text(encoding="utf-8"))


def as_kept(answer: dict) -> list[dict]:
    """The rules of an answer as the site keeps them: name and text (one line, trimmed: one
    real text ends in a space), in Army Forge's order."""
    return [{"name": rule["name"], "text": " ".join(rule["description"].split())} for rule in answer["rules"]]


def core_lines(lines: list[str]) -> list[str]:
    """The core rules' lines of a sync, with the notes indented under them."""
    kept, under_core = [], False
    for line in lines:
        if line.startswith(INDENT):
            if under_core:
                kept.append(line)
            continue
        under_core = "  core rules: " in line
        if under_core:
            kept.append(line)
    return kept


def held() -> list[tuple[str, str, int]]:
    """Each version of core rules held: ruleset, version, how many rules, oldest first."""
    rows = models.ArmyForgeRules.objects.order_by("ruleset__slug", "fetched_at", "id")
    return [(row.ruleset.slug, row.version, len(row.rules)) for row in rows.select_related("ruleset")]


def rows() -> list[dict]:
    return list(models.ArmyForgeRules.objects.order_by("pk").values())


# -- reading them --------------------------------------------------------------------------
def test_the_address_is_army_forges_common_rules_of_the_game_system():
    assert common_rules_url("https://army-forge.onepagerules.com/", 4) == (
        "https://army-forge.onepagerules.com/api/rules/common/4"
    )


def test_a_sync_keeps_army_forges_core_rules_of_each_ruleset_read_before_its_books(armyforge, db):
    lines, failure = sync()

    assert failure is None
    day = armyforge_rules_find(system="aof").version
    assert core_lines(lines) == [
        f"aof  core rules: new version {day} (37 rules)",
        f"aof-skirmish  core rules: new version {day} (37 rules)",
        f"aof-regiments  core rules: new version {day} (37 rules)",
    ]
    assert lines[0] == core_lines(lines)[0]  # before the books of aof
    kept = armyforge_rules_find(system="aof")
    assert kept.rules == as_kept(army_forges_rules())
    assert kept.rules[:2] == [
        {"name": "Aircraft", "text": army_forges_rules()["rules"][0]["description"]},
        {"name": "Ambush", "text": army_forges_rules()["rules"][1]["description"]},
    ]
    assert (kept.version, kept.content_hash) == (fetched_day(kept.fetched_at), content_hash(kept.rules))
    assert held() == [("aof", day, 37), ("aof-regiments", day, 37), ("aof-skirmish", day, 37)]
    paths = [request.path for request in armyforge.requests]
    assert paths.index("/api/rules/common/4") < paths.index(
        "/api/army-books?filters=official&gameSystemSlug=age-of-fantasy"
    )
    assert armyforge.rules_read == [4, 5, 6]


def test_each_ruleset_keeps_the_core_rules_of_its_own_game_system(armyforge, db):
    for game_id, name in ((5, "Skirmish Rule"), (6, "Regiments Rule")):
        armyforge.serve_rules(game_id, {"rules": [{"id": "x", "name": name, "description": "Does a thing."}]})

    sync("--system", "aof-skirmish", "--system", "aof-regiments")

    assert armyforge_rules_find(system="aof-skirmish").rules == [{"name": "Skirmish Rule", "text": "Does a thing."}]
    assert armyforge_rules_find(system="aof-regiments").rules == [{"name": "Regiments Rule", "text": "Does a thing."}]
    assert armyforge_rules_find(system="aof") is None
    assert armyforge.rules_read == [5, 6]


def test_the_same_core_rules_again_write_nothing(armyforge, db):
    sync("--system", "aof")
    before = rows()
    answer = army_forges_rules()
    for rule in answer["rules"]:  # what the site does not keep may change
        rule["id"], rule["coreType"] = rule["id"][::-1], 2
    answer["traits"] = []
    armyforge.serve_rules(4, answer)

    lines, failure = sync("--system", "aof")

    assert failure is None
    assert core_lines(lines) == [f"aof  core rules: unchanged ({before[0]['version']})"]
    assert rows() == before


def test_changed_core_rules_are_a_new_version_and_every_version_is_kept(armyforge, db, monkeypatch):
    sync("--system", "aof")
    first = armyforge_rules_find(system="aof")
    answer = army_forges_rules()
    answer["rules"][33]["description"] = "Gets +1 to hit when charging, and AP(+1)."  # Thrust, reworded
    armyforge.serve_rules(4, answer)

    lines, failure = sync("--system", "aof")

    assert failure is None
    assert core_lines(lines) == [f"aof  core rules: new version {first.version}+2 (37 rules)"]
    current = armyforge_rules_find(system="aof")
    assert current.version == f"{first.version}+2"
    assert current.rules[33] == {"name": "Thrust", "text": "Gets +1 to hit when charging, and AP(+1)."}
    assert armyforge_rules_find(system="aof", version=first.version).rules == as_kept(army_forges_rules())

    # Back to the first content, a day later: a version of that day (the current one differs).
    tomorrow = timezone.now() + timedelta(days=1)
    monkeypatch.setattr(timezone, "now", lambda: tomorrow)
    armyforge.serve_rules(4, army_forges_rules())
    lines, _ = sync("--system", "aof")
    day = fetched_day(tomorrow)
    assert core_lines(lines) == [f"aof  core rules: new version {day} (37 rules)"]
    assert held() == [("aof", first.version, 37), ("aof", f"{first.version}+2", 37), ("aof", day, 37)]
    assert armyforge_rules_find(system="aof").rules == as_kept(army_forges_rules())


def test_a_dry_run_reads_the_core_rules_and_writes_none(armyforge, db):
    lines, failure = sync("--dry-run", "--system", "aof")

    assert failure is None
    day = fetched_day(datetime.now(UTC))
    assert core_lines(lines) == [f"aof  core rules: new version {day} (37 rules, not written: dry run)"]
    assert held() == []
    assert armyforge.rules_read == [4]


def rules_of(*entries) -> dict:
    return {"rules": list(entries), "traits": []}


RULE = {"id": "a1", "name": "Warding", "description": "Blocks the first wound each round.", "coreType": 1}
FAULTS = {
    # 0.45 s for all tries: room for a healthy book on a loaded machine, none for a pause of
    # 0.5 s and another try.
    "500": (lambda af: af.fail(rules_key(4), 500), "Army Forge answered 500 for {url}"),
    "404": (lambda af: af.fail(rules_key(4), 404), "Army Forge answered 404 for {url}"),
    "timeout": (lambda af: af.hang(rules_key(4), 10), "no answer from {url} within 0.45 s"),
    "broken JSON": (lambda af: af.broken(rules_key(4)), "the answer from {url} is not JSON: "),
    "too large": (lambda af: af.oversized(rules_key(4), 2 * 1024 * 1024), "the answer from {url} is larger than 1 MB"),
    "a list": (
        lambda af: af.answer(rules_key(4), [RULE]),
        'the answer from {url} is not read: it is not Army Forge\'s core rules (an object with a list of "rules")',
    ),
    "no rules": (
        lambda af: af.answer(rules_key(4), {"traits": []}),
        'the answer from {url} is not read: it is not Army Forge\'s core rules (an object with a list of "rules")',
    ),
    "too many": (
        lambda af: af.answer(rules_key(4), rules_of(*[{**RULE, "name": f"Rule {i}"} for i in range(MAX_RULES + 1)])),
        "the answer from {url} is not read: it holds 501 rules: at most 500 are read",
    ),
    "none readable": (
        lambda af: af.answer(rules_key(4), rules_of({"name": "Warding"}, "Thrust")),
        "the answer from {url} is not read: it holds no core rule with a name and a description",
    ),
}


@pytest.mark.parametrize("fault", FAULTS)
def test_core_rules_that_cannot_be_read_change_nothing_and_the_books_sync_goes_on(armyforge, db, settings, fault):
    settings.ARMYFORGE_TIMEOUT, settings.ARMYFORGE_MAX_BYTES = 0.45, 1024 * 1024
    armyforge.serve_rules(4, rules_of(RULE))
    latest = armyforge.folder
    armyforge.serve(latest / "3.5.1")
    sync("--system", "aof")
    before = rows()
    assert [row["rules"] for row in before] == [[{"name": "Warding", "text": RULE["description"]}]]
    armyforge.serve(latest)
    armyforge.clear()
    make, message = FAULTS[fault]
    make(armyforge)

    lines, failure = sync("--system", "aof")

    assert failure is not None and failure.returncode == 1
    url = common_rules_url(armyforge.url, 4)
    assert lines[0].startswith(f"aof  core rules: failed: {message.format(url=url)}")
    assert len(core_lines(lines)) == 1  # one line, nothing under it
    assert lines[-1] == "0 new books, 4 new versions, 0 unchanged, 1 failed"
    assert rows() == before


def test_entries_that_are_no_rule_are_skipped_and_named(armyforge, db):
    armyforge.serve_rules(
        4,
        rules_of(
            RULE,
            "Thrust",
            {"name": "Bane"},
            {"name": " ", "description": "Nameless."},
            {"name": "N" * 81, "description": "Long name."},
            {"name": "Blast", "description": "x" * 2001},
            {**RULE, "description": "Warding again."},
            {"name": "Fear\x1b[2J\n", "description": "  Counts as\tdealing\n+3 wounds.  "},
            {"name": ["Tough"], "description": "Not a name."},
        ),
    )

    lines, failure = sync("--system", "aof")

    assert failure is None
    assert core_lines(lines) == [
        f"aof  core rules: new version {armyforge_rules_find(system='aof').version} (2 rules, 7 skipped)",
        f"{INDENT}rules[1]: skipped: not an object with a name and a description",
        f"{INDENT}rules[2]: skipped: not an object with a name and a description",
        f"{INDENT}rules[3]: skipped: not an object with a name and a description",
        f"{INDENT}rules[4]: skipped: its name is 81 characters long (at most 80)",
        f'{INDENT}rules[5]: skipped: the text of "Blast" is 2001 characters long (at most 2000)',
        f'{INDENT}rules[6]: skipped: "Warding" comes a second time (the first is kept)',
        f"{INDENT}rules[8]: skipped: not an object with a name and a description",
    ]
    # Army Forge's texts as one printable line each: no control characters reach a page or a terminal.
    assert armyforge_rules_find(system="aof").rules == [
        {"name": "Warding", "text": RULE["description"]},
        {"name": "Fear [2J", "text": "Counts as dealing +3 wounds."},
    ]


def test_core_rules_are_read_once_a_ruleset_and_counted_in_the_result(armyforge, db):
    armyforge.fail(rules_key(5), 503)

    result = armyforge_sync(systems=["aof", "aof-skirmish"])

    assert [(r.system, r.outcome, r.rules) for r in result.core_rules] == [
        ("aof", "new version", 37),
        ("aof-skirmish", "failed", 0),
    ]
    assert result.failed == 1
    assert result.failure_lines() == [result.core_rules[1].line()]
    assert armyforge.rules_read == [4, 5, 5, 5]  # a 5xx is asked again twice


def test_keeping_the_same_rules_twice_keeps_one_version(db):
    rules = [{"name": "Warding", "text": "Blocks a wound."}]
    first = armyforge_rules_store(system="aof", rules=rules)
    again = armyforge_rules_store(system="aof", rules=copy.deepcopy(rules))
    assert (first.outcome, again.outcome, again.version) == ("new version", "unchanged", first.version)
    assert held() == [("aof", first.version, 1)]


# -- the API ---------------------------------------------------------------------------------
def api(client, system: str, **query):
    return client.get(f"/api/systems/{system}/armyforge-rules/", query)


def test_before_the_first_sync_the_api_says_the_core_rules_were_not_read(client, db):
    response = api(client, "aof")
    assert response.status_code == 404
    assert response.json() == {
        "detail": 'Army Forge\'s core rules for "aof" have not been read yet: the first sync from Army Forge reads '
        "them (manage.py sync_armyforge)"
    }


def test_anyone_reads_the_current_core_rules_as_the_sync_kept_them(armyforge, client, db):
    sync("--system", "aof")
    kept = armyforge_rules_find(system="aof")

    response = api(client, "aof")

    assert response.status_code == 200
    assert response.json() == {
        "version": kept.version,
        "fetched_at": kept.fetched_at.isoformat().replace("+00:00", "Z"),
        "current": True,
        "rules": as_kept(army_forges_rules()),
        "versions": [kept.version],
    }


def test_an_older_version_is_read_by_its_name_and_one_not_held_is_a_404_naming_those_held(client, db):
    first = armyforge_rules_store(system="aof", rules=[{"name": "Thrust", "text": "First."}]).version
    second = armyforge_rules_store(system="aof", rules=[{"name": "Thrust", "text": "Second."}]).version

    current, older = api(client, "aof").json(), api(client, "aof", version=first).json()
    missing = api(client, "aof", version="2020-01-01")

    assert (current["version"], current["current"], current["rules"]) == (
        second,
        True,
        [{"name": "Thrust", "text": "Second."}],
    )
    assert (older["version"], older["current"], older["rules"]) == (
        first,
        False,
        [{"name": "Thrust", "text": "First."}],
    )
    assert current["versions"] == older["versions"] == [second, first]
    assert missing.status_code == 404
    assert missing.json() == {
        "detail": f'no version "2020-01-01" of Army Forge\'s core rules for "aof": the versions held are {second}, '
        f"{first}"
    }


def test_a_variant_reads_its_bases_core_rules(client, db):
    version = armyforge_rules_store(system="aof", rules=[{"name": "Counter", "text": "Strikes first."}])
    ruleset_variant_create(source=models.Ruleset.objects.get(slug="aof"), slug="aof-club", name="AoF Club Rules")

    response = api(client, "aof-club")

    assert response.status_code == 200
    assert (response.json()["version"], response.json()["rules"]) == (
        version.version,
        [{"name": "Counter", "text": "Strikes first."}],
    )


@pytest.mark.parametrize(
    ("system", "detail"),
    [
        (
            "opf",
            'Army Forge publishes no core rules for "opf": only for aof, aof-skirmish, aof-regiments and their '
            "variants",
        ),
        ("no-such-game", 'no ruleset "no-such-game"'),
    ],
)
def test_a_ruleset_army_forge_has_no_core_rules_for_is_a_404_saying_so(client, db, system, detail):
    armyforge_rules_store(system="aof", rules=[{"name": "Thrust", "text": "First."}])
    response = api(client, system)
    assert (response.status_code, response.json()) == (404, {"detail": detail})


# -- the admin --------------------------------------------------------------------------------
def test_the_admin_shows_every_version_and_its_rules_read_only(client, staff_user, db):
    first = armyforge_rules_store(system="aof", rules=[{"name": "Thrust", "text": "First <b>wording</b>."}])
    second = armyforge_rules_store(system="aof", rules=[{"name": "Thrust", "text": "Second wording."}])
    client.force_login(staff_user)

    listing = client.get(reverse("admin:factions_armyforgerules_changelist"))
    kept = {row.version: row for row in models.ArmyForgeRules.objects.all()}
    page = client.get(reverse("admin:factions_armyforgerules_change", args=[kept[first.version].pk]))

    assert listing.status_code == page.status_code == 200
    rows = [(r.version, r.current_id == r.pk) for r in listing.context["cl"].result_list]
    assert rows == [(second.version, True), (first.version, False)]
    text = page.content.decode()
    assert "<p><strong>Thrust</strong>: First &lt;b&gt;wording&lt;/b&gt;.</p>" in text
    assert 'name="_save"' not in text
    assert client.get(reverse("admin:factions_armyforgerules_add")).status_code == 403
    delete = reverse("admin:factions_armyforgerules_delete", args=[kept[first.version].pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    assert models.ArmyForgeRules.objects.count() == 2
