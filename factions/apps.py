from django.apps import AppConfig


class FactionsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "factions"
    verbose_name = "Catalogue"
