"""Army Forge's army-book JSON, read into armybook/1.

Army Forge (the common One Page Rules list builder) serves each army book as JSON: units
with `quality`, `defense`, `weapons`, `rules`, `items` and `upgrades` (package uids);
`upgradePackages` → `sections` → `options` → `gains`; `specialRules`; `spells`. This
module maps such a document into our armybook/1 shape, so that the normal schema and
catalogue checks run on it afterwards (factions.armybook).

What it cannot map is reported by name, with the path in the Army Forge document
(`units[2].disabledUpgradeSections`, `upgradePackages[0].sections[1].variant`, …),
never dropped silently. The mapping decisions are listed in README.md ("Army Forge").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.text import slugify

from armybuilder.engine.book import name_forms, split_rule
from armybuilder.engine.labels import item_label, label_parts, weapon_label
from armybuilder.engine.meanings import LEGACY_NOTES
from factions.armybook import ArmyBookError, Problem, RulesetInfo, check_size, gained_names


@dataclass(frozen=True)
class ArmyForgeGame:
    """One of Army Forge's game systems, as Army Forge names it."""

    slug: str  # `gameSystemSlug`, and in its book index's address
    id: int  # in `enabledGameSystems` / `gameSystemId`, and in its book's address
    code: str  # the short code in its list files
    title: str  # what Army Forge calls it


# The one table of Army Forge's game systems: our ruleset -> Army Forge's game. The
# converter, the sync and the Army Forge list export read it.
ARMYFORGE_GAMES = {
    "aof": ArmyForgeGame("age-of-fantasy", 4, "aof", "Age of Fantasy"),
    "aof-skirmish": ArmyForgeGame("age-of-fantasy-skirmish", 5, "aofs", "Age of Fantasy: Skirmish"),
    "aof-regiments": ArmyForgeGame("age-of-fantasy-regiments", 6, "aofr", "Age of Fantasy: Regiments"),
}
GAME_SYSTEM_IDS = {game.id: ours for ours, game in ARMYFORGE_GAMES.items()}
# Any name Army Forge or a list file gives a game (or ours) -> our ruleset.
GAME_SYSTEM_NAMES = {name: ours for ours, game in ARMYFORGE_GAMES.items() for name in (game.slug, game.code, ours)}
SUPPORTED_SYSTEMS = tuple(sorted(ARMYFORGE_GAMES))

# Where our catalogue names a core rule differently from Army Forge, for that ruleset.
# Applied only when the Army Forge name is not itself a core rule there and ours is.
RULE_ALIASES = {
    "aof-regiments": {"Caster": "Wizard", "Banner": "Battle Standard"},
    "aof-skirmish": {
        "Caster": "Wizard",
        "Banner": "Musician / Battle Standard",
        "Musician": "Musician / Battle Standard",
    },
}
# A gained rule that makes an option a command-group upgrade (armybook/1 `command`).
COMMAND_RULES = {
    "Sergeant": "sergeant",
    "Musician": "musician",
    "Banner": "banner",
    "Battle Standard": "banner",
    "Musician / Battle Standard": "musician",
}
# Words of a unit's Army Forge `genericName` that say its type in every era of Army Forge's
# names ("Chariot" in 3.5.2 is "Combat Wheel" in 3.5.3, but no chariot is called anything
# else): the rest of a unit's type is read from what it is (unit_type_of).
TYPE_WORDS = {"chariot": "chariot", "chariots": "chariot", "artillery": "artillery"}
BIG_TOUGH = 6  # Tough(6) or more: a single large model (a monster, a chariot)
BIG_BASE = 100  # mm: a base this long on a side (or a round one of 60) holds a large model
# The fields of each kind of thing in an Army Forge book that the importer knows, read
# or not (`bases` and `genericName` for a unit's type, `label` to check what was read,
# `valid`, `hint` and the like are Army Forge's editor's own). Any other field is named in
# a warning: Army Forge may have given a meaning the site does not carry over.
KNOWN_FIELDS = {
    "unit": frozenset(
        "id cost name size bases items rules valid defense quality weapons upgrades genericName hasCustomRule "
        "disabledSections hasBalanceInvalid disabledUpgradeSections type isNarrative key".split()
    ),
    "weapon": frozenset(
        "id name type range attacks weaponId specialRules attacksMultiplier label count originalCount".split()
    ),
    "rule": frozenset("type id name rating label count additional modify".split()),
    "item": frozenset("id name type bases content count label".split()),
    "package": frozenset("uid hint sections calcErrors".split()),
    "section": frozenset(
        "id uid label options parentPackageUid type variant targets select model affects isHeroUpgrade "
        "isLowPrio".split()
    ),
    "option": frozenset("uid id cost type costs gains label parentPackageUid parentSectionUid parentSectionId".split()),
    "special rule": frozenset("id name aliasedRuleId description hasRating coreType targetType".split()),
    "spell": frozenset("id cost name type effect threshold generation costFormula spellbookId effectSkirmish".split()),
    "cost": frozenset("unitId cost exactCost".split()),
}
_COUNT_LABEL_RE = re.compile(r"\A\d{1,4}x ")  # "2x Heavy Fist (A3)": two a model, at the start
SECTION_VARIANTS = ("replace", "upgrade", "attachment")
COUNT_TYPES = {"exactly": "exactly", "upto": "up to", "all": "all", "any": "any"}
MAX_DESCRIPTION = 5000
_ID_RE = re.compile(r"^[A-Za-z0-9]")
SlugLookup = Callable[[str, str], str | None]  # (ruleset, Army Forge book uid) -> slug


@dataclass(frozen=True)
class HeldCoreRules:
    """Army Forge's core rules as the site holds them for a ruleset: the version (the day
    they were read) and each rule's text by name."""

    version: str
    texts: Mapping[str, str]


CoreLookup = Callable[[str], HeldCoreRules | None]  # ruleset -> the core rules held now, if any


def core_rules_source(system: str, version: str) -> str:
    """Where a player reads the core rules of Army Forge's a book of `system` was read
    with, as Army Forge names them: "Age of Fantasy core rules (Army Forge, 2026-11-29)"."""
    game = ARMYFORGE_GAMES.get(system)
    name = f"{game.title} core rules" if game else "Core rules"
    return f"{name} (Army Forge, {version})" if version else f"{name} (Army Forge)"


def is_armyforge_book(data: Any) -> bool:
    """An Army Forge army book rather than an armybook/1 document."""
    return (
        isinstance(data, dict)
        and "format" not in data
        and any(key in data for key in ("upgradePackages", "enabledGameSystems", "gameSystemId", "gameSystemSlug"))
    )


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


