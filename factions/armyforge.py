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
from typing import Any

from django.utils.text import slugify

from factions.armybook import ArmyBookError, Problem, RulesetInfo

# Army Forge's game systems (ids in `enabledGameSystems` / `gameSystemId`, slugs in
# `gameSystemSlug`, short codes in list files) and the rulesets they are here.
GAME_SYSTEM_IDS = {4: "aof", 5: "aof-skirmish", 6: "aof-regiments"}
GAME_SYSTEM_NAMES = {
    "age-of-fantasy": "aof",
    "aof": "aof",
    "age-of-fantasy-skirmish": "aof-skirmish",
    "aofs": "aof-skirmish",
    "aof-skirmish": "aof-skirmish",
    "age-of-fantasy-regiments": "aof-regiments",
    "aofr": "aof-regiments",
    "aof-regiments": "aof-regiments",
}
SUPPORTED_SYSTEMS = ("aof", "aof-regiments", "aof-skirmish")

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
# Words of a unit's Army Forge `genericName` that name one of our unit types.
TYPE_WORDS = {
    "monster": "monster",
    "monsters": "monster",
    "chariot": "chariot",
    "chariots": "chariot",
    "artillery": "artillery",
    "cavalry": "cavalry",
}
SECTION_VARIANTS = ("replace", "upgrade", "attachment")
COUNT_TYPES = {"exactly": "exactly", "upto": "up to", "all": "all", "any": "any"}
MAX_DESCRIPTION = 5000
_ID_RE = re.compile(r"^[A-Za-z0-9]")
SlugLookup = Callable[[str, str], str | None]  # (ruleset, Army Forge book uid) -> slug


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
        if text.isdigit():
            return GAME_SYSTEM_IDS.get(int(text))
        return GAME_SYSTEM_NAMES.get(text)
    return None


def our_id(armyforge_id: str) -> str:
    """The id we store for an Army Forge id. Army Forge ids are nanoids (letters, digits,
    `_` and `-`); ours must start with a letter or digit, so an id that does not gets the
    prefix `af.` (no Army Forge id holds a dot, so no two ids can meet)."""
    return armyforge_id if _ID_RE.match(armyforge_id) else f"af.{armyforge_id}"


def armybook_from_armyforge(
    data: dict[str, Any],
    *,
    rulesets: Mapping[str, RulesetInfo],
    system: str | None = None,
    existing_slug: SlugLookup | None = None,
) -> dict[str, Any]:
    """The Army Forge book `data` as an armybook/1 dict for `system` (needed when the
    book is enabled for several of our rulesets and names none). `existing_slug(system,
    uid)` gives the slug of a faction already imported from this book, so a renamed book
    replaces it. Raises ArmyBookError with every problem found."""
    return _BookConverter(data, rulesets, system, existing_slug).convert()


