"""Keeping the official books current from Army Forge: the bounded client
(armybuilder/armyforge/client.py), the sync (armybuilder/armyforge/sync.py) and `manage.py sync_armyforge`,
against a stand-in Army Forge serving the books of ../shared/armyforge
(tests/support/armyforge_standin.py, the `armyforge` fixture)."""

import io
import json
import re
import socket
import time

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from armybuilder.armyforge.client import USER_AGENT, ArmyForgeError, bad_text, book_url, fetch_json, index_url
from armybuilder.armyforge.ids import GAME_SYSTEM_IDS, GAME_SYSTEM_NAMES
from armybuilder.armyforge.sync import GAMES, INDENT, armyforge_sync
from factions import models

# The official books in ../shared/armyforge (3.5.2) and ../shared/armyforge/3.5.1.
BOOKS = {
    "aof--chivalrous-kingdoms": ("aof", "Chivalrous Kingdoms", "FF4UemWHh60T1VRq"),
    "aof--giant-tribes": ("aof", "Giant Tribes", "HjmV6_v6dmBmEdy7"),
    "aof--ratmen": ("aof", "Ratmen", "tOWt5fgqK2nfpoBN"),
    "aof--wood-elves": ("aof", "Wood Elves", "qtuyeoRfXKlNflK0"),
    "aof-skirmish--dwarves": ("aof-skirmish", "Dwarves", "RJDq2ZD7wjlAcUVB"),
    "aof-skirmish--trade-federations": ("aof-skirmish", "Trade Federations", "Bsir5TSffxMozeGY"),
    "aof-skirmish--volcanic-dwarves": ("aof-skirmish", "Volcanic Dwarves", "Ir5XtqTM8JS3YEAJ"),
}
WOOD_ELVES = BOOKS["aof--wood-elves"][2]
FAST = {"timeout": 2, "max_bytes": 1024 * 1024, "backoff": 0}
# What a call may run past its deadline: a correctness bound for a loaded machine, not a benchmark.
MARGIN = 0.75


def sync(*args: str, out: io.TextIOBase | None = None) -> tuple[list[str], CommandError | None]:
    """Run `sync_armyforge` with `args`, writing to `out` (a StringIO unless given): its
    output lines and the CommandError it ended with (exit status 1), or None (exit status 0)."""
    out = io.StringIO() if out is None else out
    failure = None
    try:
        call_command("sync_armyforge", *args, stdout=out)
    except CommandError as exc:
        failure = exc
    if isinstance(out, io.TextIOWrapper):
        out.flush()
        return out.buffer.getvalue().decode("utf-8").splitlines(), failure
    return out.getvalue().splitlines(), failure


def outline(lines: list[str]) -> list[str]:
    """The lines of a sync without the notes indented under them (a book's warnings)."""
    return [line for line in lines if not line.startswith(INDENT)]


def book_lines(lines: list[str]) -> list[str]:
    """The books' lines of a sync: no core rules, notes or summary."""
    return [line for line in outline(lines)[:-1] if "  core rules: " not in line]


def held() -> dict[str, tuple[str, str, str]]:
    """Each Army Forge book held: (ruleset, version, content stamp) by uid."""
    return {
        f.armyforge_id: (f.ruleset.slug, f.version, f.content_hash)
        for f in models.Faction.objects.select_related("ruleset").exclude(armyforge_id="")
    }


def catalogue() -> dict[str, list]:
    """Every row the sync could write, whole: books, their versions and units, sync records."""
    return {
        "factions": list(models.Faction.objects.order_by("pk").values()),
        "versions": list(models.BookVersion.objects.order_by("pk").values()),
        "syncs": list(models.ArmyForgeSync.objects.order_by("pk").values()),
        "core rules": list(models.ArmyForgeRules.objects.order_by("pk").values()),
    }


@pytest.fixture
def synced_3_5_1(armyforge, db):
    """The seven books at 3.5.1, synced from the stand-in, which then serves 3.5.2."""
    latest = armyforge.folder
    armyforge.serve(latest / "3.5.1")
    lines, failure = sync()
    assert failure is None, lines
    armyforge.serve(latest)
    armyforge.clear()
    return armyforge


# -- the client ----------------------------------------------------------------------------
def test_addresses_are_army_forges_index_and_book():
    source = "https://army-forge.onepagerules.com/"
    assert index_url(source, "age-of-fantasy") == (
        "https://army-forge.onepagerules.com/api/army-books?filters=official&gameSystemSlug=age-of-fantasy"
    )
    assert book_url(source, "qtuyeoRfXKlNflK0", 4) == (
        "https://army-forge.onepagerules.com/api/army-books/qtuyeoRfXKlNflK0?gameSystem=4"
    )
    assert book_url(source, "../admin", 4).endswith("/api/army-books/..%2Fadmin?gameSystem=4")


def test_each_ruleset_is_the_game_system_the_converter_reads():
    for slug, (game, game_id) in GAMES.items():
        assert GAME_SYSTEM_NAMES[game] == GAME_SYSTEM_IDS[game_id] == slug


def test_the_client_reads_json_naming_itself_and_asking_for_json(armyforge):
    index = fetch_json(index_url(armyforge.url, "age-of-fantasy-skirmish"), **FAST)
    assert [entry["name"] for entry in index] == ["Dwarves", "Trade Federations", "Volcanic Dwarves"]
    assert set(index[0]) == {"uid", "name", "versionString", "official", "enabledGameSystems", "modifiedAt"}
    headers = armyforge.requests[0].headers
    assert (headers["User-Agent"], headers["Accept"]) == (USER_AGENT, "application/json")


