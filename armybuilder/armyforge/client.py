"""A small, bounded HTTP client for Army Forge's JSON (standard library only).

Each call has one deadline, `timeout` seconds, for everything it does: connecting, the
answer's headers and its body, every try and the pauses between them. The deadline is
kept while reading: the socket's timeout shrinks to the time left before every read, so
an Army Forge that trickles its answer a byte at a time cannot hold a worker past it. A
try that gets no answer (Army Forge unreachable, a 5xx) is tried again after growing
pauses while time is left, never one answered 4xx (asking again would get the same
answer) nor one that ran out of time. At most a size cap is read. Redirects are followed
only within the first address's origin (scheme, host and port), a few at most. Text
holding a NUL character or a lone surrogate, which no field here can store, is refused.

Every failure is an ArmyForgeError: its message is one sentence for a command's output
or the admin (it names the address); its `plain` one names Army Forge only, for a player.
The sync of official books (sync.py) reads the addresses below (the index of official
books, a book, the core rules of a game system); Army Forge's share links
(`{ARMYFORGE_URL}/api/tts?id=…`) are read the same way (lists/imports.py).
"""

from __future__ import annotations

import http.client
import io
import json
import socket
import ssl
import time
from typing import Any
from urllib.parse import quote, urlencode, urljoin, urlsplit

from factions.caps import size_text

USER_AGENT = "Armybuilder (+self-hosted army-list builder)"
HEADERS = {"User-Agent": USER_AGENT, "Accept": "application/json"}
MAX_REDIRECTS = 3
REDIRECTS = (301, 302, 303, 307, 308)
_CHUNK = 64 * 1024
# An escaped NUL or surrogate in JSON text (\u0000, \ud800-\udfff): only an answer
# holding one is searched for bad text (a raw NUL or a raw surrogate is no valid JSON, and
# the parser refuses it). Plain searches of the lowered bytes, linear in the answer.
_ESCAPES = (b"\\u0000", *(b"\\ud" + bytes([digit]) for digit in b"89abcdef"))


def _maybe_bad(body: bytes) -> bool:
    lowered = body.lower()
    return any(escape in lowered for escape in _ESCAPES)


BAD_TEXT = "a NUL character or a lone surrogate"

UNREADABLE = "Army Forge's answer could not be read"
LATE = "Army Forge did not answer in time"
UNREACHABLE = "Army Forge could not be reached"


class ArmyForgeError(Exception):
    """Army Forge could not be read; the message says why in one sentence (with the
    address asked), `plain` says it without the address nor socket errors, and `status`
    is the HTTP status Army Forge answered, when that was the trouble."""

    def __init__(self, message: str, plain: str = UNREADABLE, status: int | None = None):
        super().__init__(message)
        self.plain = plain
        self.status = status


class _TryAgain(ArmyForgeError):
    """A failure that asking again may not meet: no connection, a 5xx."""


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


def fetch_json(
    url: str,
    *,
    timeout: float,
    max_bytes: int,
    retries: int = 2,
    backoff: float = 0.5,
    clean_text: bool = True,
) -> Any:
    """GET `url` and parse its answer as JSON, all within `timeout` seconds. After a
    failure worth retrying it pauses `backoff`, then twice that, …, for at most `retries`
    more tries, none started when its pause would end past the deadline. An answer larger
    than `max_bytes` is refused without reading more of it; with `clean_text`, one holding
    a NUL character or a lone surrogate anywhere is refused (the sync checks its index
    entry by entry instead)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ArmyForgeError(f'"{url}" is not an http:// or https:// address')
    deadline = _Deadline(timeout)
    attempt = 0
    while True:
        try:
            body = _get(url, deadline, max_bytes)
        except _TryAgain as exc:
            pause = backoff * 2**attempt
            if attempt >= retries or deadline.end - time.monotonic() <= pause:
                tries = f" ({attempt + 1} tries)" if attempt else ""
                raise ArmyForgeError(f"{exc}{tries}", exc.plain, exc.status) from exc.__cause__
            time.sleep(pause)
            attempt += 1
        else:
            data = _parse(url, body)
            if clean_text and _maybe_bad(body):
                where = bad_text(data)
                if where is not None:
                    raise ArmyForgeError(
                        f"the answer from {url} holds {BAD_TEXT} at {where}",
                        f"Army Forge's answer holds {BAD_TEXT} (at {where}), which no field here accepts",
                    )
            return data


def bad_text(data: Any) -> str | None:
    """Where parsed JSON holds a NUL character or a lone surrogate, in a key or a text
    (`units[3].joinToUnit`, `(top)` for the whole), else None. PostgreSQL cannot store a
    NUL, and a lone surrogate cannot be written out as UTF-8: either would fail a page
    later. Walked without recursion: JSON may nest deeply."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str) and not _clean(value):
            return path or "(top)"
        if isinstance(value, dict):
            for key, item in value.items():
                where = f"{path}.{_shown_key(key)}" if path else _shown_key(key)
                if not _clean(key):
                    return where
                stack.append((where, item))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", item) for i, item in enumerate(value))
    return None


