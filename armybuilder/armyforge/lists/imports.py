"""What the list import reads: armylist/1 (taken as it is), Army Forge's "Share as File"
lists and Army Forge share links (reading.py reads both Army Forge formats).

A share link is read from Army Forge itself: `{ARMYFORGE_URL}/api/tts?id={id}`, the
address the sync of official books uses (settings ARMYFORGE_URL, ARMYFORGE_TIMEOUT,
ARMYFORGE_MAX_BYTES), one try, so that a request waits at most the timeout. The link's
own host is never asked: only its id is taken from it.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import orjson
from django.conf import settings

from armybuilder.armyforge.client import ArmyForgeError, fetch_json
from armybuilder.armyforge.lists.reading import Imported, armylist_from_armyforge, document_kind, not_a_list
from armybuilder.lists.format import ListFormatError, parse_list_body
from factions.armybook import json_has_nul

SHARE_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# A request that reads Army Forge waits at most this long, whatever the sync's timeout.
MAX_SHARE_TIMEOUT = 10.0
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


def list_from_armyforge_link(text: Any) -> Imported:
    """The list an Army Forge share link points to, read from Army Forge and checked (see
    list_import); ListFormatError under `armyforge` when Army Forge cannot give it."""
    list_id = share_id(text)
    if not settings.ARMYFORGE_URL:
        raise ListFormatError({"armyforge": ["This site does not read Army Forge: upload the list's file instead."]})
    url = share_url(list_id)
    try:
        document = fetch_json(
            url,
            timeout=min(settings.ARMYFORGE_TIMEOUT, MAX_SHARE_TIMEOUT),
            max_bytes=settings.ARMYFORGE_MAX_BYTES,
            retries=0,
        )
    except ArmyForgeError as exc:
        if str(exc).startswith("Army Forge answered 404 "):
            problem = f"Army Forge has no shared list \u201c{list_id}\u201d: check the share link (it answered 404)."
        else:
            problem = f"Army Forge could not give the shared list \u201c{list_id}\u201d: {exc}."
        raise ListFormatError({"armyforge": [problem]}) from None
    if document_kind(document) not in ("file", "link"):
        raise ListFormatError({"armyforge": [f"Army Forge's answer for \u201c{list_id}\u201d is not a list ({url})."]})
    return list_import(document)
