from django.apps import AppConfig


class BackupsConfig(AppConfig):
    """The whole-site backup (export_all, import_all): no models of its own, it saves and
    restores those of the apps beside it."""

    name = "armybuilder.backups"
    label = "backups"
    verbose_name = "Backups"
