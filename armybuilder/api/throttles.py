"""DRF throttles whose rates are read from settings.THROTTLE_RATES on each request, so
that they follow the environment (and tests can change them)."""

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle, SimpleRateThrottle, UserRateThrottle


class _RateFromSettings:
    scope: str

    def get_rate(self):
        return settings.THROTTLE_RATES.get(self.scope)


class AnonThrottle(_RateFromSettings, AnonRateThrottle):
    """Anonymous API use, per client address."""


class UserThrottle(_RateFromSettings, UserRateThrottle):
    """Signed-in API use, per user. Visitors are the anonymous throttle's alone, so that
    turning that one off turns their limit off."""

    def get_cache_key(self, request, view):
        if not (request.user and request.user.is_authenticated):
            return None
        return super().get_cache_key(request, view)


class AuthThrottle(_RateFromSettings, ScopedRateThrottle):
    """Password guessing: token requests, per client address (views set throttle_scope)."""

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class SignupThrottle(_RateFromSettings, SimpleRateThrottle):
    """Sign-ups, per client address, whoever is signed in already."""

    scope = "signup"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class VisitorListThrottle(_RateFromSettings, SimpleRateThrottle):
    """New lists made by visitors (no account), per client address: the web form, the
    import and the API alike. Signed-in users are limited by the user rate."""

    scope = "visitor_lists"

    def get_cache_key(self, request, view):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
