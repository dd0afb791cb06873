"""Bounded work per request (issue 25): wrapping and cutting text measure each character
a fixed number of times, whatever its length and script; what a player typed is printed
at most so long, cut short with "…"; a roster prints a handful of issues per entry and
counts the rest; an event's combined roster too large to draw is refused before
anything is loaded. (The times themselves: bench/abuse.py.)"""

from __future__ import annotations

import random

import pytest

from armybuilder import downloads
from armybuilder.engine import validate as validate_module
from armybuilder.engine.results import Issue
from armybuilder.exports import pdf_data, pdf_style
from armybuilder.exports.pdf_data import ISSUE_CHARS, NAME_CHARS
from armybuilder.exports.pdf_roster import ISSUES_LISTED, ISSUES_SHOWN, MoreIssues, issues_listed, issues_shown
from tests.events.test_event_files import books, client_of, organiser, pack, submit  # noqa: F401 (fixtures)
from tests.exports.test_pdf import flat, pages, render, wardens_list

pytestmark = pytest.mark.usefixtures("fresh_caches")

CACHES = ("prepare", "_advance", "_shape", "_shares", "_shaped_shares")


def varied(alphabet: str, length: int, *, spaces: float = 0.0) -> str:
    """`length` characters drawn from `alphabet` (and spaces, that often), the same each
    run, and never repeating a word or a line: no cache can spare the work."""
    rnd = random.Random(length)
    text = "".join(" " if rnd.random() < spaces else rnd.choice(alphabet) for _ in range(length))
    return "x" + text[1:-1] + "x"


TEXTS = {
    "plain Latin": ("abcdefghijklmnopqrstuvwxyz", 0.15),
    "one long word": ("abcdefghijklmnopqrstuvwxyz", 0.0),
    "Latin and Chinese in one word": ("aeiou東京大阪", 0.0),
    "Arabic": ("ابتثجحخدذرزسشصضطظعغفقكلمنهوي", 0.15),
    "one long Arabic word": ("ابتثجحخدذرزسشصضطظعغفقكلمنهوي", 0.0),
}


@pytest.fixture
def measured(monkeypatch):
    """How many characters the fonts were looked up for (every measuring and shaping of
    a text starts there), the caches emptied first."""
    count = [0]
    real = pdf_style._font_runs

    def counting(text, font):
        count[0] += len(text)
        return real(text, font)

    monkeypatch.setattr(pdf_style, "_font_runs", counting)

    def run(work):
        """(the characters measured, what `work()` gives)."""
        for name in CACHES:
            getattr(pdf_style, name).memo.clear()
        count[0] = 0
        done = work()
        return count[0], done

    return run


@pytest.mark.parametrize("kind", TEXTS)
def test_wrapping_measures_each_character_a_fixed_number_of_times(measured, kind):
    alphabet, spaces = TEXTS[kind]
    counts = {}
    for length in (1000, 4000):
        text = varied(alphabet, length, spaces=spaces)
        counts[length], lines = measured(lambda t=text: pdf_style.wrap(t, pdf_style.REGULAR, 8, 120))
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        assert all(pdf_style.width_of(line, pdf_style.REGULAR, 8) <= 120 for line in lines)
    assert counts[4000] <= 4 * 4000, counts  # the word, its letters, each line (twice where shaping widened it)
    assert counts[4000] / counts[1000] < 4.5, counts  # four times the text, four times the work


@pytest.mark.parametrize("kind", TEXTS)
def test_cutting_a_text_short_measures_it_a_fixed_number_of_times(measured, kind):
    alphabet, spaces = TEXTS[kind]
    text = varied(alphabet, 4000, spaces=spaces)
    count, cut = measured(lambda: pdf_style.clip(text, pdf_style.REGULAR, 8, 300))
    assert cut.endswith("…") and text.startswith(cut[:-1])
    assert pdf_style.width_of(cut, pdf_style.REGULAR, 8) <= 300
    assert count <= 3 * 4000, count  # the text, its letters, the piece kept


def test_a_piece_the_shaper_draws_wider_than_its_letters_add_up_to_is_cut_shorter():
    # Arabic letters join: alone, each is as wide as its isolated form; the piece chosen
    # by adding them up is measured shaped before it is kept.
    word = varied("بتثنيسشصضلمهكف", 600)
    for room in (40, 75, 130):
        lines = pdf_style.wrap(word, pdf_style.REGULAR, 9, room)
        assert "".join(lines) == word
        assert all(pdf_style.width_of(line, pdf_style.REGULAR, 9) <= room for line in lines)


# -- what a printout shows of what a player typed ------------------------------------------------
def test_names_and_issue_messages_are_cut_short_with_an_ellipsis_and_the_counts_kept():
    from armybuilder.engine.lists import Entry
    from armybuilder.engine.results import EntryResult, Validation

    long_name = "Sir Reginald " * 15  # 195 characters
    entry = Entry("e1", "knights", name=long_name)
    issues = [
        Issue("unknown_option", "error", f'{long_name}: Knights has no option "x"', "e1", "AoF — Army"),
        Issue("points", "error", "Over the limit. " * 30, None, "AoF — Points"),
    ]
    shown = pdf_data.printed(Validation(False, 10, 5, [EntryResult(entry, None, None, errors=1)], issues))
    name = shown.entries[0].label
    assert len(name) == NAME_CHARS and name.endswith("…") and long_name.startswith(name[:-1])
    assert shown.issues[0].message == f'{name}: Knights has no option "x"'  # the name as the row prints it
    assert len(shown.issues[1].message) == ISSUE_CHARS and shown.issues[1].message.endswith("…")
    assert (shown.valid, shown.total_points, shown.points_limit, shown.entries[0].errors) == (False, 10, 5, 1)
    assert [issue.code for issue in shown.issues] == ["unknown_option", "points"]


