"""Output shapes of the catalogue API (see shared/spec/api.md).

A field may share its name with an attribute the DRF stubs give every field or serializer
(`source`, `errors`): DRF takes declared fields out of the class, so the two never meet,
but the stubs cannot see that; those lines carry a `type: ignore[assignment]`."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from armybuilder.engine import Validation
from factions.armybook import ArmyBookError
from factions.models import ArmyForgeRules, BookSource, BookVersion, CoreRule, Faction, ForceOrgLimit, Ruleset
from factions.ruleset_format import RulesetError


class RulesetSerializer(serializers.ModelSerializer):
    base: serializers.SlugRelatedField[Ruleset] = serializers.SlugRelatedField(
        slug_field="slug",
        read_only=True,
        allow_null=True,
        help_text="For a variant (a club's own limits), the slug of the ruleset whose game it plays; null otherwise",
    )

    class Meta:
        model = Ruleset
        fields = [
            "slug",
            "base",
            "name",
            "version",
            "default_points",
            "max_points",
            "uses_points",
            "suggested_points",
            "stat_fields",
            "unit_types",
        ]


class ForceOrgLimitSerializer(serializers.ModelSerializer):
    description = serializers.SerializerMethodField()
    rule = serializers.SerializerMethodField()

    class Meta:
        model = ForceOrgLimit
        fields = ["code", "kind", "params", "severity", "optional", "section", "description", "rule"]

    def get_description(self, limit: ForceOrgLimit) -> str:
        return limit.describe()

    def get_rule(self, limit: ForceOrgLimit) -> str:
        return f"{self.context['ruleset'].title} — {limit.section}"


class CoreRuleSerializer(serializers.ModelSerializer):
    text = serializers.CharField(source="summary")

    class Meta:
        model = CoreRule
        fields = ["name", "rated", "text", "section"]


class RulesetDetailSerializer(RulesetSerializer):
    limits = serializers.SerializerMethodField()
    core_rules = CoreRuleSerializer(many=True)

    class Meta(RulesetSerializer.Meta):
        fields = [*RulesetSerializer.Meta.fields, "limits", "core_rules"]

    def get_limits(self, ruleset: Ruleset) -> list[dict]:
        limits = ruleset.limits.all()
        # (many=True makes a ListSerializer, whose data is a list; the stubs type it as the
        # single serializer's dict)
        return ForceOrgLimitSerializer(limits, many=True, context={"ruleset": ruleset}).data  # type: ignore[return-value]


class RuleTextSerializer(serializers.Serializer):
    name = serializers.CharField()
    text = serializers.CharField()


class ArmyForgeRulesSerializer(serializers.ModelSerializer):
    """A version of Army Forge's core rules of a ruleset; `versions` (context) names every
    version held, newest first."""

    version = serializers.CharField(
        help_text='Named by the day its content was first read ("2026-11-29"; "2026-11-29+2" for other content '
        "read the same day)"
    )
    fetched_at = serializers.DateTimeField(help_text="When its content was first read from Army Forge")
    current = serializers.SerializerMethodField(help_text="Whether it is the current version (the one read last)")
    rules = RuleTextSerializer(many=True, help_text="Army Forge's core rules, in its order")
    versions = serializers.SerializerMethodField(help_text="Every version held, newest first")

    class Meta:
        model = ArmyForgeRules
        fields = ["version", "fetched_at", "current", "rules", "versions"]

    def get_current(self, rules: ArmyForgeRules) -> bool:
        return rules.version == self.context["versions"][0]

    def get_versions(self, rules: ArmyForgeRules) -> list[str]:
        return self.context["versions"]


class ClosedSerializer(serializers.Serializer):
    """A request body that refuses fields it does not know ("Unknown field."), as the
    list and pack checks do: a misspelt field is an error, not silently nothing."""

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        known = set(self.fields)
        unknown = sorted(set(self.initial_data) - known) if isinstance(self.initial_data, dict) else []
        if unknown:
            raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return super().validate(attrs)


class VariantSerializer(ClosedSerializer):
    """A new variant of a ruleset: its own slug and name; it starts with the ruleset's
    points and limit rows, and plays the ruleset's game."""

    slug = serializers.RegexField(
        r"^[a-z0-9]+(-[a-z0-9]+)*$",
        max_length=40,
        help_text="Lower-case letters and digits, words joined by -, e.g. aof-club",
        error_messages={"invalid": "Lower-case letters and digits only, words joined by -, e.g. aof-club."},
    )
    name = serializers.CharField(max_length=100, help_text="e.g. Age of Fantasy (club rules)")


class FactionSerializer(serializers.ModelSerializer):
    system = serializers.CharField(source="ruleset.slug")
    version = serializers.CharField(help_text="The current version: the one imported last")
    units = serializers.IntegerField(source="unit_count")
    versions = serializers.IntegerField(source="version_count", help_text="How many versions the book holds")
    source = serializers.ChoiceField(  # type: ignore[assignment]  # (a field: see above)
        choices=BookSource.choices, help_text="Where the book's versions come from"
    )
    armyforge_id = serializers.SerializerMethodField(help_text="The Army Forge book id; null for other books")

    class Meta:
        model = Faction
        fields = ["system", "slug", "name", "version", "units", "versions", "source", "armyforge_id"]

    def get_armyforge_id(self, faction: Faction) -> str | None:
        return faction.armyforge_id or None


