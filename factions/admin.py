"""Admin for the catalogue. Books normally arrive by import; the admin is for fixing a
cost or a typo in place, and for exporting a book back to armybook/1 JSON."""

import json

from django.contrib import admin
from django.http import HttpResponse
from django.utils.html import format_html_join

from factions import models
from factions.selectors import faction_book, faction_get_with_book


class CatalogueAdmin(admin.ModelAdmin):
    """Every change made here expires the cached copies of the book it touches."""

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        models.bump_revision_of(form.instance)

    def delete_model(self, request, obj):
        owner = _owner_probe(obj)
        super().delete_model(request, obj)
        owner()

    def delete_queryset(self, request, queryset):
        owners = [_owner_probe(obj) for obj in queryset]
        super().delete_queryset(request, queryset)
        for owner in owners:
            owner()


def _owner_probe(obj):
    """Work out (before a delete) what to expire, and return a callable that does it."""
    if isinstance(obj, models.Ruleset | models.Faction):
        return lambda: None  # deleted with everything in it
    parent = _parent(obj)
    return lambda: models.bump_revision_of(parent)


def _parent(obj):
    for name in ("ruleset", "faction", "unit", "package", "section", "option", "card"):
        if hasattr(obj, f"{name}_id"):
            return getattr(obj, name)
    raise TypeError(type(obj).__name__)


class ForceOrgLimitInline(admin.TabularInline):
    model = models.ForceOrgLimit
    extra = 0
    fields = ["order", "code", "kind", "params", "severity", "optional", "section"]


class CoreRuleInline(admin.TabularInline):
    model = models.CoreRule
    extra = 0
    fields = ["name", "rated", "section", "summary"]


@admin.register(models.Ruleset)
class RulesetAdmin(CatalogueAdmin):
    list_display = ["title", "slug", "uses_points", "default_points", "max_points"]
    inlines = [ForceOrgLimitInline, CoreRuleInline]


@admin.register(models.CoreRule)
class CoreRuleAdmin(CatalogueAdmin):
    list_display = ["name", "ruleset", "rated", "section"]
    list_filter = ["ruleset", "rated"]
    search_fields = ["name", "summary"]


@admin.register(models.ForceOrgLimit)
class ForceOrgLimitAdmin(CatalogueAdmin):
    list_display = ["code", "ruleset", "kind", "describe", "severity", "optional"]
    list_filter = ["ruleset", "kind", "severity"]


class FactionRuleInline(admin.TabularInline):
    model = models.FactionRule
    extra = 0
    fields = ["order", "name", "rated", "text"]


class SpellInline(admin.TabularInline):
    model = models.Spell
    extra = 0
    fields = ["order", "name", "cost", "text"]


