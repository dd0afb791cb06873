"""Army Forge lists made from an Army Forge army book, for tests of the list import and
export, in the two shapes Army Forge hands a list out (../shared/armyforge/lists/ holds a
real example of each):

- `share_file`: the "Share as File" download (saveVersion 3): each unit's picks as
  section and option uids, the book versions the list was built on, Army Forge's total.
- `share_api`: what a share link answers (GET {ARMYFORGE_URL}/api/tts?id=…): each unit
  with the book's data for it, every picked section and option in full, no book version.

A list is plain data (`ArmyForgeList`), made from a `random.Random` (`random_list`: one
seed, one list) or from an explicit selection (`chosen_list`). Army Forge's prices are
worked out here from the book alone (`unit_cost`, `armyforge_total`), and
`expected_entries` says what the list is as armylist/1 entries, to compare ours against.
"""

from __future__ import annotations

import copy
import hashlib
import random
import string
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from armybuilder.armyforge.ids import our_id

Json = dict[str, Any]
Pick = tuple[Json, Json]  # (section, option) of the Army Forge book, as the book holds them

NANOID = string.ascii_letters + string.digits + "_-"
MODIFIED = "2025-03-01T12:00:00.000Z"
SAVE_VERSION = 3
# Army Forge's code of each game system, by our ruleset slug.
GAME_CODES = {"aof": "aof", "aof-skirmish": "aofs", "aof-regiments": "aofr"}
# Games with combined units and heroes joined to units (Skirmish has neither).
JOINING_GAMES = ("aof", "aofr")

# Words of our own for names, notes and campaign traits.
NAMES = ("Old Thorn", "The Ashen Few", "Brannoc's Own", "Hollow Wardens", "Greyfen Watch")
NOTES = ("Painted in autumn colours.", "Counts as the river company.", "Deploys last.")
TRAITS = ("Steady Hands", "Keen Eye", "Hard to Kill", "Quick Study")


@dataclass
class ListUnit:
    """One Army Forge unit of a list: a half of a combined unit is a unit of its own."""

    selection_id: str
    unit_id: str
    picks: list[Pick] = field(default_factory=list)  # an option picked twice is there twice
    combined: bool = False
    join_to: str | None = None  # joinToUnit: the first half (second halves), or the unit a hero joins
    custom_name: str | None = None
    notes: str | None = None
    xp: int = 0
    traits: list[str] = field(default_factory=list)


@dataclass
class ArmyForgeList:
    """An Army Forge list, neutral to the two formats."""

    game: str  # Army Forge's game system code: aof, aofs, aofr
    book: Json  # the Army Forge army book the list is built on
    version: str  # the book's versionString
    points_limit: int
    units: list[ListUnit]
    force_org: bool = True
    name: str = "Test List"
    description: str = ""
    id: str = "TestList0001"
    key: str = "TestListKey0000000001"

    @property
    def army_id(self) -> str:
        return self.book["uid"]

    def unit_of(self, list_unit: ListUnit) -> Json:
        """The Army Forge book's unit the list unit is."""
        return book_unit(self.book, list_unit.unit_id)


# -- reading the book ------------------------------------------------------------------------
def book_unit(book: Json, unit_id: str) -> Json:
    """The unit of `book` with the id (or, for readable tests, the name) `unit_id`."""
    for unit in book["units"]:
        if unit_id in (unit["id"], unit["name"]):
            return unit
    raise KeyError(f"no unit {unit_id!r} in {book['name']}")


def is_hero(unit: Json) -> bool:
    return any(rule.get("name") == "Hero" for rule in unit.get("rules") or [])


def may_combine(unit: Json) -> bool:
    """Army Forge combines two copies of a unit of several models, never of a hero."""
    return unit["size"] > 1 and not is_hero(unit)


def sections_of(book: Json, unit: Json) -> list[Json]:
    """The sections `unit` gets: those of its packages, in order, less the ones (or the
    packages) it switches off by uid or id."""
    packages = {package["uid"]: package for package in book["upgradePackages"]}
    off = {x for key in ("disabledSections", "disabledUpgradeSections") for x in unit.get(key) or []}
    sections = []
    for uid in dict.fromkeys(unit.get("upgrades") or []):
        if uid in off or uid not in packages:
            continue
        for section in packages[uid]["sections"]:
            if section.get("uid") not in off and section.get("id") not in off and section.get("options"):
                sections.append(section)
    return sections


