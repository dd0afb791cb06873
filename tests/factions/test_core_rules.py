"""The catalogue of core special rules, checked against the rulebooks.

Each ruleset's rules are listed by hand below (EXPECTED_RULES / COMMAND_GROUPS), read
from the rulebook texts in ../shared/rulebooks/. The tests then check that:

- the JSON catalogue in factions/data/core_rules/<slug>.json, and the CoreRule rows
  loaded from it, hold exactly those rules;
- every listed rule really is defined in that rulebook section, and every rule heading
  found in the section is listed (so a rule added to a book and missed here fails);
- our summaries are short, in our own words, and copy no run of 8+ words from a book.

The rulebook tests skip when the rulebook texts are not present. The database tests are
marked ``django_db``; the others run without Django, e.g.
``python3 -m pytest tests/factions/test_core_rules.py -k "not django_db" -p no:django``.
"""

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RULEBOOKS_DIR = Path(__file__).resolve().parents[3] / "shared" / "rulebooks"
CATALOGUE_DIR = REPO / "factions" / "data" / "core_rules"

SLUGS = ("aof", "aof-regiments", "aof-skirmish", "opf", "aof-arena")

RULEBOOK_FILES = {
    "aof": "age-of-fantasy-3.2.0.txt",
    "aof-regiments": "aof-regiments-1.7.txt",
    "aof-skirmish": "aof-skirmish.txt",
    "opf": "one-page-fantasy-beginners-guide-3.2.0.txt",
    "aof-arena": "aof-arena-2.1.txt",
}

# Rules defined in each rulebook's special-rules section(s). Names as the book spells
# them, without "(X)"; RATED lists those the book writes as "Name(X)".
EXPECTED_RULES = {
    "aof": (
        "Ambush",
        "AP",
        "Blast",
        "Caster",
        "Counter",
        "Deadly",
        "Entrenched",
        "Fast",
        "Fear",
        "Fearless",
        "Flying",
        "Furious",
        "Hero",
        "Immobile",
        "Impact",
        "Indirect",
        "Lance",
        "Limited",
        "Poison",
        "Regeneration",
        "Relentless",
        "Reliable",
        "Rending",
        "Scout",
        "Slow",
        "Sniper",
        "Stealth",
        "Strider",
        "Tough",
        "Transport",
    ),
    "aof-regiments": (
        "Ambush",
        "AP",
        "Blast",
        "Deadly",
        "Fast",
        "Fear",
        "Fearless",
        "Fire Breath",
        "Flying",
        "Furious",
        "Impact",
        "Indirect",
        "Phalanx",
        "Poison",
        "Regeneration",
        "Scout",
        "Skirmisher",
        "Slow",
        "Sniper",
        "Strider",
        "Tough",
        # Transport(X) is defined under "Solid Buildings", not in "Special Rules".
        "Transport",
        "Vanguard",
        "Wizard",
    ),
    "aof-skirmish": (
        "Ambush",
        "AP",
        "Blast",
        "Breath Attack",
        "Deadly",
        "Fast",
        "Fear",
        "Fearless",
        "Flying",
        "Furious",
        "Hero",
        "Immobile",
        "Impact",
        "Indirect",
        "Phalanx",
        "Poison",
        "Regeneration",
        "Rending",
        "Scout",
        "Slow",
        "Sniper",
        "Stealth",
        "Strider",
        "Tough",
        "Wizard",
    ),
    "opf": (
        "Armored",
        "Deadly",
        "Fast",
        "Fear",
        "Fearless",
        "Fiery Breath",
        "Flying",
        "Furious",
        "Impact",
        "Indirect",
        "Nimble",
        "Piercing",
        "Poison",
        "Rapid",
        "Regeneration",
        "Resistance",
        "Scout",
        "Sniper",
        "Strider",
        "Tough",
        "Unwieldy",
        "Vanguard",
        "Wizard",
    ),
    # The Arena text we have stops after page 5 ("Preparation"); its Special Rules
    # page (9) is missing, so there is nothing to list. See the Arena test below.
    "aof-arena": (),
}

