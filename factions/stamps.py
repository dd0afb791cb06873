"""Content stamps of books and rulesets: what every cache built from them is keyed by.

A book's stamp is a hash of the armybook/1 document of its version, as it is kept
(services.py stamps each version it keeps); a ruleset's, a hash of its record (its
fields, limits and core rules). The compiled engine
book, a list's stored validation, the share page and the PDFs are kept under the stamps
they were built from (armybuilder/stamps.py), so they are found again while the content
is the same and never after it changed, however it was written and whichever database
sharing the cache wrote it. Writing the same content again keeps every cached copy.

The functions that write catalogue content stamp what they wrote: the importer, the
admin's edit of a book (each keeps a new version, stamped), the admin's check of a
ruleset's change, the ruleset sync and the restore of a backup (`stamp_rulesets`).
"""

from __future__ import annotations

from collections.abc import Iterable

from armybuilder.stamps import content_hash
from factions.models import Ruleset
from factions.selectors import ruleset_record


def stamp_rulesets(ruleset_ids: Iterable[int]) -> dict[int, str]:
    """Stamp these rulesets with a hash of their content; {ruleset id: stamp}."""
    stamps = {}
    for ruleset in (
        Ruleset.objects.filter(pk__in=list(ruleset_ids)).select_related("base").prefetch_related("limits", "core_rules")
    ):
        stamps[ruleset.pk] = content_hash(ruleset_record(ruleset=ruleset))
        Ruleset.objects.filter(pk=ruleset.pk).update(content_hash=stamps[ruleset.pk])
    return stamps
