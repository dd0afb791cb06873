from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError

from armybuilder.lists import events
from armybuilder.lists.models import ArmyList, EventPack, Submission


@admin.register(ArmyList)
class ArmyListAdmin(admin.ModelAdmin):
    list_display = ["name", "system", "faction", "points_limit", "owner", "event", "version", "updated"]
    list_filter = ["system"]
    search_fields = ["name", "faction", "owner__username"]
    readonly_fields = ["share_key", "version", "created", "updated"]
    list_select_related = ["owner", "event"]


class EventPackForm(forms.ModelForm):
    """An event pack as the site checks one (events.check_pack): every problem named by
    its field, nothing saved."""

    class Meta:
        model = EventPack
        fields = ["organiser", *events.PACK_FIELDS]

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        data = {field: cleaned.get(field) for field in events.PACK_FIELDS}
        data["ruleset"] = cleaned["ruleset"].slug
        try:
            events.check_pack(data)
        except events.EventError as refused:
            raise ValidationError({field: str(problem) for field, problem in refused.errors.items()}) from None
        return cleaned


@admin.register(EventPack)
class EventPackAdmin(admin.ModelAdmin):
    form = EventPackForm
    list_display = ["name", "organiser", "ruleset", "points_limit", "deadline", "key"]
    list_filter = ["ruleset"]
    search_fields = ["name", "organiser__username", "key"]
    readonly_fields = ["key", "created", "updated"]
    list_select_related = ["organiser", "ruleset"]
    autocomplete_fields = ["organiser"]


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    """Submissions are made by players; here they can be read, or withdrawn (deleted)."""

    list_display = ["pack", "player", "book_version", "submitted_at"]
    search_fields = ["pack__name", "player__username"]
    readonly_fields = ["pack", "player", "army_list", "data", "book_version", "submitted_at"]
    list_select_related = ["pack", "player"]
    exclude = ["validation", "validation_stamp"]

    def has_add_permission(self, request) -> bool:
        return False
