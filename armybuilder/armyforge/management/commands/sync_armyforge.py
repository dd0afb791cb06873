"""Import new versions of the official army books, and of the core rules they are written
for, from Army Forge (armybuilder/armyforge/sync.py).

For each ruleset (default: aof, aof-skirmish and aof-regiments) it reads Army Forge's core
rules (kept as a new version when they changed), then its index of official books, and
fetches only the books whose version the site does not hold or Army Forge re-published
since, each imported through the same checks as `import_armybook`. One line for the core
rules and one per book as it goes (a book's warnings indented under it), then `N new
books, M new versions, K unchanged, F failed`. A book or core rules that fail leave what
the site held as it was; the exit status is then 1 (0 when none failed), so a scheduler
can tell. Run again with nothing new, it writes nothing.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from armybuilder.armyforge.sync import GAMES, armyforge_sync


class Command(BaseCommand):
    help = (
        "Import new versions of the official army books, and of their core rules, from Army Forge; each book is "
        "checked first and imported whole or not at all. Exit status 1 when any book, index or core rules failed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--system",
            action="append",
            dest="systems",
            choices=list(GAMES),
            metavar="RULESET",
            help=f"Sync this ruleset only ({', '.join(GAMES)}); repeat for several. Default: all of them.",
        )
        parser.add_argument("--source", metavar="URL", help="Army Forge's address (default: setting ARMYFORGE_URL).")
        parser.add_argument("--dry-run", action="store_true", help="Fetch and check, write nothing.")

    def handle(
        self,
        *args: Any,
        systems: list[str] | None = None,
        source: str | None = None,
        dry_run: bool = False,
        **opts: Any,
    ) -> None:
        try:
            result = armyforge_sync(systems=systems, source=source, dry_run=dry_run, report=self.stdout.write)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(result.summary())
        if result.failed:
            raise CommandError(f"{result.failed} failed (named above): the site keeps what it held of them")
