from django.apps import AppConfig


class FactionsConfig(AppConfig):
    name = "factions"
    verbose_name = "Catalogue"
