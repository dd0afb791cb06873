"""Restore a backup made by export_all into a new, migrated database."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from armybuilder.lists.backups import BackupError, backup_import


class Command(BaseCommand):
    help = "Restore army books, users and lists from DIR (made by export_all); all or nothing."

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path, metavar="DIR")

    def handle(self, *args, folder: Path, **options):
        try:
            counts = backup_import(folder=folder)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"Restored {counts['books']} army books, {counts['users']} users and {counts['lists']} lists from {folder}"
        )
