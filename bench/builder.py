"""Server time of each builder action on a 50-entry list, and on a 499-entry one.

Each action is posted the way the page's script posts it (X-Live, and X-Pieces: the
hashes of the pieces the page holds; the server answers with the pieces that changed)
through Django's WSGI handler in this process, and timed from request to response.
Prints the median and the 95th percentile per action, and the builder page itself; for
a 499-entry list (an add makes the 500 a list holds at most), fewer rounds, and the
page's size.

Run: .venv/bin/python bench/builder.py   (uses a throw-away SQLite database)
     .venv/bin/python bench/builder.py 50   (the 50-entry list only)
Targets (issues 6, 36): every action under 100 ms for a 50-entry list, the median under
8 ms; at 500 entries every action under 30 ms and the page under 1 MB. Measured on a busy
2-core machine (CPU medians, issue 36): 50 entries 11 -> 7 ms; 499 entries 80-108 -> 16-19 ms,
the page 4.1 MB -> 743 KB.
"""

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchenv import load_books, start_django  # noqa: E402

start_django()

from django.test import Client  # noqa: E402

from armybuilder.lists import services  # noqa: E402
from armybuilder.lists.models import ArmyList  # noqa: E402

UNITS = ["pike-levy", "longbowmen", "sworn-knights", "household-guard", "marshal"]
SIZES = {50: 60, 499: 10}  # entries -> rounds of each action (499: one more is the most a list holds)
CPU: list[float] = []  # the CPU time of each request timed, beside its wall time


def timed(fn) -> float:
    """The wall time of `fn()` in ms; its CPU time goes to CPU (on a busy machine the wall
    time counts the waits for a core, the CPU time only this process's work)."""
    start, start_cpu = time.perf_counter(), time.process_time()
    response = fn()
    elapsed = (time.perf_counter() - start) * 1000
    CPU.append((time.process_time() - start_cpu) * 1000)
    if response.status_code not in (200, 302):
        raise RuntimeError(f"{response.status_code}: {response.content[:300]!r}")
    return elapsed


def line(name: str, times: list[float], cpu: list[float]) -> str:
    p95 = sorted(times)[max(0, int(len(times) * 0.95) - 1)]
    median, cpu_median = statistics.median(times), statistics.median(cpu)
    return f"  {name:<28} median {median:6.1f}   p95 {p95:6.1f}   CPU median {cpu_median:6.1f}"


def new_list(client: Client, size: int) -> ArmyList:
    """A list of `size` entries cycling through UNITS: the first five added by the page's
    posts, the rest copies of them saved at once (adding 500 one by one would time the
    set-up, not the actions)."""
    client.post("/new/aof/", {"faction": "human-empire", "points": str(150 * size), "name": f"Bench {size}"})
    army_list = ArmyList.objects.latest("pk")
    for unit in UNITS:
        army_list.refresh_from_db(fields=["version"])
        client.post(f"/lists/{army_list.pk}/act/", {"version": army_list.version, "action": "add", "unit": unit})
    army_list.refresh_from_db()
    data = army_list.as_armylist()
    first = data["entries"]
    data["entries"] = [
        {**first[i % len(first)], "id": f"{first[i % len(first)]['id']}-{i}" if i >= len(first) else first[i]["id"]}
        for i in range(size)
    ]
    return services.army_list_update(army_list=army_list, data=data, based_on=army_list.version)


def run(client: Client, size: int, rounds: int) -> float:
    army_list = new_list(client, size)
    url = f"/lists/{army_list.pk}/act/"
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

    post(action="rename", entry=army_list.entries[0]["id"], name="")  # the page holds every piece
    entry_ids = [e["id"] for e in army_list.entries]
    pike, marshal = entry_ids[0], entry_ids[4]

    def last() -> str:
        return ArmyList.objects.get(pk=army_list.pk).entries[-1]["id"]

    def second() -> str:
        return ArmyList.objects.get(pk=army_list.pk).entries[1]["id"]

    actions = {
        "add + remove": [lambda: post(action="add", unit="pike-levy"), lambda: post(action="remove", entry=last())],
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
            lambda: post(action="remove", entry=second()),
        ],
        "move down, up": [
            lambda: post(action="move", entry=pike, step="down"),
            lambda: post(action="move", entry=pike, step="up"),
        ],
        "rename": [lambda: post(action="rename", entry=pike, name="Front Rank")],
        "settings": [
            lambda: post(action="settings", name="Bench", points_limit=str(150 * size), force_org="1", notes="")
        ],
    }
    print(f"Builder actions on a {size}-entry list (server time, ms, {rounds} rounds each):")
    worst, every, every_cpu = 0.0, [], []
    for name, steps in actions.items():
        del CPU[:]
        times = [timed(step) for _ in range(rounds) for step in steps]
        worst = max(worst, sorted(times)[max(0, int(len(times) * 0.95) - 1)])
        every.extend(times)
        every_cpu.extend(CPU)
        print(line(name, times, CPU))
    page_url = f"/lists/{army_list.pk}/?entry={pike}"
    del CPU[:]
    page = [timed(lambda: client.get(page_url)) for _ in range(rounds)]
    print(line("GET builder page", page, CPU))
    size_kb = len(client.get(page_url).content) / 1024
    print(f"  builder page: {size_kb:,.0f} KiB")
    print(
        f"Every action: median {statistics.median(every):.1f} ms (CPU {statistics.median(every_cpu):.1f}); "
        f"slowest p95 {worst:.1f} ms"
    )
    return worst


def main() -> None:
    load_books()
    sizes = [int(arg) for arg in sys.argv[1:]] or list(SIZES)
    for size in sizes:
        run(Client(), size, SIZES.get(size, 10))


if __name__ == "__main__":
    main()
