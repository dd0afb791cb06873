"""How long the PDFs take to draw.

Prints the median time to draw the unit cards of lists of 10 and 100 entries (sheet and
poker-size layouts), the roster of each and the rules reference, from an already loaded
printout (the drawing alone, no cache), and then one whole download through
`list_pdf_response` (queries and drawing) with the cache emptied first; then the army
sheet (`roster.pdf?sheet=1`) of lists of 40 and 200 entries.

Run: .venv/bin/python bench/pdf.py   (uses a throw-away SQLite database)
Targets: 100 cards in under 1 s (issue 7), 100 cards with rules (sheet or poker) in under 150 ms
(issue 35); in under 250 ms, sheet cards of 100 entries on at most 13
pages, and more than 10x faster than the same cards as HTML through WeasyPrint (issue 13; the
comparison runs when WeasyPrint is installed: `.venv/bin/pip install weasyprint==70.0`, not a
dependency of the site).
"""

import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import django  # noqa: E402
from benchenv import bench_list, load_books, median_ms, start_django  # noqa: E402

start_django(allowed_hosts="armybuilder.example")

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.cache import cache  # noqa: E402
from pypdf import PdfReader  # noqa: E402

from armybuilder import downloads  # noqa: E402
from armybuilder.exports import pdf  # noqa: E402
from armybuilder.lists.format import parse_list_body  # noqa: E402
from armybuilder.lists.services import army_list_create  # noqa: E402
from armybuilder.printouts import printout_get  # noqa: E402
from factions.selectors import book_handle_find, engine_book_get  # noqa: E402

SYSTEM, FACTION = "aof", "human-empire"


def main() -> None:
    load_books()
    book, _ruleset = engine_book_get(system=SYSTEM, slug=FACTION)
    owner = get_user_model().objects.create_user("bench")
    print(f"Python {sys.version.split()[0]}, Django {django.get_version()}, book {SYSTEM}/{FACTION}")
    print("Drawing only (printout already loaded, no cache), median of 15:")
    for n in (10, 100):
        data, _handle = parse_list_body(bench_list(book, n, name=f"Bench {n}"))
        army_list = army_list_create(data=data, owner=owner)
        handle = book_handle_find(system=SYSTEM, slug=FACTION)
        printout = printout_get(army_list=army_list, share_url=downloads.share_url(army_list), handle=handle)
        for label, kind, params in (
            ("cards, sheet", "cards.pdf", {}),
            ("cards, poker", "cards.pdf", {"layout": "poker"}),
            ("cards, rules", "cards.pdf", {"rules": "1"}),
            ("poker, rules", "cards.pdf", {"layout": "poker", "rules": "1"}),
            ("poker, all", "cards.pdf", {"layout": "poker", "rules": "1", "trackers": "1"}),
            ("cards, trackers", "cards.pdf", {"trackers": "1"}),
            ("poker, trackers", "cards.pdf", {"layout": "poker", "trackers": "1"}),
            ("roster", "roster.pdf", {}),
            ("reference", "reference.pdf", {}),
        ):
            options = pdf.print_options(params)
            output = pdf.render_list_pdf(printout, kind, options)
            ms = median_ms(lambda p=printout, k=kind, o=options: pdf.render_list_pdf(p, k, o), 15)
            if n == 100 and label == "cards, sheet":
                sheet_ms = ms
            pages = len(PdfReader(io.BytesIO(output)).pages)
            print(f"  {n:>3} entries  {label:<16} median {ms:7.1f} ms  ({len(output) // 1024} KiB, {pages} pages)")

        def download(army_list=army_list):
            cache.clear()
            downloads.list_pdf_response(army_list, "cards.pdf", {})

        print(f"  {n:>3} entries  whole download of the cards, uncached: median {median_ms(download, 9):.1f} ms")
        cached = median_ms(lambda army_list=army_list: downloads.list_pdf_response(army_list, "cards.pdf", {}), 50)
        print(f"  {n:>3} entries  the same download again, cached:        median {cached:.2f} ms")
    army_sheets(book, owner)
    compare_weasyprint(printout, sheet_ms)