# What books imported before Army Forge's core rules were read wrote in place of the text
# of a rule they name but do not describe; documents kept since still carry them, which
# engine/meanings.py reads as no text.
NEWER_RULE_NOTE, MISSING_RULE_NOTE = LEGACY_NOTES
MAX_RULE_TEXT = 2000
CORE_TYPE = 1  # a rule's `coreType` when it is one of Army Forge's core rules
# A rule for building lists, by what it says: Unique's "may only be taken once per army",
# and anything else of that kind (which is shown but not enforced, with a warning).
ONCE_PER_ARMY_RE = re.compile(r"\bmay (only )?be (taken|included|fielded) (only )?once (per|in an?|in your) army\b")
LIST_RULE_RE = re.compile(
    r"\b(per army|in (an|your|the) army( list)?|army (may|can) (only )?(take|include)"
    r"|may (only )?be (taken|included|fielded))\b"
)
MAX_NAME = 120  # unit, weapon and item names (what the database holds)
MAX_LABEL = 200  # section and option labels
MAX_SPELL_NAME = 80
# Digits read as a number at most (the patterns below say 18 too): any count, cost or
# rating is far shorter, and Python reads no number of more than 4,300 digits.
MAX_DIGITS = 18
_COUNT_PREFIX_RE = re.compile(r"(\d{1,18}) ?[x×] (.+)")  # "2x Hand Weapon", spaces already single
_WHOLE_RE = re.compile(r"[+-]?\d{1,18}")
_RANGE_RE = re.compile(r'(\d{1,18}) ?(?:"|”|in|inches)?')


@dataclass
class Conversion:
    """An Army Forge book read as armybook/1: `errors` stop the import, `warnings` are
    what was imported but needs a reader's eye. `book` holds every part that could be
    read, so that the armybook/1 checks can report on it too."""

    book: dict[str, Any]
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def armybook_from_armyforge(
    data: dict[str, Any],
    *,
    rulesets: Mapping[str, RulesetInfo],
    system: str | None = None,
    existing_slug: SlugLookup | None = None,
    core_rules: CoreLookup | None = None,
) -> Conversion:
    """The Army Forge book `data` as an armybook/1 dict for `system` (needed when the
    book is enabled for several of our rulesets and names none). `existing_slug(system,
    uid)` gives the slug of a faction already imported from this book, so a renamed book
    replaces it; `core_rules(system)` the core rules of Army Forge's held for the ruleset,
    whose texts explain the rules the book names without describing them (the book
    records their version). Raises ArmyBookError when the book cannot be read at all (no
    ruleset, no units); otherwise every problem found comes back in the Conversion."""
    return _BookConverter(data, rulesets, system, existing_slug, core_rules).convert()


