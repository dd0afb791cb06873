"""Shared fixtures: API clients and small, valid army books built in code."""

import copy
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

# The browser tests' fixtures (their modules, `*_browser.py`, sit beside their feature).
pytest_plugins = ["tests.support.browser"]

ON_POSTGRES = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


# The slow groups: `pytest -m "not slow"` leaves them out for a quick check while working;
# CI (.ci/run) runs everything.
SLOW_GROUPS = {
    "browser": "drives Chromium against the live server (the *_browser.py modules beside their feature)",
    "fuzz": "schemathesis against the OpenAPI schema",
    "property": "hypothesis: many generated examples",
}


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "postgres: needs PostgreSQL (DATABASE_URL=postgres://…); left out, not skipped, on SQLite"
    )
    for group, meaning in SLOW_GROUPS.items():
        config.addinivalue_line("markers", f"{group}: {meaning}; one of the slow groups")
    config.addinivalue_line("markers", "slow: in one of the slow groups (browser, fuzz, property)")


def slow_group(item) -> str | None:
    """The slow group a test is in: the browser and fuzz tests by their module's mark, the
    property tests by hypothesis's decorator."""
    for group in SLOW_GROUPS:
        if item.get_closest_marker(group):
            return group
    if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
        return "property"
    return None


# The order tests start in: the slow groups first, the browser tests before the others
# (each takes seconds), so that at the end the workers share out quick tests and none is
# left alone with a long one.
START_ORDER = {"browser": 0, "fuzz": 1, "property": 1}


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    """Marks the slow groups (before `-m` selects by them). Tests that only PostgreSQL can
    run (several connections at once, killed connections, lock timeouts) are left out on
    SQLite, and the summary says how many: CI runs them on its PostgreSQL leg. Then (after
    pytest-django has put the transactional tests last) the slowest go first: the database
    is as the migrations left it after every test (`pytest_runtest_teardown`), so the
    order is free."""
    for item in items:
        group = slow_group(item)
        if group:
            item.add_marker(group)
            item.add_marker("slow")
    yield
    items.sort(key=lambda item: START_ORDER.get(slow_group(item) or "", 2))
    if ON_POSTGRES:
        return
    left = [item for item in items if item.get_closest_marker("postgres")]
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = [item for item in items if not item.get_closest_marker("postgres")]
        config.stash[POSTGRES_LEFT] = len(left)


POSTGRES_LEFT = pytest.StashKey[int]()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """Under pytest-xdist the workers collect and leave tests out: each tells the main
    process how many, for the summary (every worker collects the same tests)."""
    left = getattr(node, "workeroutput", {}).get("postgres_left", 0)
    node.config.stash[POSTGRES_LEFT] = max(left, node.config.stash.get(POSTGRES_LEFT, 0))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skipped = terminalreporter.stats.get("skipped", [])
    if os.environ.get("ARMYBUILDER_NO_SKIPS") == "1" and skipped:
        terminalreporter.write_line(f"{len(skipped)} tests skipped: in CI every test must run (a failure)", red=True)
    left = config.stash.get(POSTGRES_LEFT, 0)
    if left:
        terminalreporter.write_line(
            f"{left} tests need PostgreSQL and were left out: run with DATABASE_URL=postgres://…"
        )


