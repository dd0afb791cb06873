from django.apps import AppConfig


class ListsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "armybuilder.lists"
    label = "lists"
    verbose_name = "Army lists"
