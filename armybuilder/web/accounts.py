"""Accounts: Django's own log-in, log-out and password pages, plus sign-up."""

from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from armybuilder import ratelimit


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Create an account and log in; lists made as a visitor come along."""
    form = UserCreationForm(request.POST or None)
    context = {"form": form, "next": safe_next(request, default="")}  # carried through the form
    if request.method == "POST" and not ratelimit.allow(request, "signup"):
        context["throttled"] = "Too many sign-ups from here just now; try again later."
        return render(request, "registration/signup.html", context, status=429)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        # The log-in signal hands over the visitor's lists.
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(context["next"] or "/")
    return render(request, "registration/signup.html", context)


def safe_next(request: HttpRequest, default: str = "/") -> str:
    """Where to go after signing up: `next` when it is a page of this site, else
    `default` (never another site: no open redirect)."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if target and allowed else default
