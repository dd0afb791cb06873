"""Server time of each builder action on a 50-entry list.

Each action is posted the way the page's script posts it (X-Live, and X-Pieces: the
hashes of the pieces the page holds; the server answers with the pieces that changed)
through Django's WSGI handler in this process, and timed from request to response.
Prints the median and the 95th percentile per action, and the builder page itself.

Run: .venv/bin/python bench/builder.py   (uses a throw-away SQLite database)
Target (issue 6): every action under 100 ms for a 50-entry list.
"""

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchenv import load_books, start_django  # noqa: E402

start_django()

from django.test import Client  # noqa: E402

from armybuilder.lists.models import ArmyList  # noqa: E402

ROUNDS = 60


def timed(fn) -> float:
    start = time.perf_counter()
    response = fn()
    elapsed = (time.perf_counter() - start) * 1000
    if response.status_code not in (200, 302):
        raise RuntimeError(f"{response.status_code}: {response.content[:300]!r}")
    return elapsed


def main() -> None:
    load_books()
    client = Client()
    client.post("/new/aof/", {"faction": "human-empire", "points": "7500", "name": "Bench"})
    army_list = ArmyList.objects.get()
    url = f"/lists/{army_list.pk}/act/"
    units = ["pike-levy", "longbowmen", "sworn-knights", "household-guard", "marshal"]

    held = {"pieces": ""}  # what the page holds after the previous answer

    def post(**fields):
        army_list.refresh_from_db(fields=["version"])
        response = client.post(
            url, {"version": army_list.version, **fields}, HTTP_X_LIVE="1", HTTP_X_PIECES=held["pieces"]
        )
        answer = response.json()
        held["pieces"] = " ".join(
            piece_hash for _id, piece_hash in answer["slots"] + answer["entries"] + answer["inner"]
        )
        return response

    for i in range(50):
        post(action="add", unit=units[i % len(units)])
    entry_ids = [e["id"] for e in ArmyList.objects.get().entries]
    pike, marshal = entry_ids[0], entry_ids[4]

    actions = {
        "add + remove": [
            lambda: post(action="add", unit="pike-levy"),
            lambda: post(action="remove", entry=ArmyList.objects.get().entries[-1]["id"]),
        ],
        "options (+1 Sergeant, -1)": [
            lambda: post(action="options", entry=pike, bump="D1a:+1"),
            lambda: post(action="options", entry=pike, bump="D1a:-1"),
        ],
        "combine, split": [
            lambda: post(action="combine", entry=pike, combined="1"),
            lambda: post(action="combine", entry=pike, combined="0"),
        ],
        "join, leave": [
            lambda: post(action="join", entry=marshal, target=pike),
            lambda: post(action="join", entry=marshal, target=""),
        ],
        "duplicate + remove": [
            lambda: post(action="duplicate", entry=pike),
            lambda: post(action="remove", entry=ArmyList.objects.get().entries[1]["id"]),
        ],
        "move down, up": [
            lambda: post(action="move", entry=pike, step="down"),
            lambda: post(action="move", entry=pike, step="up"),
        ],
        "rename": [lambda: post(action="rename", entry=pike, name="Front Rank")],
        "settings": [lambda: post(action="settings", name="Bench", points_limit="7500", force_org="1", notes="")],
    }
    print(f"Builder actions on a {len(entry_ids)}-entry list (server time, ms, {ROUNDS} rounds each):")
    worst = 0.0
    for name, steps in actions.items():
        times = [timed(step) for _ in range(ROUNDS) for step in steps]
        p95 = sorted(times)[int(len(times) * 0.95) - 1]
        worst = max(worst, p95)
        print(f"  {name:<28} median {statistics.median(times):6.1f}   p95 {p95:6.1f}")
    page = [timed(lambda: client.get(f"/lists/{army_list.pk}/?entry={pike}")) for _ in range(ROUNDS)]
    page_p95 = sorted(page)[int(len(page) * 0.95) - 1]
    print(f"  {'GET builder page':<28} median {statistics.median(page):6.1f}   p95 {page_p95:6.1f}")
    print(f"Slowest p95: {worst:.1f} ms (target: under 100 ms)")


if __name__ == "__main__":
    main()
