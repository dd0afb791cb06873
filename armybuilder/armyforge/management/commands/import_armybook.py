"""Import army books into the catalogue: armybook/1 JSON files, or Army Forge army-book
JSON (read into armybook/1 on the way in, see armybuilder/armyforge/books/).

Each file is checked against the schema and the catalogue before anything is written; a
bad file changes nothing and the command names the path of every problem. What was
imported but needs a reader's eye is printed as a warning (and kept for the admin). A book
already held becomes a new version of it (the versions before it are kept); the same
version with the same content changes nothing. A book whose slug a book of another
source holds (the bundled "Human Empire" and Army Forge's) is kept beside it under a free
slug. An Army Forge book enabled for several rulesets needs `--system` to say which one
to import it for.
"""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from armybuilder.armyforge.books.imports import book_import_file
from factions.armybook import ArmyBookError


class Command(BaseCommand):
    help = (
        "Import armybook/1 or Army Forge army-book JSON files; each is checked first and imported whole or not at all."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
        parser.add_argument("--dry-run", action="store_true", help="Check and report, write nothing.")
        parser.add_argument(
            "--system",
            metavar="RULESET",
            help="Ruleset to import for (aof, aof-regiments, aof-skirmish): needed for an Army Forge book "
            "enabled for several; a book that names its ruleset must agree.",
        )

    def handle(
        self, *args: Any, files: list[Path], dry_run: bool = False, system: str | None = None, **options: Any
    ) -> None:
        failed = 0
        for path in files:
            try:
                result = book_import_file(path=path, dry_run=dry_run, system=system)
            except ArmyBookError as exc:
                failed += 1
                self.stderr.write(f"{path}: not imported, {_count(len(exc.problems), 'error')}")
                for problem in exc.problems:
                    self.stderr.write(f"  error: {problem}")
                for warning in exc.warnings:
                    self.stderr.write(f"  warning: {warning}")
                continue
            done = "checked, not imported (dry run)" if dry_run else "imported"
            self.stdout.write(f"{path}: {done}, {_count(len(result.warnings), 'warning')}. {result.describe()}")
            for warning in result.warnings:
                self.stdout.write(f"  warning: {warning}")
        if failed:
            raise CommandError(f"{failed} of {len(files)} files not imported")


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