# Command-group / common upgrades a unit carries as a rule.
COMMAND_GROUPS = {
    "aof": ("Banner", "Musician", "Sergeant"),
    "aof-regiments": ("Battle Standard", "Musician", "Sergeant"),
    "aof-skirmish": ("Musician / Battle Standard", "Sergeant"),
    "opf": ("Musician/Standard", "Sergeant"),
    "aof-arena": (),
}

RATED = {
    "aof": {"AP", "Blast", "Caster", "Deadly", "Fear", "Impact", "Tough", "Transport"},
    "aof-regiments": {"AP", "Blast", "Impact", "Tough", "Transport", "Wizard"},
    "aof-skirmish": {"AP", "Blast", "Deadly", "Impact", "Tough", "Wizard"},
    "opf": {"Impact", "Tough", "Wizard"},
    "aof-arena": set(),
}


# --- Where each book defines its rules --------------------------------------------------

HEADING = "heading"  # the rule name alone on its line, its text on the following lines
COLON = "colon"  # "Name: text" / "- Name:** text" on one line
EQUALS = "equals"  # "- Name = text" on one line

# A line that is only a rule name: capitalised words, optionally followed by "(X)".
HEADING_LINE = re.compile(r"^(?P<name>[A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*){0,3})(?P<x>\(X\))?$")
COLON_LINE = re.compile(r"^(?:[-•]\s*)?\**(?P<name>[A-Z][A-Za-z]*(?: /?\s?[A-Z][A-Za-z]*){0,3})(?P<x>\(X\))?:\**\s")
EQUALS_LINE = re.compile(r"^[-•]\s*\**(?P<name>[A-Z][A-Za-z]*(?:[ /][A-Z][A-Za-z]*){0,3})(?P<x>\(X\))?\**\s*=\s")
LINE_PATTERNS = {HEADING: HEADING_LINE, COLON: COLON_LINE, EQUALS: EQUALS_LINE}

# Sub-headings inside a special-rules section that are not rules.
NOT_RULES = {"Command Groups", "Rule Priority", "SPECIAL RULES"}
# OPF lists "Mounts" among its Common Upgrades; it is a kind of upgrade (the mount's own
# name, Tough and rules go on the card), not a rule a unit carries.
NOT_RULE_UPGRADES = {"Mounts"}


@dataclass(frozen=True)
class Region:
    """Lines after the `start` line up to (not including) the `end` line.

    `end` None: to the end of the file; `end` HEADING: to the first rule-heading line.
    """

    section: str  # the section name our catalogue uses for rules found here
    start: str
    end: object
    kind: str
    command_groups: bool = False


REGIONS = {
    "aof": (
        Region("Command Groups", "Command Groups", HEADING, COLON, command_groups=True),
        Region("Special Rules", "SPECIAL RULES", "WHAT NEXT?", HEADING),
    ),
    "aof-regiments": (
        Region(
            "Common Upgrades",
            "Common Upgrades",
            "Special Rules",
            COLON,
            command_groups=True,
        ),
        Region("Special Rules", "Special Rules", "Age of Fantasy: Regiments v1.7", COLON),
        Region("Solid Buildings", "Solid Buildings", "Missions", COLON),
    ),
    # The Skirmish text has no "Special Rules" heading: the rules follow "Rules
    # Priority & Stacking Effects" (the page title is not in the text).
    "aof-skirmish": (
        Region("Command Groups", "Command Groups", HEADING, COLON, command_groups=True),
        Region(
            "Special Rules",
            "Rules Priority & Stacking Effects",
            "Want more Age of Fantasy: Skirmish?",
            HEADING,
        ),
    ),
    "opf": (
        Region(
            "Common Upgrades",
            "Common Upgrades",
            "Special Rules",
            EQUALS,
            command_groups=True,
        ),
        Region("Special Rules", "Special Rules", None, HEADING),
    ),
    "aof-arena": (),
}


def rulebook_lines(slug):
    from tests.conftest import require_shared

    path = require_shared(RULEBOOKS_DIR / RULEBOOK_FILES[slug])
    return path.read_text(encoding="utf-8").splitlines()


