"""Admin for the catalogue. Books normally arrive by import; the admin is for fixing a
cost or a typo in place, and for exporting a book back to armybook/1 JSON."""

import json

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html_join

from factions import models
from factions.admin_checks import PARENT_FIELDS, CatalogueRefused, catalogue_change_check, catalogue_delete
from factions.selectors import faction_book, faction_get_with_book

SHOWN_PROBLEMS = 30


class CatalogueAdmin(admin.ModelAdmin):
    """Every change made here, inlines and deletes included, is checked as the importer
    checks a book, on the whole book (or ruleset) it touches. One the checks refuse is
    rolled back and the page says why; one they pass expires the cached copies of the
    book and marks it as updated for the lists saved with it (see admin_checks)."""

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            with transaction.atomic():
                return super().changeform_view(request, object_id, form_url, extra_context)
        except CatalogueRefused as refused:
            # The same form again, as the user filled it in, with the checks' answer.
            request.catalogue_problems = refused.problems
            return super().changeform_view(request, object_id, form_url, extra_context)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        problems = getattr(request, "catalogue_problems", None)
        return _refusing(form, problems) if problems else form

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        catalogue_change_check(
            objects=[form.instance, *_parents_left(form)],
            changed=not change or form.has_changed() or any(formset.has_changed() for formset in formsets),
            version_by_hand=isinstance(form.instance, models.Faction) and "version" in form.changed_data,
        )

    def delete_view(self, request, object_id, extra_context=None):
        try:
            with transaction.atomic():
                return super().delete_view(request, object_id, extra_context)
        except CatalogueRefused as refused:
            _show(self, request, "Not deleted", refused)
            return HttpResponseRedirect(
                reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_change", args=[object_id])
            )

    def changelist_view(self, request, extra_context=None):
        # Actions (delete selected) and list edits end up in delete_queryset/save_related.
        try:
            with transaction.atomic():
                return super().changelist_view(request, extra_context)
        except CatalogueRefused as refused:
            _show(self, request, "Nothing changed", refused)
            return HttpResponseRedirect(request.get_full_path())

    def delete_model(self, request, obj):
        catalogue_delete(objects=[obj])

    def delete_queryset(self, request, queryset):
        catalogue_delete(objects=list(queryset))


def _answer(what: str, problems: list[str]) -> list[str]:
    more = len(problems) - SHOWN_PROBLEMS
    return [
        f"{what}: the change fails the checks import_armybook runs.",
        *problems[:SHOWN_PROBLEMS],
        *([f"... and {more} more problems"] if more > 0 else []),
    ]


def _refusing(form_class, problems: list[str]):
    """The admin's form for the object, answering with the checks' problems."""

    class Refused(form_class):
        def clean(self):
            super().clean()
            raise ValidationError(_answer("Not saved", problems))

    return Refused


def _show(model_admin: admin.ModelAdmin, request, what: str, refused: CatalogueRefused) -> None:
    for line in _answer(what, refused.problems):
        model_admin.message_user(request, line, messages.ERROR)


def _parents_left(form) -> list:
    """The parent the object had before, when the form moved it to another (a unit to
    another faction): the book it left is checked too."""
    parents = []
    for name in PARENT_FIELDS:
        if name in form.changed_data and form.initial.get(name) is not None:
            model = form.instance._meta.get_field(name).related_model
            parents += model.objects.filter(pk=form.initial[name])
    return parents


class CatalogueInline(admin.TabularInline):
    """A table of rows inside their parent's page; no blank rows offered until asked for."""

    extra = 0


class ForceOrgLimitInline(CatalogueInline):
    model = models.ForceOrgLimit
    fields = ["order", "code", "kind", "params", "severity", "optional", "section"]


class CoreRuleInline(CatalogueInline):
    model = models.CoreRule
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


class FactionRuleInline(CatalogueInline):
    model = models.FactionRule
    fields = ["order", "name", "rated", "text"]


class SpellInline(CatalogueInline):
    model = models.Spell
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


class EquipmentInline(CatalogueInline):
    model = models.Equipment
    fields = ["order", "name", "count", "range", "attacks", "rules", "extra"]


class UnitPackageInline(CatalogueInline):
    model = models.UnitPackage
    fields = ["order", "package", "without"]
    autocomplete_fields = ["package"]


@admin.register(models.Unit)
class UnitAdmin(CatalogueAdmin):
    list_display = ["name", "uid", "faction", "type", "size", "cost"]
    list_filter = ["faction__ruleset", "faction", "type"]
    search_fields = ["name", "uid", "faction__name"]
    list_select_related = ["faction__ruleset"]
    inlines = [EquipmentInline, UnitPackageInline]


class SectionInline(CatalogueInline):
    model = models.UpgradeSection
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


class OptionInline(CatalogueInline):
    model = models.UpgradeOption
    fields = ["order", "uid", "label", "cost", "costs", "command"]
    show_change_link = True


@admin.register(models.UpgradeSection)
class UpgradeSectionAdmin(CatalogueAdmin):
    list_display = ["uid", "label", "variant", "package"]
    list_filter = ["package__faction__ruleset", "variant"]
    search_fields = ["uid", "label", "package__faction__name"]
    list_select_related = ["package__faction"]
    inlines = [OptionInline]


class GainInline(CatalogueInline):
    model = models.Gain
    fields = ["order", "kind", "name", "detail"]


@admin.register(models.UpgradeOption)
class UpgradeOptionAdmin(CatalogueAdmin):
    list_display = ["uid", "label", "cost", "command", "section"]
    list_filter = ["section__package__faction__ruleset", "command"]
    search_fields = ["uid", "label", "section__package__faction__name"]
    list_select_related = ["section"]
    inlines = [GainInline]


class CompositionGroupInline(CatalogueInline):
    model = models.CompositionGroup
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