def test_a_5xx_is_asked_again_and_a_later_answer_read(armyforge):
    armyforge.fail(WOOD_ELVES, 503, times=2)
    book = fetch_json(book_url(armyforge.url, WOOD_ELVES, 4), **FAST)
    assert book["name"] == "Wood Elves"
    assert armyforge.books_fetched == [WOOD_ELVES] * 3


def test_a_5xx_every_time_fails_after_the_retries_naming_the_status(armyforge):
    armyforge.fail(WOOD_ELVES, 500)
    url = book_url(armyforge.url, WOOD_ELVES, 4)
    with pytest.raises(ArmyForgeError) as error:
        fetch_json(url, **FAST, retries=2)
    assert str(error.value) == f"Army Forge answered 500 for {url} (3 tries)"
    assert armyforge.books_fetched == [WOOD_ELVES] * 3


def test_the_pauses_between_tries_grow(armyforge):
    armyforge.fail(WOOD_ELVES, 502)
    started = time.monotonic()
    with pytest.raises(ArmyForgeError):
        fetch_json(book_url(armyforge.url, WOOD_ELVES, 4), timeout=2, max_bytes=1024 * 1024, backoff=0.1)
    assert time.monotonic() - started >= 0.1 + 0.2


def test_a_4xx_is_not_asked_again(armyforge):
    url = book_url(armyforge.url, "no-such-book", 4)
    with pytest.raises(ArmyForgeError) as error:
        fetch_json(url, **FAST)
    assert str(error.value) == f"Army Forge answered 404 for {url}"
    assert armyforge.books_fetched == ["no-such-book"]


def test_no_answer_within_the_timeout_fails_in_time_and_is_not_asked_again(armyforge):
    """The timeout is the whole call's, its tries together: one that used it up leaves
    no time for another."""
    armyforge.hang(WOOD_ELVES, 10)
    url = book_url(armyforge.url, WOOD_ELVES, 4)
    started = time.monotonic()
    with pytest.raises(ArmyForgeError) as error:
        fetch_json(url, timeout=0.2, max_bytes=1024 * 1024, retries=1, backoff=0)
    assert str(error.value) == f"no answer from {url} within 0.2 s"
    assert error.value.plain == "Army Forge did not answer in time"
    assert time.monotonic() - started < 0.2 + MARGIN
    assert armyforge.books_fetched == [WOOD_ELVES]


def test_retries_stop_at_the_deadline(armyforge):
    """A 5xx answered at once is asked again only while the pause ends before the deadline."""
    armyforge.fail(WOOD_ELVES, 503)
    url = book_url(armyforge.url, WOOD_ELVES, 4)
    started = time.monotonic()
    with pytest.raises(ArmyForgeError) as error:
        fetch_json(url, timeout=0.5, max_bytes=1024 * 1024, retries=5, backoff=0.2)
    assert str(error.value) == f"Army Forge answered 503 for {url} (2 tries)"  # a second pause of 0.4 s would not fit
    assert time.monotonic() - started < 0.5 + MARGIN
    assert armyforge.books_fetched == [WOOD_ELVES] * 2


@pytest.mark.parametrize(
    "hostile",
    [
        lambda af: af.trickle(WOOD_ELVES, 0.3),
        lambda af: af.slow_headers(WOOD_ELVES, 0.3),
        lambda af: af.hang(WOOD_ELVES, 10),
    ],
    ids=["trickled-body", "trickled-headers", "hang"],
)
def test_an_answer_trickled_a_byte_at_a_time_is_cut_at_the_deadline(armyforge, hostile):
    """Every byte comes well within a read's timeout, yet the whole must come within the
    call's: the time left bounds each read, headers and body alike."""
    hostile(armyforge)
    url = book_url(armyforge.url, WOOD_ELVES, 4)
    started = time.monotonic()
    with pytest.raises(ArmyForgeError) as error:
        fetch_json(url, timeout=1, max_bytes=1024 * 1024, backoff=0)
    elapsed = time.monotonic() - started
    assert str(error.value) == f"no answer from {url} within 1 s"
    assert 1 <= elapsed < 1 + MARGIN, elapsed
    assert armyforge.books_fetched == [WOOD_ELVES]  # and not asked again: no time was left


def test_an_unreachable_address_fails_after_the_retries():
    with socket.socket() as sock:  # a port nothing listens on once it is closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/api/army-books"
    with pytest.raises(ArmyForgeError, match=rf"^cannot reach {re.escape(url)}: .* \(3 tries\)$"):
        fetch_json(url, **FAST)


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "read-until-closed"])
def test_an_answer_larger_than_the_cap_is_refused_unread_and_not_asked_again(armyforge, declared):
    armyforge.oversized(WOOD_ELVES, 300 * 1024, declared=declared)
    url = book_url(armyforge.url, WOOD_ELVES, 4)
    with pytest.raises(ArmyForgeError) as error:
        fetch_json(url, timeout=2, max_bytes=256 * 1024, backoff=0)
    assert str(error.value) == f"the answer from {url} is larger than 256 KB"
    assert armyforge.books_fetched == [WOOD_ELVES]


def test_an_answer_that_is_not_json_is_refused_and_not_asked_again(armyforge):
    armyforge.broken(WOOD_ELVES)
    url = book_url(armyforge.url, WOOD_ELVES, 4)
    with pytest.raises(ArmyForgeError, match=f"^the answer from {re.escape(url)} is not JSON: Unterminated string"):
        fetch_json(url, **FAST)
    assert armyforge.books_fetched == [WOOD_ELVES]


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.org/books", "army-forge.onepagerules.com"])
def test_only_http_addresses_are_read(url):
    with pytest.raises(ArmyForgeError, match="is not an http:// or https:// address"):
        fetch_json(url, **FAST)


