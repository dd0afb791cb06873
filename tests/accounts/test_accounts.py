"""Accounts (issue 26, point 8): an optional e-mail address and display name at sign-up
and on the account page, and a forgotten password reset by e-mail with Django's own
views, which tell no one whether an address has an account and are held to a limit."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from armybuilder.accounts import services as accounts
from armybuilder.accounts.mail import sent as mail_sent
from armybuilder.accounts.models import Profile
from armybuilder.web.accounts import ACCOUNT_CHANGED

User = get_user_model()
PASSWORD = "a-long-pass-phrase-1"
NEW_PASSWORD = "another-long-phrase-7"
SIGN_UP = {"username": "newcomer", "password1": PASSWORD, "password2": PASSWORD}
BAD_EMAIL = '"newcomer-at-home" is not an e-mail address: write it as name@example.org, or leave it empty.'


def errors_on(page: str) -> list[str]:
    return re.findall(r'<ul class="errorlist"[^>]*>\s*<li>(.*?)</li>', page)


@pytest.fixture
def member(db):
    return accounts.user_create(username="member", password=PASSWORD, email="member@example.org")


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# -- sign-up -------------------------------------------------------------------------------------
def test_signing_up_without_an_e_mail_address_or_display_name(db, client):
    assert client.post("/accounts/signup/", SIGN_UP).status_code == 302
    user = User.objects.get(username="newcomer")
    assert (user.email, accounts.display_name(user)) == ("", accounts.default_name(user.pk))
    assert user.check_password(PASSWORD)


def test_signing_up_with_an_e_mail_address_and_a_display_name(db, client):
    form = {**SIGN_UP, "email": " newcomer@example.org ", "display_name": "  Sir Newcomer "}
    assert client.post("/accounts/signup/", form).status_code == 302
    user = User.objects.get(username="newcomer")
    assert (user.email, accounts.display_name(user)) == ("newcomer@example.org", "Sir Newcomer")


def test_the_sign_up_form_asks_for_both_and_says_what_they_are_for(db, client):
    page = client.get("/accounts/signup/").content.decode()
    assert 'name="email"' in page and 'type="email"' in page and 'name="display_name"' in page
    assert "never by your username" in page and "Only to send you a link if you forget your password" in page


def test_a_sign_up_with_a_bad_e_mail_address_and_display_name_names_both_and_makes_no_account(db, client):
    form = {**SIGN_UP, "password2": "something-else-9", "email": "newcomer-at-home", "display_name": "Player 7"}
    response = client.post("/accounts/signup/", form)
    assert response.status_code == 400
    page = response.content.decode().replace("&quot;", '"')
    assert BAD_EMAIL in errors_on(page)
    assert '"Player 7" is how the site names players who chose no name: choose another.' in errors_on(page)
    assert "The two password fields didn’t match." in errors_on(page)  # every problem at once
    assert not User.objects.exists() and not Profile.objects.exists()


# -- the account page ----------------------------------------------------------------------------
def test_the_account_page_shows_the_user_their_username_address_and_the_name_others_see(member):
    page = signed_in(member).get("/accounts/").content.decode()
    assert "member" in page and "member@example.org" in page
    shown = page.split('id="shown-as"', 1)[1].split("</dd>", 1)[0]
    assert f"<strong>{accounts.default_name(member.pk)}</strong>" in shown and "not chosen a display name" in shown
    assert 'href="/accounts/password/"' in page and 'href="/accounts/password/reset/"' in page


def test_the_header_leads_a_signed_in_user_to_their_account(member):
    header = signed_in(member).get("/lists/").content.decode().split("<main>", 1)[0]
    assert '<a href="/accounts/" title="Your account">member</a>' in header


def test_changing_the_e_mail_address_and_display_name_on_the_account_page(member):
    client = signed_in(member)
    form = {"email": "new@example.org", "display_name": "The Member", "version": "1", "password": PASSWORD}
    response = client.post("/accounts/", form, follow=True)
    assert response.redirect_chain == [("/accounts/", 302)]
    assert "Saved." in response.content.decode()
    member.refresh_from_db()
    assert (member.email, accounts.display_name(member)) == ("new@example.org", "The Member")
    page = response.content.decode()
    assert "<strong>The Member</strong>" in page.split('id="shown-as"', 1)[1].split("</dd>", 1)[0]
    cleared = client.post("/accounts/", {"email": "", "display_name": "", "version": "2", "password": PASSWORD})
    assert cleared.status_code == 302
    member.refresh_from_db()
    assert (member.email, accounts.display_name(member)) == ("", accounts.default_name(member.pk))


@pytest.mark.parametrize("password", ["", "not-the-password"], ids=["none", "wrong"])
def test_a_new_e_mail_address_needs_the_password(member, password):
    """Whoever holds a stolen session cannot point the password reset at their own address;
    the display name alone changes without it."""
    client = signed_in(member)
    form = {"email": "thief@example.org", "display_name": "Renamed", "version": "1", "password": password}
    response = client.post("/accounts/", form)
    assert response.status_code == 400
    assert "Enter your password to change the e-mail address." in response.content.decode()
    member.refresh_from_db()
    assert (member.email, accounts.display_name(member)) == ("member@example.org", accounts.default_name(member.pk))
    name_only = client.post("/accounts/", {"email": "member@example.org", "display_name": "Renamed", "version": "1"})
    member.refresh_from_db()
    assert name_only.status_code == 302 and accounts.display_name(member) == "Renamed"


def test_an_account_made_without_a_profile_gets_one_on_its_first_save(db):
    admin_made = User.objects.create_user("made-by-admin", password=PASSWORD)
    assert accounts.account_get(user=admin_made).version == 0
    response = signed_in(admin_made).post("/accounts/", {"email": "", "display_name": "Admin Made", "version": "0"})
    assert response.status_code == 302
    assert (Profile.objects.get(user=admin_made).display_name, Profile.objects.get(user=admin_made).version) == (
        "Admin Made",
        1,
    )


def test_a_bad_e_mail_address_is_refused_by_name_and_changes_nothing(member):
    response = signed_in(member).post(
        "/accounts/", {"email": "newcomer-at-home", "display_name": "Changed Too", "version": "1"}
    )
    assert response.status_code == 400
    assert errors_on(response.content.decode().replace("&quot;", '"')) == [BAD_EMAIL]
    member.refresh_from_db()
    assert (member.email, accounts.display_name(member)) == ("member@example.org", accounts.default_name(member.pk))
    assert Profile.objects.get(user=member).version == 1


def test_a_save_from_a_stale_tab_writes_nothing_and_says_so(member):
    first, second = signed_in(member), signed_in(member)
    assert (
        first.post(
            "/accounts/", {"email": "first@example.org", "display_name": "First", "version": "1", "password": PASSWORD}
        ).status_code
        == 302
    )
    response = second.post(
        "/accounts/",
        {"email": "second@example.org", "display_name": "", "version": "1", "password": PASSWORD},
        follow=True,
    )
    assert ACCOUNT_CHANGED.replace("'", "&#x27;") in response.content.decode()
    member.refresh_from_db()
    assert (member.email, accounts.display_name(member)) == ("first@example.org", "First")


def test_the_account_page_is_for_signed_in_users(db, client):
    response = client.get("/accounts/")
    assert (response.status_code, response["Location"]) == (302, "/accounts/login/?next=/accounts/")


# -- a forgotten password ------------------------------------------------------------------------
def test_the_log_in_page_leads_to_the_password_reset(db, client):
    page = client.get("/accounts/login/").content.decode()
    assert '<a href="/accounts/password/reset/">Forgot your password?</a>' in page


def test_a_password_is_reset_from_the_link_in_the_e_mail(member, client, mailoutbox):
    response = client.post("/accounts/password/reset/", {"email": "member@example.org"})
    assert (response.status_code, response["Location"]) == (302, "/accounts/password/reset/sent/")
    assert "Check your e-mail" in client.get(response["Location"]).content.decode()
    mail_sent()  # it goes out after the answer
    (mail,) = mailoutbox
    assert (mail.to, mail.subject) == (["member@example.org"], "Your Armybuilder password")
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/\S+/)", mail.body).group(1)

    form = client.get(link, follow=True)  # Django swaps the token for a session and redirects
    assert "Choose a new password" in form.content.decode() and 'name="new_password1"' in form.content.decode()
    done = client.post(form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert (done.status_code, done["Location"]) == (302, "/accounts/password/reset/done/")
    assert "Password set" in client.get(done["Location"]).content.decode()

    logged_in = Client().post("/accounts/login/", {"username": "member", "password": NEW_PASSWORD})
    assert (logged_in.status_code, logged_in["Location"]) == (302, "/")
    assert Client().post("/accounts/login/", {"username": "member", "password": PASSWORD}).status_code == 200
    assert "does not work" in client.get(link, follow=True).content.decode()  # the link worked once


def test_an_address_without_an_account_gets_the_same_answer_and_no_e_mail(member, client, mailoutbox):
    known = client.post("/accounts/password/reset/", {"email": "member@example.org"})
    unknown = Client().post("/accounts/password/reset/", {"email": "nobody@example.org"})
    assert (unknown.status_code, unknown["Location"]) == (known.status_code, known["Location"])
    mail_sent()
    assert [mail.to for mail in mailoutbox] == [["member@example.org"]]


def test_a_reset_answers_before_its_e_mail_is_sent_whatever_the_address(member, client, settings, mailoutbox):
    """A mail server that takes 1.5 s to answer: the request for a registered address is
    answered at once all the same, so the time does not tell addresses apart (issue 37)."""
    import time

    from tests.support.slow_mail import DELAY

    settings.EMAIL_BACKEND = "tests.support.slow_mail.SlowBackend"
    started = time.monotonic()
    response = client.post("/accounts/password/reset/", {"email": "member@example.org"})
    answered = time.monotonic() - started
    assert response.status_code == 302 and answered < DELAY / 2, answered  # not waiting for the server
    assert mailoutbox == []  # not yet
    mail_sent()
    assert [mail.to for mail in mailoutbox] == [["member@example.org"]]


def test_reset_requests_are_held_to_a_limit_per_address(member, client, settings, mailoutbox):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "password_reset": "1/hour"}
    assert client.post("/accounts/password/reset/", {"email": "member@example.org"}).status_code == 302
    again = Client().post("/accounts/password/reset/", {"email": "member@example.org"})
    assert again.status_code == 429 and "Too many password reset requests" in again.content.decode()
    mail_sent()
    assert len(mailoutbox) == 1


def test_a_reset_request_for_a_bad_address_is_refused_with_a_clear_error(db, client, mailoutbox):
    response = client.post("/accounts/password/reset/", {"email": "not an address"})
    assert response.status_code == 200 and "Enter a valid email address." in errors_on(response.content.decode())
    assert mailoutbox == []
