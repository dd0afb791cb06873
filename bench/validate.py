"""How long validation takes.

Prints the median time to validate lists of 10, 50 and 200 entries in-process (the
engine alone, book already built), and the median time of POST /api/validate/ with a
50-entry list against GET /api/health/ (a trivial JSON endpoint), both served by the
same Django process through its WSGI handler, in the same run.

It then does the same over HTTP against gunicorn (one sync worker, loopback), which is
how the site is served: each request is a new connection, as with gunicorn's sync worker.

Run: .venv/bin/python bench/validate.py   (uses a throw-away SQLite database)
Targets (issue 3): 200 entries < 5 ms in-process; endpoint <= 2x the trivial endpoint.
"""

import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import django  # noqa: E402
from benchenv import REPO, bench_list, load_books, median_ms, start_django, uncached  # noqa: E402

start_django()

from django.test import Client  # noqa: E402

from armybuilder.engine import list_from_dict, validate_list  # noqa: E402
from factions.selectors import engine_book_get  # noqa: E402

SYSTEM, FACTION = "aof", "human-empire"


def main() -> None:
    load_books()
    book, ruleset = engine_book_get(system=SYSTEM, slug=FACTION)

    print(f"Python {sys.version.split()[0]}, Django {django.get_version()}, book {SYSTEM}/{FACTION}")
    print("In-process validation (engine only, book built):")
    print("  uncached = every entry worked out, no loadout cache at all; cold = cache emptied")
    print("  first (entries with the same unit and picks share one loadout); warm = the same")
    print("  list again, as when the builder re-validates after a change")
    uncached_book = uncached(book)

    def cold(army):
        book.loadouts.clear()
        validate_list(book, ruleset, army)

    for n in (10, 50, 200):
        army = list_from_dict(bench_list(book, n))
        validate_list(book, ruleset, army)
        uncached_ms = median_ms(lambda army=army: validate_list(uncached_book, ruleset, army), repeat=300)
        cold_ms = median_ms(lambda army=army: cold(army), repeat=300)
        warm_ms = median_ms(lambda army=army: validate_list(book, ruleset, army), repeat=300)
        print(f"  {n:>3} entries: median uncached {uncached_ms:.3f} ms, ", end="")
        print(f"cold {cold_ms:.3f} ms, warm {warm_ms:.3f} ms")

    client = Client()
    body = json.dumps(bench_list(book, 50))
    validate = lambda: client.post("/api/validate/", body, content_type="application/json")  # noqa: E731
    health = lambda: client.get("/api/health/")  # noqa: E731
    assert validate().status_code == 200 and health().status_code == 200
    for _ in range(50):
        validate(), health()
    # Interleave the three so that all see the same machine load.
    warm_times, cold_times, h_times = [], [], []
    for _ in range(400):
        warm_times.append(median_ms(validate, 1))
        book.loadouts.clear()
        cold_times.append(median_ms(validate, 1))
        h_times.append(median_ms(health, 1))
    warm, cold_v, h = (statistics.median(t) for t in (warm_times, cold_times, h_times))
    print("Through Django (WSGI handler, same process, SQLite):")
    print(f"  GET  /api/health/ (trivial):             median {h:.3f} ms")
    print(f"  POST /api/validate/ (50 entries), warm:  median {warm:.3f} ms  ratio {warm / h:.2f}x")
    print(f"  POST /api/validate/ (50 entries), cold:  median {cold_v:.3f} ms  ratio {cold_v / h:.2f}x")
    over_http(body, book)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def over_http(body: str, book) -> None:
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "armybuilder.wsgi",
            "--workers",
            "1",
            "--bind",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
        ],
        cwd=REPO,
        env={**os.environ, "DJANGO_ALLOWED_HOSTS": "127.0.0.1"},
    )
    try:

        def call(method: str, path: str, payload: str | None = None) -> None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request(method, path, payload, {"Content-Type": "application/json"} if payload else {})
            response = conn.getresponse()
            response.read()
            conn.close()
            if response.status != 200:
                raise RuntimeError(f"{method} {path}: {response.status}")

        for _ in range(100):
            try:
                call("GET", "/api/health/")
                break
            except OSError:
                time.sleep(0.1)
        for _ in range(50):
            call("POST", "/api/validate/", body), call("GET", "/api/health/")
        v_times, h_times = [], []
        for _ in range(400):
            v_times.append(median_ms(lambda: call("POST", "/api/validate/", body), 1))
            h_times.append(median_ms(lambda: call("GET", "/api/health/"), 1))
        v, h = statistics.median(v_times), statistics.median(h_times)
        print("Over HTTP (gunicorn, 1 sync worker, loopback, SQLite):")
        print(f"  GET  /api/health/ (trivial):            median {h:.3f} ms")
        print(f"  POST /api/validate/ (50 entries):       median {v:.3f} ms  ratio {v / h:.2f}x")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
