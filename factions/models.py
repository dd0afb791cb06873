"""The catalogue: rulesets with their force-organisation limits and core rules, and the
factions (army books) with their versions.

A book's content (units, upgrades, rules, spells, Arena composition) lives in one place:
the `armybook/1` document of each of its versions (BookVersion.document, checked by
factions/armybook.py). A Faction row holds what names and finds the book (ruleset, slug,
source, Army Forge id) and which version is current, with the current version's name and
stamp; nothing of its content is kept twice.
"""

from typing import TYPE_CHECKING, Any

import orjson
from django.db import models

from armybuilder.engine.limit_kinds import STORED_KINDS, describe_limit, limit_param_problems


class Ruleset(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=100)
    version = models.CharField(max_length=20, help_text="Rulebook version, e.g. 3.2.0")
    order = models.PositiveSmallIntegerField(default=0)
    uses_points = models.BooleanField(default=True)
    default_points = models.PositiveIntegerField(null=True, blank=True)
    suggested_points = models.JSONField(default=list, blank=True, help_text="e.g. [750, 1500]")
    max_points = models.PositiveIntegerField(
        null=True, blank=True, help_text="Largest legal points limit; empty for no maximum"
    )
    stat_fields = models.JSONField(default=list, help_text='Unit stat keys, e.g. ["quality", "defense"]')
    unit_types = models.JSONField(default=list, help_text="Unit types a book of this ruleset may use")
    base = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="variants",
        help_text="A variant (a club's own limits) names the ruleset it plays: its rules, stats and army books",
    )
    content_hash = models.CharField(
        max_length=32, blank=True, editable=False, help_text="Stamp of the ruleset's content (factions/stamps.py)"
    )

    class Meta:
        ordering = ["order", "slug"]

    def __str__(self) -> str:
        return self.title

    def clean(self) -> None:
        """The default and suggested points limits are within the largest (the admin)."""
        from django.core.exceptions import ValidationError

        from factions.ruleset_format import points_within_maximum

        problems = points_within_maximum(self.default_points, self.suggested_points, self.max_points)
        if problems:
            fields: dict[str, list[str]] = {}
            for problem in problems:
                fields.setdefault(problem.path.split("[")[0], []).append(problem.message)
            raise ValidationError(fields)

    @property
    def title(self) -> str:
        """Name and version as issues cite it: "Age of Fantasy 3.2.0"."""
        return f"{self.name} {self.version}".strip()

    @property
    def family(self) -> str:
        """The slug of the game it plays: its own, or for a variant its base's."""
        base = self.base  # None without a query when there is none
        return base.slug if base is not None else self.slug


class ForceOrgLimit(models.Model):
    """One list-building limit of a ruleset, as data: a kind and its parameters. The
    kinds (what each checks, its parameters and its words) are the engine's registry,
    armybuilder.engine.limit_kinds.KINDS; the column holds no choices, so that a new kind
    needs no migration, and `clean` checks the kind against the registry."""

    class Severity(models.TextChoices):
        ERROR = "error"
        WARNING = "warning"

    ruleset = models.ForeignKey(Ruleset, on_delete=models.CASCADE, related_name="limits")
    code = models.SlugField(max_length=40, help_text="Stable issue code, e.g. too_many_heroes")
    kind = models.CharField(max_length=20)
    params = models.JSONField(default=dict, blank=True)
    severity = models.CharField(max_length=10, choices=Severity.choices, default=Severity.ERROR)
    section = models.CharField(max_length=100, help_text="Rulebook section the limit comes from")
    optional = models.BooleanField(
        default=False, help_text="Switched off when a list turns force organisation off (AoF)"
    )
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "id"]

    def __str__(self) -> str:
        return f"{self.ruleset.slug}: {self.describe()}"

    def describe(self) -> str:
        if limit_param_problems(self.kind, self.params):
            return f"{self.kind} (parameters to fix: {self.params})"
        return describe_limit(self.kind, self.params)

    def clean(self) -> None:
        """The admin saves only parameters the engine can check lists with: a limit with
        {} for parameters would fail every list of its ruleset."""
        from django.core.exceptions import ValidationError

        if self.kind not in STORED_KINDS:
            raise ValidationError({"kind": [f"One of {', '.join(STORED_KINDS)}, not {self.kind!r}."]})
        problems = limit_param_problems(self.kind, self.params)
        if problems:
            raise ValidationError({"params": problems})


