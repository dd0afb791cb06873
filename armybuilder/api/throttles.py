"""DRF throttles whose rates are read from settings.THROTTLE_RATES on each request, so
that they follow the environment (and tests can change them)."""

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle, SimpleRateThrottle, UserRateThrottle

from armybuilder import ratelimit


class _RateFromSettings(SimpleRateThrottle):
    """Rates from settings, and counting that loses no update (armybuilder.ratelimit: one
    atomic counter per window); DRF's own throttles read a list, append and write it
    back, and lose some. The client address is ratelimit's, as the web pages'."""

    wait_seconds: float

    def get_rate(self) -> str | None:
        if self.scope is None:  # (a scoped throttle before it has read its view's scope)
            return None
        return settings.THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view):
        if isinstance(self, ScopedRateThrottle):  # the scope is the view's
            self.scope = getattr(view, self.scope_attr, None)
            if not self.scope:
                return True
            self.rate = self.get_rate()
            if self.rate is not None:
                self.num_requests, self.duration = self.parse_rate(self.rate)
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = ratelimit.clock()  # one clock for the pages and the API (tests set it)
        allowed, self.wait_seconds = ratelimit.count(
            self.key, limit=self.num_requests, seconds=self.duration, now=self.now, store=self.cache
        )
        return allowed

    def get_ident(self, request):
        return ratelimit.client_address(request)

    def wait(self) -> float:
        return self.wait_seconds


class AnonThrottle(_RateFromSettings, AnonRateThrottle):
    """Anonymous API use, per client address."""


class UserThrottle(_RateFromSettings, UserRateThrottle):
    """Signed-in API use, per user. Visitors are the anonymous throttle's alone, so that
    turning that one off turns their limit off."""

    def get_cache_key(self, request, view):
        if not (request.user and request.user.is_authenticated):
            return None
        return super().get_cache_key(request, view)


class _PerAddress(SimpleRateThrottle):
    """Counted per client address, in the same counter the web pages use
    (ratelimit.counter_key)."""

    def get_cache_key(self, request, view):
        return ratelimit.counter_key(request, self.scope)


class AuthThrottle(_PerAddress, _RateFromSettings, ScopedRateThrottle):
    """Password guessing: token requests, per client address (views set throttle_scope)."""


class VisitorListThrottle(_PerAddress, _RateFromSettings, SimpleRateThrottle):
    """New lists made by visitors (no account), per client address: the web form, the
    import and the API alike. Signed-in users are limited by the user rate."""

    scope = "visitor_lists"