class BookVersionSerializer(serializers.ModelSerializer):
    current = serializers.SerializerMethodField(help_text="The book's current version (the one imported last)")
    armyforge_id = serializers.SerializerMethodField(help_text="The Army Forge book id of an armyforge version")

    class Meta:
        model = BookVersion
        fields = ["version", "imported_at", "current", "source", "armyforge_id", "units"]

    def get_current(self, version: BookVersion) -> bool:
        return version.version == self.context["current"]

    def get_armyforge_id(self, version: BookVersion) -> str | None:
        return version.armyforge_id or None


class ProblemSerializer(serializers.Serializer):
    path = serializers.CharField()
    message = serializers.CharField()


class ImportErrorSerializer(serializers.Serializer):
    # A refused document (an ArmyBookError or a RulesetError): its first problem in words,
    # every problem, and, for a book, what would have needed a reader's eye.

    detail = serializers.CharField()
    errors = ProblemSerializer(many=True, required=False)  # type: ignore[assignment]  # (a field: see above)
    warnings = ProblemSerializer(many=True, required=False)

    def to_representation(self, error: ArmyBookError | RulesetError) -> dict[str, Any]:
        problems = self.fields["errors"]
        refused = {"detail": str(error.problems[0]), "errors": problems.to_representation(error.problems)}
        if isinstance(error, ArmyBookError):  # (a ruleset's check has no warnings)
            refused["warnings"] = problems.to_representation(error.warnings)
        return refused


class ImportResultSerializer(serializers.Serializer):
    # What an import did (factions.services.ImportResult).

    system = serializers.CharField(source="faction.ruleset.slug", help_text="The ruleset's slug")
    slug = serializers.CharField(source="faction.slug", help_text="The faction's slug in that ruleset")
    name = serializers.CharField(source="faction.name")
    status = serializers.ChoiceField(choices=["new book", "new version", "unchanged"])
    version = serializers.CharField(
        help_text='The version the book holds this one as ("3.5.2"; "3.5.2+2" for other content under a name held)'
    )
    current = serializers.CharField(source="faction.version", help_text="The book's current version now")
    source = serializers.ChoiceField(  # type: ignore[assignment]  # (a field: see above)
        choices=BookSource.choices, source="faction.source"
    )
    replaced_version = serializers.CharField(
        allow_null=True, help_text="The version that was current before a new version; null otherwise"
    )
    message = serializers.CharField(source="describe")
    warnings = ProblemSerializer(many=True, help_text="What was imported but needs a reader's eye")


class IssueSerializer(serializers.Serializer):
    code = serializers.CharField()
    severity = serializers.ChoiceField(choices=["error", "warning"])
    message = serializers.CharField()
    entry = serializers.CharField(allow_null=True)
    rule = serializers.CharField()


class EntryValidationSerializer(serializers.Serializer):
    id = serializers.CharField()
    cost = serializers.IntegerField()
    models = serializers.IntegerField()
    errors = serializers.IntegerField()  # type: ignore[assignment]  # (a field: see above)


class ValidationSerializer(serializers.Serializer):
    # A list's validation (the engine's Validation), made in one step (`as_dict`): the
    # builder asks for it on every change, and field by field took longer than the
    # validation itself; tests/api/test_shapes.py keeps it to these fields.

    valid = serializers.BooleanField()
    total_points = serializers.IntegerField()
    points_limit = serializers.IntegerField(allow_null=True)
    entries = EntryValidationSerializer(many=True)
    issues = IssueSerializer(many=True)

    def to_representation(self, validation: Validation) -> dict[str, Any]:
        return validation.as_dict()


class ErrorSerializer(serializers.Serializer):
    """An error answer: what went wrong, in words."""

    detail = serializers.CharField()


class FieldErrorsSerializer(serializers.Serializer):
    """A refused body: one key per field that was wrong, each with its messages (nested
    by position for list entries, `non_field_errors` for the body as a whole); or
    `detail` when the request could not be read at all."""

    detail = serializers.CharField(required=False)


class ConflictSerializer(ErrorSerializer):
    version = serializers.IntegerField(help_text="The list's current version")


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text='Send it as "Authorization: Token …"')


class HealthSerializer(serializers.Serializer):
    # The health check's answer, from the state of the cache (`cache.cache_state`), made in
    # one step: it is the benchmarks' yardstick, which field by field would slow by a
    # hundred microseconds.

    status = serializers.ChoiceField(choices=["ok"])
    cache = serializers.ChoiceField(
        choices=["ok", "down", "local"],
        help_text="ok: the shared cache (Redis) answers; down: it cannot be reached, and each server uses a "
        "local cache meanwhile; local: no shared cache is configured",
    )

    def to_representation(self, cache: str) -> dict[str, str]:
        return {"status": "ok", "cache": cache}


class FileUploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="A JSON file: an armybook/1 or Army Forge book, or an armylist/1 list")