def test_a_redirect_within_army_forge_is_followed(armyforge):
    armyforge.redirect(WOOD_ELVES, book_url("", BOOKS["aof--ratmen"][2], 4), times=1)  # a path: the same origin
    book = fetch_json(book_url(armyforge.url, WOOD_ELVES, 4), **FAST)
    assert book["name"] == "Ratmen"
    assert armyforge.books_fetched == [WOOD_ELVES, BOOKS["aof--ratmen"][2]]


@pytest.mark.parametrize(
    "elsewhere",
    [
        "{other}/api/army-books/{uid}?gameSystem=4",  # another port on loopback
        "ftp://127.0.0.1/books",
        "https://{host}/api/army-books/{uid}?gameSystem=4",  # another scheme, same host
        "file:///etc/passwd",
    ],
    ids=["other-port", "ftp", "other-scheme", "file"],
)
def test_a_redirect_to_another_origin_is_refused_and_not_followed(armyforge, tmp_path, elsewhere):
    from tests.support.armyforge_standin import ArmyForgeStandIn

    with ArmyForgeStandIn(armyforge.folder) as other:
        host = armyforge.url.removeprefix("http://")
        armyforge.redirect(WOOD_ELVES, elsewhere.format(other=other.url, host=host, uid=WOOD_ELVES))
        url = book_url(armyforge.url, WOOD_ELVES, 4)
        with pytest.raises(ArmyForgeError, match=rf"^{re.escape(url)} redirected to .*: not followed$") as error:
            fetch_json(url, **FAST)
        assert other.requests == []
    assert error.value.plain == "Army Forge sent the request to another address, which is not followed"
    assert armyforge.books_fetched == [WOOD_ELVES]  # and not asked again


def test_redirects_in_a_loop_stop_after_a_few(armyforge):
    armyforge.redirect(WOOD_ELVES, book_url(armyforge.url, WOOD_ELVES, 4))  # to itself, for ever
    url = book_url(armyforge.url, WOOD_ELVES, 4)
    with pytest.raises(ArmyForgeError, match="redirected more than 3 times"):
        fetch_json(url, **FAST)
    assert armyforge.books_fetched == [WOOD_ELVES] * 4


@pytest.mark.parametrize("bad", ["\x00", "\ud800", "x\udfffy"], ids=["nul", "lone-high-surrogate", "lone-low"])
def test_bad_text_anywhere_in_an_answer_is_refused_naming_where(armyforge, bad):
    book = fetch_json(book_url(armyforge.url, WOOD_ELVES, 4), **FAST)
    book["units"][2]["name"] = bad
    armyforge.answer(WOOD_ELVES, book)
    url = book_url(armyforge.url, WOOD_ELVES, 4)
    with pytest.raises(ArmyForgeError) as error:
        fetch_json(url, **FAST)
    assert str(error.value) == f"the answer from {url} holds a NUL character or a lone surrogate at units[2].name"
    error.value.plain.encode("utf-8")  # the message itself is clean text


def test_a_surrogate_pair_is_good_text(armyforge):
    book = fetch_json(book_url(armyforge.url, WOOD_ELVES, 4), **FAST)
    book["units"][0]["name"] = "Elves \U0001f9dd"  # escaped as a pair in JSON
    armyforge.answer(WOOD_ELVES, book)
    assert fetch_json(book_url(armyforge.url, WOOD_ELVES, 4), **FAST)["units"][0]["name"] == "Elves \U0001f9dd"


# -- the sync ------------------------------------------------------------------------------
def test_a_first_sync_imports_the_seven_official_books(armyforge, db):
    lines, failure = sync()

    assert failure is None
    assert [line.split(":")[0] for line in book_lines(lines)] == [
        f"{ruleset}  {name}  3.5.2" for ruleset, name, _ in BOOKS.values()
    ]
    assert all(line.split(": ", 1)[1].startswith("new book") for line in book_lines(lines))
    assert lines[-1] == "7 new books, 0 new versions, 0 unchanged, 0 failed"
    assert {uid: (ruleset, version) for uid, (ruleset, version, _) in held().items()} == {
        uid: (ruleset, "3.5.2") for ruleset, _, uid in BOOKS.values()
    }
    records = models.ArmyForgeSync.objects.values_list("system", "armyforge_id", "name", "version", "outcome")
    assert sorted(records) == sorted((r, uid, name, "3.5.2", "new book") for r, name, uid in BOOKS.values())
    assert armyforge.indexes_read == ["age-of-fantasy", "age-of-fantasy-skirmish", "age-of-fantasy-regiments"]
    assert sorted(armyforge.books_fetched) == sorted(uid for _, _, uid in BOOKS.values())
    versions = models.BookVersion.objects.values_list("faction__armyforge_id", "version", "source", "armyforge_id")
    assert sorted(versions) == sorted((uid, "3.5.2", "armyforge", uid) for _, _, uid in BOOKS.values())
    assert set(models.Faction.objects.values_list("source", flat=True)) == {"armyforge"}


def test_a_sync_with_nothing_new_writes_nothing_and_fetches_no_book(armyforge, db):
    sync()
    before = catalogue()
    armyforge.clear()

    with CaptureQueriesContext(connection) as queries:
        lines, failure = sync()

    assert failure is None
    day = models.ArmyForgeRules.objects.get(ruleset__slug="aof").version
    assert lines == [
        f"aof  core rules: unchanged ({day})",
        *(f"aof  {name}  3.5.2: unchanged" for ruleset, name, _ in BOOKS.values() if ruleset == "aof"),
        f"aof-skirmish  core rules: unchanged ({day})",
        *(f"aof-skirmish  {name}  3.5.2: unchanged" for ruleset, name, _ in BOOKS.values() if ruleset != "aof"),
        f"aof-regiments  core rules: unchanged ({day})",
        "0 new books, 0 new versions, 7 unchanged, 0 failed",
    ]
    assert catalogue() == before
    assert [q["sql"] for q in queries if not q["sql"].lstrip().upper().startswith("SELECT")] == []
    assert armyforge.books_fetched == []
    assert len(armyforge.indexes_read) == 3