@admin.action(description="Export selected books as armybook/1 JSON")
def export_books(modeladmin, request, queryset):
    books = [
        faction_book(faction=faction_get_with_book(system=f.ruleset.slug, slug=f.slug))
        for f in queryset.select_related("ruleset")
    ]
    payload = books[0] if len(books) == 1 else books
    name = f"{books[0]['system']}-{books[0]['slug']}.json" if len(books) == 1 else "armybooks.json"
    response = HttpResponse(json.dumps(payload, indent=2, ensure_ascii=False), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@admin.register(models.Faction)
class FactionAdmin(CatalogueAdmin):
    list_display = ["name", "ruleset", "slug", "version", "imported_at", "warning_count"]
    list_filter = ["ruleset"]
    search_fields = ["name", "slug"]
    readonly_fields = ["import_warnings_list"]
    exclude = ["import_warnings"]
    inlines = [FactionRuleInline, SpellInline]
    actions = [export_books]

    @admin.display(description="import warnings")
    def warning_count(self, faction: models.Faction) -> int:
        return len(faction.import_warnings)

    @admin.display(description="Import warnings")
    def import_warnings_list(self, faction: models.Faction) -> str:
        """What the last import brought in but needs a reader's eye, one per line."""
        if not faction.import_warnings:
            return "None"
        return format_html_join("", "<p>{}</p>", ((w,) for w in faction.import_warnings))


class EquipmentInline(admin.TabularInline):
    model = models.Equipment
    extra = 0
    fields = ["order", "name", "count", "range", "attacks", "rules", "extra"]


class UnitPackageInline(admin.TabularInline):
    model = models.UnitPackage
    extra = 0
    fields = ["order", "package", "without"]
    autocomplete_fields = ["package"]


@admin.register(models.Unit)
class UnitAdmin(CatalogueAdmin):
    list_display = ["name", "uid", "faction", "type", "size", "cost"]
    list_filter = ["faction__ruleset", "faction", "type"]
    search_fields = ["name", "uid", "faction__name"]
    list_select_related = ["faction__ruleset"]
    inlines = [EquipmentInline, UnitPackageInline]


class SectionInline(admin.TabularInline):
    model = models.UpgradeSection
    extra = 0
    fields = [
        "order",
        "uid",
        "label",
        "variant",
        "targets",
        "affects_type",
        "affects_value",
        "select_type",
        "select_value",
        "select_per",
        "optional",
    ]
    show_change_link = True


@admin.register(models.Package)
class PackageAdmin(CatalogueAdmin):
    list_display = ["uid", "faction"]
    list_filter = ["faction__ruleset", "faction"]
    search_fields = ["uid", "faction__name", "sections__label"]
    list_select_related = ["faction__ruleset"]
    inlines = [SectionInline]


class OptionInline(admin.TabularInline):
    model = models.UpgradeOption
    extra = 0
    fields = ["order", "uid", "label", "cost", "costs", "command"]
    show_change_link = True


@admin.register(models.UpgradeSection)
class UpgradeSectionAdmin(CatalogueAdmin):
    list_display = ["uid", "label", "variant", "package"]
    list_filter = ["package__faction__ruleset", "variant"]
    search_fields = ["uid", "label", "package__faction__name"]
    list_select_related = ["package__faction"]
    inlines = [OptionInline]


class GainInline(admin.TabularInline):
    model = models.Gain
    extra = 0
    fields = ["order", "kind", "name", "detail"]


@admin.register(models.UpgradeOption)
class UpgradeOptionAdmin(CatalogueAdmin):
    list_display = ["uid", "label", "cost", "command", "section"]
    list_filter = ["section__package__faction__ruleset", "command"]
    search_fields = ["uid", "label", "section__package__faction__name"]
    list_select_related = ["section"]
    inlines = [GainInline]


class CompositionGroupInline(admin.TabularInline):
    model = models.CompositionGroup
    extra = 0
    fields = ["order", "label", "units", "min", "max"]


@admin.register(models.CompositionCard)
class CompositionCardAdmin(CatalogueAdmin):
    list_display = ["faction", "models_min", "models_max"]
    inlines = [CompositionGroupInline]


admin.site.register(
    models.Spell,
    CatalogueAdmin,
    list_display=["name", "cost", "faction"],
    list_filter=["faction__ruleset"],
    search_fields=["name"],
)
admin.site.register(
    models.FactionRule,
    CatalogueAdmin,
    list_display=["name", "rated", "faction"],
    list_filter=["faction__ruleset"],
    search_fields=["name", "text"],
)


@admin.register(models.Equipment)
class EquipmentAdmin(CatalogueAdmin):
    list_display = ["name", "unit", "count", "range", "attacks"]
    list_filter = ["unit__faction__ruleset", "unit__faction"]
    search_fields = ["name", "unit__name"]
    list_select_related = ["unit"]


@admin.register(models.Gain)
class GainAdmin(CatalogueAdmin):
    list_display = ["name", "kind", "option"]
    list_filter = ["option__section__package__faction__ruleset", "kind"]
    search_fields = ["name", "option__label", "option__uid"]
    list_select_related = ["option"]


@admin.register(models.CompositionGroup)
class CompositionGroupAdmin(CatalogueAdmin):
    list_display = ["label", "card", "min", "max"]
    list_filter = ["card__faction"]
    search_fields = ["label"]
    list_select_related = ["card__faction__ruleset"]