def region_lines(lines, region):
    stripped = [line.strip() for line in lines]
    try:
        first = stripped.index(region.start) + 1
    except ValueError:
        pytest.fail(f"heading {region.start!r} not found in the rulebook text")
    for i in range(first, len(stripped)):
        text = stripped[i]
        if region.end is None:
            continue
        if region.end == HEADING:
            match = HEADING_LINE.match(text)
            if match and match["name"] not in NOT_RULES:
                return stripped[first:i]
        elif text == region.end:
            return stripped[first:i]
    if region.end not in (None, HEADING):
        pytest.fail(f"end of section {region.end!r} not found after {region.start!r}")
    return stripped[first:]


def rules_in_region(lines, region):
    """{name: rated} for every rule defined in the region, as the book writes it."""
    pattern = LINE_PATTERNS[region.kind]
    found = {}
    for text in region_lines(lines, region):
        match = pattern.match(text)
        if not match or match["name"] in NOT_RULES | NOT_RULE_UPGRADES:
            continue
        name = re.sub(r"\s+", " ", match["name"])
        found[name] = bool(match["x"])
    return found


def rules_in_book(slug, command_groups):
    lines = rulebook_lines(slug)
    found = {}
    for region in REGIONS[slug]:
        if region.command_groups != command_groups:
            continue
        for name, rated in rules_in_region(lines, region).items():
            found[name] = (rated, region.section)
    return found


def load_catalogue(slug):
    path = CATALOGUE_DIR / f"{slug}.json"
    return json.loads(path.read_text(encoding="utf-8"))


def all_expected(slug):
    return set(EXPECTED_RULES[slug]) | set(COMMAND_GROUPS[slug])


# --- The JSON catalogue -----------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_catalogue_file_lists_exactly_the_rulebook_rules(slug):
    names = [rule["name"] for rule in load_catalogue(slug)]
    assert len(names) == len(set(names)), "duplicate rule names"
    assert set(names) == all_expected(slug)


@pytest.mark.parametrize("slug", SLUGS)
def test_catalogue_entries_have_exactly_the_four_fields(slug):
    for rule in load_catalogue(slug):
        assert set(rule) == {"name", "rated", "section", "summary"}, rule
        assert isinstance(rule["rated"], bool), rule
        assert isinstance(rule["name"], str) and rule["name"].strip() == rule["name"]
        assert "(" not in rule["name"], "names are written without (X)"
        assert isinstance(rule["section"], str) and rule["section"]


@pytest.mark.parametrize("slug", SLUGS)
def test_catalogue_is_sorted_alphabetically_by_name(slug):
    names = [rule["name"] for rule in load_catalogue(slug)]
    assert names == sorted(names, key=str.casefold)


@pytest.mark.parametrize("slug", SLUGS)
def test_rules_are_rated_exactly_when_the_book_writes_them_with_x(slug):
    rated = {rule["name"] for rule in load_catalogue(slug) if rule["rated"]}
    assert rated == RATED[slug]


@pytest.mark.parametrize("slug", SLUGS)
def test_command_group_upgrades_sit_in_the_command_group_section(slug):
    sections = {r.section for r in REGIONS[slug] if r.command_groups}
    for rule in load_catalogue(slug):
        if rule["name"] in COMMAND_GROUPS[slug]:
            assert rule["section"] in sections, rule
        else:
            assert rule["section"] not in sections, rule


# --- Against the rulebook text ----------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_every_expected_rule_is_defined_in_the_rulebook_section(slug):
    lines = rulebook_lines(slug)
    texts = {}
    for region in REGIONS[slug]:
        texts.setdefault(region.command_groups, []).extend(region_lines(lines, region))
    rule_text = "\n".join(texts.get(False, []))
    group_text = "\n".join(texts.get(True, []))
    for name in EXPECTED_RULES[slug]:
        written = f"{name}(X)" if name in RATED[slug] else name
        assert written in rule_text, f"{written} not found in the special rules of {slug}"
    for name in COMMAND_GROUPS[slug]:
        assert name in group_text, f"{name} not found in the command groups of {slug}"