class _BookConverter:
    def __init__(
        self,
        data: dict[str, Any],
        rulesets: Mapping[str, RulesetInfo],
        system: str | None,
        existing_slug: SlugLookup | None,
        core_rules: CoreLookup | None = None,
    ):
        self.data = data
        self.rulesets = rulesets
        self.requested = system
        self.existing_slug = existing_slug
        self.core_lookup = core_rules
        self.core: HeldCoreRules | None = None
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.used_rules: dict[str, dict[str, Any]] = {}  # name -> {rated, unrated, path}
        self.unknown: dict[tuple[str, str], list[str]] = {}  # (kind, field) -> paths where given

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def warn(self, path: str, message: str) -> None:
        self.warnings.append(Problem(path, message))

    def fields(self, path: str, kind: str, thing: dict[str, Any]) -> None:
        """Note the fields of `thing` (a `kind` of KNOWN_FIELDS) the importer does not know."""
        known = KNOWN_FIELDS[kind]
        for key in thing:
            if key not in known:
                self.unknown.setdefault((kind, str(key)[:80]), []).append(f"{path}.{str(key)[:80]}")

    def _unknown_fields(self) -> None:
        """One warning per field the importer does not know, with where it first is."""
        for (kind, key), paths in self.unknown.items():
            more = f" (and {len(paths) - 1} more)" if len(paths) > 1 else ""
            self.warn(
                paths[0],
                f'Army Forge gives {kind}s a field "{key}"{more}, which the importer does not know: it is left out, '
                "so what it says is not carried over",
            )

    def check_label(self, path: str, what: str, label: Any, ours: str) -> None:
        """Warn when what was read is not what Army Forge's own label says: the label is
        what a player checks a card against."""
        if not isinstance(label, str) or not label.strip():
            return
        theirs = _COUNT_LABEL_RE.sub("", " ".join(label.split()), count=1)
        mine = _COUNT_LABEL_RE.sub("", ours, count=1)
        if theirs != mine and _unordered(theirs) != _unordered(mine):
            self.warn(f"{path}.label", f'Army Forge labels {what} "{_cut(theirs, 200)}"; it reads here as "{mine}"')

    def _is_object(self, path: str, thing: Any, what: str) -> bool:
        """Whether `thing` (`what`: "a rule", "an item") is an object; if not, a warning
        that it is left out."""
        if isinstance(thing, dict):
            return True
        self.warn(path, f"not {what} object: left out")
        return False

    def _name(self, path: str, thing: Any, what: str) -> str | None:
        """The name of an object that must have one (a rule, a weapon, an item); None,
        with a warning that it is left out, when it is not an object or has no name."""
        if not self._is_object(path, thing, what):
            return None
        name = thing.get("name")
        if not isinstance(name, str) or not name.strip():
            self.warn(f"{path}.name", f"{what} without a name: left out")
            return None
        return name

    # -- the whole book ----------------------------------------------------------------
    def convert(self) -> Conversion:
        data = self.data
        oversized = check_size(data, packages="upgradePackages", rules="specialRules")
        if oversized:
            raise ArmyBookError(oversized)
        system = self._system()
        uid = self._string(data, "uid", "uid")
        name = self._string(data, "name", "name")
        version = self._string(data, "versionString", "versionString")
        units = self._list(data, "units", "units", required=True)
        packages = self._list(data, "upgradePackages", "upgradePackages", required=True)
        special_rules = self._list(data, "specialRules", "specialRules")
        spells = self._list(data, "spells", "spells")
        if self.problems or system is None:
            raise ArmyBookError(self.problems)
        self.system = system
        self.ruleset = self.rulesets[system]
        self.aliases = {
            source: target
            for source, target in RULE_ALIASES.get(system, {}).items()
            if source not in self.ruleset.core_rules and target in self.ruleset.core_rules
        }
        self.hero_is_core = "Hero" in self.ruleset.core_rules
        self.core = self.core_lookup(system) if self.core_lookup is not None else None
        self.section_uids = self._section_index(packages)
        self.users = self._package_users(units)
        self.emitted_sections: set[str] = set()

        book: dict[str, Any] = {
            "format": "armybook/1",
            "system": system,
            "slug": self._slug(system, uid, name),
            "name": name,
            "version": _version(version),
        }
        description = data.get("background")
        if isinstance(description, str) and description.strip():
            book["description"] = _cut(description.strip(), MAX_DESCRIPTION)
        book["armyforge_id"] = uid
        if self.core is not None:
            book["armyforge_rules"] = self.core.version
        book["spells"] = [s for i, spell in enumerate(spells) if (s := self._spell(f"spells[{i}]", spell))]
        # Packages before units: a unit leaves out only sections that were imported.
        book["packages"] = [p for i, pkg in enumerate(packages) if (p := self._package(f"upgradePackages[{i}]", pkg))]
        book["units"] = [u for i, unit in enumerate(units) if (u := self._unit(f"units[{i}]", unit))]
        # Rules last: which the book needs is known once every unit and option is read.
        book["rules"] = self._faction_rules(special_rules)
        self._unknown_fields()
        _resolve_targets(book)
        order = (
            *("format", "system", "slug", "name", "version", "description"),
            *("armyforge_id", "armyforge_rules", "rules", "spells"),
        )
        book = {key: book[key] for key in (*order, "units", "packages") if key in book}
        return Conversion(book, self.problems, self.warnings)

    def _section_index(self, packages: list[Any]) -> dict[str, tuple[str, str]]:
        """Each section's Army Forge uid and id -> (package uid, our section id)."""
        index: dict[str, tuple[str, str]] = {}
        for package in packages:
            if not isinstance(package, dict) or not isinstance(package.get("uid"), str):
                continue
            for section in _as_list(package.get("sections")):
                section_id = _uid(section) if isinstance(section, dict) else None
                if section_id is None:
                    continue
                for key in ("uid", "id"):
                    if isinstance(section.get(key), str):
                        index[section[key]] = (package["uid"], our_id(section_id))
        return index

    def _disabled(self, unit: dict[str, Any]) -> list[str]:
        ids: list[str] = []
        for key in ("disabledSections", "disabledUpgradeSections"):
            ids.extend(x for x in _as_list(unit.get(key)) if isinstance(x, str) and x)
        return ids

    def _package_users(self, units: list[Any]) -> dict[str, list[tuple[str, frozenset[str]]]]:
        """Package uid -> the units taking it, each with the section ids it does without."""
        users: dict[str, list[tuple[str, frozenset[str]]]] = {}
        for unit in units:
            if not isinstance(unit, dict) or not isinstance(unit.get("id"), str):
                continue
            without = frozenset(self.section_uids[x][1] for x in self._disabled(unit) if x in self.section_uids)
            for package in dict.fromkeys(p for p in _as_list(unit.get("upgrades")) if isinstance(p, str)):
                users.setdefault(package, []).append((our_id(unit["id"]), without))
        return users

    def _system(self) -> str | None:
        data, requested = self.data, self.requested
        if requested is not None and requested not in SUPPORTED_SYSTEMS:
            self.problem(
                "system",
                f'Army Forge books are for {", ".join(SUPPORTED_SYSTEMS)}; "{requested}" is not one of them',
            )
            return None
        named = [(key, data[key]) for key in ("gameSystemSlug", "gameSystemId") if data.get(key) not in (None, "")]
        for key, value in named:
            system = ruleset_of(value)
            if system is None:
                self.problem(key, f'Army Forge game system "{value}" is not one we build lists for')
                return None
            if requested is not None and system != requested:
                self.problem(key, f'the book is for Army Forge game system "{value}" ({system}), not {requested}')
                return None
            if system not in self.rulesets:
                self.problem(key, f'ruleset "{system}" is not in the catalogue')
                return None
            return system
        enabled = data.get("enabledGameSystems")
        if enabled is not None and not isinstance(enabled, list):
            self.problem("enabledGameSystems", "should be a list of Army Forge game system ids")
            return None
        ours = [s for s in dict.fromkeys(ruleset_of(v) for v in enabled or []) if s is not None and s in self.rulesets]
        if requested is not None:
            if enabled is not None and requested not in ours:
                listed = ", ".join(str(v) for v in enabled) or "none"
                self.problem(
                    "enabledGameSystems",
                    f"the book is not enabled for {requested} (its Army Forge game systems: {listed})",
                )
                return None
            if requested in self.rulesets:
                return requested
            self._unknown_ruleset(requested)
            return None
        if len(ours) == 1:
            return ours[0]
        if not ours:
            self.problem(
                "enabledGameSystems",
                "the book names no Age of Fantasy game system (gameSystemSlug, gameSystemId or enabledGameSystems); "
                f"choose one of {', '.join(SUPPORTED_SYSTEMS)}",
            )
        else:
            self.problem(
                "enabledGameSystems",
                f"the book is enabled for several rulesets ({', '.join(ours)}): choose one (--system, or ?system=)",
            )
        return None

    def _unknown_ruleset(self, system: str) -> None:
        self.problem("system", f'ruleset "{system}" is not in the catalogue')
        return None

    def _slug(self, system: str, uid: str, name: str) -> str:
        if self.existing_slug is not None:
            existing = self.existing_slug(system, uid)
            if existing:
                return existing
        return re.sub(r"[^a-z0-9]+", "-", slugify(name)).strip("-")[:80].strip("-") or "army-forge-book"

    # -- rules -------------------------------------------------------------------------
    def _rule_name(self, name: str) -> str:
        return self.aliases.get(name, name)

    def _as_written(self, rules: Iterable[str]) -> list[str]:
        """Rules as Army Forge names them (our aliases undone: Wizard(2) is its Caster(2)),
        to hold what was read against its labels."""
        written = {ours: theirs for theirs, ours in self.aliases.items()}
        out = []
        for text in rules:
            name, param = split_rule(text)
            name = written.get(name, name)
            out.append(f"{name}({param})" if param is not None else name)
        return out

    def _faction_rules(self, special_rules: list[Any]) -> list[dict[str, Any]]:
        """The book's rules: its own (`specialRules` that are neither core rules here nor
        Army Forge's), and the core rules of Army Forge's it names (`core`), each with the
        book's wording of it, else Army Forge's (the core rules held for the ruleset, read
        by `sync_armyforge`), else none. A core rule of ours the book neither describes nor
        finds in Army Forge's is left to our rulebook. A rule that limits a list (Unique) is
        recognised by what it says and carries its limit (`per_army`)."""
        ours = self.ruleset.core_rules
        theirs = self.core.texts if self.core is not None else {}
        rules: dict[str, dict[str, Any]] = {}
        for i, rule in enumerate(special_rules):
            path = f"specialRules[{i}]"
            name = self._name(path, rule, "a rule")
            if name is None:
                continue
            self.fields(path, "special rule", rule)
            name = name.strip()
            # An alias or Hero (a unit type here) maps onto one of ours.
            if name in self.aliases or (name == "Hero" and not self.hero_is_core) or name in rules:
                continue
            used = self.used_rules.get(name, {})
            description = rule.get("description")
            text = description.strip() if isinstance(description, str) else ""
            rated = bool(rule.get("hasRating")) or bool(used.get("rated"))
            if used.get("rated") and not rule.get("hasRating"):
                self.warn(
                    f"{path}.hasRating",
                    f'rule "{name}" is described as taking no value but is used with one '
                    f"(at {used['rated']}): imported as taking a value",
                )
            out: dict[str, Any] = {"name": name, "rated": rated}
            core = rule.get("coreType") == CORE_TYPE or name in theirs or name in ours
            limit = self._list_rule(path, name, text)
            if core and limit is None:
                out["text"] = self._rule_text_cut(path, name, text or theirs.get(name, ""))
                out["core"] = True
            elif text:
                out["text"] = self._rule_text_cut(path, name, text)
            else:
                out.update(text="", core=True)  # named, not described: read as a core rule
                self.warn(f"{path}.description", f'rule "{name}" has no description: {self._no_text(name)}')
            if limit is not None:
                out["per_army"] = limit
            rules[name] = out
        for name, used in self.used_rules.items():
            if name in rules or (name == "Hero" and not self.hero_is_core):
                continue  # described above, or a unit type here
            rated = bool(used.get("rated"))
            if name in theirs:
                rules[name] = {"name": name, "rated": rated, "text": _cut(theirs[name], MAX_RULE_TEXT), "core": True}
            elif name in ours and not (rated and not ours[name]):
                continue  # ours explains it
            else:
                rules[name] = {"name": name, "rated": rated, "text": "", "core": True}
                self.warn(used["path"], f'"{name}" is not described by this book: {self._no_text(name)}')
            if name == "Unique":  # named, never described: Army Forge's rule of that name
                rules[name]["per_army"] = 1
        return list(rules.values())

    def _no_text(self, name: str) -> str:
        """Why a rule the book names is left without a text, and what would give it one."""
        if self.core is None:
            return (
                f"no core rules of Army Forge's are held for {self.system} to explain it (sync_armyforge reads them); "
                "it is shown without a text until a book read with them"
            )
        return f"Army Forge's core rules for {self.system} ({self.core.version}) have no rule of that name either"

    def _list_rule(self, path: str, name: str, text: str) -> int | None:
        """How many times per army a unit with this rule may be taken, when the rule is
        one for building lists that is enforced here (Unique: "may only be taken once per
        army"); None for any other rule. A rule that reads like one for building lists
        but says something else is a warning: it is shown, not enforced."""
        plain = " ".join(text.lower().split())
        if ONCE_PER_ARMY_RE.search(plain) or (name == "Unique" and not plain):
            return 1
        if LIST_RULE_RE.search(plain):
            self.warn(
                f"{path}.description",
                f'"{name}" reads like a rule for building lists ("{_cut(text, 120)}"), which is not one this site '
                "enforces: shown on the cards, not checked",
            )
        return None

    def _rule_text_cut(self, path: str, name: str, text: str) -> str:
        if len(text) > MAX_RULE_TEXT:
            self.warn(f"{path}.description", f'the text of "{name}" is cut to {MAX_RULE_TEXT} characters')
        return _cut(text, MAX_RULE_TEXT)

    def _rule_text(self, path: str, rule: Any) -> str | None:
        """ "AP" rated 1 -> "AP(1)"; None (and a warning) if it is not a rule. Every use
        is noted, so that the rules the book needs can be defined afterwards."""
        name = self._name(path, rule, "a rule")
        if name is None:
            return None
        self.fields(path, "rule", rule)
        # Army Forge's rules carry `additional: false` and `count: 1` throughout; what
        # another value would mean is not known (`modify`: an attachment's, read there).
        for key, usual in (("additional", False), ("count", 1)):
            if rule.get(key) not in (usual, None):
                self.warn(f"{path}.{key}", f'rule "{name}" has {key} {rule.get(key)!r}, which is not read: ignored')
        written = " ".join(name.split())
        name = self._rule_name(written.replace("(", "[").replace(")", "]"))
        rating = rule.get("rating")
        if isinstance(rating, float) and rating.is_integer():
            rating = int(rating)
        text = str(rating).strip() if rating is not None and not isinstance(rating, bool) else ""
        if text.isdecimal() and len(text) <= MAX_DIGITS:  # "03" is 3 (and "٣" is 3, as int reads it)
            text = str(int(text))
        used = self.used_rules.setdefault(name, {"path": path, "rated": None})
        if not text:
            return name
        if self.ruleset.core_rules.get(name) and not re.fullmatch(r"\+?\d+", text):
            # Our core rules with a value take a number: "Tough(X)" cannot be worked with.
            self.warn(path, f'"{name}" has the value {text!r}, which is not a number: shown without it')
            return name
        if used["rated"] is None:
            used["rated"] = path
        # Parentheses inside a text parameter would end it early: written as brackets.
        ours = f"{name}({text.replace('(', '[').replace(')', ']')})"
        if name == written and "(" not in text:  # not renamed here: Army Forge's label says the same
            self.check_label(path, f'rule "{name}"', rule.get("label"), ours)
        return ours

    def _rules(self, path: str, rules: Iterable[Any]) -> list[str]:
        texts: dict[str, None] = {}  # each once, in the order given
        for i, rule in enumerate(rules):
            text = self._rule_text(f"{path}[{i}]", rule)
            if text is not None:
                texts[text] = None
        return list(texts)

    # -- spells ------------------------------------------------------------------------
    def _spell(self, path: str, spell: Any) -> dict[str, Any] | None:
        if not self._is_object(path, spell, "a spell"):
            return None
        self.fields(path, "spell", spell)
        name = spell.get("name")
        cost = _whole(spell.get("threshold"))
        effect = spell.get("effect")
        if self.system == "aof-skirmish" and isinstance(spell.get("effectSkirmish"), str):
            effect = spell["effectSkirmish"].strip() or effect
        if not isinstance(name, str) or not name.strip() or cost is None or cost < 0:
            self.warn(path, f"spell {name!r} has no name or no whole-number threshold: left out")
            return None
        if not isinstance(effect, str) or not effect.strip():
            self.warn(f"{path}.effect", f'spell "{name.strip()}" has no effect text: left out')
            return None
        return {"name": _cut(name.strip(), MAX_SPELL_NAME), "cost": min(cost, 20), "text": _cut(effect.strip(), 2000)}

    # -- units -------------------------------------------------------------------------
    def _unit(self, path: str, unit: Any) -> dict[str, Any] | None:
        if not isinstance(unit, dict):
            self.problem(path, "should be an object")
            return None
        before = len(self.problems)
        self.fields(path, "unit", unit)
        unit_id = self._string(unit, "id", f"{path}.id")
        name = self._string(unit, "name", f"{path}.name")
        size = self._integer(unit, "size", f"{path}.size")
        cost = self._integer(unit, "cost", f"{path}.cost")
        quality = self._integer(unit, "quality", f"{path}.quality")
        defense = self._integer(unit, "defense", f"{path}.defense")
        weapons = self._list(unit, "weapons", f"{path}.weapons")
        raw_rules = self._list(unit, "rules", f"{path}.rules")
        items = self._list(unit, "items", f"{path}.items")
        upgrades = self._list(unit, "upgrades", f"{path}.upgrades")
        if not unit_id:
            return None
        if len(self.problems) > before:
            # The book will not be imported; the rest of the unit is still read, with
            # stand-ins for what is missing, so that the checks after this one find what
            # else is wrong rather than what follows from this.
            name, size, cost = name or unit_id, size or 1, cost if cost is not None else 0
            quality, defense = quality or 4, defense or 4

        rules = self._rules(f"{path}.rules", raw_rules)
        is_hero = "Hero" in rules
        if is_hero and not self.hero_is_core:
            rules.remove("Hero")  # a hero is a unit type in this ruleset, not a rule
        equipment = [w for i, weapon in enumerate(weapons) if (w := self._weapon(f"{path}.weapons[{i}]", weapon, size))]
        starting = [g for i, item in enumerate(items) if (g := self._item(f"{path}.items[{i}]", item))]
        generic = unit.get("genericName")
        unit_type = unit_type_of(
            hero=is_hero,
            rules=[*rules, *(rule for item in starting for rule in item["rules"])],
            bases=unit.get("bases"),
            generic=generic if isinstance(generic, str) else "",
            types=self.ruleset.unit_types,
        )
        out: dict[str, Any] = {
            "id": our_id(unit_id),
            "name": _cut(name, MAX_NAME),
            "type": unit_type,
            "size": size,
            "cost": cost,
            "stats": {"quality": quality, "defense": defense},
            "rules": rules,
            "equipment": equipment,
        }
        # Items it starts with (a mount, a relic): their rules and weapons are the unit's
        # while it carries them, and a replace section may swap them.
        if starting:
            out["items"] = [{k: v for k, v in g.items() if k != "kind"} for g in starting]
        out["upgrades"] = self._unit_upgrades(path, unit, name, upgrades)
        return out

    def _unit_upgrades(self, path: str, unit: dict[str, Any], name: str, upgrades: list[Any]) -> list[Any]:
        """The unit's packages, each without the sections Army Forge switches off for it."""
        packages: dict[str, None] = {}  # each once, in the order given
        for i, package in enumerate(upgrades):
            if not isinstance(package, str) or not package:
                self.problem(f"{path}.upgrades[{i}]", "should be a package uid")
            else:
                packages[package] = None
        without: dict[str, list[str]] = {}
        for key in ("disabledSections", "disabledUpgradeSections"):
            for i, ident in enumerate(_as_list(unit.get(key))):
                found = self.section_uids.get(ident) if isinstance(ident, str) else None
                if found is not None and found[0] in packages:
                    if found[1] in self.emitted_sections:
                        without.setdefault(found[0], []).append(found[1])
                elif isinstance(ident, str) and ident in packages and key == "disabledUpgradeSections":
                    del packages[ident]  # a whole package switched off
                else:
                    self.warn(
                        f"{path}.{key}[{i}]",
                        f"{name} switches off upgrade section {ident!r}, which is not in any of its packages: ignored",
                    )
        return [{"package": our_id(p), "without": without[p]} if without.get(p) else our_id(p) for p in packages]

    def _weapon(self, path: str, weapon: Any, default_count: int | None) -> dict[str, Any] | None:
        """A weapon a unit starts with (`default_count` = models) or that an option or
        item gives (`count` per model or item covered)."""
        name = self._name(path, weapon, "a weapon")
        if name is None:
            return None
        self.fields(path, "weapon", weapon)
        name = _cut(" ".join(name.split()), MAX_NAME)
        attacks = weapon.get("attacks")
        if isinstance(attacks, str) and attacks.strip().isdigit():
            attacks = int(attacks)
        elif isinstance(attacks, str):
            attacks = attacks.strip().upper()
        if attacks is None or isinstance(attacks, bool) or attacks == "":
            self.warn(f"{path}.attacks", f'weapon "{name}" has no attacks value: 0 is used')
            attacks = 0
        elif isinstance(attacks, str) and not re.fullmatch(r"\d*D\d+([+-]\d+)?", attacks):
            self.warn(f"{path}.attacks", f'weapon "{name}" has attacks {attacks!r}, which is not a number: 0 is used')
            attacks = 0
        # `attacksMultiplier` says how Army Forge's editor made `attacks` (the attacks of
        # several crew or heads added up): `attacks` is already the total, as the weapon's
        # label says ("Crew Attacks (A9)" with a multiplier of 3). Nothing to multiply.
        count = _whole(weapon.get("count"))
        if weapon.get("count") is not None and (count is None or count < 1):
            self.warn(f"{path}.count", f'weapon "{name}" has count {weapon.get("count")!r}: 1 is used')
            count = None
        out: dict[str, Any] = {"name": name}
        if default_count is not None:
            out["count"] = count or default_count
        elif count and count > 1:
            out["count"] = count
        range_ = _whole(weapon.get("range"))
        if range_ is None and isinstance(weapon.get("range"), str):
            range_ = range_inches(weapon["range"])
        if range_ is not None and range_ > 0:
            out["range"] = range_
        elif weapon.get("range") not in (None, 0, "", "0") and range_ is None:
            self.warn(f"{path}.range", f'weapon "{name}" has range {weapon.get("range")!r}: read as melee')
        out["attacks"] = attacks
        out["rules"] = _in_label_order(
            self._rules(f"{path}.specialRules", _as_list(weapon.get("specialRules"))), weapon.get("label")
        )
        label = weapon_label(name, range=out.get("range"), attacks=attacks, rules=self._as_written(out["rules"]))
        self.check_label(path, f'weapon "{name}"', weapon.get("label"), label)
        return out

    def _item(self, path: str, item: Any) -> dict[str, Any] | None:
        """An ArmyBookItem as an armybook/1 item gain: rules and weapons of its content."""
        name = self._name(path, item, "an item")
        if name is None:
            return None
        self.fields(path, "item", item)
        name = _cut(" ".join(name.split()), MAX_NAME)
        rules: dict[str, None] = {}  # each once, in the order given
        equipment: list[dict[str, Any]] = []
        self._item_content(path, name, _as_list(item.get("content")), rules, equipment)
        weapons = [
            weapon_label(w["name"], range=w.get("range"), attacks=w["attacks"], rules=self._as_written(w["rules"]))
            for w in equipment
        ]
        label = item_label(name, weapons=weapons, rules=self._as_written(rules))
        self.check_label(path, f'item "{name}"', item.get("label"), label)
        gain: dict[str, Any] = {"kind": "item", "name": name, "rules": list(rules)}
        if equipment:
            gain["equipment"] = equipment
        count = _whole(item.get("count"))
        if count is not None and count > 1:
            gain["count"] = count
        return gain

    def _item_content(self, path: str, name: str, content: list[Any], rules: dict[str, None], equipment: list) -> None:
        for i, part in enumerate(content):
            part_path = f"{path}.content[{i}]"
            kind = _gain_type(part)
            if kind == "ArmyBookRule":
                text = self._rule_text(part_path, part)
                if text is not None:
                    rules[text] = None
            elif kind == "ArmyBookWeapon":
                weapon = self._weapon(part_path, part, None)
                if weapon is not None:
                    equipment.append(weapon)
            elif kind == "ArmyBookItem":  # an item inside an item: its contents are the outer item's
                self._item_content(part_path, name, _as_list(part.get("content")), rules, equipment)
            else:
                self.warn(f"{part_path}.type", f'item "{name}" holds a {kind!r}, which is not read: left out')

    # -- upgrade packages ----------------------------------------------------------------
    def _package(self, path: str, package: Any) -> dict[str, Any] | None:
        if not isinstance(package, dict):
            self.problem(path, "should be an object")
            return None
        self.fields(path, "package", package)
        uid = self._string(package, "uid", f"{path}.uid")
        if not uid:
            return None
        users = self.users.get(uid, [])
        sections = self._list(package, "sections", f"{path}.sections")
        converted = [
            s for i, section in enumerate(sections) if (s := self._section(f"{path}.sections[{i}]", section, users))
        ]
        return {"id": our_id(uid), "sections": converted}

    def _section(self, path: str, section: Any, users: list[tuple[str, frozenset[str]]]) -> dict[str, Any] | None:
        if not isinstance(section, dict):
            self.problem(path, "should be an object")
            return None
        self.fields(path, "section", section)
        section_id = _uid(section)
        if section_id is None:
            self.problem(f"{path}.uid", "a section needs its uid")
            return None
        our = our_id(section_id)
        label = section.get("label")
        label = _cut(" ".join(label.split()), MAX_LABEL) if isinstance(label, str) and label.strip() else "Upgrade"
        variant = section.get("variant")
        targets = [t for t in _as_list(section.get("targets")) if isinstance(t, str) and t.strip()]
        if variant == "upgrade" and targets:
            variant = "attachment"  # "Upgrade all Longbows with one": attaches to what it names
        if variant not in ("replace", "upgrade", "attachment"):
            self.warn(
                f"{path}.variant",
                f'section "{label}" has variant {variant!r}, which is not read: the section is left out',
            )
            return None
        if variant == "replace" and not targets:
            self.warn(f"{path}.targets", f'section "{label}" replaces nothing it names: the section is left out')
            return None
        section_users = [unit for unit, without in users if our not in without]
        package_users = {unit for unit, _without in users}
        options = self._list(section, "options", f"{path}.options")
        converted = [
            o
            for i, option in enumerate(options)
            if (o := self._option(f"{path}.options[{i}]", option, label, section_users, package_users))
        ]
        if not converted:
            self.warn(f"{path}.options", f'section "{label}" has no options: the section is left out')
            return None
        affects = self._count(f"{path}.affects", section.get("affects"))
        select = self._count(f"{path}.select", section.get("select"))
        out: dict[str, Any] = {"id": our, "label": label, "variant": variant}
        if targets:
            out["targets"] = [_target(t) for t in targets]
        out.update(_limits(variant, affects, select, len(converted)))
        out["options"] = converted
        self.emitted_sections.add(our)
        return out

    def _count(self, path: str, value: Any) -> dict[str, Any] | None:
        """Army Forge's affects/select: {"type": "exactly", "value": 1}, {"type": "all"},
        a bare number (exactly that many) or a bare type. Unreadable: absent, with a warning."""
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            value = {"type": "exactly", "value": value}
        elif isinstance(value, str):
            value = {"type": value}
        raw_type = value.get("type") if isinstance(value, dict) else None
        kind = COUNT_TYPES.get(re.sub(r"[\s_-]", "", raw_type).lower()) if isinstance(raw_type, str) else None
        if kind is None:
            self.warn(path, f"cannot read {value!r} as a count: read as absent")
            return None
        if kind in ("all", "any"):
            return {"type": kind}
        number = _whole(value.get("value"))
        if number is None or number < 1:
            self.warn(f"{path}.value", f'"{raw_type}" with {value.get("value")!r}: read as 1')
            number = 1
        return {"type": kind, "value": number}

    def _option(
        self, path: str, option: Any, label: str, users: list[str], package_users: set[str]
    ) -> dict[str, Any] | None:
        if not self._is_object(path, option, "an option"):
            return None
        self.fields(path, "option", option)
        option_id = _uid(option)
        if option_id is None:
            self.problem(f"{path}.uid", "an option needs its uid")
            return None
        text = option.get("label")
        text = _cut(" ".join(text.split()), MAX_LABEL) if isinstance(text, str) and text.strip() else option_id
        cost, overrides = self._option_costs(path, option, text, users, package_users)
        if cost is None:
            return None
        gains = [
            g
            for i, gain in enumerate(self._list(option, "gains", f"{path}.gains"))
            if (g := self._gain(f"{path}.gains[{i}]", gain))
        ]
        out: dict[str, Any] = {"id": our_id(option_id), "label": text, "cost": cost}
        if overrides:
            out["costs"] = overrides
        command = next(
            (COMMAND_RULES[g["name"]] for g in gains if g["kind"] == "rule" and g["name"] in COMMAND_RULES), None
        )
        if command:
            out["command"] = command
        out["gains"] = gains
        return out

    def _option_costs(
        self, path: str, option: dict[str, Any], label: str, users: list[str], package_users: set[str]
    ) -> tuple[int | None, dict[str, int]]:
        """The option's cost and per-unit overrides. Army Forge's per-unit `costs` are
        what it charges; the top-level `cost` only counts for a unit without one, so when
        every unit has its own it is stale (often negative) and the most common per-unit
        cost takes its place."""
        costs = self._unit_costs(f"{path}.costs", option.get("costs"))
        taking = set(users)
        known = {unit: value for unit, value in costs.items() if unit in taking}
        for unit in costs:
            # A unit that switches this section off keeps its cost in Army Forge: no news.
            if unit not in package_users:
                self.warn(f"{path}.costs", f'"{label}" has a cost for unit "{unit}", which does not take it: ignored')
        top = _whole(option.get("cost"))
        if option.get("cost") is not None and top is None:
            self.warn(f"{path}.cost", f'"{label}" has cost {option.get("cost")!r}, which is not a number: ignored')
        missing = [unit for unit in users if unit not in known]
        if known and (not missing or top is None):
            cost = Counter(known.values()).most_common(1)[0][0]
            if missing:
                self.warn(
                    f"{path}.cost",
                    f'"{label}" has no cost for {", ".join(missing)}: the most common cost, {cost}, is used',
                )
        elif top is not None:
            cost = top
        elif not users:
            cost = 0  # no unit takes it: nothing is ever charged
        else:
            self.problem(f"{path}.cost", f'option "{label}" has no cost')
            return None, {}
        return cost, {unit: value for unit, value in known.items() if value != cost}

    def _unit_costs(self, path: str, costs: Any) -> dict[str, int]:
        """Army Forge's per-unit costs, [{"unitId": "x", "cost": 5}] (or {"x": 5})."""
        if costs is None:
            return {}
        pairs: list[tuple[Any, Any]] = []
        if isinstance(costs, dict):
            pairs = list(costs.items())
        elif isinstance(costs, list):
            for i, entry in enumerate(costs):
                if isinstance(entry, dict) and isinstance(entry.get("unitId"), str):
                    self.fields(f"{path}[{i}]", "cost", entry)
                    pairs.append((entry["unitId"], entry.get("cost")))
                else:
                    self.warn(f"{path}[{i}]", 'not a per-unit cost {"unitId": …, "cost": …}: ignored')
        else:
            self.warn(path, "not a list of per-unit costs: ignored")
        out = {}
        for unit_id, value in pairs:
            number = _whole(value)
            if number is None:
                self.warn(f"{path}.{unit_id}", f"not a cost: {value!r}, ignored")
            else:
                out[our_id(unit_id)] = number
        return out

    def _gain(self, path: str, gain: Any) -> dict[str, Any] | None:
        if not self._is_object(path, gain, "a gain"):
            return None
        kind = _gain_type(gain)
        if kind == "ArmyBookWeapon":
            weapon = self._weapon(path, gain, None)
            return {"kind": "weapon", **weapon} if weapon else None
        if kind == "ArmyBookRule":
            text = self._rule_text(path, gain)
            return {"kind": "rule", "name": text} if text else None
        if kind == "ArmyBookItem":
            return self._item(path, gain)
        self.warn(f"{path}.type", f'gain "{gain.get("name")}" of type {kind!r} is not read: left out')
        return None

    # -- plain values ------------------------------------------------------------------
    def _string(self, data: dict[str, Any], key: str, path: str) -> str:
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            self.problem(path, "is required" if value in (None, "") else f"should be text, not {value!r}")
            return ""
        return value.strip()

    def _integer(self, data: dict[str, Any], key: str, path: str) -> int | None:
        value = data.get(key)
        number = _whole(value)
        if number is None:
            self.problem(path, "is required" if value is None else f"should be a whole number, not {value!r}")
        return number

    def _list(self, data: dict[str, Any], key: str, path: str, *, required: bool = False) -> list[Any]:
        value = data.get(key)
        if value is None:
            if required:
                self.problem(path, "is required")
            return []
        if not isinstance(value, list):
            self.problem(path, "should be a list")
            return []
        return value