def pytest_sessionfinish(session, exitstatus):
    """In CI (ARMYBUILDER_NO_SKIPS=1) a skipped test is a test that did not run: a failure."""
    if hasattr(session.config, "workeroutput"):  # a pytest-xdist worker
        session.config.workeroutput["postgres_left"] = session.config.stash.get(POSTGRES_LEFT, 0)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if os.environ.get("ARMYBUILDER_NO_SKIPS") == "1" and skipped and session.exitstatus == 0:
        session.exitstatus = 1


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """The test database as pytest-django makes it, and what the migrations wrote in it
    kept (tests/support/baseline.py)."""
    from tests.support import baseline

    with django_db_blocker.unblock():
        baseline.keep()
    yield
    # Before the database is dropped: a connection opened in another context of this worker
    # (Playwright's sync API runs in greenlets, each with its own connections) and never
    # closed would make PostgreSQL refuse to drop it, and leave it behind.
    from django.db import connection

    with django_db_blocker.unblock():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After a test that emptied every table (a transactional test's flush, within its
    teardown), what the migrations wrote is written back, so that the next test on this
    worker, of any kind, finds it."""
    try:
        return (yield)
    finally:
        from tests.support import baseline

        # (After the worker's last test the database is already gone.)
        if nextitem is not None and baseline.emptied():
            from pytest_django.plugin import blocking_manager_key

            with item.config.stash[blocking_manager_key].unblock():
                baseline.write_back()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    """On SQLite the test database is a file (one per worker), not memory: the live
    server's request threads then each have a connection of their own, as on a real
    server. An in-memory database is one connection shared by every thread, so requests
    arriving together (the browser tests' quick clicks) would break each other's
    transactions. Writes take the lock when their transaction begins (as two requests
    writing at once on a real SQLite server should), and nothing waits for the disk (the
    file and its journal are in memory)."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if not database["ENGINE"].endswith("sqlite3"):
        return
    folder = Path("/dev/shm") if Path("/dev/shm").is_dir() else tmp_path_factory.getbasetemp()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    database.setdefault("TEST", {})["NAME"] = str(folder / f"armybuilder-test-{os.getpid()}-{worker}.sqlite3")
    database.setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA synchronous=OFF; PRAGMA journal_mode=MEMORY",
        }
    )


Book = dict[str, Any]


def _weapon(name: str, count: int, attacks: int, range_: int | None = None, rules=None) -> dict:
    weapon: dict[str, Any] = {"name": name, "count": count}
    if range_ is not None:
        weapon["range"] = range_
    weapon["attacks"] = attacks
    weapon["rules"] = rules or []
    return weapon


def aof_book(units: int = 3) -> Book:
    """A valid Age of Fantasy book: a hero, a 10-model infantry unit and `units - 2`
    more infantry variants, with a package of every common shape."""
    book: Book = {
        "format": "armybook/1",
        "system": "aof",
        "slug": "test-wardens",
        "name": "Test Wardens",
        "version": "1.0.0",
        "rules": [{"name": "Shieldbrothers", "rated": False, "text": "Test rule text."}],
        "spells": [{"name": "Spark", "cost": 1, "text": "Test spell text."}],
        "units": [
            {
                "id": "warden-captain",
                "name": "Warden Captain",
                "type": "hero",
                "size": 1,
                "cost": 70,
                "stats": {"quality": 4, "defense": 4},
                "rules": ["Hero", "Tough(3)", "Caster(1)"],
                "equipment": [_weapon("Hand Weapon", 1, 3)],
                "upgrades": ["HERO"],
            },
            {
                "id": "wardens",
                "name": "Wardens",
                "type": "infantry",
                "size": 10,
                "cost": 110,
                "stats": {"quality": 4, "defense": 5},
                "rules": ["Shieldbrothers"],
                "equipment": [_weapon("Spear", 10, 1, rules=["Counter"]), _weapon("Sling", 10, 1, 12)],
                "upgrades": ["TROOPS"],
            },
        ],
        "packages": [
            {
                "id": "HERO",
                "sections": [
                    {
                        "id": "HERO-1",
                        "label": "Replace Hand Weapon",
                        "variant": "replace",
                        "targets": ["Hand Weapon"],
                        "options": [
                            {
                                "id": "HERO-1a",
                                "label": "Great Axe",
                                "cost": 5,
                                "gains": [{"kind": "weapon", "name": "Great Axe", "attacks": 3, "rules": ["AP(1)"]}],
                            }
                        ],
                    },
                    {
                        "id": "HERO-2",
                        "label": "Upgrade with one",
                        "variant": "upgrade",
                        "select": {"type": "exactly", "value": 1},
                        "optional": True,
                        "options": [
                            {
                                "id": "HERO-2a",
                                "label": "Warhorse",
                                "cost": 20,
                                "gains": [{"kind": "item", "name": "Warhorse", "rules": ["Fast", "Impact(1)"]}],
                            }
                        ],
                    },
                ],
            },
            {
                "id": "TROOPS",
                "sections": [
                    {
                        "id": "TROOPS-1",
                        "label": "Upgrade one model with",
                        "variant": "upgrade",
                        "affects": {"type": "exactly", "value": 1},
                        "select": {"type": "any"},
                        "options": [
                            {
                                "id": "TROOPS-1a",
                                "label": "Sergeant",
                                "cost": 5,
                                "command": "sergeant",
                                "gains": [{"kind": "rule", "name": "Sergeant"}],
                            },
                            {
                                "id": "TROOPS-1b",
                                "label": "Banner",
                                "cost": 5,
                                "command": "banner",
                                "gains": [{"kind": "rule", "name": "Banner"}],
                            },
                        ],
                    },
                    {
                        "id": "TROOPS-2",
                        "label": "Replace all Spears",
                        "variant": "replace",
                        "targets": ["Spear"],
                        "affects": {"type": "all"},
                        "options": [
                            {
                                "id": "TROOPS-2a",
                                "label": "Halberds",
                                "cost": 10,
                                "costs": {"wardens": 15},
                                "gains": [{"kind": "weapon", "name": "Halberd", "attacks": 1, "rules": ["AP(1)"]}],
                            }
                        ],
                    },
                ],
            },
        ],
    }
    for i in range(units - 2):
        extra = copy.deepcopy(book["units"][1])
        extra["id"] = f"wardens-{i}"
        extra["name"] = f"Wardens Cohort {i}"
        extra["size"] = 5 + i % 6
        extra["cost"] = 60 + i
        book["units"].append(extra)
    return book