class CoreRule(models.Model):
    """A special rule defined by the ruleset itself, summarised in our own words."""

    ruleset = models.ForeignKey(Ruleset, on_delete=models.CASCADE, related_name="core_rules")
    name = models.CharField(max_length=60)
    rated = models.BooleanField(default=False, help_text="Takes a value, as in Tough(3)")
    section = models.CharField(max_length=100)
    summary = models.TextField()

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["ruleset", "name"], name="core_rule_unique_name")]

    def __str__(self) -> str:
        return f"{self.name} ({self.ruleset.slug})"


class BookSource(models.TextChoices):
    """Where a book's versions come from. A book takes versions from its own source only
    (factions/versions.py): Army Forge's "Human Empire" never overwrites the bundled one."""

    BUNDLED = "bundled", "bundled with the site"
    ARMYFORGE = "armyforge", "Army Forge"
    UPLOAD = "upload", "uploaded"


class Faction(models.Model):
    """One army book of one ruleset. Every version imported or edited is kept as a
    BookVersion, whose document is the book; the current one (the one kept last) is named
    by `version` and stamped by `content_hash`, and its name, description and Army Forge
    fields are copied here, so that lists of books need no document."""

    ruleset = models.ForeignKey(Ruleset, on_delete=models.PROTECT, related_name="factions")
    slug = models.SlugField(max_length=80)
    name = models.CharField(max_length=120)
    version = models.CharField(max_length=48, help_text="The current version: the one kept last")
    description = models.TextField(null=True, blank=True)
    imported_at = models.DateTimeField(auto_now=True)
    source = models.CharField(max_length=10, choices=BookSource.choices, default=BookSource.UPLOAD)
    import_slug = models.SlugField(
        max_length=80,
        blank=True,
        default="",
        help_text="The slug the book came with, when a book of another source held it and this one was given "
        "another; empty otherwise",
    )
    content_hash = models.CharField(
        max_length=32, blank=True, editable=False, help_text="Stamp of the book's content (factions/stamps.py)"
    )
    armyforge_id = models.CharField(
        "Army Forge book id",
        max_length=40,
        blank=True,
        default="",
        help_text="The Army Forge army book this faction was imported from, so that Army Forge lists can find it",
    )
    import_warnings = models.JSONField(
        default=list,
        blank=True,
        help_text="What the last import brought in but needs a reader's eye (one sentence each, with its path)",
    )
    armyforge_rules = models.CharField(
        "Army Forge core rules",
        max_length=48,
        blank=True,
        default="",
        help_text="The version of Army Forge's core rules the book was imported with (ArmyForgeRules), whose "
        "texts explain the core rules it names; empty for a book not from Army Forge",
    )

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["ruleset", "slug"], name="faction_unique_slug"),
            models.UniqueConstraint(
                fields=["ruleset", "armyforge_id"],
                condition=~models.Q(armyforge_id=""),
                name="faction_unique_armyforge_id",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.ruleset.slug})"


if TYPE_CHECKING:  # the Python value of a JSONDocument, for mypy's Django plugin: the parsed document
    _DocumentText = models.TextField[dict[str, Any] | None, dict[str, Any] | None]
else:
    _DocumentText = models.TextField


class JSONDocument(_DocumentText):
    """A JSON document kept as its text, as it was written. PostgreSQL's jsonb would give
    it back with its keys in another order (a unit's stats as defense, quality), and a
    book's order is what it prints in; nothing queries inside it."""

    def from_db_value(self, value, expression, connection):
        return None if value is None else orjson.loads(value)

    def to_python(self, value):
        return orjson.loads(value) if isinstance(value, (str, bytes)) else value

    def get_prep_value(self, value):
        return None if value is None else orjson.dumps(value).decode()