def _limits(variant: str, affects: dict | None, select: dict | None, options: int) -> dict[str, Any]:
    """Army Forge's affects and select as armybook/1 says them, read as the book's text
    means them (nothing is compulsory in Army Forge, so "exactly" is optional):

    - "Replace X", "Replace 2x X" (no affects): one pick, replacing one X (or one pair).
    - "Replace any X", "Upgrade any model with": one pick per X carried, or per model;
      with "with one" / "with up to N", that many per X or per model.
    - "Upgrade up to three models with one": one per model, at most three models.
    - "Upgrade with:", "Upgrade with any:", "Upgrade one model with:", "Upgrade all
      models with:" (no count, or "any"): each option once.
    - "... with one:", "... with up to N:": that many picks in all."""
    out: dict[str, Any] = {}
    counted = affects is not None and affects["type"] in ("any", "up to")
    if variant == "replace" and affects is None:
        affects = {"type": "exactly", "value": 1}
    if variant == "attachment" and affects is None:
        affects = {"type": "all"}
    if affects is not None:
        out["affects"] = affects
    per = "item" if variant in ("replace", "attachment") else "model"
    if select is None or select["type"] == "any":
        if counted:
            if select is not None and options > 1:
                out["select"] = {"type": "up to", "value": options, "per": per}
        elif variant != "replace" and options > 1:
            out["select"] = {"type": "up to", "value": 1, "per": "option"}
        elif variant == "replace" and select is not None and options > 1:
            out["select"] = {"type": "up to", "value": 1, "per": "option"}
    else:
        out["select"] = {"type": select["type"], "value": select["value"]}
        if counted:
            out["select"]["per"] = per
        if select["type"] == "exactly":
            out["optional"] = True  # "with one" in Army Forge: one or none
    return out