def test_a_new_version_of_each_book_is_imported_over_the_last(synced_3_5_1):
    before = held()
    assert {version for _, version, _ in before.values()} == {"3.5.1"}

    lines, failure = sync()

    assert failure is None
    assert [line.split(": ", 1)[0] for line in book_lines(lines)] == [f"{r}  {n}  3.5.2" for r, n, _ in BOOKS.values()]
    assert all(line.split(": ", 1)[1].startswith("new version (was 3.5.1") for line in book_lines(lines))
    assert lines[-1] == "0 new books, 7 new versions, 0 unchanged, 0 failed"
    after = held()
    assert {uid: version for uid, (_, version, _) in after.items()} == {uid: "3.5.2" for uid in before}
    assert all(after[uid][2] != before[uid][2] for uid in before)  # new content, new stamps
    kept = models.BookVersion.objects.values_list("faction__armyforge_id", "version")
    assert sorted(kept) == sorted((uid, version) for uid in before for version in ("3.5.1", "3.5.2"))
    records = models.ArmyForgeSync.objects.values_list("outcome", "version", "detail")
    assert {(outcome, version, detail.split(",")[0]) for outcome, version, detail in records} == {
        ("new version", "3.5.2", "was 3.5.1")
    }


def test_the_sync_answers_each_books_outcome_and_the_counts(synced_3_5_1):
    lines: list[str] = []

    result = armyforge_sync(systems=["aof-skirmish"], report=lines.append)

    assert lines == [*result.core_rules[0].lines(), *(line for book in result.books for line in book.lines())]
    assert [(b.system, b.armyforge_id, b.name, b.version, b.outcome, b.stored, b.previous) for b in result.books] == [
        ("aof-skirmish", uid, name, "3.5.2", "new version", "3.5.2", "3.5.1")
        for ruleset, name, uid in BOOKS.values()
        if ruleset == "aof-skirmish"
    ]
    counts = (result.new_books, result.new_versions, result.unchanged, result.failed, result.failed_indexes)
    assert counts == (0, 3, 0, 0, ())
    assert result.summary() == "0 new books, 3 new versions, 0 unchanged, 0 failed"


def refused_wood_elves(armyforge) -> None:
    book = armyforge.book("aof--wood-elves")
    book["units"][0]["cost"] = "a lot"
    armyforge.answer(WOOD_ELVES, book)


def nul_in_wood_elves(armyforge) -> None:
    book = armyforge.book("aof--wood-elves")
    book["units"][1]["name"] = "Wood\x00Elf"
    armyforge.answer(WOOD_ELVES, book)


# 0.45 s for each address, its tries together: no time for a pause of 0.5 s and another try.
FAILURES = {
    "500": (lambda af: af.fail(WOOD_ELVES, 500), "Army Forge answered 500 for {url}"),
    "timeout": (lambda af: af.hang(WOOD_ELVES, 10), "no answer from {url} within 0.45 s"),
    "trickle": (lambda af: af.trickle(WOOD_ELVES, 0.05), "no answer from {url} within 0.45 s"),
    "bad text": (nul_in_wood_elves, "the answer from {url} holds a NUL character or a lone surrogate at units[1].name"),
    "broken JSON": (lambda af: af.broken(WOOD_ELVES), "the answer from {url} is not JSON: "),
    "refused": (refused_wood_elves, "refused by the checks: units[0].cost: "),
}


@pytest.mark.parametrize("fault", FAILURES)
def test_a_book_that_fails_is_left_as_it_was_and_the_others_go_on(synced_3_5_1, settings, fault):
    armyforge = synced_3_5_1
    settings.ARMYFORGE_TIMEOUT = 0.45  # room for a healthy book on a loaded machine, none for a retry
    make, message = FAILURES[fault]
    make(armyforge)
    before = held()
    elves_book = list(models.BookVersion.objects.filter(faction__armyforge_id=WOOD_ELVES).values())

    lines, failure = sync()

    assert failure is not None and failure.returncode == 1
    url = book_url(armyforge.url, WOOD_ELVES, 4)
    failed = [line for line in lines if "failed" in line]
    assert len(failed) == 2  # the book's line and the summary
    assert failed[0].startswith(f"aof  Wood Elves  3.5.2: failed: {message.format(url=url)}")
    assert lines[-1] == "0 new books, 6 new versions, 0 unchanged, 1 failed"
    after = held()
    assert after[WOOD_ELVES] == before[WOOD_ELVES]
    assert list(models.BookVersion.objects.filter(faction__armyforge_id=WOOD_ELVES).values()) == elves_book
    elves_versions = models.BookVersion.objects.filter(faction__armyforge_id=WOOD_ELVES)
    assert list(elves_versions.values_list("version", flat=True)) == ["3.5.1"]
    assert {uid: version for uid, (_, version, _) in after.items() if uid != WOOD_ELVES} == {
        uid: "3.5.2" for uid in before if uid != WOOD_ELVES
    }
    record = models.ArmyForgeSync.objects.get(system="aof", armyforge_id=WOOD_ELVES)
    assert (record.outcome, record.version) == ("failed", "3.5.2")
    assert failed[0] == f"aof  Wood Elves  3.5.2: failed: {record.detail}"

    armyforge.clear()  # Army Forge answers again: the next sync takes the book it missed
    lines, failure = sync()
    assert failure is None
    assert lines[-1] == "0 new books, 1 new versions, 6 unchanged, 0 failed"
    assert armyforge.books_fetched == [WOOD_ELVES]
    assert models.ArmyForgeSync.objects.get(armyforge_id=WOOD_ELVES).outcome == "new version"