def arena_book() -> Book:
    fighter_stats = {"move": 3, "rush": 5, "evasion": 3, "toughness": 3, "stamina": 4, "health": 6}
    blade = {
        "name": "Rusted Blade",
        "count": 1,
        "range": 1,
        "accuracy": 4,
        "strength": 3,
        "damage": 2,
        "critical": "+1 damage",
        "rules": [],
    }
    return {
        "format": "armybook/1",
        "system": "aof-arena",
        "slug": "test-pit",
        "name": "Test Pit",
        "version": "1.0.0",
        "rules": [{"name": "Grim", "rated": False, "text": "Test rule text."}],
        "spells": [],
        "units": [
            {
                "id": "boss",
                "name": "Pit Boss",
                "type": "hero",
                "size": 1,
                "cost": 0,
                "stats": {**fighter_stats, "health": 9},
                "rules": ["Grim"],
                "equipment": [dict(blade)],
                "upgrades": [],
            },
            {
                "id": "thug",
                "name": "Pit Thug",
                "type": "fighter",
                "size": 1,
                "cost": 0,
                "stats": dict(fighter_stats),
                "rules": [],
                "equipment": [dict(blade)],
                "upgrades": [],
            },
        ],
        "packages": [],
        "composition": {
            "models": {"min": 3, "max": 5},
            "groups": [
                {"label": "Leader", "units": ["boss"], "min": 1, "max": 1},
                {"label": "Fighters", "units": ["thug"], "min": 2, "max": 4},
            ],
        },
    }


@pytest.fixture
def make_aof_book() -> Callable[..., Book]:
    return aof_book


@pytest.fixture
def make_arena_book() -> Callable[[], Book]:
    return arena_book


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def user(db):
    return get_user_model().objects.create_user("player", password="not-a-real-pass-123")


@pytest.fixture
def staff_user(db):
    return get_user_model().objects.create_user(
        "organiser", password="not-a-real-pass-123", is_staff=True, is_superuser=True
    )


@pytest.fixture
def staff_client(staff_user) -> APIClient:
    client = APIClient()
    client.force_authenticate(staff_user)
    return client


@pytest.fixture
def user_client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Real hashing is slow on purpose; tests create many users."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def fresh_caches():
    """The shared cache (PDFs, pages) and this process's memos (armybuilder/memo.py: the
    compiled books among them) emptied before, and the shared cache after: both outlive a
    test."""
    from django.core.cache import cache

    from armybuilder.memo import clear_all

    cache.clear()
    clear_all()
    yield
    cache.clear()


@pytest.fixture
def fresh_engine_cache():
    """This process's memos (the compiled books among them) emptied before and after:
    test databases reuse row ids, and books imported by a test must not meet another
    test's copies."""
    from armybuilder.memo import clear_all

    clear_all()
    yield
    clear_all()


@pytest.fixture(autouse=True)
def no_army_forge(settings):
    """Nothing reaches the internet: Army Forge is a closed port on loopback unless a test
    starts the stand-in (the `armyforge` fixture)."""
    settings.ARMYFORGE_URL = "http://127.0.0.1:9"


@pytest.fixture(autouse=True)
def no_throttling(settings):
    """Throttles are tested on their own (test_limits.py); elsewhere they would only
    turn a fuzz test's 600 requests into 429s."""
    from django.core.cache import cache

    settings.THROTTLE_RATES = {
        "anon": None,
        "user": None,
        "auth": None,
        "signup": None,
        "password_reset": None,
        "visitor_lists": None,
        "pdf": None,
    }
    cache.clear()


