"""Write a ruleset as ruleset/1 JSON: a variant to move to another site, or one of the
five as the start of a new variant (set its slug, name and base, then import it)."""

from django.core.management.base import BaseCommand, CommandError

from armybuilder.missing import Missing
from factions.management.output import write_json
from factions.selectors import ruleset_document, ruleset_get


class Command(BaseCommand):
    help = "Export one ruleset as ruleset/1 JSON (to standard output, or --output FILE)."

    def add_arguments(self, parser):
        parser.add_argument("system", help="Ruleset slug, e.g. aof or aof-club")
        parser.add_argument("--output", "-o", help="File to write instead of standard output")

    def handle(self, *args, system: str, output: str | None = None, **options):
        try:
            ruleset = ruleset_get(slug=system)
        except Missing as missing:
            raise CommandError(str(missing)) from None
        write_json(self, ruleset_document(ruleset=ruleset), output=output, what=ruleset.title)