def _resolve_targets(book: dict[str, Any]) -> None:
    """Army Forge names what a section works on as its label says it ("Replace all Hand
    Weapons"); write each target as the name of the equipment or item it finds, singular
    or plural ("Hand Weapon"), so the builder's words match the unit's. A target that
    finds nothing is left as written, for the book checks to report."""
    gained = gained_names(book["packages"])
    gained_index = _first_by_form(gained)
    carried: dict[str, set[str]] = {}
    for unit in book["units"]:
        names = {w["name"] for w in unit["equipment"]} | {i["name"] for i in unit.get("items", [])}
        for entry in unit["upgrades"]:
            carried.setdefault(entry if isinstance(entry, str) else entry["package"], set()).update(names)
    for package in book["packages"]:
        sections = [section for section in package["sections"] if "targets" in section]
        known = carried.get(package["id"], set())
        indexes = (_first_by_form(known), gained_index) if sections else ()
        for section in sections:
            resolved = []
            for target in section["targets"]:
                name = target if isinstance(target, str) else target["name"]
                found = name if name in known or name in gained else _first_same(name, indexes)
                resolved.append(found if isinstance(target, str) else {**target, "name": found})
            section["targets"] = resolved


def _first_by_form(names: Iterable[str]) -> dict[str, str]:
    """Each form of `names` (engine.book.name_forms) -> the first name, in sorted order,
    that has it: what a name is the same as is then looked up, not searched for."""
    index: dict[str, str] = {}
    for name in sorted(names):
        for form in name_forms(name):
            index.setdefault(form, name)
    return index


