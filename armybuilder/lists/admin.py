from django.contrib import admin

from armybuilder.lists.models import ArmyList


@admin.register(ArmyList)
class ArmyListAdmin(admin.ModelAdmin):
    list_display = ["name", "system", "faction", "points_limit", "owner", "version", "updated"]
    list_filter = ["system"]
    search_fields = ["name", "faction", "owner__username"]
    readonly_fields = ["share_key", "version", "created", "updated"]
    list_select_related = ["owner"]
