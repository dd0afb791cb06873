"""How long an event's combined roster takes, and how many queries the organiser's files run.

Builds an event pack on Age of Fantasy (2000 pts) and 40 submissions of lists of the
bundled books, 10 to 25 entries each (every unit's options varied from copy to copy, as
bench/pdf.py builds its lists; some are over the points and not legal). Prints the
queries `list_submissions.submission_rows` (the organiser's page and the CSV) and the whole
roster download run for 2 and for 40 submissions, then the median time to draw the
combined roster of 40 lists from its loaded printout, the whole download with the cache
emptied first (loading, validating and drawing) and the same download again, cached.

Run: .venv/bin/python bench/events.py [--pdf FILE]   (a throw-away SQLite database;
--pdf keeps the combined roster of 40 lists to look at)
Targets (issue 17): the combined roster of 40 lists in under 2 s; the same number of
queries for 2 and for 40 submissions.
"""

import argparse
import io
import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import django  # noqa: E402
from benchenv import bench_list, load_books, median_ms, start_django  # noqa: E402

start_django(allowed_hosts="armybuilder.example")

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402
from pypdf import PdfReader  # noqa: E402

from armybuilder import downloads  # noqa: E402
from armybuilder.events import selectors as event_selectors  # noqa: E402
from armybuilder.events import services as event_services  # noqa: E402
from armybuilder.exports.pdf_event import EventRosterPdf  # noqa: E402
from armybuilder.lists import services  # noqa: E402
from armybuilder.lists import submissions as list_submissions  # noqa: E402
from armybuilder.lists.format import parse_list_body  # noqa: E402
from armybuilder.printouts import event_printout_get  # noqa: E402
from factions.selectors import engine_book_get  # noqa: E402

SYSTEM = "aof"
BOOKS = ("human-empire", "dwarf-clans", "orc-hordes", "undead-legions")
User = get_user_model()


def submit(pack, number: int) -> None:
    """Player `number`'s list: a book in turn, 10 to 25 entries."""
    book, _ruleset = engine_book_get(system=SYSTEM, slug=BOOKS[number % len(BOOKS)])
    entries = 10 + (number * 7) % 16
    body = bench_list(book, entries, name=f"{book.name} list {number}")
    body.update(event=pack.key, points_limit=pack.points_limit)
    player = User.objects.create_user(f"player-{number:02}")
    data, _handle = parse_list_body(body)
    army_list = services.army_list_create(data=data, owner=player)
    event_services.submission_submit(pack=pack, player=player, army_list=army_list)


def download(pack) -> bytes:
    """What the organiser's roster.pdf view runs."""
    managed = event_selectors.event_pack_managed_get(key=pack.key, user=pack.organiser)
    submissions = list(event_selectors.submissions_visible(managed, pack.organiser))
    return downloads.event_roster_response(managed, submissions, paper="a4").content


def queries(fn) -> int:
    with CaptureQueriesContext(connection) as captured:
        fn()
    return len(captured)


def count_queries(pack) -> tuple[int, int, int]:
    """(submission_rows with new lists, submission_rows again, the roster download uncached)."""
    fresh = queries(
        lambda: list_submissions.submission_rows(pack, list(event_selectors.submissions_visible(pack, pack.organiser)))
    )
    stored = queries(
        lambda: list_submissions.submission_rows(pack, list(event_selectors.submissions_visible(pack, pack.organiser)))
    )
    cache.clear()
    whole = queries(lambda: download(pack))
    return fresh, stored, whole


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pdf", type=Path, help="write the combined roster of 40 lists here")
    args = parser.parse_args()
    load_books()
    organiser = User.objects.create_user("organiser")
    deadline = (timezone.now() + timedelta(days=30)).isoformat()
    pack = event_services.pack_create(
        organiser=organiser, data={"name": "Bench Open", "ruleset": SYSTEM, "points_limit": 2000, "deadline": deadline}
    )
    print(f"Python {sys.version.split()[0]}, Django {django.get_version()}, books {SYSTEM}/{', '.join(BOOKS)}")
    for number in range(2):
        submit(pack, number)
    download(pack)  # every book the lists use built once (this process keeps them)
    for number in range(2, len(BOOKS)):
        engine_book_get(system=SYSTEM, slug=BOOKS[number])
    two = count_queries(pack)
    for number in range(2, 40):
        submit(pack, number)
    forty = count_queries(pack)
    print("Queries (the books already built):       2 lists  40 lists")
    labels = ("submission_rows, new lists", "submission_rows, stored", "whole roster download, uncached")
    for label, a, b in zip(labels, two, forty, strict=True):
        print(f"  {label:<37} {a:>7}  {b:>8}  {'equal' if a == b else 'DIFFERENT'}")

    submissions = list(event_selectors.submissions_visible(pack, organiser))
    printout = event_printout_get(
        pack=pack, submissions=submissions, handles=list_submissions.submission_handles(submissions)
    )
    data = EventRosterPdf(printout).render()
    entries = sum(len(s.data["entries"]) for s in submissions)
    legal = sum(1 for roster in printout.submissions if roster.printout.validation.valid)
    pages = len(PdfReader(io.BytesIO(data)).pages)
    print(f"Combined roster of 40 lists ({entries} entries, {legal} legal): {pages} pages, {len(data) // 1024} KiB")
    drawing = median_ms(lambda: EventRosterPdf(printout).render(), 7)
    print(f"  drawing only (printout loaded)          median {drawing:7.1f} ms")

    def uncached() -> None:
        cache.clear()
        download(pack)

    whole = median_ms(uncached, 7)
    print(f"  whole download, uncached                median {whole:7.1f} ms  (target: under 2000 ms)")
    cached = median_ms(lambda: download(pack), 25)
    print(f"  the same download again, cached         median {cached:7.1f} ms")
    if args.pdf:
        args.pdf.write_bytes(download(pack))
        print(f"Wrote {args.pdf}")


if __name__ == "__main__":
    main()