def _first_same(name: str, indexes: Iterable[dict[str, str]]) -> str:
    """The first name, in sorted order, of those `indexes` were made of that is the same
    as `name` (engine.book.same_name: their forms meet); else `name`."""
    found = [index[form] for index in indexes for form in name_forms(name) if form in index]
    return min(found, default=name)


def unit_type_of(*, hero: bool, rules: Iterable[str], bases: Any, generic: str, types: Iterable[str]) -> str:
    """A unit's type, from what Army Forge says the unit is rather than what it calls it
    (its `genericName` changed for most units in 3.5.3: "Cavalry" became "Knights",
    "Monster" "Great Rat Beast"), so that one unit has one type in every version:

    - a hero has the Hero rule;
    - artillery has the Artillery rule (or is called so);
    - a single large model (Tough(6) or more, or a base of 100 mm, or 60 mm round, as the
      Age of Fantasy rulebook's monsters stand on) is a chariot when it is called one or
      rides in with Fast and Impact but does not fly, else a monster;
    - a mounted unit (Impact, or Fast on a long cavalry base) is cavalry;
    - anything else is infantry.

    `rules` are the unit's and its starting items' (a mount's); a type the ruleset does
    not have falls back to infantry, as its rulebook counts such units."""
    have = set(types)
    parsed = [split_rule(text) for text in rules]
    names = {name for name, _ in parsed}
    words = {TYPE_WORDS[word] for word in re.findall(r"[a-z]+", generic.lower()) if word in TYPE_WORDS}
    tough = max(
        (int(value) for name, value in parsed if name == "Tough" and value and value.isdigit() and len(value) <= 4),
        default=0,
    )
    sides = _base_sides(bases)
    large = tough >= BIG_TOUGH or any(max(pair) >= BIG_BASE or pair == (60, 60) for pair in sides)
    if hero:
        found = "hero"
    elif "Artillery" in names or "artillery" in words:
        found = "artillery"
    elif large:
        rides = "Fast" in names and "Impact" in names and "Flying" not in names
        found = "chariot" if "chariot" in words or rides else "monster"
    elif "Impact" in names or ("Fast" in names and any(a != b for a, b in sides)):
        found = "cavalry"
    else:
        found = "infantry"
    return found if found in have else "infantry"


