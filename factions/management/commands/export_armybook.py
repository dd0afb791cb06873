"""Write a faction's army book as armybook/1 JSON."""

from django.core.management.base import BaseCommand, CommandError

from armybuilder.missing import Missing
from factions.management.output import write_json
from factions.selectors import faction_document, faction_get


class Command(BaseCommand):
    help = "Export one faction as armybook/1 JSON (to standard output, or --output FILE)."

    def add_arguments(self, parser):
        parser.add_argument("system", help="Ruleset slug, e.g. aof")
        parser.add_argument("slug", help="Faction slug, e.g. human-empire")
        parser.add_argument("--output", "-o", help="File to write instead of standard output")

    def handle(self, *args, system: str, slug: str, output: str | None = None, **options):
        try:
            faction = faction_get(system=system, slug=slug)
        except Missing as missing:
            raise CommandError(str(missing)) from None
        write_json(self, faction_document(faction=faction), output=output, what=f"{faction.name} {faction.version}")