def test_an_over_sized_book_fails_alone(armyforge, db, settings):
    settings.ARMYFORGE_MAX_BYTES = 1024 * 1024
    armyforge.oversized(WOOD_ELVES, 2 * 1024 * 1024)

    lines, failure = sync("--system", "aof")

    assert failure is not None
    url = book_url(armyforge.url, WOOD_ELVES, 4)
    assert f"aof  Wood Elves  3.5.2: failed: the answer from {url} is larger than 1 MB" in lines
    assert lines[-1] == "3 new books, 0 new versions, 0 unchanged, 1 failed"
    assert WOOD_ELVES not in held()


def test_a_dry_run_writes_nothing(synced_3_5_1):
    before = catalogue()

    lines, failure = sync("--dry-run")

    assert failure is None
    assert all(line.endswith(", not written: dry run)") for line in book_lines(lines))
    assert all(": new version (was 3.5.1" in line for line in book_lines(lines))
    assert lines[-1] == "0 new books, 7 new versions, 0 unchanged, 0 failed (dry run: nothing written)"
    assert catalogue() == before


def test_a_dry_run_records_no_failure(armyforge, db):
    armyforge.fail(WOOD_ELVES, 404)

    lines, failure = sync("--dry-run", "--system", "aof")

    assert failure is not None
    assert lines[-1] == "3 new books, 0 new versions, 0 unchanged, 1 failed (dry run: nothing written)"
    assert not models.Faction.objects.exists()
    assert not models.ArmyForgeSync.objects.exists()


def test_system_limits_the_sync_to_the_rulesets_named(armyforge, db):
    lines, failure = sync("--system", "aof-skirmish", "--system", "aof-regiments")

    assert failure is None
    assert lines[-1] == "3 new books, 0 new versions, 0 unchanged, 0 failed"
    assert armyforge.indexes_read == ["age-of-fantasy-skirmish", "age-of-fantasy-regiments"]
    assert {ruleset for ruleset, _, _ in held().values()} == {"aof-skirmish"}


def test_a_ruleset_army_forge_has_no_books_for_is_refused_before_anything_is_read(armyforge, db):
    with pytest.raises(CommandError, match="invalid choice: 'opf'"):
        call_command("sync_armyforge", "--system", "opf", stdout=io.StringIO())
    with pytest.raises(ValueError, match='Army Forge publishes no books for "opf"'):
        armyforge_sync(systems=["aof", "opf"])
    assert armyforge.requests == []


def test_an_index_that_fails_fails_its_ruleset_only(armyforge, db):
    armyforge.fail("age-of-fantasy", 500)
    armyforge.answer("age-of-fantasy-regiments", {"books": []})

    lines, failure = sync()

    assert failure is not None and failure.returncode == 1
    aof_index = index_url(armyforge.url, "age-of-fantasy")
    regiments_index = index_url(armyforge.url, "age-of-fantasy-regiments")
    assert outline(lines)[1] == f"aof  index: failed: Army Forge answered 500 for {aof_index} (3 tries)"
    assert lines[-2] == f"aof-regiments  index: failed: the answer from {regiments_index} is not a list of army books"
    assert lines[-1] == "3 new books, 0 new versions, 0 unchanged, 2 failed"
    assert {ruleset for ruleset, _, _ in held().values()} == {"aof-skirmish"}


def test_index_entries_that_name_no_book_are_reported_not_followed(armyforge, db):
    armyforge.answer(
        "age-of-fantasy",
        [
            {"name": "No uid", "versionString": "3.5.2"},
            "a text",
            {"uid": WOOD_ELVES, "name": "Wood Elves"},
            {"uid": BOOKS["aof--ratmen"][2], "name": "Rat\x1b[2Jmen\n", "versionString": "3.5.2"},
        ],
    )

    lines, failure = sync("--system", "aof")

    assert failure is not None
    assert outline(lines)[1:] == [
        "aof  No uid  3.5.2: failed: entry 0 of Army Forge's index has no uid (a text of 1 to 40 characters)",
        "aof  index entry 1  ?: failed: entry 1 of Army Forge's index is not an object",
        "aof  Wood Elves  ?: failed: entry 2 of Army Forge's index has no versionString (a text of 1 to 40 characters)",
        outline(lines)[4],
        "1 new books, 0 new versions, 0 unchanged, 3 failed",
    ]
    assert outline(lines)[4].startswith("aof  Rat [2Jmen  3.5.2: new book")  # no control characters reach the terminal
    assert armyforge.books_fetched == [BOOKS["aof--ratmen"][2]]
    assert sorted(models.ArmyForgeSync.objects.values_list("armyforge_id", "outcome")) == sorted(
        [(WOOD_ELVES, "failed"), (BOOKS["aof--ratmen"][2], "new book")]
    )


@pytest.mark.parametrize("bad", ["\x00", "\ud800"], ids=["nul", "lone-surrogate"])
@pytest.mark.parametrize("field", ["uid", "versionString", "name", "modifiedAt", "extra"])
def test_bad_text_in_an_index_entry_fails_that_book_alone(armyforge, db, bad, field):
    """Neither the line printed, the address asked nor the record written holds it."""
    entries = fetch_json(index_url(armyforge.url, "age-of-fantasy"), **FAST)
    elves = next(entry for entry in entries if entry["uid"] == WOOD_ELVES)
    elves[field] = f"{elves.get(field, '')}{bad}"
    armyforge.answer("age-of-fantasy", entries)
    armyforge.requests.clear()

    # Written as UTF-8, as to a terminal or a log: a lone surrogate printed would stop the command.
    lines, failure = sync("--system", "aof", out=io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))

    assert failure is not None and failure.returncode == 1
    failed = [line for line in outline(lines) if ": failed: " in line]
    assert len(failed) == 1
    assert failed[0].endswith(f"entry 3 of Army Forge's index holds a NUL character or a lone surrogate at {field}")
    assert lines[-1] == "3 new books, 0 new versions, 0 unchanged, 1 failed"
    assert WOOD_ELVES not in armyforge.books_fetched and WOOD_ELVES not in held()
    assert bad_text(list(models.ArmyForgeSync.objects.values())) is None  # every record written is clean text


