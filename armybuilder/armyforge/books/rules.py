"""The book's special rules: each rule a unit, weapon, item or option names, as we write
it ("AP(1)"), and the book's rules (`specialRules`), with the core rules of Army Forge's
it names and a rule that limits a list (Unique)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from armybuilder.armyforge.books.reading import MAX_DIGITS, Reading, cut
from armybuilder.engine.book import split_rule

MAX_RULE_TEXT = 2000
CORE_TYPE = 1  # a rule's `coreType` when it is one of Army Forge's core rules
# A rule for building lists, by what it says: Unique's "may only be taken once per army",
# and anything else of that kind (which is shown but not enforced, with a warning).
ONCE_PER_ARMY_RE = re.compile(r"\bmay (only )?be (taken|included|fielded) (only )?once (per|in an?|in your) army\b")
LIST_RULE_RE = re.compile(
    r"\b(per army|in (an|your|the) army( list)?|army (may|can) (only )?(take|include)"
    r"|may (only )?be (taken|included|fielded))\b"
)


def rule_name(r: Reading, name: str) -> str:
    return r.aliases.get(name, name)


def as_written(r: Reading, rules: Iterable[str]) -> list[str]:
    """Rules as Army Forge names them (our aliases undone: Wizard(2) is its Caster(2)),
    to hold what was read against its labels."""
    written = {ours: theirs for theirs, ours in r.aliases.items()}
    out = []
    for text in rules:
        name, param = split_rule(text)
        name = written.get(name, name)
        out.append(f"{name}({param})" if param is not None else name)
    return out


def rule_text(r: Reading, path: str, rule: Any) -> str | None:
    """ "AP" rated 1 -> "AP(1)"; None (and a warning) if it is not a rule. Every use
    is noted, so that the rules the book needs can be defined afterwards."""
    name = r.name(path, rule, "a rule")
    if name is None:
        return None
    r.fields(path, "rule", rule)
    # Army Forge's rules carry `additional: false` and `count: 1` throughout; what
    # another value would mean is not known (`modify`: an attachment's, read there).
    for key, usual in (("additional", False), ("count", 1)):
        if rule.get(key) not in (usual, None):
            r.warn(f"{path}.{key}", f'rule "{name}" has {key} {rule.get(key)!r}, which is not read: ignored')
    written = " ".join(name.split())
    name = rule_name(r, written.replace("(", "[").replace(")", "]"))
    rating = rule.get("rating")
    if isinstance(rating, float) and rating.is_integer():
        rating = int(rating)
    text = str(rating).strip() if rating is not None and not isinstance(rating, bool) else ""
    if text.isdecimal() and len(text) <= MAX_DIGITS:  # "03" is 3 (and "٣" is 3, as int reads it)
        text = str(int(text))
    used = r.used_rules.setdefault(name, {"path": path, "rated": None})
    if not text:
        return name
    if r.ruleset.core_rules.get(name) and not re.fullmatch(r"\+?\d+", text):
        # Our core rules with a value take a number: "Tough(X)" cannot be worked with.
        r.warn(path, f'"{name}" has the value {text!r}, which is not a number: shown without it')
        return name
    if used["rated"] is None:
        used["rated"] = path
    # Parentheses inside a text parameter would end it early: written as brackets.
    ours = f"{name}({text.replace('(', '[').replace(')', ']')})"
    if name == written and "(" not in text:  # not renamed here: Army Forge's label says the same
        r.check_label(path, f'rule "{name}"', rule.get("label"), ours)
    return ours


def rule_texts(r: Reading, path: str, rules: Iterable[Any]) -> list[str]:
    texts: dict[str, None] = {}  # each once, in the order given
    for i, rule in enumerate(rules):
        text = rule_text(r, f"{path}[{i}]", rule)
        if text is not None:
            texts[text] = None
    return list(texts)


def book_rules(r: Reading, special_rules: list[Any]) -> list[dict[str, Any]]:
    """The book's rules: its own (`specialRules` that are neither core rules here nor
    Army Forge's), and the core rules of Army Forge's it names (`core`), each with the
    book's wording of it, else Army Forge's (the core rules held for the ruleset, read
    by `sync_armyforge`), else none. A core rule of ours the book neither describes nor
    finds in Army Forge's is left to our rulebook. A rule that limits a list (Unique) is
    recognised by what it says and carries its limit (`per_army`). Read last: which rules
    the book needs is known once every unit and option is read."""
    ours = r.ruleset.core_rules
    theirs = r.core.texts if r.core is not None else {}
    rules: dict[str, dict[str, Any]] = {}
    for i, rule in enumerate(special_rules):
        path = f"specialRules[{i}]"
        name = r.name(path, rule, "a rule")
        if name is None:
            continue
        r.fields(path, "special rule", rule)
        name = name.strip()
        # An alias or Hero (a unit type here) maps onto one of ours.
        if name in r.aliases or (name == "Hero" and not r.hero_is_core) or name in rules:
            continue
        used = r.used_rules.get(name, {})
        description = rule.get("description")
        text = description.strip() if isinstance(description, str) else ""
        rated = bool(rule.get("hasRating")) or bool(used.get("rated"))
        if used.get("rated") and not rule.get("hasRating"):
            r.warn(
                f"{path}.hasRating",
                f'rule "{name}" is described as taking no value but is used with one '
                f"(at {used['rated']}): imported as taking a value",
            )
        out: dict[str, Any] = {"name": name, "rated": rated}
        core = rule.get("coreType") == CORE_TYPE or name in theirs or name in ours
        limit = _list_rule(r, path, name, text)
        if core and limit is None:
            out["text"] = _rule_text_cut(r, path, name, text or theirs.get(name, ""))
            out["core"] = True
        elif text:
            out["text"] = _rule_text_cut(r, path, name, text)
        else:
            out.update(text="", core=True)  # named, not described: read as a core rule
            r.warn(f"{path}.description", f'rule "{name}" has no description: {_no_text(r, name)}')
        if limit is not None:
            out["per_army"] = limit
        rules[name] = out
    for name, used in r.used_rules.items():
        if name in rules or (name == "Hero" and not r.hero_is_core):
            continue  # described above, or a unit type here
        rated = bool(used.get("rated"))
        if name in theirs:
            rules[name] = {"name": name, "rated": rated, "text": cut(theirs[name], MAX_RULE_TEXT), "core": True}
        elif name in ours and not (rated and not ours[name]):
            continue  # ours explains it
        else:
            rules[name] = {"name": name, "rated": rated, "text": "", "core": True}
            r.warn(used["path"], f'"{name}" is not described by this book: {_no_text(r, name)}')
        if name == "Unique":  # named, never described: Army Forge's rule of that name
            rules[name]["per_army"] = 1
    return list(rules.values())


def _no_text(r: Reading, name: str) -> str:
    """Why a rule the book names is left without a text, and what would give it one."""
    if r.core is None:
        return (
            f"no core rules of Army Forge's are held for {r.system} to explain it (sync_armyforge reads them); "
            "it is shown without a text until a book read with them"
        )
    return f"Army Forge's core rules for {r.system} ({r.core.version}) have no rule of that name either"


def _list_rule(r: Reading, path: str, name: str, text: str) -> int | None:
    """How many times per army a unit with this rule may be taken, when the rule is
    one for building lists that is enforced here (Unique: "may only be taken once per
    army"); None for any other rule. A rule that reads like one for building lists
    but says something else is a warning: it is shown, not enforced."""
    plain = " ".join(text.lower().split())
    if ONCE_PER_ARMY_RE.search(plain) or (name == "Unique" and not plain):
        return 1
    if LIST_RULE_RE.search(plain):
        r.warn(
            f"{path}.description",
            f'"{name}" reads like a rule for building lists ("{cut(text, 120)}"), which is not one this site '
            "enforces: shown on the cards, not checked",
        )
    return None


def _rule_text_cut(r: Reading, path: str, name: str, text: str) -> str:
    if len(text) > MAX_RULE_TEXT:
        r.warn(f"{path}.description", f'the text of "{name}" is cut to {MAX_RULE_TEXT} characters')
    return cut(text, MAX_RULE_TEXT)