class _BookConverter:
    def __init__(
        self,
        data: dict[str, Any],
        rulesets: Mapping[str, RulesetInfo],
        system: str | None,
        existing_slug: SlugLookup | None,
    ):
        self.data = data
        self.rulesets = rulesets
        self.requested = system
        self.existing_slug = existing_slug
        self.problems: list[Problem] = []

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def fail(self) -> ArmyBookError:
        return ArmyBookError(self.problems)

    # -- the whole book ----------------------------------------------------------------
    def convert(self) -> dict[str, Any]:
        data = self.data
        system = self._system()
        uid = self._string(data, "uid", "uid")
        name = self._string(data, "name", "name")
        version = self._string(data, "versionString", "versionString")
        units = self._list(data, "units", "units", required=True)
        packages = self._list(data, "upgradePackages", "upgradePackages", required=True)
        special_rules = self._list(data, "specialRules", "specialRules")
        spells = self._list(data, "spells", "spells")
        if self.problems or system is None:
            raise self.fail()
        self.ruleset = self.rulesets[system]
        self.aliases = {
            source: target
            for source, target in RULE_ALIASES.get(system, {}).items()
            if source not in self.ruleset.core_rules and target in self.ruleset.core_rules
        }
        self.hero_is_core = "Hero" in self.ruleset.core_rules

        book: dict[str, Any] = {
            "format": "armybook/1",
            "system": system,
            "slug": self._slug(system, uid, name),
            "name": name,
            "version": _version(version),
        }
        description = data.get("background")
        if isinstance(description, str) and description.strip():
            description = description.strip()
            if len(description) > MAX_DESCRIPTION:
                description = description[: MAX_DESCRIPTION - 1] + "…"
            book["description"] = description
        book["armyforge_id"] = uid
        book["rules"] = self._faction_rules(special_rules)
        book["spells"] = [s for i, spell in enumerate(spells) if (s := self._spell(f"spells[{i}]", spell))]
        book["units"] = [u for i, unit in enumerate(units) if (u := self._unit(f"units[{i}]", unit))]
        book["packages"] = [p for i, pkg in enumerate(packages) if (p := self._package(f"upgradePackages[{i}]", pkg))]
        if self.problems:
            raise self.fail()
        _resolve_targets(book)
        return book

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
        ours = [s for s in dict.fromkeys(ruleset_of(v) for v in enabled or []) if s in self.rulesets]
        if requested is not None:
            if enabled is not None and requested not in ours:
                listed = ", ".join(str(v) for v in enabled) or "none"
                self.problem(
                    "enabledGameSystems",
                    f"the book is not enabled for {requested} (its Army Forge game systems: {listed})",
                )
                return None
            return requested if requested in self.rulesets else self._unknown_ruleset(requested)
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

    def _faction_rules(self, special_rules: list[Any]) -> list[dict[str, Any]]:
        rules = []
        for i, rule in enumerate(special_rules):
            path = f"specialRules[{i}]"
            if not isinstance(rule, dict):
                self.problem(path, "should be an object")
                continue
            name = self._string(rule, "name", f"{path}.name")
            if not name:
                continue
            # Core rules are the ruleset's own; an alias or Hero (a unit type here) maps
            # onto one of ours.
            if name in self.ruleset.core_rules or name in self.aliases or (name == "Hero" and not self.hero_is_core):
                continue
            description = rule.get("description")
            text = description.strip() if isinstance(description, str) else ""
            rules.append(
                {
                    "name": name,
                    "rated": bool(rule.get("hasRating")),
                    "text": text or f"{name}: no description in the Army Forge book.",
                }
            )
        return rules

    def _rule_text(self, path: str, rule: Any) -> str | None:
        """ "AP" rated 1 -> "AP(1)"; None (and a problem) if it is not a rule."""
        if not isinstance(rule, dict):
            self.problem(path, "should be a rule object with a name")
            return None
        name = self._string(rule, "name", f"{path}.name")
        if not name:
            return None
        name = self._rule_name(name)
        rating = rule.get("rating")
        if rating is None or rating == "":
            return name
        if isinstance(rating, float) and rating.is_integer():
            rating = int(rating)
        return f"{name}({str(rating).strip()})"

    def _rules(self, path: str, rules: Iterable[Any]) -> list[str]:
        texts = []
        for i, rule in enumerate(rules):
            text = self._rule_text(f"{path}[{i}]", rule)
            if text is not None:
                texts.append(text)
        return texts

    # -- spells ------------------------------------------------------------------------
    def _spell(self, path: str, spell: Any) -> dict[str, Any] | None:
        if not isinstance(spell, dict):
            self.problem(path, "should be an object")
            return None
        name = self._string(spell, "name", f"{path}.name")
        cost = self._integer(spell, "threshold", f"{path}.threshold")
        effect = spell.get("effect")
        if self.ruleset.slug == "aof-skirmish" and isinstance(spell.get("effectSkirmish"), str):
            effect = spell["effectSkirmish"].strip() or effect
        if not isinstance(effect, str) or not effect.strip():
            self.problem(f"{path}.effect", "a spell needs its effect")
            return None
        if not name or cost is None:
            return None
        return {"name": name, "cost": cost, "text": effect.strip()}

    # -- units -------------------------------------------------------------------------
    def _unit(self, path: str, unit: Any) -> dict[str, Any] | None:
        if not isinstance(unit, dict):
            self.problem(path, "should be an object")
            return None
        before = len(self.problems)
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
        for key in ("disabledUpgradeSections", "disabledSections"):
            if unit.get(key):
                self.problem(
                    f"{path}.{key}",
                    f"{name or 'this unit'} switches off upgrade sections {unit[key]}; "
                    "a unit here takes whole packages, so this cannot be represented",
                )
        if len(self.problems) > before:
            return None

        rules = self._rules(f"{path}.rules", raw_rules)
        is_hero = "Hero" in rules
        if is_hero and not self.hero_is_core:
            rules.remove("Hero")  # a hero is a unit type in this ruleset, not a rule
        equipment = [w for i, weapon in enumerate(weapons) if (w := self._weapon(f"{path}.weapons[{i}]", weapon, size))]
        # Army Forge items a unit starts with (a mount, a banner): their rules are the
        # unit's, their weapons its equipment. The item's own name is not kept.
        for i, item in enumerate(items):
            item_path = f"{path}.items[{i}]"
            gain = self._item(item_path, item)
            if gain is None:
                continue
            rules.extend(gain["rules"])
            copies = item.get("count") if isinstance(item.get("count"), int) and item["count"] > 0 else 1
            for weapon in gain.get("equipment", []):
                equipment.append({"name": weapon["name"], "count": weapon.get("count", 1) * copies, **_profile(weapon)})
        for i, package in enumerate(upgrades):
            if not isinstance(package, str) or not package:
                self.problem(f"{path}.upgrades[{i}]", "should be a package uid")
        return {
            "id": our_id(unit_id),
            "name": name,
            "type": self._unit_type(unit, is_hero),
            "size": size,
            "cost": cost,
            "stats": {"quality": quality, "defense": defense},
            "rules": rules,
            "equipment": equipment,
            "upgrades": [our_id(p) for p in upgrades if isinstance(p, str) and p],
        }

    def _unit_type(self, unit: dict[str, Any], is_hero: bool) -> str:
        """Army Forge has no unit type: a unit with the Hero rule is a hero; otherwise a
        type named in its `genericName` ("Large Monster", "Chariot") when the ruleset has
        it; otherwise infantry."""
        if is_hero:
            return "hero"
        generic = unit.get("genericName")
        for word in re.findall(r"[a-z]+", generic.lower() if isinstance(generic, str) else ""):
            unit_type = TYPE_WORDS.get(word)
            if unit_type in self.ruleset.unit_types:
                return unit_type
        return "infantry"

    def _weapon(self, path: str, weapon: Any, default_count: int | None) -> dict[str, Any] | None:
        """A weapon a unit starts with (`default_count` = models) or that an option
        gains (None: one per model the pick covers)."""
        if not isinstance(weapon, dict):
            self.problem(path, "should be a weapon object")
            return None
        kind = weapon.get("type") or "ArmyBookWeapon"
        if kind != "ArmyBookWeapon":
            self.problem(
                f"{path}.type", f'"{weapon.get("name")}" is a {kind}; only ArmyBookWeapon can be a weapon here'
            )
            return None
        name = self._string(weapon, "name", f"{path}.name")
        attacks = weapon.get("attacks")
        if isinstance(attacks, str) and attacks.strip().isdigit():
            attacks = int(attacks)
        if attacks is None or isinstance(attacks, bool):
            self.problem(f"{path}.attacks", f'weapon "{name}" has no attacks value')
            return None
        multiplier = weapon.get("attacksMultiplier", 1)
        if multiplier not in (None, 1):
            self.problem(
                f"{path}.attacksMultiplier",
                f'weapon "{name}" multiplies its attacks by {multiplier}; this cannot be represented',
            )
        count = weapon.get("count")
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 1):
            self.problem(f"{path}.count", f"should be a whole number of weapons, not {count!r}")
            return None
        if not name:
            return None
        out: dict[str, Any] = {"name": name}
        if default_count is not None:
            out["count"] = count or default_count
        elif count and count > 1:
            out["count"] = count
        range_ = weapon.get("range")
        if isinstance(range_, int) and not isinstance(range_, bool) and range_ > 0:
            out["range"] = range_
        elif range_ not in (None, 0, ""):
            self.problem(f"{path}.range", f'weapon "{name}" has range {range_!r}; expected inches')
        out["attacks"] = attacks
        out["rules"] = self._rules(f"{path}.specialRules", _as_list(weapon.get("specialRules")))
        return out

    def _item(self, path: str, item: Any) -> dict[str, Any] | None:
        """An ArmyBookItem as an armybook/1 item gain: rules and weapons of its content."""
        if not isinstance(item, dict):
            self.problem(path, "should be an item object")
            return None
        name = self._string(item, "name", f"{path}.name")
        rules, equipment = [], []
        for i, part in enumerate(_as_list(item.get("content"))):
            part_path = f"{path}.content[{i}]"
            kind = _gain_type(part)
            if kind == "ArmyBookRule":
                text = self._rule_text(part_path, part)
                if text is not None:
                    rules.append(text)
            elif kind == "ArmyBookWeapon":
                weapon = self._weapon(part_path, part, None)
                if weapon is not None:
                    equipment.append(weapon)
            else:
                self.problem(f"{part_path}.type", f'item "{name}" holds a {kind}, which cannot be represented')
        if not name:
            return None
        gain: dict[str, Any] = {"kind": "item", "name": name, "rules": rules}
        if equipment:
            gain["equipment"] = equipment
        return gain

    # -- upgrade packages ----------------------------------------------------------------
    def _package(self, path: str, package: Any) -> dict[str, Any] | None:
        if not isinstance(package, dict):
            self.problem(path, "should be an object")
            return None
        uid = self._string(package, "uid", f"{path}.uid")
        sections = self._list(package, "sections", f"{path}.sections")
        converted = [s for i, section in enumerate(sections) if (s := self._section(f"{path}.sections[{i}]", section))]
        if not uid:
            return None
        return {"id": our_id(uid), "sections": converted}

    def _section(self, path: str, section: Any) -> dict[str, Any] | None:
        if not isinstance(section, dict):
            self.problem(path, "should be an object")
            return None
        before = len(self.problems)
        section_id = _uid(section)
        if section_id is None:
            self.problem(f"{path}.uid", "a section needs its uid")
        label = self._string(section, "label", f"{path}.label")
        variant = section.get("variant")
        if variant not in SECTION_VARIANTS:
            self.problem(
                f"{path}.variant",
                f'section "{label}" has variant {variant!r}; we read {", ".join(SECTION_VARIANTS)}',
            )
        targets = self._list(section, "targets", f"{path}.targets")
        if any(not isinstance(t, str) or not t for t in targets):
            self.problem(f"{path}.targets", "should be a list of equipment names")
        affects = self._count(f"{path}.affects", section.get("affects"), allow_all=True)
        select = self._count(f"{path}.select", section.get("select"), allow_all=False)
        options = self._list(section, "options", f"{path}.options", required=True)
        converted_options = [
            o for i, option in enumerate(options) if (o := self._option(f"{path}.options[{i}]", option))
        ]
        if len(self.problems) > before:
            return None
        out: dict[str, Any] = {"id": our_id(section_id), "label": label, "variant": variant}
        if targets:
            out["targets"] = targets
        if affects is not None:
            out["affects"] = affects
        if select is not None:
            out["select"] = select
            # Nothing is compulsory in Army Forge: "exactly one" means "at most one".
            if select["type"] == "exactly":
                out["optional"] = True
        out["options"] = converted_options
        return out

    def _count(self, path: str, value: Any, *, allow_all: bool) -> dict[str, Any] | None:
        """Army Forge's affects/select: {"type": "exactly", "value": 1}, {"type": "all"},
        a bare number (exactly that many) or a bare type."""
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            value = {"type": "exactly", "value": value}
        elif isinstance(value, str):
            value = {"type": value}
        if not isinstance(value, dict):
            self.problem(path, f"cannot read {value!r} as a count")
            return None
        raw_type = value.get("type")
        kind = COUNT_TYPES.get(re.sub(r"[\s_-]", "", raw_type).lower()) if isinstance(raw_type, str) else None
        if kind is None or (kind == "all" and not allow_all):
            self.problem(f"{path}.type", f"cannot read count type {raw_type!r}")
            return None
        if kind in ("all", "any"):
            return {"type": kind}
        number = value.get("value")
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            self.problem(f"{path}.value", f'"{raw_type}" needs a whole number of at least 1, not {number!r}')
            return None
        return {"type": kind, "value": number}

    def _option(self, path: str, option: Any) -> dict[str, Any] | None:
        if not isinstance(option, dict):
            self.problem(path, "should be an object")
            return None
        before = len(self.problems)
        option_id = _uid(option)
        if option_id is None:
            self.problem(f"{path}.uid", "an option needs its uid")
        label = self._string(option, "label", f"{path}.label")
        costs = self._unit_costs(f"{path}.costs", option.get("costs"))
        cost = option.get("cost")
        if cost is None and costs:
            # Only per-unit costs: the most common is the option's cost, the rest override it.
            cost = Counter(costs.values()).most_common(1)[0][0]
        if isinstance(cost, bool) or not isinstance(cost, int):
            self.problem(f"{path}.cost", f'option "{label}" has no cost' if cost is None else f"not a cost: {cost!r}")
        gains = [
            g
            for i, gain in enumerate(self._list(option, "gains", f"{path}.gains"))
            if (g := self._gain(f"{path}.gains[{i}]", gain))
        ]
        if len(self.problems) > before:
            return None
        out: dict[str, Any] = {"id": our_id(option_id), "label": label, "cost": cost}
        overrides = {unit: value for unit, value in (costs or {}).items() if value != cost}
        if overrides:
            out["costs"] = overrides
        command = next(
            (COMMAND_RULES[g["name"]] for g in gains if g["kind"] == "rule" and g["name"] in COMMAND_RULES), None
        )
        if command:
            out["command"] = command
        out["gains"] = gains
        return out

    def _unit_costs(self, path: str, costs: Any) -> dict[str, int] | None:
        """Army Forge's per-unit costs, [{"unitId": "x", "cost": 5}] (or {"x": 5})."""
        if costs is None:
            return None
        pairs = costs.items() if isinstance(costs, dict) else None
        if isinstance(costs, list):
            pairs = []
            for i, entry in enumerate(costs):
                if not isinstance(entry, dict) or not isinstance(entry.get("unitId"), str):
                    self.problem(f"{path}[{i}]", 'should be {"unitId": …, "cost": …}')
                    continue
                pairs.append((entry["unitId"], entry.get("cost")))
        if pairs is None:
            self.problem(path, "should be a list of per-unit costs")
            return None
        out = {}
        for unit_id, value in pairs:
            if isinstance(value, bool) or not isinstance(value, int):
                self.problem(f"{path}.{unit_id}", f"not a cost: {value!r}")
            else:
                out[our_id(unit_id)] = value
        return out

    def _gain(self, path: str, gain: Any) -> dict[str, Any] | None:
        if not isinstance(gain, dict):
            self.problem(path, "should be an object")
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
        self.problem(f"{path}.type", f'gain "{gain.get("name")}" of type {kind!r} cannot be represented')
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
        if isinstance(value, bool) or not isinstance(value, int):
            self.problem(path, "is required" if value is None else f"should be a whole number, not {value!r}")
            return None
        return value

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


