"""How long the PDFs take to draw.

Prints the median time to draw the unit cards of lists of 10 and 100 entries (sheet and
poker-size layouts), the roster of each and the rules reference, from an already loaded
printout (the drawing alone, no cache), and then one whole download through
`list_pdf_response` (queries and drawing) with the cache emptied first.

Run: .venv/bin/python bench/pdf.py   (uses a throw-away SQLite database)
Targets: 100 cards in under 1 s (issue 7); in under 250 ms, sheet cards of 100 entries on at most 13
pages (issue 13).
"""

import io
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import django  # noqa: E402
from benchenv import bench_list, median_ms, start_django  # noqa: E402

start_django(allowed_hosts="armybuilder.example")

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.core.management import call_command  # noqa: E402
from pypdf import PdfReader  # noqa: E402

from armybuilder.api.lists import parse_list_body  # noqa: E402
from armybuilder.exports import pdf  # noqa: E402
from armybuilder.exports.pdf_data import printout_get  # noqa: E402
from armybuilder.lists.services import army_list_create  # noqa: E402
from factions.selectors import book_handle_get, engine_book_get  # noqa: E402

SYSTEM, FACTION = "aof", "human-empire"


def main() -> None:
    call_command("bootstrap", verbosity=0, stdout=open(os.devnull, "w"))
    book, _ruleset = engine_book_get(system=SYSTEM, slug=FACTION)
    owner = get_user_model().objects.create_user("bench")
    print(f"Python {sys.version.split()[0]}, Django {django.get_version()}, book {SYSTEM}/{FACTION}")
    print("Drawing only (printout already loaded, no cache), median of 15:")
    for n in (10, 100):
        data, _handle = parse_list_body(bench_list(book, n, name=f"Bench {n}"))
        army_list = army_list_create(data=data, owner=owner)
        handle = book_handle_get(system=SYSTEM, slug=FACTION)
        printout = printout_get(army_list=army_list, share_url=pdf.share_url(army_list), handle=handle)
        for label, kind, params in (
            ("cards, sheet", "cards.pdf", {}),
            ("cards, poker", "cards.pdf", {"layout": "poker"}),
            ("cards, rules", "cards.pdf", {"rules": "1"}),
            ("roster", "roster.pdf", {}),
            ("reference", "reference.pdf", {}),
        ):
            options = pdf.print_options(params)
            output = pdf.render_list_pdf(printout, kind, options)
            ms = median_ms(lambda p=printout, k=kind, o=options: pdf.render_list_pdf(p, k, o), 15)
            pages = len(PdfReader(io.BytesIO(output)).pages)
            print(f"  {n:>3} entries  {label:<13} median {ms:7.1f} ms  ({len(output) // 1024} KiB, {pages} pages)")

        def download(army_list=army_list):
            cache.clear()
            pdf.list_pdf_response(army_list, "cards.pdf", {})

        print(f"  {n:>3} entries  whole download of the cards, uncached: median {median_ms(download, 9):.1f} ms")
        cached = median_ms(lambda army_list=army_list: pdf.list_pdf_response(army_list, "cards.pdf", {}), 50)
        print(f"  {n:>3} entries  the same download again, cached:        median {cached:.2f} ms")


if __name__ == "__main__":
    main()
