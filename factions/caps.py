"""How large an army book may be: every cap in one place.

Each door a book comes in by (the staff API, `import_armybook`, the Army Forge converter
and `sync_armyforge`, the admin's check of an edit) refuses a book over one of these
before anything else reads it, naming the cap and the book's figure, and changes
nothing. The caps sit far above any real book, so that only a broken or hostile file
meets them: the largest official Army Forge book we hold (Wood Elves 3.5.1) is 243 KB,
with 6,721 values in all: 28 units, 30 packages, at most 6 sections in a package and 7
options in a section, 39 special rules, 6 spells, 7 rules on a unit and 612 characters in
its longest text. The caps are 7 to 20 times that.

The armybook/1 schema (factions/schema/armybook-1.schema.json) states the same counts as
`maxItems`; tests/factions/test_armybook_bounds.py holds the two together.
"""

MAX_BOOK_BYTES = 5 * 1024 * 1024  # a file or download (20 times Wood Elves); Army Forge answers too
MAX_TEXT = 20_000  # characters of any one text or key: 4 times the longest armybook/1 holds (a description)
# Values of any kind (objects, lists, texts, numbers) in all: what the checks, the
# converter and the import's rows grow with, whatever their shape (15 times Wood Elves'
# 6,721; a file of the byte cap may hold a million).
MAX_VALUES = 100_000
MAX_UNITS = 500
MAX_PACKAGES = 500
MAX_SECTIONS = 50  # in one package
MAX_OPTIONS = 100  # in one section
MAX_RULES = 500  # the book's own special rules
MAX_SPELLS = 100
# Anything else one unit, weapon, item, section, option or composition group lists:
# its rules, weapons, items, packages, the sections it does without, targets, gains.
MAX_LISTED = 50


def size_text(n: int) -> str:
    """A size in bytes as a reader takes it in: "5 MB", "640 KB", "900 bytes"."""
    for unit, factor in (("MB", 1024 * 1024), ("KB", 1024)):
        if n >= factor:
            return f"{round(n / factor, 1):g} {unit}"
    return f"{n} bytes"
