"""Army Forge's core rules of a ruleset: reading Army Forge's answer, and keeping it as a
version (factions.models.ArmyForgeRules).

Army Forge serves the core rules its official books name without describing them
(Thrust, Bane, Artillery, …) at `{source}/api/rules/common/{game system id}`, as
`{"rules": [{"id", "name", "description", "coreType"}], "traits": [...]}`; the traits are
campaign traits, which the site does not use. Army Forge gives them no version name: a
version is named by the day its content was first read ("2026-11-29"; "2026-11-29+2" for
other content read the same day), and a new one is kept only when the names and texts
differ from the current version's. Every version is kept: a book imported with one of
them is read with it.

What is read is bounded (how many rules, how long a name and a text) and every entry
that is not a rule with a name and a description is skipped, saying so; an answer that
is not core rules at all is refused whole, and the version held stays current.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from armybuilder.stamps import content_hash
from factions.models import ArmyForgeRules, Ruleset
from factions.selectors import armyforge_rules_find
from factions.versions import next_version_name

MAX_RULES = 500
MAX_NAME = 80  # as a book's rule name (the armybook/1 schema's factionRule name)
MAX_TEXT = 2000  # Army Forge's longest is under 600 characters
NEW_VERSION, UNCHANGED = "new version", "unchanged"


class CoreRulesError(Exception):
    """An answer that is not Army Forge's core rules; the message says why in one sentence."""


@dataclass(frozen=True)
class CoreRules:
    """The core rules read from one answer: [{"name", "text"}] in Army Forge's order, and
    a line for each entry skipped (`rules[3]: skipped: …`)."""

    rules: list[dict[str, str]]
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True)
class RulesStored:
    """What keeping a ruleset's core rules did: NEW_VERSION or UNCHANGED, and the version
    that is current now (or would be, in a dry run)."""

    outcome: str
    version: str
    rules: int


def core_rules_read(data: Any) -> CoreRules:
    """The core rules in Army Forge's answer `data`. CoreRulesError when it is not an
    object with a list of rules, holds more than MAX_RULES or no rule that can be read;
    an entry that is not an object with a name and a description, or whose name or text
    is too long, or whose name comes again, is skipped and named."""
    entries = data.get("rules") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise CoreRulesError('it is not Army Forge\'s core rules (an object with a list of "rules")')
    if len(entries) > MAX_RULES:
        raise CoreRulesError(f"it holds {len(entries)} rules: at most {MAX_RULES} are read")
    rules: list[dict[str, str]] = []
    skipped: list[str] = []
    names: set[str] = set()
    for i, entry in enumerate(entries):
        name, text = _field(entry, "name"), _field(entry, "description")
        why = ""
        if not name or not text:
            why = "not an object with a name and a description"
        elif len(name) > MAX_NAME:
            why = f"its name is {len(name)} characters long (at most {MAX_NAME})"
        elif len(text) > MAX_TEXT:
            why = f'the text of "{name}" is {len(text)} characters long (at most {MAX_TEXT})'
        elif name in names:
            why = f'"{name}" comes a second time (the first is kept)'
        if why:
            skipped.append(f"rules[{i}]: skipped: {why}")
            continue
        names.add(name)
        rules.append({"name": name, "text": text})
    if not rules:
        raise CoreRulesError("it holds no core rule with a name and a description")
    return CoreRules(rules=rules, skipped=tuple(skipped))


def _field(entry: Any, key: str) -> str:
    """A text of an entry as one printable line ("" when it is not a text). The value is
    bounded before it is cleaned: a huge one is only measured."""
    value = entry.get(key) if isinstance(entry, dict) else None
    if not isinstance(value, str):
        return ""
    if len(value) > 4 * MAX_TEXT:
        return value
    return " ".join("".join(c if c.isprintable() else " " for c in value).split())


def rules_problems(rules: Any) -> list[str]:
    """What keeps `rules` from being a version of core rules as the sync keeps them
    ([{"name", "text"}], bounded as above, names once each): for a backup's records."""
    if not isinstance(rules, list) or not 0 < len(rules) <= MAX_RULES:
        return [f"its rules should be a list of 1 to {MAX_RULES} rules"]
    problems = []
    names: set[str] = set()
    for i, rule in enumerate(rules):
        name, text = (rule.get(key) if isinstance(rule, dict) else None for key in ("name", "text"))
        if not isinstance(rule, dict) or set(rule) != {"name", "text"}:
            problems.append(f'rule {i + 1} should be an object with a "name" and a "text"')
        elif not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
            problems.append(f"rule {i + 1}: its name should be a text of 1 to {MAX_NAME} characters")
        elif not isinstance(text, str) or not 0 < len(text) <= MAX_TEXT:
            problems.append(f"rule {i + 1}: its text should be a text of 1 to {MAX_TEXT} characters")
        elif name in names:
            problems.append(f'rule {i + 1}: "{name}" comes a second time')
        else:
            names.add(name)
    return problems


def armyforge_rules_store(*, system: str, rules: list[dict[str, str]], dry_run: bool = False) -> RulesStored:
    """Keep `rules` ([{"name", "text"}], as core_rules_read gives them) as the ruleset
    `system`'s Army Forge core rules: a new version, current from now on, named by today's
    date (UTC) when they differ from the current version; nothing written when they are
    the same (not even a transaction opened: the answer of most syncs). `dry_run` writes
    nothing either way. Ruleset.DoesNotExist for a ruleset the site does not have."""
    stamp = content_hash(rules)
    current = armyforge_rules_find(system=system)
    if current is not None and current.content_hash == stamp:
        return RulesStored(UNCHANGED, current.version, len(current.rules))
    with transaction.atomic():
        # Locked, so that two syncs at once neither both add a version nor pick one name;
        # the second finds the first's version current.
        ruleset = Ruleset.objects.select_for_update().get(slug=system)
        current = armyforge_rules_find(system=system)
        if current is not None and current.content_hash == stamp:
            return RulesStored(UNCHANGED, current.version, len(current.rules))
        now = timezone.now()
        day = fetched_day(now)
        held = ArmyForgeRules.objects.filter(ruleset=ruleset, version__startswith=day).values_list("version", flat=True)
        name = next_version_name(day, [version for version in held if version.split("+", 1)[0] == day])
        if not dry_run:
            ArmyForgeRules.objects.create(
                ruleset=ruleset, version=name, fetched_at=now, rules=rules, content_hash=stamp
            )
    return RulesStored(NEW_VERSION, name, len(rules))


def fetched_day(when: datetime) -> str:
    """The name a version read at `when` starts with."""
    return when.astimezone(UTC).date().isoformat()
