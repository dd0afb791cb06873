"""Which book a version belongs to, and what its version is called.

A book is (ruleset, slug) and takes versions from one source only (BookSource): an Army
Forge book is found by its Army Forge id, a bundled or uploaded one by the slug it came
with. A book of another source under the same slug is a namesake: the newcomer is kept
as a book of its own under a free slug (`free_slug`), so that neither overwrites the
other and the lists of both keep working.

Versions are named by the book's own version; the same name with other content is kept
as `<version>+2`, `+3`, … (`next_version_name`; `.2`, `.3` after a version that has build
metadata already, "1.0.0+admin.1.2", so that every name is a version armybook/1 takes).
A version is read and ordered as a `Version`, the one reading of versions there is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from armybuilder.stamps import content_hash
from factions.armybook import Problem
from factions.models import BookSource, BookVersion, Faction, Ruleset

_REPEAT_RE = re.compile(r"^(?P<name>.+)[+.](?P<n>[0-9]{1,6})$")
MAX_SLUG = 80


class VersionError(ValueError):
    """A text that is not a book's version; the message says what a version looks like."""


_VERSION_RE = re.compile(
    r"(?P<release>(?P<major>[0-9]{1,9})\.(?P<minor>[0-9]{1,9})(?P<patch>\.[0-9]{1,9})?(?:-(?P<pre>[0-9A-Za-z.-]+))?)"
    r"(?:\+(?P<build>[0-9A-Za-z.-]+))?"
)


@dataclass(frozen=True, slots=True)
class Version:
    """A book's version: "3.5.2", a pre-release "1.2.0-beta.2", a repeat "3.5.2+2" (the
    same name read again with other content), a mark of an edit in the admin
    "3.5.2+admin.1". Ordered by semantic-versioning precedence, the one order of versions
    everywhere: the three numbers, then a pre-release before its release (its parts
    compared one by one, numbers as numbers, before words); what follows "+" leaves the
    precedence alone. Army Forge's bare "3.5" reads as "3.5.0"."""

    text: str  # as given, with ".0" for a missing third number
    numbers: tuple[int, int, int]
    pre: tuple[str, ...] = ()
    build: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Version:
        """VersionError, saying what a version looks like, for a text that is none."""
        match = _VERSION_RE.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            shown = text if isinstance(text, str) and len(text) <= 60 else f"{str(text)[:57]}..."
            raise VersionError(
                f'"{shown}" is not a version: three numbers ("3.5.2"), then optionally "-" and a '
                'pre-release ("1.2.0-beta") and "+" and a repeat or a mark ("3.5.2+2")'
            )
        numbers = (int(match["major"]), int(match["minor"]), int((match["patch"] or ".0")[1:]))
        if match["patch"] is None:
            text = f"{match['major']}.{match['minor']}.0{text[match.end('minor') :]}"
        return cls(text, numbers, _parts(match["pre"]), _parts(match["build"]))

    def __str__(self) -> str:
        return self.text

    @property
    def release(self) -> str:
        """The version without what follows "+": the book's own ("3.5.2+2" -> "3.5.2")."""
        return self.text.split("+", 1)[0]

    @property
    def repeat(self) -> int | None:
        """Which reading of its release this is: 1 for the release itself, N for "+N";
        None for a version marked otherwise ("+admin.1")."""
        if not self.build:
            return 1
        return int(self.build[0]) if len(self.build) == 1 and self.build[0].isdigit() else None

    def _key(self) -> tuple[tuple[int, int, int], bool, tuple[tuple[int, int, str], ...]]:
        parts = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in self.pre)
        return self.numbers, not self.pre, parts

    def __lt__(self, other: Version) -> bool:
        return self._key() < other._key()

    def __le__(self, other: Version) -> bool:
        return self._key() <= other._key()

    def __gt__(self, other: Version) -> bool:
        return self._key() > other._key()

    def __ge__(self, other: Version) -> bool:
        return self._key() >= other._key()


def _parts(text: str | None) -> tuple[str, ...]:
    return tuple(text.split(".")) if text else ()