def _profile(weapon: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in weapon.items() if k not in ("name", "count")}


def _version(version: str) -> str:
    """Army Forge versions are "3.5.2"; a bare "3.5" is read as "3.5.0"."""
    return f"{version}.0" if re.fullmatch(r"\d+\.\d+", version) else version


def _resolve_targets(book: dict[str, Any]) -> None:
    """Army Forge names what a section replaces as the section's label says it: "Replace
    all Hand Weapons" targets "Hand Weapons". Map each target to the equipment or gained
    item it means (the singular of the name); one that matches nothing is left as it is,
    for the book checks to report by name."""
    gained = set()
    for package in book["packages"]:
        for section in package["sections"]:
            for option in section["options"]:
                for gain in option["gains"]:
                    if gain["kind"] in ("weapon", "item"):
                        gained.add(gain["name"])
                    gained.update(w["name"] for w in gain.get("equipment", []))
    carried_by_package: dict[str, set[str]] = {}
    for unit in book["units"]:
        names = {w["name"] for w in unit["equipment"]}
        for package_id in unit["upgrades"]:
            carried_by_package.setdefault(package_id, set()).update(names)
    for package in book["packages"]:
        known = carried_by_package.get(package["id"], set()) | gained
        for section in package["sections"]:
            if "targets" in section:
                section["targets"] = [_target(name, known) for name in section["targets"]]


def _target(name: str, known: set[str]) -> str:
    if name in known:
        return name
    for candidate in _singulars(name):
        if candidate in known:
            return candidate
    return name


def _singulars(name: str) -> list[str]:
    head, _, last = name.rpartition(" ")
    prefix = f"{head} " if head else ""
    forms = []
    if last.endswith("ies"):
        forms.append(last[:-3] + "y")
    if last.endswith("ves"):
        forms.extend([last[:-3] + "f", last[:-3] + "fe"])
    if last.endswith("es"):
        forms.append(last[:-2])
    if last.endswith("s"):
        forms.append(last[:-1])
    return [prefix + form for form in forms]
