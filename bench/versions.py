"""How long keeping books over time takes (issue 22).

Prints:
- a sync of the seven official books from a stand-in Army Forge on loopback (the books of
  ../shared/armyforge at 3.5.1, then at 3.5.2): the whole sync and each book's part, and
  a rerun with nothing new;
- what changed in the largest book (Wood Elves 3.5.1 -> 3.5.2): the comparison alone, the
  selector cold (cache emptied) and warm, and GET /api/factions/…/changes/;
- moving a 50-entry Wood Elves list from 3.5.1 to 3.5.2: a dry run and a real move
  (army_list_upgrade), and POST /api/lists/{id}/upgrade/ with dry_run;
- validating that list pinned to 3.5.1 against the same list on the current 3.5.2, in
  the engine's cache and through POST /api/validate/.

Run: .venv/bin/python bench/versions.py   (a throw-away SQLite database; needs ../shared)
Targets: changes < 50 ms, upgrade < 100 ms, a pinned list validates no slower than a current one.
"""

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchenv import REPO, bench_list, load_books, median_ms, start_django  # noqa: E402

start_django()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.test import Client  # noqa: E402

from armybuilder.armyforge.books.imports import book_import  # noqa: E402
from armybuilder.armyforge.sync import armyforge_sync  # noqa: E402
from armybuilder.lists import services  # noqa: E402
from armybuilder.lists.format import parse_list_body  # noqa: E402
from armybuilder.lists.models import ArmyList  # noqa: E402
from armybuilder.lists.selectors import army_list_validate  # noqa: E402
from factions.changes import book_changes  # noqa: E402
from factions.models import Faction  # noqa: E402
from factions.selectors import book_changes_get, book_handle_find, book_version_document, engine_book_get  # noqa: E402
from tests.support.armyforge_standin import ArmyForgeStandIn  # noqa: E402

SHARED = REPO.parent / "shared" / "armyforge"


def timed_sync(standin: ArmyForgeStandIn, folder: Path) -> tuple[float, list[tuple[str, float]]]:
    """The whole sync's time (ms) and each book's line with the time it took."""
    standin.serve(folder)
    lines: list[tuple[str, float]] = []
    last = start = time.perf_counter()

    def report(line: str) -> None:
        nonlocal last
        now = time.perf_counter()
        lines.append((line, (now - last) * 1000))
        last = now

    result = armyforge_sync(source=standin.url, report=report)
    assert result.failed == 0, result.summary()
    return (time.perf_counter() - start) * 1000, lines


def sync_figures() -> None:
    with ArmyForgeStandIn(SHARED) as standin:
        total, lines = timed_sync(standin, SHARED / "3.5.1")
        print(f"Sync from a stand-in Army Forge (loopback), first sync of 7 books at 3.5.1: {total:.0f} ms")
        for line, ms in lines:
            print(f"  {ms:7.1f} ms  {line}")
        total, lines = timed_sync(standin, SHARED)
        print(f"Sync of the 7 books' next version, 3.5.2: {total:.0f} ms")
        for line, ms in lines:
            print(f"  {ms:7.1f} ms  {line}")
        total, _lines = timed_sync(standin, SHARED)
        print(f"Rerun with nothing new (3 indexes read, no book fetched): {total:.0f} ms")


def changes_figures(client: Client) -> None:
    elves = Faction.objects.get(ruleset__slug="aof", slug="wood-elves")
    old = book_version_document(faction=elves, version="3.5.1")
    new = book_version_document(faction=elves, version="3.5.2")
    alone = median_ms(lambda: book_changes(old, new), 200)

    def cold() -> None:
        cache.clear()
        book_changes_get(faction=elves, old="3.5.1")

    cold_ms = median_ms(cold, 50)
    warm_ms = median_ms(lambda: book_changes_get(faction=elves, old="3.5.1"), 200)
    url = "/api/factions/aof/wood-elves/changes/?from=3.5.1"
    assert client.get(url).status_code == 200
    api_ms = median_ms(lambda: client.get(url), 200)
    print("What changed, Wood Elves 3.5.1 -> 3.5.2 (the largest of the seven: 28 units, 120 options):")
    print(f"  comparison alone: median {alone:.2f} ms")
    print(f"  selector, cache emptied (two documents read and compared): median {cold_ms:.2f} ms")
    print(f"  selector, cached: median {warm_ms:.2f} ms")
    print(f"  GET {url}: median {api_ms:.2f} ms (target < 50 ms)")


