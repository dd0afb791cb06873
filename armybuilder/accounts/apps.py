from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "armybuilder.accounts"
    label = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in, user_login_failed

        from armybuilder import security
        from armybuilder.accounts import signals  # noqa: F401  (connects its signal)

        user_login_failed.connect(security.backoff_failed, dispatch_uid="login-backoff-failed")
        user_logged_in.connect(security.backoff_succeeded, dispatch_uid="login-backoff-succeeded")
