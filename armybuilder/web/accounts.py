"""Accounts: Django's own log-in, log-out and password pages, plus sign-up."""

from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from armybuilder.api.throttles import SignupThrottle


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Create an account and log in; lists made as a visitor come along."""
    form = UserCreationForm(request.POST or None)
    if request.method == "POST" and not SignupThrottle().allow_request(request, None):
        return render(
            request,
            "registration/signup.html",
            {"form": form, "throttled": "Too many sign-ups from here just now; try again later."},
            status=429,
        )
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)  # the log-in signal hands over the visitor's lists
        return redirect(request.GET.get("next") or "/")
    return render(request, "registration/signup.html", {"form": form})
