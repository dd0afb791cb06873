"""Write a faction's army book as armybook/1 JSON."""

from django.core.management.base import BaseCommand, CommandError

from factions.management.output import write_json
from factions.models import Faction
from factions.selectors import faction_document


class Command(BaseCommand):
    help = "Export one faction as armybook/1 JSON (to standard output, or --output FILE)."

    def add_arguments(self, parser):
        parser.add_argument("system", help="Ruleset slug, e.g. aof")
        parser.add_argument("slug", help="Faction slug, e.g. human-empire")
        parser.add_argument("--output", "-o", help="File to write instead of standard output")

    def handle(self, *args, system: str, slug: str, output: str | None = None, **options):
        try:
            faction = Faction.objects.get(ruleset__slug=system, slug=slug)
        except Faction.DoesNotExist:
            raise CommandError(f'no faction "{slug}" in ruleset "{system}"') from None
        write_json(self, faction_document(faction=faction), output=output, what=f"{faction.name} {faction.version}")
