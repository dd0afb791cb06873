"""Prepare a database for the site: migrate, then load the bundled army books.

Safe to run again: a bundled book is imported only when it is missing or the bundled file
has a newer version (kept as a new version of the book), so edits made in the admin are
kept otherwise. Books of other sources (Army Forge, uploads) are never touched, even
under the same slug.
"""

from django.core.management import call_command
from django.core.management.base import BaseCommand

from factions.services import bundled_books_load


class Command(BaseCommand):
    help = "Migrate the database and import bundled army books that are missing or newer."

    def handle(self, *args, **options):
        call_command("migrate", interactive=False, verbosity=options["verbosity"] - 1 if options["verbosity"] else 0)
        results = bundled_books_load()
        for result in results:
            self.stdout.write(result.describe())
        self.stdout.write(f"Ready: {len(results)} bundled army books imported or updated.")
