from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "armybuilder.api"
    label = "api"
    verbose_name = "API"

    def ready(self) -> None:
        from armybuilder.accounts.signals import password_changed
        from armybuilder.api.tokens import revoke_tokens_on_new_password

        password_changed.connect(revoke_tokens_on_new_password, dispatch_uid="api-revoke-tokens-on-new-password")
