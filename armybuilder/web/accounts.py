"""Accounts: Django's own log-in, log-out and password pages, plus sign-up."""

from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Create an account and log in; lists made as a visitor come along."""
    form = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)  # the log-in signal hands over the visitor's lists
        return redirect(request.GET.get("next") or "/")
    return render(request, "registration/signup.html", {"form": form})
