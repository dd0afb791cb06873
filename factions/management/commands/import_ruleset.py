"""Import ruleset variants from ruleset/1 JSON files (factions/ruleset_format.py). Each
file is checked first and imported whole or not at all; a variant of the same slug is
replaced."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from factions.ruleset_format import RulesetError
from factions.services import ruleset_import


class Command(BaseCommand):
    help = "Import ruleset/1 variant files; each is checked first and imported whole or not at all."

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=Path, metavar="FILE")

    def handle(self, *args, files: list[Path], **options):
        failed = 0
        for path in files:
            try:
                ruleset = ruleset_import(data=path.read_bytes())
            except OSError as exc:
                failed += 1
                self.stderr.write(f"{path}: cannot read it ({exc.strerror})")
                continue
            except RulesetError as exc:
                failed += 1
                self.stderr.write(f"{path}: not imported")
                for problem in exc.problems:
                    self.stderr.write(f"  {problem}")
                continue
            assert ruleset.base is not None  # ruleset/1 files are variants: each has its base
            self.stdout.write(f"{path}: imported {ruleset.title} ({ruleset.slug}), a variant of {ruleset.base.title}")
        if failed:
            raise CommandError(f"{failed} of {len(files)} files not imported")
