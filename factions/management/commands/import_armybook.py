"""Import army books (armybook/1 JSON files) into the catalogue.

Each file is checked against the schema and the catalogue before anything is written; a
bad file changes nothing and the command names the path of every problem. Importing a
book whose ruleset and slug already exist replaces that faction's book.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from factions.armybook import ArmyBookError
from factions.services import armybook_import_file


class Command(BaseCommand):
    help = "Import armybook/1 JSON files; each is checked first and imported whole or not at all."

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
        parser.add_argument("--dry-run", action="store_true", help="Check and report, write nothing.")

    def handle(self, *args, files: list[Path], dry_run: bool = False, **options):
        failed = 0
        for path in files:
            try:
                result = armybook_import_file(path=path, dry_run=dry_run)
            except ArmyBookError as exc:
                failed += 1
                self.stderr.write(f"{path}: not imported")
                for problem in exc.problems:
                    self.stderr.write(f"  {problem}")
                continue
            self.stdout.write(f"{path}: {result.describe()}")
        if failed:
            raise CommandError(f"{failed} of {len(files)} files not imported")
