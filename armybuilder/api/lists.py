"""The armylist/1 body: strict shape checks, so that a malformed list is a 400 with
field errors and a well-formed one reaches the rules engine."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from factions.models import Faction, Ruleset

MAX_ENTRIES = 500
MAX_PICKS = 1000


class StrictIntegerField(serializers.IntegerField):
    """A JSON number that is a whole number: no strings, no booleans, no 1.5."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictCharField(serializers.CharField):
    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class NoExtraKeysMixin:
    """Unknown keys are an error, so that a typo is caught rather than ignored."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            extra = sorted(set(data) - set(self.fields))
            if extra:
                raise serializers.ValidationError({key: ["Unknown field."] for key in extra})
        return super().to_internal_value(data)


class EntrySerializer(NoExtraKeysMixin, serializers.Serializer):
    id = StrictCharField(max_length=100)
    unit = StrictCharField(max_length=100)
    options = serializers.DictField(
        child=StrictIntegerField(min_value=0, max_value=MAX_PICKS), required=False, default=dict
    )
    combined = StrictBooleanField(required=False, default=False)
    joined_to = StrictCharField(max_length=100, required=False, allow_null=True, default=None)
    name = StrictCharField(max_length=200, required=False, allow_null=True, allow_blank=True, default=None)

    def validate_options(self, options: dict[str, int]) -> dict[str, int]:
        for key in options:
            if not key or len(key) > 100:
                raise serializers.ValidationError(f'"{key[:100]}" is not an option id.')
        return options


class ArmyListSerializer(NoExtraKeysMixin, serializers.Serializer):
    """An armylist/1 list (see shared/spec/army-book.md)."""

    format = serializers.ChoiceField(choices=["armylist/1"], required=False, default="armylist/1")
    name = StrictCharField(max_length=200, required=False, allow_blank=True, default="")
    system = StrictCharField(max_length=40)
    faction = StrictCharField(max_length=80)
    points_limit = StrictIntegerField(min_value=1, max_value=1_000_000, allow_null=True)
    force_org = StrictBooleanField(required=False, default=True)
    notes = StrictCharField(max_length=5000, required=False, allow_blank=True, default="")
    entries = EntrySerializer(many=True, max_length=MAX_ENTRIES)

    def validate_system(self, system: str) -> str:
        if not Ruleset.objects.filter(slug=system).exists():
            raise serializers.ValidationError(f'Unknown system "{system}".')
        return system

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        errors: dict[str, Any] = {}
        system = data["system"]
        if not Faction.objects.filter(ruleset__slug=system, slug=data["faction"]).exists():
            errors["faction"] = [f'No faction "{data["faction"]}" in {system}.']
        uses_points = Ruleset.objects.filter(slug=system).values_list("uses_points", flat=True).first()
        if uses_points and data["points_limit"] is None:
            errors["points_limit"] = ["A points limit is required for this ruleset."]
        elif not uses_points and data["points_limit"] is not None:
            errors["points_limit"] = ["This ruleset has no points: send null."]
        entry_errors = _entry_errors(data["entries"])
        if entry_errors:
            errors["entries"] = entry_errors
        if errors:
            raise serializers.ValidationError(errors)
        return data


def _entry_errors(entries: list[dict[str, Any]]) -> dict[str, dict[str, list[str]]]:
    errors: dict[str, dict[str, list[str]]] = {}
    ids = [e["id"] for e in entries]
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        problems: dict[str, list[str]] = {}
        if entry["id"] in seen:
            problems["id"] = [f'Entry id "{entry["id"]}" is used twice.']
        seen.add(entry["id"])
        if entry["joined_to"] is not None and entry["joined_to"] not in ids:
            problems["joined_to"] = [f'No entry with id "{entry["joined_to"]}".']
        if problems:
            errors[str(i)] = problems
    return errors
