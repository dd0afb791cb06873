from django.apps import AppConfig


class EventsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "armybuilder.events"
    label = "events"
    verbose_name = "Events"