def offered(book: Json, unit: Json) -> Iterator[Pick]:
    """(section, option) of every option Army Forge offers `unit`."""
    for section in sections_of(book, unit):
        for option in section["options"]:
            yield section, option


def package_of(book: Json, section: Json) -> str:
    """The uid of the package holding `section`."""
    if section.get("parentPackageUid"):
        return section["parentPackageUid"]
    return next(p["uid"] for p in book["upgradePackages"] if any(s is section for s in p["sections"]))


def section_kind(section: Json) -> str:
    """How our book reads the section: replace, upgrade, or attachment (an upgrade that
    names what it goes on, "Upgrade all Longbows with one")."""
    if section["variant"] == "upgrade" and section.get("targets"):
        return "attachment"
    return section["variant"]


def whole_unit(section: Json) -> bool:
    """Army Forge buys these for each half of a combined unit, where our combined entry
    holds them once: an upgrade of the unit or of all its models, a replacement of all of
    an item. Other sections cover some models or items, and the halves' picks add up."""
    affects = (section.get("affects") or {}).get("type")
    if section["variant"] == "upgrade":
        return affects in (None, "all")
    return affects == "all"


# -- Army Forge's prices ---------------------------------------------------------------------
def option_cost(unit: Json, option: Json) -> int:
    """What Army Forge charges `unit` for one pick of `option`: the option's cost for that
    unit when it has one, else its cost."""
    own = {entry["unitId"]: entry["cost"] for entry in option.get("costs") or []}
    return own.get(unit["id"], option.get("cost") or 0)


def unit_cost(lst: ArmyForgeList, list_unit: ListUnit) -> int:
    """Army Forge's price of one unit of the list (a half of a combined unit on its own):
    the unit's cost and each pick of an option."""
    unit = lst.unit_of(list_unit)
    return unit["cost"] + sum(option_cost(unit, option) for _section, option in list_unit.picks)


def armyforge_total(lst: ArmyForgeList) -> int:
    """Army Forge's total of the list (its `listPoints`)."""
    return sum(unit_cost(lst, list_unit) for list_unit in lst.units)


# -- making lists ----------------------------------------------------------------------------
def nanoid(rng: random.Random, size: int) -> str:
    """An id in the shape of Army Forge's (letters, digits, `_` and `-`)."""
    return "".join(rng.choice(NANOID) for _ in range(size))


def nanoid_of(text: str, size: int) -> str:
    """A nanoid-shaped id fixed by `text`, for ids the list does not hold (instance ids)."""
    digest = hashlib.sha256(text.encode()).digest()
    return "".join(NANOID[byte % len(NANOID)] for byte in digest[:size])


def chosen_list(
    book: Json,
    selections: Sequence[Mapping[str, Any]],
    *,
    game: str = "aof",
    points_limit: int | None = None,
    name: str = "Chosen List",
    description: str = "",
    rng: random.Random | None = None,
    version: str | None = None,
) -> ArmyForgeList:
    """A list of the units `selections` name, in order. Each selection is a mapping:

    - "unit": the unit's id or name (required);
    - "options": option uids, one per pick (an option named twice is picked twice);
    - "combined": two halves with the same picks (the second right after the first);
    - "join": the index of the selection this one (a hero) joins; it names its first half;
    - "id": its selectionId (else one is drawn); "name" (customName), "notes", "xp", "traits".

    Raises ValueError for an option the unit is not offered."""
    rng = rng or random.Random(0)
    ids: list[str] = []
    units: list[ListUnit] = []
    for selection in selections:
        unit = book_unit(book, selection["unit"])
        picks = [_offered_pick(book, unit, uid) for uid in selection.get("options", ())]
        first = ListUnit(
            selection_id=selection.get("id") or _fresh_id(rng, ids),
            unit_id=unit["id"],
            picks=picks,
            combined=bool(selection.get("combined")),
            custom_name=selection.get("name"),
            notes=selection.get("notes"),
            xp=selection.get("xp", 0),
            traits=list(selection.get("traits", ())),
        )
        ids.append(first.selection_id)
        units.append(first)
        if first.combined:
            second = ListUnit(
                selection_id=_fresh_id(rng, ids),
                unit_id=unit["id"],
                picks=list(picks),
                combined=True,
                join_to=first.selection_id,
                custom_name=first.custom_name,
            )
            ids.append(second.selection_id)
            units.append(second)
    firsts = [u for u in units if not (u.combined and u.join_to)]
    for selection, list_unit in zip(selections, firsts, strict=True):
        if selection.get("join") is not None:
            list_unit.join_to = firsts[selection["join"]].selection_id
    lst = ArmyForgeList(
        game=game,
        book=book,
        version=version or book["versionString"],
        points_limit=0,
        units=units,
        name=name,
        description=description,
        id=nanoid(rng, 12),
        key=nanoid(rng, 21),
    )
    lst.points_limit = points_limit or round_up(armyforge_total(lst))
    return lst


