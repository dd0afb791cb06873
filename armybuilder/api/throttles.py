"""DRF throttles whose rates are read from settings.THROTTLE_RATES on each request, so
that they follow the environment (and tests can change them)."""

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle, SimpleRateThrottle, UserRateThrottle


class _RateFromSettings:
    """Rates from settings, and counting that loses no update: each window of the rate's
    duration has one counter in the cache, raised with an atomic increment (Redis INCR,
    or the local cache's lock), so that requests arriving together are all counted.
    DRF's own throttles read a list, append and write it back, and lose some."""

    scope: str

    def get_rate(self):
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
        self.now = self.timer()
        window = int(self.now // self.duration)
        self.window_end = (window + 1) * self.duration
        counter = f"{self.key}:{window}"
        self.cache.add(counter, 0, self.duration + 1)
        try:
            count = self.cache.incr(counter)
        except ValueError:  # expired between the two calls: this request starts it again
            self.cache.add(counter, 1, self.duration + 1)
            count = 1
        return count <= self.num_requests

    def wait(self):
        return max(0.0, self.window_end - self.now)


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
