"""A small, bounded HTTP client for Army Forge's JSON (standard library only).

Every request has a timeout; one that gets no answer (Army Forge unreachable, no answer in
time, a 5xx) is tried again a few times after growing pauses, never one answered 4xx
(asking again would get the same answer). At most a size cap is read. Every failure is
an ArmyForgeError whose message is one plain sentence, fit for a command's output or a
page. The sync of official books (sync.py) reads the addresses below (the index
of official books, a book, the core rules of a game system); Army Forge's share links
(`{ARMYFORGE_URL}/api/tts?id=…`) can be read the same way.
"""

from __future__ import annotations

import http.client
import json
import time
from typing import Any
from urllib.error import HTTPError, URLError
from urllib.parse import quote, urlencode, urlsplit
from urllib.request import Request, urlopen

from factions.caps import size_text

USER_AGENT = "Armybuilder (+self-hosted army-list builder)"
HEADERS = {"User-Agent": USER_AGENT, "Accept": "application/json"}
_CHUNK = 64 * 1024


class ArmyForgeError(Exception):
    """Army Forge could not be read; the message says why in one sentence."""


class _TryAgain(ArmyForgeError):
    """A failure that asking again may not meet: no connection, no answer in time, a 5xx."""


def index_url(source: str, game: str) -> str:
    """The official army books of an Army Forge game system (`age-of-fantasy`, …)."""
    return f"{source.rstrip('/')}/api/army-books?{urlencode({'filters': 'official', 'gameSystemSlug': game})}"


def book_url(source: str, uid: str, game_id: int) -> str:
    """An army book as Army Forge serves it for one game system (4, 5, 6, …)."""
    return f"{source.rstrip('/')}/api/army-books/{quote(uid, safe='')}?{urlencode({'gameSystem': game_id})}"


def common_rules_url(source: str, game_id: int) -> str:
    """The core rules of an Army Forge game system (4, 5, 6, …): those its official books
    name without describing them (Thrust, Bane, …), with its campaign traits."""
    return f"{source.rstrip('/')}/api/rules/common/{int(game_id)}"


def fetch_json(url: str, *, timeout: float, max_bytes: int, retries: int = 2, backoff: float = 0.5) -> Any:
    """GET `url` and parse its answer as JSON. Each try waits at most `timeout` seconds for
    each part of the answer and gives up once the whole has taken longer; after a failure
    worth retrying it pauses `backoff`, then twice that, …, for `retries` more tries. An
    answer larger than `max_bytes` is refused without reading more of it."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ArmyForgeError(f'"{url}" is not an http:// or https:// address')
    request = Request(url, headers=HEADERS)
    attempt = 0
    while True:
        try:
            body = _get(request, timeout=timeout, max_bytes=max_bytes)
        except _TryAgain as exc:
            if attempt >= retries:
                tries = f" ({attempt + 1} tries)" if attempt else ""
                raise ArmyForgeError(f"{exc}{tries}") from exc.__cause__
            time.sleep(backoff * 2**attempt)
            attempt += 1
        else:
            return _parse(url, body)


def _get(request: Request, *, timeout: float, max_bytes: int) -> bytes:
    url = request.full_url
    late = _TryAgain(f"no answer from {url} within {timeout:g} s")
    deadline = time.monotonic() + timeout
    body = bytearray()
    try:
        with urlopen(request, timeout=timeout) as response:
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise ArmyForgeError(f"the answer from {url} is larger than {size_text(max_bytes)}")
            # One byte past the cap tells a body of exactly the cap from a larger one.
            while len(body) <= max_bytes:
                if time.monotonic() > deadline:  # a trickle of bytes is no answer either
                    raise late
                chunk = response.read(min(_CHUNK, max_bytes + 1 - len(body)))
                if not chunk:
                    break
                body += chunk
    except HTTPError as exc:
        exc.close()
        answered = f"Army Forge answered {exc.code} for {url}"
        raise (_TryAgain(answered) if exc.code >= 500 else ArmyForgeError(answered)) from exc
    except URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise late from exc
        raise _TryAgain(f"cannot reach {url}: {exc.reason}") from exc
    except TimeoutError as exc:
        raise late from exc
    except (OSError, http.client.HTTPException) as exc:  # a connection dropped mid-answer
        raise _TryAgain(f"cannot reach {url}: {exc or type(exc).__name__}") from exc
    if len(body) > max_bytes:
        raise ArmyForgeError(f"the answer from {url} is larger than {size_text(max_bytes)}")
    return bytes(body)


def _parse(url: str, body: bytes) -> Any:
    try:
        return json.loads(body)
    except RecursionError as exc:  # the parser recurses once per level of nesting
        raise ArmyForgeError(f"the answer from {url} is not JSON: nested too deeply") from exc
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an over-long number
        raise ArmyForgeError(f"the answer from {url} is not JSON: {exc}") from exc
