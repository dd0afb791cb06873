"""Back up every army book, account and saved list into a folder (see lists/backups.py)."""

from pathlib import Path

from django.core.management.base import BaseCommand

from armybuilder.lists.backups import backup_export


class Command(BaseCommand):
    help = "Write every army book, user and list as plain JSON files into DIR."

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path, metavar="DIR")

    def handle(self, *args, folder: Path, **options):
        counts = backup_export(folder=folder)
        self.stdout.write(
            f"Wrote {counts['books']} army books, {counts['users']} users and {counts['lists']} lists to {folder}"
        )
