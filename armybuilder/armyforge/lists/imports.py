"""What the list import reads: armylist/1 (taken as it is), Army Forge's "Share as File"
lists and Army Forge share links (reading.py reads both Army Forge formats).

A share link is read from Army Forge itself: `{ARMYFORGE_URL}/api/tts?id={id}`, the
address the sync of official books uses (settings ARMYFORGE_URL, ARMYFORGE_TIMEOUT,
ARMYFORGE_MAX_BYTES), one try, all of it within a few seconds (MAX_SHARE_TIMEOUT). The
link's own host is never asked: only its id is taken from it. So that an Army Forge that
is down or slow cannot fill the site's workers, each player (or visitor's address) may
import so many a minute (THROTTLE_RATES["armyforge_imports"]) and the whole site reads
at most ARMYFORGE_SHARE_IMPORTS share links at once: one more is refused at once with
"try again in a moment", never queued. The player is told what went wrong in Army
Forge's name; the address and the socket's error go to the log.
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import orjson
from django.conf import settings
from django.http import HttpRequest

from armybuilder.armyforge.client import ArmyForgeError, fetch_json
from armybuilder.armyforge.lists.reading import Imported, armylist_from_armyforge, document_kind, not_a_list
from armybuilder.cache import slot
from armybuilder.lists.format import ListFormatError, parse_list_body
from armybuilder.ratelimit import client_address, count, parse_rate
from factions.armybook import json_has_nul

SHARE_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# A request that reads Army Forge waits at most this long, whatever the sync's timeout.
MAX_SHARE_TIMEOUT = 5.0
# A slot of the share links read at once is freed this long after its read's deadline
# even when its worker died holding it.
SLOT_MARGIN = 10
BUSY = "Army Forge imports are busy right now: try again in a moment."
TOO_OFTEN = "You have imported from Army Forge many times in the last minute: try again in a moment."
log = logging.getLogger(__name__)
SHARE_LINK_HELP = (
    "Paste an Army Forge share link (https://army-forge.onepagerules.com/share?id=\u2026) or the list's id."
)


def list_import(data: Any) -> Imported:
    """A list document (armylist/1 or either Army Forge format) read and checked: the
    armylist/1 list, its book's handle and the warnings; ListFormatError naming what is
    wrong."""
    kind = document_kind(data)
    if kind == "armylist":
        clean, handle = parse_list_body(data)
        return Imported(clean, handle)
    if kind is None:
        raise not_a_list()
    return armylist_from_armyforge(data, kind)


def list_from_file(raw: bytes) -> Imported:
    """An uploaded list file read and checked (see list_import)."""
    if json_has_nul(raw):
        raise ListFormatError({"file": ["The file contains a NUL character, which no field accepts."]})
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ListFormatError({"file": [f"Not a JSON file: {exc}"]}) from None
    return list_import(body)


def share_id(text: object) -> str:
    """The list id of an Army Forge share link (or the id itself); ListFormatError when
    `text` is neither."""
    if not isinstance(text, str) or not text.strip():
        raise ListFormatError({"armyforge": [SHARE_LINK_HELP]})
    text = text.strip()
    if SHARE_ID_RE.match(text):
        return text
    parts = urlsplit(text) if len(text) <= 2000 else None
    if parts is not None and parts.scheme in ("http", "https") and parts.netloc:
        ids: list[str] = parse_qs(parts.query).get("id", [])
        if len(ids) == 1 and SHARE_ID_RE.match(ids[0]):
            return ids[0]
    shown = text if len(text) <= 80 else text[:77] + "\u2026"
    raise ListFormatError({"armyforge": [f"\u201c{shown}\u201d is not an Army Forge share link. {SHARE_LINK_HELP}"]})


def share_url(list_id: str) -> str:
    return f"{settings.ARMYFORGE_URL.rstrip('/')}/api/tts?id={quote(list_id, safe='')}"


def importer(request: HttpRequest) -> str:
    """Who imports, for the limit per player: the account, else the visitor's address."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user-{user.pk}"
    return f"address-{client_address(request)}"


def list_from_armyforge_link(text: Any, *, requester: str = "") -> Imported:
    """The list an Army Forge share link points to, read from Army Forge and checked (see
    list_import); ListFormatError under `armyforge` when Army Forge cannot give it, when
    `requester` (importer()) has imported too often, or when the site is reading as many
    share links as it allows at once."""
    list_id = share_id(text)
    if not settings.ARMYFORGE_URL:
        raise ListFormatError({"armyforge": ["This site does not read Army Forge: upload the list's file instead."]})
    if not _within_rate(requester):
        raise ListFormatError({"armyforge": [TOO_OFTEN]})
    url = share_url(list_id)
    timeout = min(settings.ARMYFORGE_TIMEOUT, MAX_SHARE_TIMEOUT)
    try:
        with slot("armyforge-share", settings.ARMYFORGE_SHARE_IMPORTS, seconds=int(timeout) + SLOT_MARGIN) as free:
            if not free:
                raise ListFormatError({"armyforge": [BUSY]})
            document = fetch_json(url, timeout=timeout, max_bytes=settings.ARMYFORGE_MAX_BYTES, retries=0)
    except ArmyForgeError as exc:
        log.warning("share link %s not read: %s", list_id, exc)
        if exc.status == 404:
            problem = f"Army Forge has no shared list \u201c{list_id}\u201d: check the share link (it answered 404)."
        else:
            problem = f"The shared list \u201c{list_id}\u201d could not be read: {exc.plain}."
        raise ListFormatError({"armyforge": [problem]}) from None
    if document_kind(document) not in ("file", "link"):
        log.warning("share link %s: the answer from %s is not a list", list_id, url)
        raise ListFormatError(
            {"armyforge": [f"Army Forge answered \u201c{list_id}\u201d with something that is not a list."]}
        )
    return list_import(document)


def _within_rate(requester: str) -> bool:
    rate = settings.THROTTLE_RATES.get("armyforge_imports")
    if rate is None or not requester:
        return True
    limit, seconds = parse_rate(rate)
    allowed, _wait = count(f"throttle_armyforge_imports_{requester}", limit=limit, seconds=seconds)
    return allowed