def _base_sides(bases: Any) -> list[tuple[int, int]]:
    """Army Forge's base sizes ({"round": "60x35", "square": "50x25"}) as (long, short) in
    mm: a single figure is a round or square base of that size."""
    sides = []
    for value in bases.values() if isinstance(bases, dict) else ():
        figures = [int(f) for f in re.findall(r"\d{1,4}", value)][:2] if isinstance(value, str) else []
        if figures:
            long, short = max(figures), min(figures)
            sides.append((long, short if len(figures) > 1 else long))
    return sides


def range_inches(text: str) -> int | None:
    """A range written as text ("24", '24"', "24 in"), in inches; None if it is not one.
    Spaces made single first: a pattern that took any run of them would try every split
    of a long one."""
    inches = _RANGE_RE.fullmatch(" ".join(text.split()))
    return int(inches[1]) if inches else None


def _target(name: str) -> str | dict[str, Any]:
    """ "2x Hand Weapon" -> {"name": "Hand Weapon", "count": 2}; other names as written
    (the engine matches singular and plural either way)."""
    name = " ".join(name.split())
    match = _COUNT_PREFIX_RE.fullmatch(name)
    if match and int(match[1]) > 1:
        return {"name": _cut(match[2], MAX_NAME), "count": min(int(match[1]), 100)}
    return _cut(match[2] if match else name, MAX_NAME)