def _clean(text: str) -> bool:
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a surrogate that no other completes
        return False
    return True


def _shown_key(key: str) -> str:
    """A key as a path shows it: itself when short and printable, else escaped (a bad
    key shown as it is would put its bad text in the message)."""
    return key if key.isprintable() and len(key) <= 40 else ascii(key)[:42]


class _Deadline:
    """The moment a call must be done by."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        """The seconds left; TimeoutError when none are."""
        left = self.end - time.monotonic()
        if left <= 0:
            raise TimeoutError("deadline passed")
        return left


class _TimedReader(io.RawIOBase):
    """A socket's bytes, each read waiting at most the time left: a trickle of bytes
    cannot stretch the answer past the deadline, as a fixed timeout per read would.
    Reads through the socket's own file, which keeps the socket open while it is read
    (http.client closes the connection before reading a body that ends with it)."""

    def __init__(self, sock: socket.socket, deadline: _Deadline):
        super().__init__()
        self._sock, self._deadline = sock, deadline
        self._raw = sock.makefile("rb", buffering=0)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self._sock.settimeout(self._deadline.left())
        read = self._raw.readinto(buffer)
        if read is None:  # (a socket without a timeout's "nothing yet": ours has one)
            raise TimeoutError("no bytes in time")
        return read

    def close(self) -> None:
        self._raw.close()
        super().close()


class _TimedSocket:
    """The connection's socket as http.client uses it (send, make the reading file,
    close), every read and write bounded by the deadline."""

    def __init__(self, sock: socket.socket, deadline: _Deadline):
        self._sock, self._deadline = sock, deadline

    def sendall(self, data: bytes) -> None:
        self._sock.settimeout(self._deadline.left())
        self._sock.sendall(data)

    def makefile(self, mode: str, *args: Any, **kwargs: Any) -> io.BufferedReader:
        return io.BufferedReader(_TimedReader(self._sock, self._deadline))

    def close(self) -> None:
        self._sock.close()


class _Http(http.client.HTTPConnection):
    """A connection whose connect and reads all end by the deadline."""

    def __init__(self, host: str, port: int | None, deadline: _Deadline):
        super().__init__(host, port, timeout=deadline.left())
        self._deadline = deadline

    def connect(self) -> None:
        self.timeout = self._deadline.left()
        super().connect()
        self.sock = _TimedSocket(self.sock, self._deadline)


class _Https(_Http):
    """_Http over TLS, the handshake bounded by the time left (CPython bounds a whole
    handshake by the socket's timeout)."""

    def __init__(self, host: str, port: int | None, deadline: _Deadline):
        super().__init__(host, port or http.client.HTTPS_PORT, deadline)
        self._tls = ssl.create_default_context()

    def connect(self) -> None:
        self.timeout = self._deadline.left()
        http.client.HTTPConnection.connect(self)
        self.sock.settimeout(self._deadline.left())
        tls = self._tls.wrap_socket(self.sock, server_hostname=self.host)
        self.sock = _TimedSocket(tls, self._deadline)


def _origin(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of an address, the port spelled out; None when it has none."""
    parts = urlsplit(url)
    try:
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:  # a port that is no number
        return None
    return (parts.scheme, (parts.hostname or "").lower(), port) if parts.hostname else None


def _get(url: str, deadline: _Deadline, max_bytes: int) -> bytes:
    """The body of a 2xx answer to GET `url`, following redirects within its origin."""
    origin = _origin(url)
    for _hop in range(MAX_REDIRECTS + 1):
        location = _get_once(url, deadline, max_bytes)
        if isinstance(location, bytes):
            return location
        target = urljoin(url, location)
        if origin is None or _origin(target) != origin:
            raise ArmyForgeError(
                f"{url} redirected to {target}, another address than Army Forge's: not followed",
                "Army Forge sent the request to another address, which is not followed",
            )
        url = target
    raise ArmyForgeError(
        f"{url} redirected more than {MAX_REDIRECTS} times", f"Army Forge redirected more than {MAX_REDIRECTS} times"
    )


def _get_once(url: str, deadline: _Deadline, max_bytes: int) -> bytes | str:
    """One GET of `url`: the body of a 2xx answer, or where a redirect points."""
    late = ArmyForgeError(f"no answer from {url} within {deadline.seconds:g} s", LATE)
    parts = urlsplit(url)
    connection: _Http | None = None
    response: http.client.HTTPResponse | None = None
    try:
        kind = _Https if parts.scheme == "https" else _Http
        connection = kind(parts.hostname or "", parts.port, deadline)
        connection.request("GET", f"{parts.path or '/'}{'?' if parts.query else ''}{parts.query}", headers=HEADERS)
        response = connection.getresponse()
        if response.status in REDIRECTS:
            location = response.getheader("Location")
            if not location:
                raise ArmyForgeError(f"{url} redirected nowhere", "Army Forge redirected nowhere")
            return location
        _check_status(url, response.status)
        return _body(url, response, max_bytes)
    except TimeoutError as exc:
        raise late from exc
    except ValueError as exc:  # a port that is no number, a host with a space
        raise ArmyForgeError(f"cannot reach {url}: {exc}", UNREACHABLE) from exc
    except (OSError, http.client.HTTPException) as exc:  # refused, reset, dropped mid-answer
        raise _TryAgain(f"cannot reach {url}: {exc or type(exc).__name__}", UNREACHABLE) from exc
    finally:
        if response is not None:
            response.close()
        if connection is not None:
            connection.close()


def _check_status(url: str, status: int) -> None:
    if 200 <= status < 300:
        return
    answered = f"Army Forge answered {status} for {url}"
    plain = f"Army Forge answered with an error ({status})"
    raise (_TryAgain if status >= 500 else ArmyForgeError)(answered, plain, status)


def _body(url: str, response: http.client.HTTPResponse, max_bytes: int) -> bytes:
    too_large = ArmyForgeError(
        f"the answer from {url} is larger than {size_text(max_bytes)}",
        f"Army Forge's answer is larger than {size_text(max_bytes)}",
    )
    declared = response.getheader("Content-Length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise too_large
    body = bytearray()
    # One byte past the cap tells a body of exactly the cap from a larger one.
    while len(body) <= max_bytes:
        chunk = response.read(min(_CHUNK, max_bytes + 1 - len(body)))
        if not chunk:
            break
        body += chunk
    if len(body) > max_bytes:
        raise too_large
    return bytes(body)


def _parse(url: str, body: bytes) -> Any:
    plain = "Army Forge answered with something that is not JSON"
    try:
        return json.loads(body)
    except RecursionError as exc:  # the parser recurses once per level of nesting
        raise ArmyForgeError(f"the answer from {url} is not JSON: nested too deeply", plain) from exc
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an over-long number
        raise ArmyForgeError(f"the answer from {url} is not JSON: {exc}", plain) from exc
