"""Shared set-up of the bench scripts: the repository on the path, a throw-away SQLite
database (unless DATABASE_URL is set), production-like settings, Django started."""

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def start_django(*, allowed_hosts: str = "testserver") -> None:
    sys.path.insert(0, str(REPO))
    if "DATABASE_URL" not in os.environ:
        tmp = Path(tempfile.mkdtemp(prefix="armybuilder-bench-"))
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armybuilder.settings")
    os.environ.setdefault("DJANGO_DEBUG", "false")
    os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "false")
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-" + "x" * 40)
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", allowed_hosts)
    for scope in ("ANON", "USER"):  # measure the app, not the abuse limits
        os.environ.setdefault(f"DJANGO_THROTTLE_{scope}", "off")
    import django

    django.setup()


def load_books() -> None:
    """The bundled rulesets and army books, into the database (`manage.py bootstrap`),
    and the static files collected, which the pages need under production settings."""
    from django.core.management import call_command

    call_command("bootstrap", verbosity=0, stdout=open(os.devnull, "w"))
    call_command("collectstatic", interactive=False, verbosity=0)


def example_list() -> dict:
    """The bundled example list: Human Empire, 1500 pts (armylist/1)."""
    return json.loads((REPO / "factions/data/lists/aof/human-empire-1500.json").read_text())


def median_ms(fn, repeat: int) -> float:
    """Median wall time of `fn()` over `repeat` calls, in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def bench_list(book, n: int, *, name: str = "Bench") -> dict:
    """An armylist/1 list of n entries cycling through the book's units, each picking one
    option in every section, a different one from copy to copy, so that loadouts vary;
    the points limit grows with the list (150 pts an entry): a big list, not a broken one."""
    units = list(book.units.values())
    entries = []
    for i in range(n):
        unit = units[i % len(units)]
        turn = i // len(units)
        options = {s.options[turn % len(s.options)].id: 1 for s in unit.sections}
        entries.append({"id": f"e{i}", "unit": unit.id, "options": options})
    return {
        "format": "armylist/1",
        "name": name,
        "system": book.system,
        "faction": book.slug,
        "points_limit": max(1500, 150 * n),
        "entries": entries,
    }


MIXED = "a東ب"  # Latin, Chinese and Arabic: a font run and a direction run a letter


def mixed_name(i: int) -> str:
    """The heaviest name an entry may have: 200 characters changing script at every
    letter, different from entry to entry (so no drawing cache helps)."""
    return (f"{i}" + MIXED * 70)[:200]


def heaviest_list(book, *, name: str = "Heaviest", entries: int = 500) -> dict:
    """The heaviest list a visitor can save (issue 25's and 37's worst case to draw):
    bench_list at 500 entries (the most a list holds; its cards and roster print at most
    150: `entries` for those), every entry named by mixed_name."""
    body = bench_list(book, entries, name=(f"{name} " + MIXED * 70)[:200])
    for i, entry in enumerate(body["entries"]):
        entry["name"] = mixed_name(i)
    return body


def uncached(book):
    """A copy of an engine book that keeps no loadout: every entry worked out each time."""
    import dataclasses

    from armybuilder.memo import Memo

    class NoStore(Memo):
        def set(self, key, value):
            return value

    copy = dataclasses.replace(book)
    object.__setattr__(copy, "loadouts", NoStore("bench: loadouts kept nowhere", 1))  # a frozen book's own
    return copy
