"""How long the official Army Forge books take to import, and to validate lists from.

For each book in ../shared/armyforge/ (`<ruleset>--<book>.json`): the median time of
`import_armybook` (read, convert, check, write; the same book re-imported replaces
itself), with its units, options and warnings. Then, with the book of most units, the
median time to validate a 50-entry list of its units in-process (the engine alone) and
through POST /api/validate/ against GET /api/health/, in Django's WSGI handler and over
HTTP with gunicorn (as bench/validate.py does for the bundled books).

Run: .venv/bin/python bench/realbooks.py   (uses a throw-away SQLite database)
Issue 12 asks for these figures; the validation targets of issue 3 (endpoint at most
twice the trivial one) apply to real books as much as to ours.
"""

import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchenv import REPO, bench_list, median_ms, start_django, uncached  # noqa: E402

start_django()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from armybuilder.armyforge.books.imports import book_import  # noqa: E402
from armybuilder.engine import list_from_dict, validate_list  # noqa: E402
from armybuilder.memo import clear_all  # noqa: E402
from factions.selectors import engine_book_get  # noqa: E402

ARMYFORGE = REPO.parent / "shared" / "armyforge"


def main() -> None:
    books = sorted(ARMYFORGE.glob("*--*.json"))
    if not books:
        sys.exit(f"no Army Forge books in {ARMYFORGE}")
    call_command("migrate", verbosity=0, stdout=open(os.devnull, "w"))
    print("Import (read, convert, check, write), median of 5:")
    biggest = None
    for path in books:
        system = path.name.split("--", 1)[0]
        raw = path.read_bytes()
        result = book_import(data=raw, system=system)
        ms = median_ms(lambda raw=raw, system=system: book_import(data=raw, system=system), repeat=5)
        print(
            f"  {path.name:<42} {ms:7.1f} ms  {result.units:>3} units, {result.options:>3} options, "
            f"{len(result.warnings)} warning{'' if len(result.warnings) == 1 else 's'}"
        )
        if biggest is None or result.units > biggest[2]:
            biggest = (system, result.faction.slug, result.units)

    system, slug, _units = biggest
    clear_all()
    book, ruleset = engine_book_get(system=system, slug=slug)
    body = bench_list(book, 50)
    army = list_from_dict(body)
    print(f"Validation of a 50-entry list of {system}/{slug} (every unit, one pick in every section):")
    plain = uncached(book)
    validate_list(book, ruleset, army)

    def cold():
        book.loadouts.clear()
        validate_list(book, ruleset, army)

    print(f"  in-process: uncached {median_ms(lambda: validate_list(plain, ruleset, army), 300):.3f} ms, ", end="")
    print(
        f"cold {median_ms(cold, 300):.3f} ms, warm {median_ms(lambda: validate_list(book, ruleset, army), 300):.3f} ms"
    )

    client = Client()
    payload = json.dumps(body)
    validate = lambda: client.post("/api/validate/", payload, content_type="application/json")  # noqa: E731
    health = lambda: client.get("/api/health/")  # noqa: E731
    assert validate().status_code == 200 and health().status_code == 200
    for _ in range(50):
        validate(), health()
    v_times, h_times = [], []
    for _ in range(400):
        v_times.append(median_ms(validate, 1))
        h_times.append(median_ms(health, 1))
    v, h = statistics.median(v_times), statistics.median(h_times)
    print("  through Django (WSGI handler, same process):")
    print(f"    GET  /api/health/ median {h:.3f} ms; POST /api/validate/ median {v:.3f} ms, ratio {v / h:.2f}x")

    from validate import over_http

    over_http(payload, book)


if __name__ == "__main__":
    main()
