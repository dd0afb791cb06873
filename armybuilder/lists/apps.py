from django.apps import AppConfig


class ListsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "armybuilder.lists"
    label = "lists"
    verbose_name = "Army lists"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in, user_login_failed

        from armybuilder import security
        from armybuilder.lists import tokens, visitors  # noqa: F401  (connect their signals)

        user_login_failed.connect(security.backoff_failed, dispatch_uid="login-backoff-failed")
        user_logged_in.connect(security.backoff_succeeded, dispatch_uid="login-backoff-succeeded")