def test_an_answer_that_is_another_book_is_not_imported(armyforge, db):
    armyforge.answer(WOOD_ELVES, armyforge.book("aof--ratmen"))

    lines, failure = sync("--system", "aof")

    assert failure is not None
    url = book_url(armyforge.url, WOOD_ELVES, 4)
    assert f"aof  Wood Elves  3.5.2: failed: the answer from {url} is not the army book {WOOD_ELVES}" in lines
    assert WOOD_ELVES not in held()


def test_source_overrides_the_setting(armyforge, db, settings):
    settings.ARMYFORGE_URL = "http://127.0.0.1:9"  # nothing there: the sync must not ask it

    lines, failure = sync("--source", armyforge.url, "--system", "aof-skirmish")

    assert failure is None
    assert lines[-1] == "3 new books, 0 new versions, 0 unchanged, 0 failed"
    assert armyforge.indexes_read == ["age-of-fantasy-skirmish"]


def test_a_source_that_is_no_http_address_is_refused(armyforge, db):
    with pytest.raises(CommandError, match='the source "file:///etc" is not an http:// or https:// address'):
        call_command("sync_armyforge", "--source", "file:///etc", stdout=io.StringIO())
    assert armyforge.requests == []


def test_with_no_army_forge_address_the_sync_says_so_and_reads_nothing(armyforge, settings, db):
    settings.ARMYFORGE_URL = ""
    lines, failure = sync()
    assert (lines, str(failure)) == (
        [],
        "no Army Forge address: DJANGO_ARMYFORGE_URL is empty (the site never asks Army Forge)",
    )
    assert armyforge.requests == []


def test_a_book_fetched_whose_content_is_held_is_unchanged_and_recorded_nowhere(armyforge, db):
    """Army Forge's index may name a version whose book turns out to be one held (its
    index ahead of, or behind, the book it serves): nothing is written for it."""
    sync()
    first = models.ArmyForgeSync.objects.get(armyforge_id=WOOD_ELVES)
    latest = armyforge.folder
    elves = armyforge.book("aof--wood-elves")
    armyforge.serve(latest / "3.5.1")  # its index offers 3.5.1 ...
    armyforge.answer(WOOD_ELVES, elves)  # ... but the book it answers is the 3.5.2 held

    lines, failure = sync()

    assert failure is None
    assert "aof  Wood Elves  3.5.1: unchanged" in [line.split(" (")[0] for line in lines]
    assert models.ArmyForgeSync.objects.get(armyforge_id=WOOD_ELVES) == first
    assert models.ArmyForgeSync.objects.get(armyforge_id=WOOD_ELVES).synced_at == first.synced_at
    assert list(
        models.BookVersion.objects.filter(faction__armyforge_id=WOOD_ELVES).values_list("version", flat=True)
    ) == ["3.5.2"]


def test_an_army_forge_book_named_as_a_bundled_one_is_kept_beside_it(armyforge, db):
    from factions.services import bundled_books_load

    bundled_books_load()
    bundled = models.Faction.objects.get(ruleset__slug="aof", slug="human-empire")
    namesake = armyforge.book("aof--wood-elves")
    namesake["name"] = "Human Empire"
    armyforge.answer(WOOD_ELVES, namesake)

    lines, failure = sync("--system", "aof")

    assert failure is None
    assert any(line.startswith("aof  Wood Elves  3.5.2: new book") for line in lines)  # as the index names it
    kept = models.Faction.objects.get(armyforge_id=WOOD_ELVES)
    assert (kept.slug, kept.source, kept.import_slug) == ("human-empire-armyforge", "armyforge", "human-empire")
    assert any("aof/human-empire" in w and "aof/human-empire-armyforge" in w for w in kept.import_warnings)
    assert models.Faction.objects.get(pk=bundled.pk).content_hash == bundled.content_hash


def test_a_version_change_shows_army_forges_real_differences(synced_3_5_1, client):
    """Synced at 3.5.1, then at 3.5.2: what changed is what Army Forge changed."""
    sync()

    def changes(system: str, slug: str) -> dict:
        response = client.get(f"/api/factions/{system}/{slug}/changes/", {"from": "3.5.1"})
        assert response.status_code == 200, response.content
        return response.json()

    def costs(found: dict) -> dict:
        return {u["name"]: u["changes"]["cost"] for u in found["units"]["changed"] if "cost" in u["changes"]}

    assert costs(changes("aof", "chivalrous-kingdoms")) == {
        "Pledge Knights": [120, 125],
        "Grail Knights": [135, 125],
        "Pegasus Knights": [205, 210],
    }
    assert costs(changes("aof", "wood-elves")) == {"Giant Beetle": [225, 230], "Forest Ancient": [750, 755]}
    ratmen = changes("aof", "ratmen")["options"]
    assert [o["label"] for o in ratmen["removed"]] == [
        "Scout Master (Scout, Stealth, Strider)",
        "Assassin (Takedown Strike)",
    ]
    assert [o["label"] for o in ratmen["added"]] == [
        "Scout Master (Scout, Stealth, Strider)",
        "Master Assassin (Takedown Strike)",
    ]
    dwarves = changes("aof-skirmish", "volcanic-dwarves")["options"]
    assert [(o["id"], o["label"]) for o in dwarves["removed"]] == [("i6mHBGfnKD", "Grudge Bearer (Takedown Strike)")]
    assert [(o["id"], o["label"]) for o in dwarves["added"]] == [("FisnLxT7DL", "Grudge Bearer (Takedown Strike)")]
    assert costs(changes("aof", "giant-tribes")) == {}


