"""Which book a version belongs to, and what its version is called.

A book is (ruleset, slug) and takes versions from one source only (BookSource): an Army
Forge book is found by its Army Forge id, a bundled or uploaded one by the slug it came
with. A book of another source under the same slug is a namesake: the newcomer is kept
as a book of its own under a free slug (`free_slug`), so that neither overwrites the
other and the lists of both keep working.

Versions are named by the book's own version; the same name with other content is kept
as `<version>+2`, `+3`, … (`next_version_name`; `.2`, `.3` after a version that has build
metadata already, "1.0.0+admin.1.2", so that every name is a version armybook/1 takes).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django.db.models import Q

from armybuilder.stamps import content_hash
from factions.armybook import Problem
from factions.models import BookSource, BookVersion, Faction, Ruleset

_REPEAT_RE = re.compile(r"^(?P<name>.+)[+.](?P<n>[0-9]{1,6})$")
MAX_SLUG = 80


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


def version_key(version: str) -> tuple[int, ...]:
    """A version's numbers, to order versions: "3.5.2+2" -> (3, 5, 2)."""
    core = version.split("-", 1)[0].split("+", 1)[0]
    return tuple(int(part) for part in core.split(".") if part.isdigit())


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