@pytest.mark.parametrize("slug", SLUGS)
def test_rule_headings_in_the_rulebook_are_exactly_the_expected_rules(slug):
    found = rules_in_book(slug, command_groups=False)
    assert set(found) == set(EXPECTED_RULES[slug])
    assert {name for name, (rated, _) in found.items() if rated} == (RATED[slug] & set(EXPECTED_RULES[slug]))


@pytest.mark.parametrize("slug", SLUGS)
def test_command_group_upgrades_in_the_rulebook_are_exactly_the_expected_ones(slug):
    found = rules_in_book(slug, command_groups=True)
    assert set(found) == set(COMMAND_GROUPS[slug])


@pytest.mark.parametrize("slug", SLUGS)
def test_catalogue_names_rated_flags_and_sections_follow_the_rulebook(slug):
    found = rules_in_book(slug, command_groups=False)
    found.update(rules_in_book(slug, command_groups=True))
    for rule in load_catalogue(slug):
        assert rule["name"] in found, rule["name"]
        rated, section = found[rule["name"]]
        assert (rule["rated"], rule["section"]) == (rated, section), rule["name"]


def test_arena_text_stops_before_its_special_rules_page():
    """The Arena text is truncated: the contents list Special Rules on page 9, but the
    text ends at page 5, so the catalogue is empty. When the full text arrives this
    fails, as a reminder to fill in aof-arena."""
    lines = [line.strip() for line in rulebook_lines("aof-arena")]
    contents = [re.match(r"^Special Rules\s*\.+\s*(\d+)$", line) for line in lines]
    pages = [int(m[1]) for m in contents if m]
    assert pages, "the contents no longer list a Special Rules page"
    special_rules_page = pages[0]
    page_numbers = [int(line) for line in lines if re.fullmatch(r"\d{1,2}", line)]
    assert max(page_numbers) < special_rules_page
    assert "SPECIAL RULES" not in lines  # page titles are upper case
    assert load_catalogue("aof-arena") == []


# --- Summaries --------------------------------------------------------------------------


def words(text):
    text = text.replace("’", "'").replace("”", '"').replace("“", '"')
    return re.sub(r"[^a-z0-9+]+", " ", text.lower()).split()


def ngrams(tokens, n):
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


COPY_RUN = 8


@pytest.mark.parametrize("slug", SLUGS)
def test_summaries_are_one_to_three_short_sentences(slug):
    for rule in load_catalogue(slug):
        summary = rule["summary"]
        assert 20 <= len(summary) <= 350, rule["name"]
        assert summary == summary.strip() and summary[-1] in ".!?", rule["name"]
        sentences = re.split(r"(?<=[.!?])\s+", summary)
        assert 1 <= len(sentences) <= 3, rule["name"]


@pytest.mark.parametrize("slug", SLUGS)
def test_summaries_share_no_run_of_eight_words_with_any_rulebook(slug, rulebook_ngrams):
    for rule in load_catalogue(slug):
        copied = ngrams(words(rule["summary"]), COPY_RUN) & rulebook_ngrams
        assert not copied, f"{rule['name']}: {' '.join(min(copied))}"


# --- The database, loaded from the JSON files by a data migration ---------------------


@pytest.mark.django_db
@pytest.mark.parametrize("slug", SLUGS)
def test_database_catalogue_lists_exactly_the_rulebook_rules(slug):
    from factions.models import CoreRule, Ruleset

    assert Ruleset.objects.filter(slug=slug).exists()
    names = list(CoreRule.objects.filter(ruleset__slug=slug).values_list("name", flat=True))
    assert len(names) == len(set(names)), "duplicate rule names"
    assert set(names) == all_expected(slug)


@pytest.mark.django_db
@pytest.mark.parametrize("slug", SLUGS)
def test_database_catalogue_matches_the_json_file(slug):
    from factions.models import CoreRule

    rows = CoreRule.objects.filter(ruleset__slug=slug).values_list("name", "rated", "section", "summary")
    expected = {(r["name"], r["rated"], r["section"], r["summary"]) for r in load_catalogue(slug)}
    assert set(rows) == expected
