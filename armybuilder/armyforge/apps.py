from django.apps import AppConfig


class ArmyForgeConfig(AppConfig):
    name = "armybuilder.armyforge"
    label = "armyforge"
    verbose_name = "Army Forge"
