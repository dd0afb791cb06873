"""Restore a backup made by export_all into a new, migrated database: all or nothing,
keeping every id (see backups/format.py)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from armybuilder.backups.format import BackupError
from armybuilder.backups.management.commands.export_all import describe
from armybuilder.backups.restoring import backup_import


class Command(BaseCommand):
    help = (
        "Restore rulesets, army books, users, API tokens, sessions, event packs, lists and submissions "
        "from DIR (made by export_all) into a database with no users and no lists; all or nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path, metavar="DIR")
        parser.add_argument("--dry-run", action="store_true", help="Check that DIR restores, then roll back")

    def handle(self, *args, folder: Path, dry_run: bool, **options):
        try:
            counts = backup_import(folder=folder, dry_run=dry_run)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        verb = "Would restore" if dry_run else "Restored"
        self.stdout.write(f"{verb} {describe(counts)} from {folder}")
