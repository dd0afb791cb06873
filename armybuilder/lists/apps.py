from django.apps import AppConfig


class ListsConfig(AppConfig):
    name = "armybuilder.lists"
    label = "lists"
    verbose_name = "Army lists"

    def ready(self) -> None:
        from armybuilder.lists import visitors  # noqa: F401  (a visitor's lists are claimed on log-in)