def book_of_source(ruleset: Ruleset, book: dict[str, Any], source: str) -> Faction | None:
    """The book of `source` that `book` (armybook/1) is a version of, or None for a new book."""
    factions = Faction.objects.filter(ruleset=ruleset)
    if source == BookSource.ARMYFORGE:
        uid = book.get("armyforge_id") or ""
        return factions.filter(armyforge_id=uid).first() if uid else None
    own = factions.filter(source=source).filter(Q(slug=book["slug"]) | Q(import_slug=book["slug"]))
    # Its own slug first: a book kept under a free slug names the slug it came with.
    return sorted(own, key=lambda faction: faction.slug != book["slug"])[0] if own else None


def free_slug(ruleset: Ruleset, book: dict[str, Any], source: str) -> tuple[str, Problem | None]:
    """The slug a new book takes: its own, or when another book holds that one (a
    namesake of another source, or another Army Forge book of the same name), a free one
    with a warning naming both."""
    slug = book["slug"]
    holder = Faction.objects.filter(ruleset=ruleset, slug=slug).first()
    if holder is None:
        return slug, None
    taken = set(Faction.objects.filter(ruleset=ruleset, slug__startswith=slug).values_list("slug", flat=True))
    stem = f"{slug[: MAX_SLUG - len(source) - 1]}-{source}"
    free, n = stem, 1
    while free in taken:
        n += 1
        free = f"{stem[: MAX_SLUG - len(str(n)) - 1]}-{n}"
    label = BookSource(source).label
    warning = Problem(
        "slug",
        f'{ruleset.slug}/{slug} is already the book "{holder.name}" ({BookSource(holder.source).label}): '
        f'this book "{book["name"]}" ({label}) is kept beside it as {ruleset.slug}/{free}, '
        "and lists of either keep working",
    )
    return free, warning


def versions_named(faction: Faction, version: str) -> list[BookVersion]:
    """The faction's versions held under `version`: the name itself and its `+N` forms."""
    rows = BookVersion.objects.filter(faction=faction, version__startswith=version)
    return [row for row in rows if row.version == version or _base_name(row.version) == version]


def held_version_name(faction: Faction, version: str) -> str | None:
    """The name of a version held under `version` (itself or a `+N` form), or None."""
    held = versions_named(faction, version)
    return held[0].version if held else None


def _base_name(version: str) -> str | None:
    """The name a repeat was made from ("3.5.2+2" -> "3.5.2"), or None."""
    match = _REPEAT_RE.match(version)
    if match is None or repeat_name(match["name"], int(match["n"])) != version:
        return None
    return match["name"]


def repeat_name(version: str, n: int) -> str:
    """The name of the n-th version held under `version`."""
    return f"{version}{'.' if '+' in version else '+'}{n}"


def next_version_name(version: str, held: Iterable[str]) -> str:
    """`version` when no version of that name is held, else `<version>+N`, N one more
    than the highest held (the first repeat is +2)."""
    held = list(held)
    if not held:
        return version
    numbers = [int(m["n"]) for name in held if _base_name(name) == version and (m := _REPEAT_RE.match(name))]
    return repeat_name(version, max([1, *numbers]) + 1)


def same_content(document: dict[str, Any], held: BookVersion) -> bool:
    """Whether `document` (armybook/1, as a version keeps it) says what the version
    `held` says. The core rules of Army Forge's a book names are the book's content, their
    texts are not: they are the core rules read when it was imported (the book records
    which), so a book imported again after Army Forge's core rules changed is the same
    book, read with the core rules it was read with first."""
    if content_hash({**document, "version": held.version}) == held.content_hash:
        return True
    return held.document is not None and _book_alone(document) == _book_alone(
        {**held.document, "version": held.version}
    )


def _book_alone(document: dict[str, Any]) -> dict[str, Any]:
    """The document without what it took from Army Forge's core rules: their version and texts."""
    rules = [{**rule, "text": ""} if rule.get("core") else rule for rule in document.get("rules", ())]
    return {**{k: v for k, v in document.items() if k != "armyforge_rules"}, "rules": rules, "version": ""}
