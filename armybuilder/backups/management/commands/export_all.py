"""Back up everything the site holds into a new folder (see backups/format.py): rulesets,
army books, accounts, API tokens, sessions, event packs, saved lists and submissions,
with their ids."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from armybuilder.backups.format import BackupError
from armybuilder.backups.writing import backup_export


class Command(BaseCommand):
    help = "Write everything the site holds (see backups/format.py) as JSON files into DIR, new or empty."

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path, metavar="DIR")

    def handle(self, *args, folder: Path, **options):
        try:
            counts = backup_export(folder=folder)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Wrote {describe(counts)} to {folder}")


def describe(counts: dict[str, int]) -> str:
    """ "5 rulesets, 13 army books, 2 users, 1 API tokens, 3 sessions, 1 event packs, 4 lists and 2 submissions" """
    names = {"books": "army books", "tokens": "API tokens"}
    parts = [f"{n} {names.get(k, k)}" for k, n in counts.items() if k != "groups"]
    return ", ".join(parts[:-1]) + " and " + parts[-1]
