"""Stamps: short hashes of what a cached thing was built from.

Every cache in the site is keyed by stamps of its inputs rather than by counters that
writers must remember to bump: a content stamp (`content_hash`) of the data, and the
release stamp (`release`) of the code that turns the data into what is kept. Equal inputs
give equal keys, in any process and any database sharing the cache; any change to them
gives a new key, so a stale copy is never found again.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
STAMP_LENGTH = 32  # hex digits: 128 bits
# What the site's output is made by: its code, and the templates that lay out its pages.
RELEASE_FOLDERS = ("armybuilder", "factions", "templates")
RELEASE_SUFFIXES = (".py", ".html")


def content_hash(data: Any) -> str:
    """The stamp of plain JSON-like data (key order does not matter)."""
    return hashlib.sha256(orjson.dumps(data, option=orjson.OPT_SORT_KEYS)).hexdigest()[:STAMP_LENGTH]


# Not a cache (armybuilder/memo.py): the stamp of the code this process runs, read once
# when first asked for. Read again, it would name files edited since, not the code loaded.
@cache
def release() -> str:
    """The stamp of this release of the site: of every .py and .html file of its packages
    and templates (RELEASE_FOLDERS), read once per process. Any change to any of them,
    however far from what a cached thing shows, is a new key for everything."""
    return source_stamp(ROOT, RELEASE_FOLDERS)


def source_stamp(root: Path, folders: tuple[str, ...]) -> str:
    """The stamp of the .py and .html files below `folders` of `root`: their paths and
    contents."""
    digest = hashlib.sha256()
    for folder in folders:
        files = sorted(p for p in (root / folder).rglob("*") if p.suffix in RELEASE_SUFFIXES and p.is_file())
        if not files:
            raise FileNotFoundError(f"no code in {root / folder}")
        for path in files:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:STAMP_LENGTH]