def test_the_admin_shows_the_last_syncs_outcome_per_book(armyforge, db, client, staff_user):
    from django.urls import reverse

    armyforge.fail(WOOD_ELVES, 500)
    sync("--system", "aof")
    client.force_login(staff_user)
    listing = client.get(reverse("admin:factions_armyforgesync_changelist")).content.decode()
    assert "Wood Elves" in listing and "failed" in listing and "Ratmen" in listing and "new book" in listing
    ratmen = models.Faction.objects.get(slug="ratmen")
    page = client.get(reverse("admin:factions_faction_change", args=[ratmen.pk])).content.decode()
    assert "Last sync from Army Forge" in page and "new book 3.5.2" in page
    assert "armyforge" in page and "3.5.2" in page  # its versions, with their source


def test_each_warning_of_an_imported_book_is_printed_under_its_line(armyforge, db):
    lines, failure = sync("--system", "aof")

    assert failure is None
    printed = 0
    for faction in models.Faction.objects.filter(ruleset__slug="aof"):
        count = len(faction.import_warnings)
        said = f" ({count} warning{'s' if count != 1 else ''})" if count else ""
        at = lines.index(f"aof  {faction.name}  {faction.version}: new book{said}")
        assert lines[at + 1 : at + 1 + count] == [f"{INDENT}{warning}" for warning in faction.import_warnings]
        assert at + 1 + count == len(lines) or not lines[at + 1 + count].startswith(INDENT)
        printed += count
    assert printed > 0  # Wood Elves 3.5.2 has a section with no options


def test_the_index_modified_at_is_recorded_with_each_version_read_from_army_forge(synced_3_5_1):
    def modified() -> dict[tuple[str, str], str]:
        rows = models.BookVersion.objects.values_list("faction__armyforge_id", "version", "armyforge_modified_at")
        return {(uid, version): at for uid, version, at in rows}

    sync()

    index = {
        (book["uid"], book["versionString"]): book["modifiedAt"]
        for name in BOOKS
        for book in (synced_3_5_1.book(name), json.loads((synced_3_5_1.folder / "3.5.1" / f"{name}.json").read_text()))
    }
    assert modified() == index
    assert len(index) == 14 and all(index.values())


# -- books Army Forge re-published under a version held ------------------------------------------
@pytest.fixture
def wood_elves_served(armyforge, db, tmp_path):
    """The stand-in serving Wood Elves 3.5.2 alone, from a folder of the test's own, and
    the book synced from it; `publish(book)` puts another Wood Elves in its place."""
    folder = tmp_path / "armyforge"
    folder.mkdir()
    book = armyforge.book("aof--wood-elves")

    def publish(new: dict) -> None:
        (folder / "aof--wood-elves.json").write_text(json.dumps(new), encoding="utf-8")

    publish(book)
    armyforge.serve(folder)
    lines, failure = sync("--system", "aof")
    assert failure is None and "aof  Wood Elves  3.5.2: new book (1 warning)" in lines
    armyforge.clear()
    return {"standin": armyforge, "book": book, "publish": publish}


def republished(book: dict, *, modified_at: str = "2026-03-02T10:00:00.000Z", cost: int | None = None) -> dict:
    """`book` as Army Forge re-publishes it under the same version: another modifiedAt,
    and its first unit at `cost` when given."""
    again = json.loads(json.dumps(book))
    again["modifiedAt"] = modified_at
    if cost is not None:
        again["units"][0]["cost"] = cost
    return again


def elves_versions() -> list[tuple[str, str, int]]:
    """Wood Elves' versions held: name, Army Forge's modifiedAt, the first unit's cost."""
    rows = models.BookVersion.objects.filter(faction__armyforge_id=WOOD_ELVES).order_by("imported_at", "id")
    return [(v.version, v.armyforge_modified_at, v.document["units"][0]["cost"]) for v in rows]


def test_a_book_re_published_with_other_content_is_kept_as_a_repeat_of_its_version(wood_elves_served):
    armyforge, book = wood_elves_served["standin"], wood_elves_served["book"]
    assert book["modifiedAt"] == "2026-01-28T21:38:49.062Z" and book["units"][0]["cost"] == 230
    wood_elves_served["publish"](republished(book, cost=245))

    lines, failure = sync("--system", "aof")

    assert failure is None
    assert (
        "aof  Wood Elves  3.5.2: new version (stored as 3.5.2+2, was 3.5.2, re-published by Army Forge under the "
        "same version, 1 warning)" in lines
    )
    assert lines[-1] == "0 new books, 1 new versions, 0 unchanged, 0 failed"
    assert armyforge.books_fetched == [WOOD_ELVES]
    assert elves_versions() == [
        ("3.5.2", "2026-01-28T21:38:49.062Z", 230),
        ("3.5.2+2", "2026-03-02T10:00:00.000Z", 245),
    ]
    assert held()[WOOD_ELVES][1] == "3.5.2+2"
    record = models.ArmyForgeSync.objects.get(armyforge_id=WOOD_ELVES)
    assert (record.outcome, record.version) == ("new version", "3.5.2")

    armyforge.clear()  # the next sync holds it as Army Forge publishes it now
    lines, failure = sync("--system", "aof")
    assert "aof  Wood Elves  3.5.2: unchanged" in lines
    assert armyforge.books_fetched == []