def round_up(total: int, step: int = 250) -> int:
    """A points limit the list fits in: the total rounded up to a step."""
    return max(step, -(-total // step) * step)


def random_list(
    book: Json,
    rng: random.Random,
    *,
    game: str = "aof",
    units: tuple[int, int] = (3, 8),
    combined: bool = True,
    joined: bool = True,
    campaign: bool = False,
) -> ArmyForgeList:
    """A list of `units` (fewest, most) entries of the book, a combined unit counted
    once, each with options of about half the sections it gets (see `_random_options`).
    Where the game and the book allow it, one entry is a combined unit (when `combined`)
    and one a hero joined to a unit of several models (when `joined`), half the time
    naming the second half of a combined unit, as Army Forge may write it. Some units get
    a custom name (once in a while their own name) and a note; with `campaign`, some get
    XP and traits."""
    heroes = [u for u in book["units"] if is_hero(u)]
    troops = [u for u in book["units"] if not is_hero(u)]
    joins = game in JOINING_GAMES
    count = rng.randint(*units)
    chosen: list[dict[str, Any]] = [{"unit": rng.choice(book["units"])["id"]} for _ in range(count)]
    combinable = [u for u in troops if may_combine(u)]
    if combined and joins and combinable:
        chosen[rng.randrange(count)] = {"unit": rng.choice(combinable)["id"], "combined": True}
    if joined and joins and heroes and combinable and count > 1:
        host = next((i for i, s in enumerate(chosen) if s.get("combined")), None)
        if host is None:
            host = rng.randrange(count)
            chosen[host] = {"unit": rng.choice(combinable)["id"]}
        hero = rng.choice([i for i in range(count) if i != host])
        chosen[hero] = {"unit": rng.choice(heroes)["id"], "join": host}
    for selection in chosen:
        unit = book_unit(book, selection["unit"])
        selection["options"] = _random_options(book, unit, rng)
        if rng.random() < 0.3:
            selection["name"] = unit["name"] if rng.random() < 0.2 else rng.choice(NAMES)
        if rng.random() < 0.25:
            selection["notes"] = rng.choice(NOTES)
        if campaign and rng.random() < 0.4:
            selection["xp"] = rng.randint(1, 12)
            selection["traits"] = rng.sample(TRAITS, rng.randint(0, 2))
    lst = chosen_list(book, chosen, game=game, name=f"{book['name']} {rng.randint(1, 999)}", rng=rng)
    second_halves = {u.join_to: u.selection_id for u in lst.units if u.combined and u.join_to}
    for list_unit in lst.units:
        if list_unit.join_to in second_halves and not list_unit.combined and rng.random() < 0.5:
            list_unit.join_to = second_halves[list_unit.join_to]
    return lst


def _random_options(book: Json, unit: Json, rng: random.Random) -> list[str]:
    """Option uids for `unit`, one per pick, from about half of its sections: up to the
    section's `select` count of options where it has one; else, in an upgrade section,
    any of its options once each; else one option. Where a section covers any (or up to
    N) models or items, a unit of several models sometimes takes its option twice. A
    replacement of an item already replaced is left out."""
    uids: list[str] = []
    replaced: set[str] = set()
    for section in sections_of(book, unit):
        targets = set(section.get("targets") or [])
        if rng.random() < 0.45 or (section["variant"] == "replace" and targets & replaced):
            continue
        options = section["options"]
        select = section.get("select") or {}
        affects = (section.get("affects") or {}).get("type")
        if select.get("type") in ("exactly", "up to", "upto") and isinstance(select.get("value"), int):
            picked = rng.sample(options, min(len(options), rng.randint(1, select["value"])))
        elif section["variant"] == "upgrade" and affects not in ("any", "up to"):
            picked = rng.sample(options, rng.randint(1, len(options)))  # each option once
        else:
            picked = [rng.choice(options)]
        times = 2 if affects in ("any", "up to") and unit["size"] > 1 and rng.random() < 0.5 else 1
        uids.extend(option["uid"] for option in picked for _ in range(times))
        if section["variant"] == "replace":
            replaced |= targets
    return uids


def _offered_pick(book: Json, unit: Json, uid: str) -> Pick:
    for section, option in offered(book, unit):
        if uid in (option.get("uid"), option.get("id")):
            return section, option
    raise ValueError(f"{unit['name']} is not offered option {uid!r} in {book['name']}")


def _fresh_id(rng: random.Random, taken: list[str]) -> str:
    while (new := nanoid(rng, 5)) in taken:
        pass
    return new


# -- the two formats -------------------------------------------------------------------------
def share_file(lst: ArmyForgeList) -> Json:
    """The list as Army Forge's "Share as File" download (saveVersion 3)."""
    return {
        "id": lst.id,
        "gameSystem": lst.game,
        "armyId": lst.army_id,
        "armyIds": [lst.army_id],
        "armyFaction": lst.book.get("factionName") or lst.book["name"],
        "armyName": lst.book["name"],
        "modified": MODIFIED,
        "saveVersion": SAVE_VERSION,
        "favourite": False,
        "armyVersions": [{"version": lst.version, "armyId": lst.army_id}],
        "listPoints": armyforge_total(lst),
        "list": {
            "id": lst.id,
            "key": lst.key,
            "name": lst.name,
            "description": lst.description,
            "pointsLimit": lst.points_limit,
            "campaignMode": _campaign(lst),
            "narrativeMode": False,
            "forceOrg": lst.force_org,
            "gameSystem": lst.game,
            "isCloud": False,
            "modified": MODIFIED,
            "cloudModified": None,
            "activationCount": activation_count(lst),
            "modelCount": model_count(lst),
            "units": [_file_unit(lst, list_unit) for list_unit in lst.units],
        },
    }


def _file_unit(lst: ArmyForgeList, list_unit: ListUnit) -> Json:
    out: Json = {
        "id": list_unit.unit_id,
        "armyId": lst.army_id,
        "selectionId": list_unit.selection_id,
        "selectedUpgrades": [
            {"instanceId": instance, "upgradeId": section["uid"], "optionId": option["uid"]}
            for instance, (section, option) in _instances(list_unit)
        ],
        "combined": list_unit.combined,
        "joinToUnit": list_unit.join_to,
    }
    if list_unit.custom_name is not None:
        out["customName"] = list_unit.custom_name
    out.update({"xp": list_unit.xp, "traits": list(list_unit.traits), "notes": list_unit.notes})
    return out


# The book unit's fields a share link's unit carries, as the book has them: these always
# (with a default), `disabledSections` where the book has it.
API_UNIT_FIELDS = {
    "id": None,
    "cost": 0,
    "name": None,
    "size": 1,
    "bases": None,
    "items": [],
    "rules": [],
    "valid": True,
    "defense": None,
    "quality": None,
    "weapons": [],
    "upgrades": [],
    "hasCustomRule": False,
}
API_SECTION_FIELDS = ("select", "affects", "targets", "model", "isHeroUpgrade")


def share_api(lst: ArmyForgeList) -> Json:
    """The list as an Army Forge share link answers it (GET /api/tts?id=…). Each unit's
    `cost` is the book's cost of the unit, as in Army Forge's answer (the real example's
    two halves of a combined unit both say 115 with upgrades of 115 and 125 pts): its
    price is that and the options, each given in full with its per-unit costs."""
    return {
        "id": lst.id,
        "name": lst.name,
        "isCloud": False,
        "forceOrg": lst.force_org,
        "modified": MODIFIED,
        "gameSystem": lst.game,
        "modelCount": model_count(lst),
        "description": lst.description,
        "pointsLimit": lst.points_limit,
        "campaignMode": _campaign(lst),
        "cloudModified": MODIFIED,
        "narrativeMode": False,
        "activationCount": activation_count(lst),
        "listPoints": armyforge_total(lst),
        "units": [_api_unit(lst, list_unit) for list_unit in lst.units],
        "specialRules": [],
        "forceOrgErrors": [],
    }


def _api_unit(lst: ArmyForgeList, list_unit: ListUnit) -> Json:
    unit = lst.unit_of(list_unit)
    out: Json = {key: copy.deepcopy(unit.get(key, default)) for key, default in API_UNIT_FIELDS.items()}
    if "disabledSections" in unit:
        out["disabledSections"] = list(unit["disabledSections"])
    out.update(
        {
            "hasBalanceInvalid": bool(unit.get("hasBalanceInvalid")),
            "disabledUpgradeSections": list(unit.get("disabledUpgradeSections") or []),
            "armyId": lst.army_id,
            "xp": list_unit.xp,
            "notes": list_unit.notes,
            "traits": list(list_unit.traits),
            "combined": list_unit.combined,
        }
    )
    if list_unit.custom_name is not None:
        out["customName"] = list_unit.custom_name
    out.update(
        {
            "joinToUnit": list_unit.join_to,
            "selectionId": list_unit.selection_id,
            "selectedUpgrades": [
                {"instanceId": instance, "upgrade": _api_section(lst.book, section), "option": copy.deepcopy(option)}
                for instance, (section, option) in _instances(list_unit)
            ],
            "loadout": [],
        }
    )
    return out


def _api_section(book: Json, section: Json) -> Json:
    out: Json = {
        "id": section["id"],
        "uid": section["uid"],
        "label": section["label"],
        "parentPackageUid": package_of(book, section),
        "type": "ArmyBookUpgradeSection",
        "variant": section["variant"],
    }
    out.update({key: copy.deepcopy(section[key]) for key in API_SECTION_FIELDS if key in section})
    return out


def _instances(list_unit: ListUnit) -> list[tuple[str, Pick]]:
    """Each pick with an instance id of its own, the same in both formats."""
    return [(nanoid_of(f"{list_unit.selection_id}/{i}", 9), pick) for i, pick in enumerate(list_unit.picks)]


def _campaign(lst: ArmyForgeList) -> bool:
    return any(u.xp or u.traits for u in lst.units)


def model_count(lst: ArmyForgeList) -> int:
    return sum(lst.unit_of(u)["size"] for u in lst.units)


def activation_count(lst: ArmyForgeList) -> int:
    """Units that activate on their own: not second halves, not joined heroes."""
    return sum(1 for u in lst.units if not u.join_to)


# -- what it is here -------------------------------------------------------------------------
def expected_entries(lst: ArmyForgeList) -> list[Json]:
    """The list as armylist/1 entries, as the import should make them: one per unit, the
    second half of a combined unit folded into the first (whole-unit picks once, others
    added up), a join to a second half moved to the first, ids as we store them."""
    second_halves = {u.selection_id: u.join_to for u in lst.units if u.combined and u.join_to}
    halves: dict[str, list[ListUnit]] = {}
    for list_unit in lst.units:
        halves.setdefault(second_halves.get(list_unit.selection_id, list_unit.selection_id), []).append(list_unit)
    entries = []
    for list_unit in lst.units:
        if list_unit.selection_id in second_halves:
            continue
        unit = lst.unit_of(list_unit)
        options: Counter[str] = Counter()
        for part in halves[list_unit.selection_id]:
            for section, option in part.picks:
                if part is list_unit or not whole_unit(section):
                    options[our_id(option["uid"])] += 1
        custom = (list_unit.custom_name or "").strip()
        join = list_unit.join_to
        entries.append(
            {
                "id": list_unit.selection_id,
                "unit": our_id(unit["id"]),
                "options": dict(options),
                "combined": list_unit.combined,
                "joined_to": second_halves.get(join, join) if join else None,
                "name": custom if custom and custom != unit["name"].strip() else None,
            }
        )
    return entries


def entry_costs(lst: ArmyForgeList) -> dict[str, int]:
    """Army Forge's price of each entry (both halves of a combined unit), by entry id."""
    second_halves = {u.selection_id: u.join_to for u in lst.units if u.combined and u.join_to}
    costs: Counter[str] = Counter()
    for list_unit in lst.units:
        costs[second_halves.get(list_unit.selection_id, list_unit.selection_id)] += unit_cost(lst, list_unit)
    return dict(costs)


def ruleset_of_game(game: str) -> str:
    """Our ruleset slug for an Army Forge game code."""
    return {code: slug for slug, code in GAME_CODES.items()}[game]
