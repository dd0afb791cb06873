"""API tokens end with the password that made them."""

from rest_framework.authtoken.models import Token


def revoke_tokens_on_new_password(sender, user_id: int, **kwargs) -> None:
    """A new password ends every API token of the account: whoever had the old password
    (or a token made with it) is out (accounts.signals.password_changed)."""
    Token.objects.filter(user_id=user_id).delete()