def test_a_book_re_published_with_the_same_content_is_unchanged_and_not_fetched_again(wood_elves_served):
    armyforge, book = wood_elves_served["standin"], wood_elves_served["book"]
    wood_elves_served["publish"](republished(book))
    before = models.Faction.objects.get(armyforge_id=WOOD_ELVES)

    lines, failure = sync("--system", "aof")

    assert failure is None
    assert "aof  Wood Elves  3.5.2: unchanged (re-published by Army Forge with the same content, 1 warning)" in lines
    assert armyforge.books_fetched == [WOOD_ELVES]
    assert elves_versions() == [("3.5.2", "2026-03-02T10:00:00.000Z", 230)]  # read at the new modifiedAt
    after = models.Faction.objects.get(armyforge_id=WOOD_ELVES)
    assert (after.version, after.content_hash) == (before.version, before.content_hash)
    assert not models.ArmyForgeSync.objects.filter(armyforge_id=WOOD_ELVES, outcome="unchanged").exists()

    armyforge.clear()
    sync("--system", "aof")
    assert armyforge.books_fetched == []


def test_a_version_read_before_modified_at_was_kept_is_not_fetched_again(wood_elves_served):
    armyforge, book = wood_elves_served["standin"], wood_elves_served["book"]
    models.BookVersion.objects.filter(faction__armyforge_id=WOOD_ELVES).update(armyforge_modified_at="")
    wood_elves_served["publish"](republished(book, cost=245))

    lines, failure = sync("--system", "aof")

    assert failure is None
    assert "aof  Wood Elves  3.5.2: unchanged" in lines
    assert armyforge.books_fetched == []
    assert elves_versions() == [("3.5.2", "", 230)]


def test_a_book_edited_in_the_admin_since_is_fetched_when_army_forge_re_publishes_it(wood_elves_served):
    from tests.conftest import edit_book

    armyforge, book = wood_elves_served["standin"], wood_elves_served["book"]
    elves = models.Faction.objects.get(armyforge_id=WOOD_ELVES)
    # As the admin saves it: a version of its own, read from no Army Forge.
    edit_book(elves.slug, lambda elves: elves["units"][0].update(cost=elves["units"][0]["cost"] + 5))
    assert [row[:2] for row in elves_versions()] == [("3.5.2", "2026-01-28T21:38:49.062Z"), ("3.5.2+admin.1", "")]
    wood_elves_served["publish"](republished(book, cost=245))

    lines, failure = sync("--system", "aof")

    assert failure is None
    assert armyforge.books_fetched == [WOOD_ELVES]
    assert any(
        line.startswith("aof  Wood Elves  3.5.2: new version (stored as 3.5.2+2, was 3.5.2+admin.1") for line in lines
    )
    assert elves_versions()[-1] == ("3.5.2+2", "2026-03-02T10:00:00.000Z", 245)


def test_a_book_named_again_by_the_index_is_fetched_once_a_sync(wood_elves_served):
    armyforge, book = wood_elves_served["standin"], wood_elves_served["book"]
    entry = {key: book[key] for key in ("uid", "name", "versionString", "official", "enabledGameSystems")}
    armyforge.answer(
        "age-of-fantasy",
        [{**entry, "modifiedAt": "2026-03-02T10:00:00.000Z"}, {**entry, "modifiedAt": "2026-03-03T10:00:00.000Z"}],
    )
    wood_elves_served["publish"](republished(book, cost=245))

    lines, failure = sync("--system", "aof")

    assert failure is None
    assert [line for line in outline(lines) if "Wood Elves" in line] == [
        "aof  Wood Elves  3.5.2: new version (stored as 3.5.2+2, was 3.5.2, re-published by Army Forge under the "
        "same version, 1 warning)",
        "aof  Wood Elves  3.5.2: unchanged (read once already in this sync)",
    ]
    assert armyforge.books_fetched == [WOOD_ELVES]


def test_a_dry_run_of_a_re_published_book_writes_nothing(wood_elves_served):
    wood_elves_served["publish"](republished(wood_elves_served["book"], cost=245))
    before = catalogue()

    lines, failure = sync("--system", "aof", "--dry-run")

    assert failure is None
    assert any(line.startswith("aof  Wood Elves  3.5.2: new version (stored as 3.5.2+2") for line in lines)
    assert catalogue() == before


def test_a_re_published_book_that_fails_is_left_as_it_was_and_read_by_the_next_sync(wood_elves_served):
    armyforge = wood_elves_served["standin"]
    wood_elves_served["publish"](republished(wood_elves_served["book"], cost=245))
    armyforge.fail(WOOD_ELVES, 404)

    lines, failure = sync("--system", "aof")

    assert failure is not None
    assert lines[-1] == "0 new books, 0 new versions, 0 unchanged, 1 failed"
    assert elves_versions() == [("3.5.2", "2026-01-28T21:38:49.062Z", 230)]
    armyforge.clear()
    lines, failure = sync("--system", "aof")
    assert failure is None and lines[-1] == "0 new books, 1 new versions, 0 unchanged, 0 failed"


@pytest.mark.parametrize("modified_at", [None, 20260302, "", "x" * 41, "2026-03-02\n"], ids=repr)
def test_an_index_modified_at_that_is_no_short_text_is_as_none(wood_elves_served, modified_at):
    armyforge, book = wood_elves_served["standin"], wood_elves_served["book"]
    wood_elves_served["publish"](republished(book, modified_at=modified_at, cost=245))

    lines, failure = sync("--system", "aof")

    assert failure is None
    assert "aof  Wood Elves  3.5.2: unchanged" in lines
    assert armyforge.books_fetched == []
