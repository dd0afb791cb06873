"""Army Forge's names for what the site names otherwise: its game systems (our rulesets),
its ids (ours), its versions of a book (ours). Every part of the package reads them here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from factions.versions import Version, VersionError


@dataclass(frozen=True)
class ArmyForgeGame:
    """One of Army Forge's game systems, as Army Forge names it."""

    slug: str  # `gameSystemSlug`, and in its book index's address
    id: int  # in `enabledGameSystems` / `gameSystemId`, and in its book's address
    code: str  # the short code in its list files
    title: str  # what Army Forge calls it


# The one table of Army Forge's game systems: our ruleset -> Army Forge's game. The
# book reader, the sync and the list files read it.
ARMYFORGE_GAMES = {
    "aof": ArmyForgeGame("age-of-fantasy", 4, "aof", "Age of Fantasy"),
    "aof-skirmish": ArmyForgeGame("age-of-fantasy-skirmish", 5, "aofs", "Age of Fantasy: Skirmish"),
    "aof-regiments": ArmyForgeGame("age-of-fantasy-regiments", 6, "aofr", "Age of Fantasy: Regiments"),
}
GAME_SYSTEM_IDS = {game.id: ours for ours, game in ARMYFORGE_GAMES.items()}
# Any name Army Forge or a list file gives a game (or ours) -> our ruleset.
GAME_SYSTEM_NAMES = {name: ours for ours, game in ARMYFORGE_GAMES.items() for name in (game.slug, game.code, ours)}
SUPPORTED_SYSTEMS = tuple(sorted(ARMYFORGE_GAMES))
# Our ruleset -> Army Forge's game system code, in its list files.
GAME_CODES = {ours: game.code for ours, game in ARMYFORGE_GAMES.items()}
# Every game system Army Forge's lists may be of, ours or not, by that code: to name it.
GAME_TITLES = {
    "gf": "Grimdark Future",
    "gff": "Grimdark Future: Firefight",
    "gfsq": "Grimdark Future: Squad",
    "ftl": "Warfleets: FTL",
    "aofq": "Age of Fantasy: Quest",
    **{game.code: game.title for game in ARMYFORGE_GAMES.values()},
}

_ID_RE = re.compile(r"^[A-Za-z0-9]")


def ruleset_of(value: Any) -> str | None:
    """Our ruleset slug for an Army Forge game system (id, slug or short code), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return GAME_SYSTEM_IDS.get(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text.isascii() and text.isdigit() and len(text) <= 6:  # not "²", nor 5,000 digits
            return GAME_SYSTEM_IDS.get(int(text))
        return GAME_SYSTEM_NAMES.get(text)
    return None


def our_id(armyforge_id: str) -> str:
    """The id we store for an Army Forge id. Army Forge ids are nanoids (letters, digits,
    `_` and `-`); ours must start with a letter or digit, so an id that does not gets the
    prefix `af.` (no Army Forge id holds a dot, so no two ids can meet)."""
    return armyforge_id if _ID_RE.match(armyforge_id) else f"af.{armyforge_id}"


def armyforge_id(our: str) -> str:
    """The Army Forge id of one of ours (our_id undone)."""
    return our[3:] if our.startswith("af.") else our


def version_name(version_string: str) -> str:
    """The name a book's `versionString` is held under: Army Forge's versions are "3.5.2",
    a bare "3.5" is "3.5.0"; a text that is no version is left as it is, for the book's
    checks to name."""
    try:
        return str(Version.parse(version_string))
    except VersionError:
        return version_string


def release_of(version: str) -> str:
    """The book's own version of a version held ("3.5.2+2", read again with other
    content, is of "3.5.2"): what Army Forge calls it."""
    try:
        return Version.parse(version).release
    except VersionError:  # a name no import gives: its text before "+"
        return version.split("+", 1)[0]
