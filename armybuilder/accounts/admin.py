"""The admin of display names: staff put right an offensive one through the checks and
the service the account page uses, on armybuilder/admin_forms.py's VersionedAdmin (a save never undoes
the user's own)."""

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db.models import Model
from django.http import HttpRequest

from armybuilder.accounts import services
from armybuilder.accounts.models import Profile
from armybuilder.admin_forms import CHANGED_MEANWHILE, VersionedAdmin, VersionedForm
from armybuilder.conflicts import VersionConflict


class ProfileForm(VersionedForm):
    """A display name checked as the account page checks one (services.display_name_clean);
    empty: none, and others see the site's "Player N"."""

    changed_meanwhile = CHANGED_MEANWHILE.format(thing="profile", by="its user")

    class Meta:
        model = Profile
        fields = ["display_name"]

    def clean_display_name(self) -> str:
        name, problems = services.display_name_clean(self.cleaned_data["display_name"])
        if problems:
            raise ValidationError(problems)
        return name


@admin.register(Profile)
class ProfileAdmin(VersionedAdmin):
    """What players show others of themselves: staff may change an offensive display name
    (or empty it). A profile is made by the site when its user signs up or saves their
    account page."""

    form = ProfileForm
    conflicts = (VersionConflict, services.AccountChanged)
    list_display = ["user", "display_name", "shown_as", "version"]
    search_fields = ["user__username", "display_name"]
    readonly_fields = ["user", "shown_as", "version"]
    list_select_related = ["user"]

    @admin.display(description="Others see")
    def shown_as(self, profile: Profile) -> str:
        return profile.display_name or services.default_name(profile.pk)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def write(self, obj: Profile, form: ProfileForm, based_on: int) -> None:
        services.display_name_update(user=obj.user, display_name=form.cleaned_data["display_name"], version=based_on)