def upgrade_figures(client: Client, owner) -> ArmyList:
    book, _ruleset = engine_book_get(system="aof", slug="wood-elves", version="3.5.1")
    body = {**bench_list(book, 50, name="Versions bench"), "book_version": "3.5.1"}
    data, _handle = parse_list_body(body)
    army_list = services.army_list_create(data=data, owner=owner)
    dry = median_ms(lambda: services.army_list_upgrade(army_list=army_list, dry_run=True), 100)

    moves = []
    for _ in range(50):  # 3.5.2 and back to 3.5.1, each move timed
        army_list.refresh_from_db()
        target = "3.5.2" if army_list.book_version == "3.5.1" else "3.5.1"
        start = time.perf_counter()
        services.army_list_upgrade(army_list=army_list, book_version=target)
        moves.append((time.perf_counter() - start) * 1000)
    army_list.refresh_from_db()
    if army_list.book_version != "3.5.1":
        services.army_list_upgrade(army_list=army_list, book_version="3.5.1")
    client.force_login(owner)
    url = f"/api/lists/{army_list.pk}/upgrade/"
    assert client.post(url, {"dry_run": True}, content_type="application/json").status_code == 200
    api = median_ms(lambda: client.post(url, {"dry_run": True}, content_type="application/json"), 100)
    print("Moving a 50-entry Wood Elves list from 3.5.1 to 3.5.2 (army_list_upgrade):")
    print(f"  dry run (the report): median {dry:.2f} ms")
    print(f"  move, one transaction: median {statistics.median(moves):.2f} ms (target < 100 ms)")
    print(f"  POST {url} dry_run: median {api:.2f} ms")
    army_list.refresh_from_db()
    return army_list


def validation_figures(client: Client, army_list: ArmyList) -> None:
    """The list pinned to Wood Elves 3.5.1 (3.5.2 current) against the same list on a copy
    of 3.5.1 whose current version it is: the same content, read the two ways."""
    copy = {**book_version_document(faction=army_list_book(army_list), version="3.5.1"), "slug": "wood-elves-copy"}
    copy.pop("armyforge_id")
    book_import(data=copy)
    pinned = army_list.as_armylist()
    current = {**pinned, "faction": "wood-elves-copy"}
    current.pop("book_version")
    pinned_handle = book_handle_find(system="aof", slug="wood-elves", version="3.5.1")
    current_handle = book_handle_find(system="aof", slug="wood-elves-copy")
    assert (pinned_handle.version, pinned_handle.current_version) == ("3.5.1", "3.5.2")
    assert current_handle.version == current_handle.current_version == "3.5.1"
    cases = {"pinned": (pinned, pinned_handle), "current": (current, current_handle)}
    for _data, handle in cases.values():  # the same start: loadouts worked out for this list only
        engine_book_get(system="aof", slug=handle.slug, handle=handle)[0].loadouts.clear()
    totals = [army_list_validate(data=data, handle=handle).total_points for data, handle in cases.values()]
    assert totals[0] == totals[1], totals
    times: dict[str, list[float]] = {"pinned": [], "current": [], "pinned API": [], "current API": []}
    bodies = {"pinned API": json.dumps(pinned), "current API": json.dumps(current)}
    for i in range(1500):  # interleaved, each first half the time, so that both see the same machine load
        for name in ("pinned", "current") if i % 2 else ("current", "pinned"):
            data, handle = cases[name]
            check = lambda data=data, handle=handle: army_list_validate(data=data, handle=handle)  # noqa: E731
            times[name].append(median_ms(check, 1))
            body = bodies[f"{name} API"]
            post = lambda body=body: client.post("/api/validate/", body, content_type="application/json")  # noqa: E731
            times[f"{name} API"].append(median_ms(post, 1))
    medians = {name: statistics.median(values) for name, values in times.items()}
    print("Validating a 50-entry list of Wood Elves 3.5.1, pinned to it (3.5.2 current), and the same list on a")
    print("copy of the book whose current version is that content:")
    print(f"  in-process, book cached: pinned {medians['pinned']:.3f} ms, current {medians['current']:.3f} ms")
    print(f"  POST /api/validate/: pinned {medians['pinned API']:.3f} ms, current {medians['current API']:.3f} ms")


def army_list_book(army_list: ArmyList) -> Faction:
    return Faction.objects.get(ruleset__slug=army_list.system, slug=army_list.faction)


def main() -> None:
    if not SHARED.exists():
        sys.exit(f"{SHARED} not found: this bench reads the official Army Forge books from ../shared/")
    load_books()
    sync_figures()
    client = Client()
    changes_figures(client)
    owner = get_user_model().objects.create_user("bench-versions", password="bench-pass-1234567")
    army_list = upgrade_figures(client, owner)
    validation_figures(client, army_list)


if __name__ == "__main__":
    main()
