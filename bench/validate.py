"""How long validation takes.

Prints the median time to validate lists of 10, 50 and 200 entries in-process (the
engine alone, book already built), and the median time of POST /api/validate/ with a
50-entry list against GET /api/health/ (a trivial JSON endpoint), both served by the
same Django process through its WSGI handler, in the same run.

Run: .venv/bin/python bench/validate.py   (uses a throw-away SQLite database)
Targets (issue 3): 200 entries < 5 ms in-process; endpoint <= 2x the trivial endpoint.
"""

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
TMP = tempfile.mkdtemp(prefix="armybuilder-bench-")
os.environ.setdefault("DATABASE_URL", f"sqlite:///{TMP}/bench.sqlite3")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armybuilder.settings")
os.environ.setdefault("DJANGO_DEBUG", "false")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-" + "x" * 40)
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from armybuilder.engine import list_from_dict, validate_list  # noqa: E402
from factions.selectors import engine_book_get  # noqa: E402

SYSTEM, FACTION = "aof", "human-empire"


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def make_list(n: int, book) -> dict:
    """n entries cycling through the book's units, each with the first option of each
    of its sections picked (a realistic amount of work per entry)."""
    units = list(book.units.values())
    entries = []
    for i in range(n):
        unit = units[i % len(units)]
        options = {section.options[0].id: 1 for section in unit.sections}
        entries.append({"id": f"e{i}", "unit": unit.id, "options": options})
    return {
        "format": "armylist/1",
        "name": "Bench",
        "system": SYSTEM,
        "faction": FACTION,
        "points_limit": 1500,
        "entries": entries,
    }


def main() -> None:
    call_command("bootstrap", verbosity=0, stdout=open(os.devnull, "w"))
    _faction, book, ruleset = engine_book_get(system=SYSTEM, slug=FACTION)

    print(f"Python {sys.version.split()[0]}, Django {django.get_version()}, book {SYSTEM}/{FACTION}")
    print("In-process validation (engine only, book cached):")
    for n in (10, 50, 200):
        army = list_from_dict(make_list(n, book))
        validate_list(book, ruleset, army)
        ms = median_ms(lambda army=army: validate_list(book, ruleset, army), repeat=300)
        print(f"  {n:>3} entries: median {ms:.3f} ms")

    client = Client()
    body = json.dumps(make_list(50, book))
    validate = lambda: client.post("/api/validate/", body, content_type="application/json")  # noqa: E731
    health = lambda: client.get("/api/health/")  # noqa: E731
    assert validate().status_code == 200 and health().status_code == 200
    for _ in range(50):
        validate(), health()
    # Interleave the two so that both see the same machine load.
    v_times, h_times = [], []
    for _ in range(400):
        v_times.append(median_ms(validate, 1))
        h_times.append(median_ms(health, 1))
    v, h = statistics.median(v_times), statistics.median(h_times)
    print("Through Django (WSGI handler, same process):")
    print(f"  POST /api/validate/ (50 entries): median {v:.3f} ms")
    print(f"  GET  /api/health/ (trivial):      median {h:.3f} ms")
    print(f"  ratio: {v / h:.2f}x")


if __name__ == "__main__":
    main()