def _unordered(label: str, depth: int = 0) -> tuple[str, tuple[Any, ...]]:
    """A label's name and its parts, each read the same way, in order of their text: what
    it says whatever the order (Army Forge lists an item's weapons and rules in the order
    they were entered, the site weapons first). A label holds a weapon's in an item's at
    most: deeper brackets are read as text."""
    name, parts = label_parts(label)
    if depth >= 2:
        return name, parts
    return name, tuple(sorted((_unordered(part, depth + 1) for part in parts), key=repr))


def _in_label_order(rules: list[str], label: Any) -> list[str]:
    """A weapon's rules in the order its Army Forge label gives them, which is the order
    Army Forge prints them in ("Heavy Halberd (A3, AP(1), Rending)" for a weapon whose
    rules are listed Rending, AP); as given when the label names other rules."""
    if not isinstance(label, str) or len(rules) < 2:
        return rules
    parts = label_parts(_COUNT_LABEL_RE.sub("", " ".join(label.split()), count=1))[1]
    ordered = [part for part in parts if part in set(rules)]
    return ordered if sorted(ordered) == sorted(rules) else rules


def _whole(value: Any) -> int | None:
    """A whole number from an int, a float like 3.0 or a string like "02"; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _WHOLE_RE.fullmatch(value.strip()):
        return int(value)
    return None


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def _uid(data: dict[str, Any]) -> str | None:
    for key in ("uid", "id"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _gain_type(gain: Any) -> str | None:
    """A gain's Army Forge type; read from its shape when the type is left out."""
    if not isinstance(gain, dict):
        return None
    if gain.get("type"):
        return gain["type"]
    if "attacks" in gain:
        return "ArmyBookWeapon"
    return "ArmyBookItem" if "content" in gain else "ArmyBookRule"


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _version(version: str) -> str:
    """Army Forge versions are "3.5.2"; a bare "3.5" is read as "3.5.0"."""
    return f"{version}.0" if re.fullmatch(r"\d+\.\d+", version) else version