def army_sheets(book, owner) -> None:
    """The one-page army sheet: 40 entries (a big list, one page) and 200 (several)."""
    print("Army sheet (roster.pdf?sheet=1), median of 15:")
    for n in (40, 200):
        data, _handle = parse_list_body(bench_list(book, n, name=f"Sheet {n}"))
        army_list = army_list_create(data=data, owner=owner)
        printout = printout_get(army_list=army_list, share_url="", handle=book_handle_find(system=SYSTEM, slug=FACTION))
        options = pdf.print_options({"sheet": "1"})
        output = pdf.render_list_pdf(printout, "roster.pdf", options)
        ms = median_ms(lambda p=printout, o=options: pdf.render_list_pdf(p, "roster.pdf", o), 15)
        pages = len(PdfReader(io.BytesIO(output)).pages)
        print(f"  {n:>3} entries  drawing  median {ms:7.1f} ms  ({len(output) // 1024} KiB, {pages} pages)")

        def download(army_list=army_list):
            cache.clear()
            downloads.list_pdf_response(army_list, "roster.pdf", {"sheet": "1"})

        print(f"  {n:>3} entries  whole download, uncached: median {median_ms(download, 9):.1f} ms")


def cards_html(printout) -> str:
    """The same cards as HTML, for WeasyPrint: header, stats, weapons, rules, upgrades,
    spells, two cards a row."""
    from html import escape

    from armybuilder.exports.pdf_cards import cards_for

    parts = []
    for card in cards_for(printout):
        stats = "".join(f"<td><small>{escape(k)}</small><b>{escape(v)}</b></td>" for k, v in card.stats)
        head = "".join(f"<th>{escape(c.title)}</th>" for c in card.columns)
        rows = "".join("<tr>" + "".join(f"<td>{escape(x)}</td>" for x in cells) + "</tr>" for cells in card.weapons)
        spells = "".join(f"<p><b>{escape(n)} ({c})</b> {escape(t)}</p>" for n, c, t in card.spells)
        parts.append(
            f'<div class="card"><h2>{escape(card.title)}<span>{escape(card.cost)}</span></h2>'
            f"<i>{escape(card.subtitle)}</i><table class=s><tr>{stats}</tr></table>"
            f"<table><tr>{head}</tr>{rows}</table><p><b>Rules:</b> {escape(card.rules)}</p>"
            f"<p><b>Upgrades:</b> {escape(card.upgrades)}</p>{spells}<footer>{escape(card.footer)}</footer></div>"
        )
    style = (
        "@page{size:A4;margin:24pt}body{font:7.5pt DejaVu Sans}"
        ".card{display:inline-block;vertical-align:top;width:46%;margin:0 2% 10pt 0;break-inside:avoid;"
        "border:1px solid #2c4a5a;border-radius:4pt;padding:6pt}"
        "h2{background:#2c4a5a;color:#fff;font-size:11pt;margin:-6pt -6pt 4pt;padding:6pt}h2 span{float:right}"
        "table{width:100%;border-collapse:collapse}td,th{padding:1pt;text-align:left}.s td{background:#eef1f3}"
    )
    return f"<html><head><style>{style}</style></head><body>{''.join(parts)}</body></html>"


def compare_weasyprint(printout, ours_ms: float) -> None:
    try:
        import weasyprint
    except ImportError:
        print("WeasyPrint not installed: `.venv/bin/pip install weasyprint==70.0` to compare with it")
        return
    import logging

    for name in ("weasyprint", "weasyprint.progress"):
        logging.getLogger(name).setLevel(logging.WARNING)
    html = cards_html(printout)
    weasyprint.HTML(string=html).write_pdf()
    theirs = median_ms(lambda: weasyprint.HTML(string=html).write_pdf(), 5)
    print(f"  100 entries  the same cards as HTML through WeasyPrint {weasyprint.__version__}: median {theirs:.0f} ms")
    print(f"  ours is {theirs / ours_ms:.0f}x faster (target: above 10x)")


if __name__ == "__main__":
    main()
