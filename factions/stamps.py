"""Content stamps of books and rulesets: what every cache built from them is keyed by.

A book's stamp is a hash of its armybook/1 document as `export_armybook` writes it; a
ruleset's, a hash of its record (its fields, limits and core rules). The compiled engine
book, a list's stored validation, the share page and the PDFs are kept under the stamps
they were built from (armybuilder/stamps.py), so they are found again while the content
is the same and never after it changed, however it was written and whichever database
sharing the cache wrote it. Writing the same content again keeps every cached copy.

The functions that write catalogue content stamp what they wrote, from the database as
it now stands: the importer, the admin's check of every change, the ruleset sync and the
restore of a backup (see their callers of `stamp_books` and `stamp_rulesets`).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.utils import timezone

from armybuilder.stamps import content_hash
from factions.models import BookVersion, Faction, Ruleset
from factions.selectors import faction_book, factions_with_book, ruleset_record


def stamp_books(faction_ids: Iterable[int]) -> dict[int, str]:
    """Stamp these books with a hash of their content, and keep their current version's
    document (a BookVersion, made when the book has none of that name) as the tables now
    hold it; {faction id: stamp}."""
    stamps = {}
    for faction in factions_with_book().filter(pk__in=list(faction_ids)):
        document = faction_book(faction=faction)
        stamps[faction.pk] = content_hash(document)
        Faction.objects.filter(pk=faction.pk).update(content_hash=stamps[faction.pk])
        BookVersion.objects.update_or_create(
            faction=faction,
            version=faction.version,
            defaults={"document": document, "content_hash": stamps[faction.pk], "units": len(document["units"])},
            create_defaults={
                "document": document,
                "content_hash": stamps[faction.pk],
                "units": len(document["units"]),
                "source": faction.source,
                "armyforge_id": faction.armyforge_id,
                "imported_at": timezone.now(),
            },
        )
    return stamps


def stamp_rulesets(ruleset_ids: Iterable[int]) -> dict[int, str]:
    """Stamp these rulesets with a hash of their content; {ruleset id: stamp}."""
    stamps = {}
    for ruleset in (
        Ruleset.objects.filter(pk__in=list(ruleset_ids)).select_related("base").prefetch_related("limits", "core_rules")
    ):
        stamps[ruleset.pk] = content_hash(ruleset_record(ruleset=ruleset))
        Ruleset.objects.filter(pk=ruleset.pk).update(content_hash=stamps[ruleset.pk])
    return stamps
