"""Bring the rulesets, their limits and core rules in line with factions/data/."""

from django.core.management.base import BaseCommand
from django.db import transaction

from factions.services import sync_rulesets


class Command(BaseCommand):
    help = "Rewrite the five rulesets, their force-org limits and core rules from the bundled data."

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="Show the counts, change nothing.")

    def handle(self, *args, dry_run: bool = False, **options):
        with transaction.atomic():
            counts = sync_rulesets()
            if dry_run:
                transaction.set_rollback(True)
        verb = "Would sync" if dry_run else "Synced"
        self.stdout.write(
            f"{verb} {counts['rulesets']} rulesets, {counts['limits']} limits, {counts['core_rules']} core rules."
        )
