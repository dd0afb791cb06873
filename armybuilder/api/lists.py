"""The armylist/1 body as the API documents it. The checking itself is the list format's
(armybuilder/lists/format.py); these serializers give OpenAPI its shape, and a test
keeps the two in step. A ListFormatError becomes a 400 with its field errors (here for
serializers, and in armybuilder/api/exceptions.py for views)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from armybuilder.events.models import PACK_KEY_LENGTH
from armybuilder.lists.format import MAX_ENTRIES, MAX_OPTIONS, MAX_PICKS, MAX_POINTS, ListFormatError, parse_list_body
from factions.selectors import BookHandle

__all__ = ["ArmyListSerializer", "EntrySerializer", "parse_list_body"]


# -- the documented shape ------------------------------------------------------------
class EntrySerializer(serializers.Serializer):
    id = serializers.CharField(max_length=100)
    unit = serializers.CharField(max_length=100, help_text="Unit id in the faction's army book")
    options = serializers.DictField(
        child=serializers.IntegerField(min_value=0, max_value=MAX_PICKS),
        required=False,
        help_text=f"Option id -> number of picks (at most {MAX_OPTIONS} ids an entry)",
    )
    combined = serializers.BooleanField(required=False, default=False)
    joined_to = serializers.CharField(max_length=100, required=False, allow_null=True, help_text="Another entry's id")
    name = serializers.CharField(max_length=200, required=False, allow_null=True, allow_blank=True)


class ArmyListSerializer(serializers.Serializer):
    """An armylist/1 list (see shared/spec/army-book.md). After is_valid(), `faction`
    holds the faction it names (with its ruleset), so callers need not look it up again."""

    format = serializers.ChoiceField(choices=["armylist/1"], required=False)
    name = serializers.CharField(max_length=200, required=False, allow_blank=True)
    system = serializers.CharField(max_length=40)
    faction = serializers.CharField(max_length=80)
    book_version = serializers.CharField(
        max_length=48,
        required=False,
        allow_null=True,
        help_text="The version of the army book the list is built on (a version the book holds); left out: the "
        "current version",
    )
    points_limit = serializers.IntegerField(
        min_value=1, max_value=MAX_POINTS, allow_null=True, help_text="null for Arena warbands"
    )
    force_org = serializers.BooleanField(required=False, default=True)
    notes = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    # (DRF hands max_length to the ListSerializer that many=True makes; the stubs know it
    # only on ListSerializer itself)
    entries = EntrySerializer(many=True, max_length=MAX_ENTRIES)  # type: ignore[call-arg]
    event = serializers.CharField(
        max_length=PACK_KEY_LENGTH,
        required=False,
        allow_null=True,
        help_text="The key of the event pack the list is built for: it is checked against the event's rules",
    )

    handle: BookHandle | None = None

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        try:
            clean, self.handle = parse_list_body(data)
        except ListFormatError as exc:
            raise serializers.ValidationError(exc.errors) from None
        return clean