class BookVersion(models.Model):
    """One version of an army book as it was imported: its armybook/1 document, kept
    whole so that lists pinned to it keep their prices, and so that what changed
    between two versions can be shown. An edit in the admin keeps a new version; a kept
    document is never changed."""

    faction = models.ForeignKey(Faction, on_delete=models.CASCADE, related_name="versions")
    version = models.CharField(
        max_length=48, help_text='The book\'s version, "+2" added for other content under a name held'
    )
    source = models.CharField(max_length=10, choices=BookSource.choices)
    armyforge_id = models.CharField("Army Forge book id", max_length=40, blank=True, default="")
    imported_at = models.DateTimeField()
    units = models.PositiveIntegerField(default=0)
    content_hash = models.CharField(max_length=32, help_text="Stamp of the document (factions/stamps.py)")
    armyforge_modified_at = models.CharField(
        "modified at Army Forge",
        max_length=40,
        blank=True,
        default="",
        help_text="Army Forge's modifiedAt of the book when this version was read from it: a book re-published "
        "under the same version is told apart by it",
    )
    document = JSONDocument(help_text="The version as armybook/1: the book itself")

    class Meta:
        ordering = ["-imported_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["faction", "version"], name="book_version_unique")]

    def __str__(self) -> str:
        return f"{self.faction.name} {self.version}"


class ArmyForgeSync(models.Model):
    """What the last sync from Army Forge that changed or failed something did with one
    official book (`manage.py sync_armyforge`); a sync that finds nothing new writes
    nothing."""

    system = models.SlugField(max_length=40)
    armyforge_id = models.CharField("Army Forge book id", max_length=40)
    name = models.CharField(max_length=120, blank=True)
    version = models.CharField(max_length=48, blank=True, help_text="The version Army Forge offered")
    outcome = models.CharField(max_length=20, help_text="new book, new version, unchanged or failed")
    detail = models.TextField(blank=True)
    synced_at = models.DateTimeField()

    class Meta:
        ordering = ["system", "name"]
        verbose_name = "Army Forge sync"
        constraints = [models.UniqueConstraint(fields=["system", "armyforge_id"], name="armyforge_sync_unique")]

    def __str__(self) -> str:
        return f"{self.name or self.armyforge_id} ({self.system}): {self.outcome}"


class ArmyForgeRules(models.Model):
    """One version of Army Forge's core rules for a ruleset (`GET {ARMYFORGE_URL}/api/rules/
    common/{game system id}`): the rules its official books name without describing them
    (Thrust, Bane, …). Army Forge gives them no version name: a version is named by the
    day its content was first read ("2026-11-29", "+2" for other content the same day), and
    a new one is kept only when the content differs. A book imported from Army Forge
    records the version current then (Faction.armyforge_rules, the document's
    `armyforge_rules`) and carries the texts of those it names."""

    ruleset = models.ForeignKey(Ruleset, on_delete=models.CASCADE, related_name="armyforge_rules")
    version = models.CharField(max_length=48, help_text="The day its content was first read, e.g. 2026-11-29")
    fetched_at = models.DateTimeField(help_text="When this content was first read")
    rules = models.JSONField(default=list, help_text='[{"name": "Thrust", "text": "…"}], in Army Forge\'s order')
    content_hash = models.CharField(max_length=32, help_text="Stamp of the rules (armybuilder/stamps.py)")

    class Meta:
        ordering = ["ruleset", "-fetched_at", "-id"]
        verbose_name = "Army Forge core rules"
        verbose_name_plural = "Army Forge core rules"
        constraints = [models.UniqueConstraint(fields=["ruleset", "version"], name="armyforge_rules_unique_version")]

    def __str__(self) -> str:
        return f"Army Forge core rules of {self.ruleset.slug}, {self.version}"