SHARED = Path(__file__).resolve().parents[2] / "shared"


def require_shared(path: Path) -> Path:
    """`path` under ../shared (the rulebooks and the official Army Forge books, third-party
    texts the tests read but the project does not hold). Missing, the test is skipped,
    saying so, on a developer's machine; with ARMYBUILDER_REQUIRE_SHARED=1 (set by .ci/run)
    it fails: in CI every test must run."""
    if path.exists():
        return path
    message = f"{path} not found: the tests read the rulebooks and Army Forge books from ../shared/"
    if os.environ.get("ARMYBUILDER_REQUIRE_SHARED") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def rulebook_ngrams():
    """Every run of COPY_RUN words in the rulebooks, to check our texts copy none."""
    from tests.factions.test_core_rules import COPY_RUN, RULEBOOK_FILES, RULEBOOKS_DIR, ngrams, words

    grams = set()
    for name in RULEBOOK_FILES.values():
        path = require_shared(RULEBOOKS_DIR / name)
        grams |= ngrams(words(path.read_text(encoding="utf-8")), COPY_RUN)
    return grams


@pytest.fixture
def wardens(db):
    """The small Test Wardens book (aof) in the catalogue, with no stale engine cache."""
    from armybuilder.armyforge.books.imports import book_import
    from armybuilder.memo import clear_all
    from factions.models import Faction

    clear_all()
    book_import(data=aof_book())
    return Faction.objects.get(slug="test-wardens")


def edit_book(slug: str, change: Callable[[dict], Any], *, system: str = "aof"):
    """The book `slug` of `system` edited as the admin edits it (factions/admin_documents.py):
    its current document changed in place by `change`, kept as a new version named as the
    admin names it (`1.0.0+admin.1`). Returns the book's row."""
    from factions.admin_checks import _version_after_edit
    from factions.models import Faction
    from factions.selectors import faction_document
    from factions.services import armybook_edit

    faction = Faction.objects.select_related("ruleset").get(ruleset__slug=system, slug=slug)
    document = copy.deepcopy(faction_document(faction=faction))
    change(document)
    document["version"] = _version_after_edit(faction)
    armybook_edit(faction=faction, document=document, based_on=faction.content_hash)
    return Faction.objects.get(pk=faction.pk)


def part(items: list[dict], key: str, value: str) -> dict:
    """The item of a book's list (units, rules, sections, options …) whose `key` is `value`."""
    return next(item for item in items if item[key] == value)


def book_option(document: dict, uid: str) -> dict:
    """The option `uid` of a book document, wherever it is."""
    sections = [section for package in document["packages"] for section in package["sections"]]
    return part([option for section in sections for option in section["options"]], "id", uid)


def wardens_list(owner, units: list[str], *, event=None, points: int = 355, name: str = ""):
    """A saved Test Wardens list (aof) of `owner` with one entry per unit id, built for the
    event pack `event` when given (355 pts: a 110 pts unit is 31% of it)."""
    from armybuilder.lists import services
    from armybuilder.lists.format import parse_list_body

    body = {
        "name": name,
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": points,
        "entries": [{"id": f"e{i}", "unit": unit} for i, unit in enumerate(units)],
    }
    if event is not None:
        body["event"] = event.key
    data, _handle = parse_list_body(body)
    return services.army_list_create(data=data, owner=owner)


@pytest.fixture
def armyforge(settings):
    """A stand-in Army Forge (tests/support/armyforge_standin.py) serving the official books of
    ../shared/armyforge and Army Forge's core rules, with the ARMYFORGE_URL setting
    pointing at it for the test. ../shared holds the core rules of Age of Fantasy only
    (common-rules/aof-4.json): the stand-in answers them for Skirmish and Regiments too."""
    import json

    from tests.support.armyforge_standin import ArmyForgeStandIn

    with ArmyForgeStandIn(require_shared(SHARED / "armyforge")) as standin:
        aof_rules = json.loads(require_shared(SHARED / "armyforge" / "common-rules" / "aof-4.json").read_text())
        for game_id in (5, 6):
            standin.serve_rules(game_id, aof_rules)
        settings.ARMYFORGE_URL = standin.url
        yield standin