def test_a_long_name_prints_cut_short_in_every_kind_of_file(user, make_aof_book):
    name = ("Sir Reginald " * 15)[:190] + " TAILEND"
    entries = [
        {"id": "e1", "unit": "warden-captain", "options": {"HERO-2a": 1}, "joined_to": "e2", "name": name},
        {"id": "e2", "unit": "wardens", "options": {"TROOPS-1a": 1}, "name": name},
    ]
    army_list = wardens_list(user, make_aof_book, name=name, entries=entries)
    for kind, params in (
        ("cards.pdf", {}),
        ("cards.pdf", {"layout": "poker"}),
        ("roster.pdf", {}),
        ("roster.pdf", {"sheet": "1"}),
        ("reference.pdf", {}),
    ):
        text = flat(" ".join(pages(render(army_list, kind, **params))))
        assert "TAILEND" not in text and "Sir Reginald" in text and "…" in text, (kind, params)


def issue(entry: str | None, n: int) -> Issue:
    return Issue("unknown_option", "error", f'has no option "zq{n}"', entry, "AoF — Army")


def test_a_roster_shows_each_entrys_first_issues_and_counts_the_rest():
    issues = [issue("e1", n) for n in range(12)] + [issue("e2", 99)] + [issue(None, n) for n in range(7)]
    shown = issues_shown(issues)
    assert shown == [
        *issues[:ISSUES_SHOWN],
        MoreIssues("e1", 12 - ISSUES_SHOWN),
        issues[12],
        *issues[13 : 13 + ISSUES_SHOWN],
        MoreIssues(None, 7 - ISSUES_SHOWN),
    ]
    assert MoreIssues("e1", 1).more == "1 more issue" and MoreIssues("e1", 7).more == "7 more issues"


def test_the_validation_lists_the_lists_issues_and_the_first_of_the_entries():
    entries = [issue(f"e{i}", n) for i in range(ISSUES_LISTED) for n in range(2)]
    issues = [issue(None, 1), *entries, issue(None, 2)]
    listed, unlisted = issues_listed(issues)
    assert listed == [issue(None, 1), *entries[:ISSUES_LISTED], issue(None, 2)]  # the list's own, wherever they come
    assert unlisted == len(entries) - ISSUES_LISTED


def test_the_roster_prints_the_first_issues_of_an_entry_and_says_how_many_more(user, make_aof_book, monkeypatch):
    # Twelve issues on one entry. Unknown options gave one each until issue 37 made them
    # one an entry, so the validator is given twelve of its own here.
    checked = validate_module._check_points

    def with_twelve(ctx, policy):
        checked(ctx, policy)
        for n in range(12):
            ctx.add("unknown_option", f'Odd Wardens: has no option "zq{n}"', section=policy.army_section, entry="e1")

    monkeypatch.setattr(validate_module, "_check_points", with_twelve)
    army_list = wardens_list(user, make_aof_book, entries=[{"id": "e1", "unit": "wardens", "name": "Odd Wardens"}])
    text = flat(" ".join(pages(render(army_list, "roster.pdf"))))
    printed = {n for n in range(12) if f'"zq{n}"' in text}
    assert len(printed) == ISSUES_SHOWN, printed
    more = 12 - ISSUES_SHOWN
    assert f"… and {more} more issues of Odd Wardens." in text  # under "Validation"
    assert text.count(f"… and {more} more issues") == 2  # and in the entry's row
    assert "Not legal: 12 errors" in text  # the status counts every one


# -- an event's combined roster ---------------------------------------------------------------------
@pytest.mark.parametrize("route", ["/events/{key}/roster.pdf", "/api/events/{key}/roster.pdf"])
def test_a_combined_roster_of_too_many_entries_is_refused_before_anything_is_drawn(pack, route, monkeypatch):  # noqa: F811
    submit(pack, "ada")
    submit(pack, "björn")
    entries = sum(len(s.data["entries"]) for s in pack.submissions.all())
    monkeypatch.setattr(downloads, "MAX_EVENT_ENTRIES", entries - 1)
    monkeypatch.setattr(downloads, "event_printout_get", lambda **kwargs: pytest.fail("loaded the lists"))
    response = client_of(pack.organiser).get(route.format(key=pack.key))
    assert response.status_code == 422
    message = f"The lists submitted to Spring Muster 2026 hold {entries} entries: a combined roster prints at most"
    body = response.json()["detail"] if route.startswith("/api/") else response.content.decode()
    assert body.startswith(message) and str(entries - 1) in body
    monkeypatch.undo()
    assert client_of(pack.organiser).get(route.format(key=pack.key)).status_code == 200


def test_the_worker_s_text_caches_keep_short_texts_only():
    """The caches of shaped and measured text live as long as the worker: they keep names
    and words, not the 5,000-character notes a list may carry (a count alone would let
    65,536 of those take gigabytes)."""
    from armybuilder.exports import pdf_style

    caches = (pdf_style.prepare, pdf_style._advance)
    for cache in caches:
        cache.memo.clear()
    assert pdf_style.width_of("notes " * 800 + "نص " * 800, pdf_style.REGULAR, 9) > 0
    assert [len(cache.memo) for cache in caches] == [0, 0]
    assert pdf_style.width_of("Household Guard نص", pdf_style.REGULAR, 9) > 0
    assert all(len(cache.memo) > 0 for cache in caches)
