"""Stamps: short hashes of what a cached thing was built from.

Every cache in the site is keyed by stamps of its inputs rather than by counters that
writers must remember to bump: a content stamp (`content_hash`) of the data, and a
source stamp (`source_hash`) of the code and templates that turn the data into what is
kept. Equal inputs give equal keys, in any process and any database sharing the cache;
any change to them gives a new key, so a stale copy is never found again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
STAMP_LENGTH = 32  # hex digits: 128 bits


def content_hash(data: Any) -> str:
    """The stamp of plain JSON-like data (key order does not matter)."""
    return hashlib.sha256(orjson.dumps(data, option=orjson.OPT_SORT_KEYS)).hexdigest()[:STAMP_LENGTH]


@cache
def source_hash(*paths: str) -> str:
    """The stamp of the code and templates at `paths` (relative to the project folder;
    a folder stands for every .py and .html file below it), read once per process."""
    digest = hashlib.sha256()
    for path in _files(ROOT / p for p in paths):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:STAMP_LENGTH]


def _files(paths: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.suffix in (".py", ".html") and p.is_file()))
        elif path.is_file():
            found.append(path)
        else:
            raise FileNotFoundError(path)
    return found


# What a validation is worked out by: the engine, and how a list and its event reach it.
VALIDATION = ("armybuilder/engine", "armybuilder/lists/selectors.py", "armybuilder/events/rules.py")
