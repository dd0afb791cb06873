"""The door for a book file: armybook/1 (taken as it is) or Army Forge's army-book JSON
(read into armybook/1 first), imported through factions' one import of armybook/1. The
admin's upload, the API's and `import_armybook` come in here; the sync too."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Unpack

from armybuilder.armyforge.books.convert import Conversion, armybook_from_armyforge, is_armyforge_book
from armybuilder.armyforge.books.reading import HeldCoreRules
from factions.selectors import armyforge_rules_find, faction_by_armyforge_id, ruleset_infos
from factions.services import ImportOptions, ImportResult, armybook_data, armybook_import, book_file_read


def book_import(*, data: Any, system: str | None = None, **options: Unpack[ImportOptions]) -> ImportResult:
    """Import the book `data` (a dict, or its JSON), in either format (armybook_import
    says what an import does, and what `options` mean). `system` forces the ruleset of an
    Army Forge book enabled for several; a book that names its ruleset must agree.
    ArmyBookError, with every problem found, when it is refused."""
    book = armybook_data(data)
    if not is_armyforge_book(book):
        return armybook_import(data=book, system=system, **options)
    read = armyforge_book_read(book, system=system)
    return armybook_import(data=read.book, reader_errors=read.errors, reader_warnings=read.warnings, **options)


def book_import_file(*, path: Path, system: str | None = None, **options: Unpack[ImportOptions]) -> ImportResult:
    """Import the book file at `path`, in either format (book_import; the file read as
    factions.services.book_file_read reads it, bounded)."""
    return book_import(data=book_file_read(path=path), system=system, **options)


def armyforge_book_read(data: dict[str, Any], *, system: str | None = None) -> Conversion:
    """An Army Forge book read into armybook/1 against the catalogue: the slug of the book
    already imported from it, the core rules of Army Forge's held for its ruleset."""

    def existing_slug(ruleset: str, uid: str) -> str | None:
        faction = faction_by_armyforge_id(system=ruleset, armyforge_id=uid)
        return faction.slug if faction else None

    def core_rules(ruleset: str) -> HeldCoreRules | None:
        held = armyforge_rules_find(system=ruleset)
        if held is None:
            return None
        return HeldCoreRules(held.version, {rule["name"]: rule["text"] for rule in held.rules})

    return armybook_from_armyforge(
        data, rulesets=ruleset_infos(), system=system, existing_slug=existing_slug, core_rules=core_rules
    )
