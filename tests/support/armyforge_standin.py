"""A stand-in for Army Forge: a threaded HTTP server on 127.0.0.1 serving a folder of Army
Forge army-book files (`aof--wood-elves.json`: the part before `--` is the ruleset) as
the official index of each game system and its books, as Army Forge answers them:

    GET /api/army-books?filters=official&gameSystemSlug=age-of-fantasy
    GET /api/army-books/{uid}?gameSystem=4

the core rules of a game system, from the file `common-rules/<anything>-{id}.json` of the
folder it serves (else of the folder it started with: core rules do not change with a
book's version), or a document registered for that id with `serve_rules`:

    GET /api/rules/common/{gameSystemId}

and, as Army Forge answers a share link, the lists registered on it with `share`:

    GET /api/tts?id={share id}

Switchable while it runs: `serve` another folder, and make a book (by uid or file name),
an index (by game system slug), the core rules (by `rules_key(game id)`) or a share link
(by its id, registered or not) answer a status, hang, answer broken JSON, an over-sized
body or another document, or, as a hostile Army Forge would: trickle its answer a byte
at a time (`trickle`), its headers too (`slow_headers`), or redirect elsewhere
(`redirect`). `requests` lists what it was asked, with headers.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

# File name prefix -> Army Forge's game system slug and id.
GAMES = {
    "aof": ("age-of-fantasy", 4),
    "aof-skirmish": ("age-of-fantasy-skirmish", 5),
    "aof-regiments": ("age-of-fantasy-regiments", 6),
}
INDEX_FIELDS = ("uid", "name", "versionString", "official", "enabledGameSystems", "modifiedAt")
BOOKS_PATH = "/api/army-books"
SHARE_PATH = "/api/tts"
RULES_PATH = "/api/rules/common/"


def rules_key(game_id: int) -> str:
    """The key that switches what the core rules of the game system `game_id` answer."""
    return f"common-rules-{game_id}"


@dataclass
class Fault:
    kind: str  # "status", "hang", "broken", "oversized", "document", "trickle", "slow_headers", "redirect"
    value: Any = None
    declared: bool = True  # oversized: whether Content-Length says so
    times: int | None = None  # answers left before it stops (None: every one)


@dataclass(frozen=True)
class Request:
    path: str
    headers: dict[str, str]

    @property
    def book(self) -> str | None:
        """The uid of the book asked for, None for the index or anything else."""
        path = urlsplit(self.path).path
        return unquote(path.removeprefix(f"{BOOKS_PATH}/")) if path.startswith(f"{BOOKS_PATH}/") else None


class ArmyForgeStandIn:
    def __init__(self, folder: Path):
        self.folder = self.first_folder = folder
        self.faults: dict[str, Fault] = {}
        self.shares: dict[str, Any] = {}
        self.rules: dict[int, Any] = {}
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        handler = type("Handler", (_Handler,), {"standin": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        # Checks for shutdown every 20 ms (the default half second was most of a test's end).
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> ArmyForgeStandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()  # a hanging answer gives up at once
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    # -- switching what it answers -----------------------------------------------------
    def serve(self, folder: Path) -> None:
        self.folder = folder

    def fail(self, key: str, status: int = 500, *, times: int | None = None) -> None:
        self.faults[key] = Fault("status", status, times=times)

    def hang(self, key: str, seconds: float) -> None:
        self.faults[key] = Fault("hang", seconds)

    def broken(self, key: str) -> None:
        self.faults[key] = Fault("broken")

    def oversized(self, key: str, size: int, *, declared: bool = True) -> None:
        self.faults[key] = Fault("oversized", size, declared=declared)

    def answer(self, key: str, document: Any) -> None:
        """Answer `document` (any JSON value) instead."""
        self.faults[key] = Fault("document", document)

    def trickle(self, key: str, every: float) -> None:
        """Answer the headers at once, then the body one byte every `every` seconds."""
        self.faults[key] = Fault("trickle", every)

    def slow_headers(self, key: str, every: float) -> None:
        """Answer the status line and headers one byte every `every` seconds."""
        self.faults[key] = Fault("slow_headers", every)

    def redirect(self, key: str, location: str, *, times: int | None = None) -> None:
        """Answer 302 to `location` (any address, any scheme)."""
        self.faults[key] = Fault("redirect", location, times=times)

    def share(self, share_id: str, document: Any) -> None:
        """Answer `document` for the share link `share_id`; an id not shared is a 404."""
        self.shares[share_id] = document

    def serve_rules(self, game_id: int, document: Any) -> None:
        """Answer `document` as the core rules of the game system `game_id`, in place of its file."""
        self.rules[game_id] = document

    def clear(self) -> None:
        self.faults.clear()
        self.requests.clear()

    # -- what it was asked -------------------------------------------------------------
    @property
    def books_fetched(self) -> list[str]:
        return [uid for r in self.requests if (uid := r.book) is not None]

    @property
    def shares_read(self) -> list[str]:
        """The ids of the share links asked for, in order."""
        return [
            parse_qs(urlsplit(r.path).query).get("id", [""])[0]
            for r in self.requests
            if urlsplit(r.path).path == SHARE_PATH
        ]

    @property
    def indexes_read(self) -> list[str]:
        return [
            parse_qs(urlsplit(r.path).query).get("gameSystemSlug", [""])[0]
            for r in self.requests
            if urlsplit(r.path).path == BOOKS_PATH
        ]

    @property
    def rules_read(self) -> list[int]:
        """The game system ids whose core rules were asked for, in order."""
        paths = (urlsplit(r.path).path for r in self.requests)
        return [int(path.removeprefix(RULES_PATH)) for path in paths if path.startswith(RULES_PATH)]

    def book(self, name: str) -> dict[str, Any]:
        """The book of the file `name` (`aof--wood-elves`) in the folder served."""
        return json.loads((self.folder / f"{name}.json").read_text(encoding="utf-8"))

    # -- answering ---------------------------------------------------------------------
    def _files(self) -> list[tuple[str, int, Path]]:
        """(file name, Army Forge game id, path) of each book file served."""
        files = []
        for path in sorted(self.folder.glob("*--*.json")):
            prefix = path.name.split("--", 1)[0]
            if prefix in GAMES:
                files.append((path.stem, GAMES[prefix][1], path))
        return files

    def _fault(self, *keys: str) -> Fault | None:
        with self._lock:
            for key in keys:
                fault = self.faults.get(key)
                if fault is None:
                    continue
                if fault.times is not None:
                    fault.times -= 1
                    if fault.times <= 0:
                        del self.faults[key]
                return fault
        return None

    def _answer(self, handler: _Handler) -> None:
        with self._lock:
            self.requests.append(Request(handler.path, dict(handler.headers)))
        parts = urlsplit(handler.path)
        query = {key: values[0] for key, values in parse_qs(parts.query).items()}
        if parts.path == BOOKS_PATH and query.get("filters") == "official":
            game = query.get("gameSystemSlug", "")
            ids = [number for slug, number in GAMES.values() if slug == game]
            index = [self._entry(path) for _, game_id, path in self._files() if ids and game_id == ids[0]]
            self._send(handler, json.dumps(index).encode(), self._fault(game))
            return
        if parts.path.startswith(RULES_PATH):
            self._answer_rules(handler, parts.path.removeprefix(RULES_PATH))
            return
        if parts.path == SHARE_PATH:
            share_id = query.get("id", "")
            fault = self._fault(share_id) if share_id else None
            if share_id in self.shares:
                self._send(handler, json.dumps(self.shares[share_id]).encode(), fault)
            else:
                self._send(handler, b'{"error": "not found"}', fault, status=404)
            return
        uid = Request(handler.path, {}).book
        for name, game_id, path in self._files():
            body = path.read_bytes()
            if uid is not None and json.loads(body).get("uid") == uid and query.get("gameSystem") == str(game_id):
                self._send(handler, body, self._fault(uid, name))
                return
        self._send(handler, b'{"error": "not found"}', None, status=404)

    def _answer_rules(self, handler: _Handler, game: str) -> None:
        game_id = int(game) if game.isdigit() else -1
        fault = self._fault(rules_key(game_id))
        if game_id in self.rules:
            self._send(handler, json.dumps(self.rules[game_id]).encode(), fault)
            return
        for folder in (self.folder, self.first_folder):
            found = sorted((folder / "common-rules").glob(f"*-{game_id}.json"))
            if found:
                self._send(handler, found[0].read_bytes(), fault)
                return
        self._send(handler, b'{"error": "not found"}', fault, status=404)

    @staticmethod
    def _entry(path: Path) -> dict[str, Any]:
        book = json.loads(path.read_text(encoding="utf-8"))
        return {key: book.get(key) for key in INDEX_FIELDS}

    def _send(self, handler: _Handler, body: bytes, fault: Fault | None, status: int = 200) -> None:
        declared = True
        if fault is not None:
            if fault.kind == "status":
                status, body = fault.value, b'{"error": "stand-in failure"}'
            elif fault.kind == "hang" and self._stopping.wait(fault.value):
                return
            elif fault.kind == "broken":
                body = body[: len(body) // 2] or b'{"uid": '
            elif fault.kind == "oversized":
                body, declared = b"[" + b"0," * (fault.value // 2) + b"0]", fault.declared
            elif fault.kind == "document":
                body = json.dumps(fault.value).encode()
            elif fault.kind in ("trickle", "slow_headers"):
                self._drip(handler, body, fault)
                return
            elif fault.kind == "redirect":
                status, body = 302, b""
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            if fault is not None and fault.kind == "redirect":
                handler.send_header("Location", fault.value)
            if declared:
                handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting (a timeout test)

    def _drip(self, handler: _Handler, body: bytes, fault: Fault) -> None:
        """The answer written a byte at a time, `fault.value` seconds apart: the body
        alone (trickle) or the headers first (slow_headers), until the client gives up
        or the stand-in stops."""
        head = f"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        slow = body if fault.kind == "trickle" else head.encode() + body
        try:
            if fault.kind == "trickle":
                handler.wfile.write(head.encode())
            for i in range(len(slow)):
                handler.wfile.write(slow[i : i + 1])
                if self._stopping.wait(fault.value):
                    return
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting, as it should


class _Handler(BaseHTTPRequestHandler):
    standin: ArmyForgeStandIn

    def do_GET(self) -> None:  # the name http.server calls
        self.standin._answer(self)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read `requests`."""
