"""File downloads, for the web pages and the API alike: the HTTP responses of the files
the renderers in armybuilder/exports/ draw (a list's PDFs, JSON, text and Army Forge
files; an event's combined roster and submissions CSV; a ruleset's quick reference),
named for the player, and the cache of the PDFs.

Everything a PDF shows is loaded first (`printouts.printout_get`); the renderers only
draw. PDFs are cached (Django's cache) under a key holding the list's version, its share
key, the content stamps of its army book and ruleset and the release stamp of the code
(armybuilder/stamps.py), so a second download of an unchanged list does not render
again, and a change to any code (what a printout shows, how it is drawn) is a new key.

The query parameters of a list's PDFs are read by `exports.pdf.print_options`, bar
`base_url` (the site's address for the share link in the roster's QR code, e.g.
https://armybuilder.example; it must be one of ALLOWED_HOSTS; without it the first host
of ALLOWED_HOSTS is used), which `share_url` checks here.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import astuple
from typing import Any
from urllib.parse import quote, urlsplit

from django.conf import settings
from django.http import HttpResponse, HttpResponseBadRequest
from django.http.request import split_domain_port, validate_host

from armybuilder.accounts.services import display_name
from armybuilder.cache import remembered, shared_key, slot
from armybuilder.events.models import EventPack, Submission
from armybuilder.events.rules import pack_stamp
from armybuilder.events.selectors import event_pack_find
from armybuilder.exports import pdf
from armybuilder.exports.event_csv import submissions_csv
from armybuilder.exports.pdf_event import EventRosterPdf
from armybuilder.exports.pdf_reference import RulesReferencePdf
from armybuilder.lists import submissions as list_submissions
from armybuilder.lists.models import ArmyList
from armybuilder.lists.submissions import SubmissionRow
from armybuilder.printouts import event_printout_get, printout_get
from factions.models import Ruleset
from factions.selectors import book_handle_find

FILE_SUFFIXES = {"cards.pdf": "cards", "roster.pdf": "roster", "reference.pdf": "rules"}
CACHE_SECONDS = 6 * 60 * 60
# The most entries an event's combined roster draws (100 lists of 20), for its organiser
# and staff only, in a large printout's slot (bench/abuse.py: 4 lists of 500 with names
# mixing scripts, 3.5 s on a slow machine).
MAX_EVENT_ENTRIES = 2000
# The most entries a list's cards and roster print: a 10,000-point list has about 80.
# The heaviest list a visitor can save (500 entries named in 200 characters changing
# script at every letter) took 2 to 4 s of CPU to print; at this bound, 1.3 s at worst
# (poker cards with rules and trackers; bench/abuse.py). A list holds up to 500 (its text
# and JSON exports hold them all); its rules reference prints whatever its size.
MAX_PRINTED_ENTRIES = 150
# A printout of more entries than this (a list of 500, an event's roster) takes a second
# or two to draw: the site draws settings.LARGE_PRINTOUTS_AT_ONCE of them at once, so that
# large printouts asked together cannot hold every worker (health and every other page
# keep one); one more is refused at once (PrintoutsBusy), never queued. No real list
# comes near it (a 2,000-point list has 10 to 25 entries).
LARGE_PRINTOUT = 100
LARGE_PRINTOUT_SECONDS = 60  # a slot is freed after this even if its worker died drawing


class TooLargeToPrint(Exception):
    """A file that would take too long to draw, refused before any drawing: says why."""


def too_many_to_print(entries: int) -> str | None:
    """Why a list of `entries` entries has no cards or roster to print (None: it has)."""
    if entries <= MAX_PRINTED_ENTRIES:
        return None
    return (
        f"This list has {entries} entries; unit cards and rosters print at most {MAX_PRINTED_ENTRIES} "
        f"(a 10,000-point list has about 80): split it into lists of {MAX_PRINTED_ENTRIES} or fewer to print "
        "them. Its rules reference prints, and its text and JSON exports hold every entry."
    )


class TooManyDrawings(Exception):
    """This client has had as many files drawn as its limit allows just now (a file
    already drawn is still served): `wait` seconds until it may have another."""

    def __init__(self, wait: float):
        super().__init__(f"Too many files drawn for this address just now; try again in {int(wait) + 1} s.")
        self.wait = wait


class PrintoutsBusy(Exception):
    """The site is drawing as many large printouts as it draws at once: try again soon."""

    wait = 5  # seconds: about what a large printout takes

    def __init__(self) -> None:
        super().__init__("Other large printouts are being drawn just now: try again in a few seconds.")


def _drawn(entries: int, draw: Callable[[], bytes]) -> bytes:
    """`draw()`, in one of the large printouts' slots when it prints more than
    LARGE_PRINTOUT entries (PrintoutsBusy when none is free)."""
    if entries <= LARGE_PRINTOUT:
        return draw()
    with slot("large-printout", settings.LARGE_PRINTOUTS_AT_ONCE, seconds=LARGE_PRINTOUT_SECONDS) as free:
        if not free:
            raise PrintoutsBusy()
        return draw()


def share_url(army_list: ArmyList, *, base_url: str = "") -> str:
    """The absolute share link of a list. `base_url` (scheme and host) must name one of
    ALLOWED_HOSTS, so that nobody prints a QR code leading elsewhere; without it the
    first named host in ALLOWED_HOSTS is used (https unless DEBUG)."""
    path = army_list.share_path
    if base_url:
        parts = urlsplit(base_url)
        domain, _port = split_domain_port(parts.netloc)
        if parts.scheme not in ("http", "https") or not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
            raise ValueError("base_url must be http(s)://host of this site (a host in ALLOWED_HOSTS)")
        # In production the site answers on the standard ports: a port in the request is
        # dropped, so that nobody makes the printouts (and their cache keys) vary with it.
        netloc = parts.netloc if settings.DEBUG else domain
        return f"{parts.scheme}://{netloc}{path}"
    host = next((h for h in settings.ALLOWED_HOSTS if h != "*" and not h.startswith(".")), None)
    if host is None:
        return path
    return f"{'http' if settings.DEBUG else 'https'}://{host}{path}"


def list_pdf_response(
    army_list: ArmyList, kind: str, params: dict[str, str], *, may_draw: Callable[[], float] | None = None
) -> HttpResponse:
    """A list's PDF, from the cache when the same content has been drawn with the same
    options (whatever list, version or share key it came from: only the roster prints the
    share link); drawn otherwise, when `may_draw` (the seconds to wait, 0 for now) allows:
    TooManyDrawings when it does not; PrintoutsBusy, for a large one (LARGE_PRINTOUT), when
    the site draws as many as it does at once; TooLargeToPrint, before anything is loaded,
    for cards or a roster of more than MAX_PRINTED_ENTRIES entries."""
    if kind not in pdf.PDF_KINDS:
        raise LookupError(kind)
    too_many = too_many_to_print(len(army_list.entries)) if kind != "reference.pdf" else None
    if too_many:
        raise TooLargeToPrint(too_many)
    try:
        options = pdf.print_options(params)
        url = share_url(army_list, base_url=options.base_url)
    except ValueError as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")
    handle = book_handle_find(system=army_list.system, slug=army_list.faction, version=army_list.book_version)
    # The pinned version's stamp, and the current version (the roster says when one is out).
    book = (*handle.cache_key, handle.current_version) if handle else None
    # A list entered for an event is checked against the event's rules as they are now.
    pack = event_pack_find(key=army_list.event_id) if army_list.event_id else None
    event = pack_stamp(pack) if pack is not None else None
    drawing = options.drawing(kind)
    # Only the roster prints the share link (its QR code): the other files do not vary with it.
    printed = (url,) if kind == "roster.pdf" and not drawing.sheet else ()
    content = hashlib.blake2b(json.dumps(army_list.as_armylist(), sort_keys=True).encode(), digest_size=16)
    parts = (kind, content.hexdigest(), book, event, astuple(drawing), printed)
    key = shared_key("pdf", "list", *parts)

    def draw() -> bytes:
        wait = may_draw() if may_draw is not None else 0.0
        if wait:
            raise TooManyDrawings(wait)

        def drawing() -> bytes:
            printout = printout_get(army_list=army_list, share_url=url, handle=handle)
            return pdf.render_list_pdf(printout, kind, options)

        return _drawn(len(army_list.entries), drawing)

    data = remembered(key, draw, seconds=CACHE_SECONDS)
    suffix = "sheet" if drawing.sheet else FILE_SUFFIXES[kind]
    return _pdf_response(data, f"{file_stem(army_list.name)}-{suffix}.pdf")


def event_roster_response(pack: EventPack, submissions: Sequence[Submission], *, paper: str) -> HttpResponse:
    """The combined roster of an event's submissions (load them with their players; the
    caller has checked that the reader may see them all, and the `paper`). Cached under
    what it shows: each submission (id, time, the player's display name), the pack's rules, name and
    deadline, the content stamps of the books and rulesets, the paper and the release
    stamp. TooLargeToPrint, before anything is loaded, for lists of more than
    MAX_EVENT_ENTRIES entries in all; PrintoutsBusy as for a list's (LARGE_PRINTOUT)."""
    entries = sum(len(submission.data.get("entries") or ()) for submission in submissions)
    if entries > MAX_EVENT_ENTRIES:
        raise TooLargeToPrint(
            f"The lists submitted to {pack.name} hold {entries} entries: a combined roster prints "
            f"at most {MAX_EVENT_ENTRIES}. submissions.csv lists every submission with its checks."
        )
    handles = list_submissions.submission_handles(submissions)
    lists = tuple((s.pk, s.submitted_at.isoformat(), display_name(s.player), s.book_version) for s in submissions)
    books = tuple(sorted(f"{handle.stamp}.{handle.current_version}" for handle in handles.values()))
    pack_parts = (pack.key, pack_stamp(pack), pack.ruleset.content_hash, pack.deadline.isoformat())
    key = shared_key("pdf", "event", *pack_parts, lists, books, paper)

    def drawing() -> bytes:
        printout = event_printout_get(pack=pack, submissions=submissions, handles=handles)
        return EventRosterPdf(printout, paper=paper).render()

    data = remembered(key, lambda: _drawn(entries, drawing), seconds=CACHE_SECONDS)
    return _pdf_response(data, f"{file_stem(pack.name)}-rosters.pdf")


def ruleset_reference_response(ruleset: Ruleset, params: dict[str, Any]) -> HttpResponse:
    """The one-page quick reference of a ruleset (load it with its `base`)."""
    try:
        options = pdf.print_options(params)
    except ValueError as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")
    key = shared_key("pdf", "quick", ruleset.slug, ruleset.content_hash, options.paper)

    def draw() -> bytes:
        return RulesReferencePdf.for_ruleset(slug=ruleset.family, title=ruleset.title, paper=options.paper).render()

    data = remembered(key, draw, seconds=CACHE_SECONDS)
    return _pdf_response(data, f"{ruleset.slug}-quick-reference.pdf")


def submissions_csv_response(pack: EventPack, rows: Sequence[SubmissionRow]) -> HttpResponse:
    """An event's submissions as a CSV download named after the event."""
    response = HttpResponse(submissions_csv(rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = attachment(f"{file_stem(pack.name)}-submissions.csv")
    return response


def json_download(data: Any, filename: str) -> HttpResponse:
    """`data` as an indented JSON file to download (an armylist/1 list, a ruleset/1 ruleset)."""
    import orjson

    response = HttpResponse(orjson.dumps(data, option=orjson.OPT_INDENT_2), content_type="application/json")
    response["Content-Disposition"] = attachment(filename)
    return response


def text_download(text: str, filename: str) -> HttpResponse:
    """`text` as a plain text file to download (a list as text)."""
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = attachment(filename)
    return response


def file_stem(name: str) -> str:
    """A file name from a list name, in the letters the player typed: only characters
    that file systems or headers refuse (slashes, quotes, control characters…) become
    "-". See `attachment` for how a name outside ASCII travels."""
    cleaned = re.sub(r'[\x00-\x1f\x7f/\\:*?"<>|;]+', "-", unicodedata.normalize("NFC", name))
    cleaned = re.sub(r"\s+", "-", cleaned.strip())
    return re.sub(r"-{2,}", "-", cleaned).strip("-.")[:80] or "army-list"


def attachment(filename: str) -> str:
    """A Content-Disposition for a download: `filename` as the player named it, with an
    ASCII stand-in for old clients (RFC 6266: filename* wins where it is understood)."""
    fallback = unicodedata.normalize("NFKD", filename).encode("ascii", "ignore").decode()
    fallback = re.sub(r"[^A-Za-z0-9._-]+", "-", fallback).strip("-") or "army-list"
    if fallback == filename:
        return f'attachment; filename="{filename}"'
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


def _pdf_response(data: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(data, content_type="application/pdf")
    response["Content-Disposition"] = attachment(filename)
    return response
