"""Accounts: Django's own log-in, log-out and password pages, plus sign-up, the account
page (the name others see, the e-mail address) and the password reset by e-mail, which
is held to a limit per address as sign-up is."""

from typing import Any, cast

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from armybuilder import ratelimit
from armybuilder.accounts import services as accounts
from armybuilder.web.account_forms import AccountForm, ResetForm, SignupForm

ACCOUNT_CHANGED = (
    "Your account was saved from another tab or window while you edited it: nothing was written. "
    "Here it is as it is now; make your change again."
)


class SignedInRequest(HttpRequest):
    """A request to a login_required view: its user is signed in, never anonymous."""

    user: User


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Create an account and log in; lists made as a visitor come along."""
    form = SignupForm(request.POST or None)
    context: dict[str, Any] = {"form": form, "next": safe_next(request, default="")}  # carried through the form
    if request.method == "POST" and not ratelimit.allow(request, "signup"):
        context["throttled"] = "Too many sign-ups from here just now; try again later."
        return render(request, "registration/signup.html", context, status=429)
    if request.method == "POST" and form.is_valid():
        # (user_create makes the site's User, though it says only AbstractBaseUser)
        user = cast(User, accounts.user_create(**form.account_data()))
        # The log-in signal hands over the visitor's lists.
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(context["next"] or "/")
    return render(request, "registration/signup.html", context, status=400 if form.errors else 200)


@login_required
@require_http_methods(["GET", "POST"])
def account(request: SignedInRequest) -> HttpResponse:
    """The user's own account: their username (theirs alone to see), the name others see
    them by and their e-mail address, with the links to change or reset the password."""
    current = accounts.account_get(user=request.user)
    form = AccountForm(request.POST or None, account=current, user=request.user)
    if form.is_valid():
        try:
            accounts.account_update(user=request.user, **form.account_data())
        except accounts.AccountChanged:
            messages.error(request, ACCOUNT_CHANGED)
        else:
            messages.success(request, "Saved.")
        return redirect("account")
    context = {"form": form, "account": current}
    return render(request, "registration/account.html", context, status=400 if form.errors else 200)


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset request (the same answer whether or not an account has the address,
    in the same time: the e-mail goes out after the answer), held to
    DJANGO_THROTTLE_PASSWORD_RESET requests per client address: each one may send e-mail."""

    form_class = ResetForm

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if ratelimit.allow(request, "password_reset"):
            return super().post(request, *args, **kwargs)
        throttled = "Too many password reset requests from here just now; try again later."
        context = self.get_context_data(form=self.get_form(), throttled=throttled)
        return self.render_to_response(context, status=429)


def safe_next(request: HttpRequest, default: str = "/") -> str:
    """Where to go after signing up: `next` when it is a page of this site, else
    `default` (never another site: no open redirect)."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if target and allowed else default
