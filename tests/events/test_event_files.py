"""An event's files for its organiser (issue 17): the combined roster PDF of every list
submitted, and the submissions as CSV, at /events/<key>/ and /api/events/<key>/. Read
back from the rendered pages (pdftoppm), the text layer and the CSV parser, with the
bundled Age of Fantasy books and lists."""

import csv
import io
import json
from datetime import datetime, timedelta
from pathlib import Path

import pdfplumber
import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from pypdf import PdfReader

from armybuilder.accounts import services as accounts
from armybuilder.armyforge.books.imports import book_import
from armybuilder.events import selectors as event_selectors
from armybuilder.events import services as event_services
from armybuilder.events.models import Submission
from armybuilder.exports import pdf_event
from armybuilder.exports.event_csv import HEADER
from armybuilder.exports.pdf_event import EventRosterPdf
from armybuilder.exports.pdf_style import ERROR, OK, TITLE_MIN
from armybuilder.lists import services
from armybuilder.lists import submissions as list_submissions
from armybuilder.lists.format import parse_list_body
from armybuilder.printouts import event_printout_get
from factions.models import Faction
from tests.support.pdf_glyphs import drawn_characters
from tests.support.pdf_legibility import unreadable
from tests.support.pdf_pixels import colour_near, page_images, seen

pytestmark = pytest.mark.usefixtures("fresh_caches")  # the file and book caches emptied around each test

DATA = Path(__file__).resolve().parents[2] / "factions" / "data"
LISTS = [
    "aof/human-empire-1500.json",
    "aof/dwarf-clans-1500.json",  # fields an Ancestor Colossus, which the pack bans
    "aof/orc-hordes-750.json",
    "aof/undead-legions-1500.json",
]
ARMIES = {
    "aof/human-empire-1500.json": "Human Empire",
    "aof/dwarf-clans-1500.json": "Dwarf Clans",
    "aof/orc-hordes-750.json": "Orc Hordes",
    "aof/undead-legions-1500.json": "Undead Legions",
}
ROUTES = ["/events/{key}/roster.pdf", "/events/{key}/submissions.csv"]
API_ROUTES = ["/api/events/{key}/roster.pdf", "/api/events/{key}/submissions.csv"]
User = get_user_model()


@pytest.fixture
def books(db):
    for slug in ("human-empire", "dwarf-clans", "orc-hordes", "undead-legions"):
        book_import(data=(DATA / "books" / "aof" / f"{slug}.json").read_bytes())


@pytest.fixture
def organiser(db):
    return User.objects.create_user("marshal-of-the-muster", password="not-a-real-pass-123")


@pytest.fixture
def pack(books, organiser):
    data = {
        "name": "Spring Muster 2026",
        "ruleset": "aof",
        "points_limit": 1500,
        "deadline": (timezone.now() + timedelta(days=7)).isoformat(),
        "bans": [{"faction": "dwarf-clans", "unit": "ancestor-colossus"}],
    }
    return event_services.pack_create(organiser=organiser, data=data)


def submit(pack, player_name: str, path: str = "aof/human-empire-1500.json", **changes) -> Submission:
    """A player's bundled list, built for the pack (and `changes`) and submitted to it. The
    player is shown by the display name `player_name`; their username is another ("login-…")."""
    player = User.objects.filter(profile__display_name=player_name).first() or accounts.user_create(
        username=f"login-{User.objects.count()}", password="x" * 12, display_name=player_name
    )
    body = json.loads((DATA / "lists" / path).read_text())
    body = {**body, "event": pack.key, "points_limit": pack.points_limit, **changes}
    data, _handle = parse_list_body(body)
    army_list = services.army_list_create(data=data, owner=player)
    return event_services.submission_submit(pack=pack, player=player, army_list=army_list)


@pytest.fixture
def submitted(pack):
    """Four players, one list of each bundled army; the dwarf list fields a banned unit."""
    players = ["ada", "björn", "chen-wei", "dana"]
    return [submit(pack, player, name) for player, name in zip(players, LISTS, strict=True)]


def client_of(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def roster_of(pack, **params) -> bytes:
    response = client_of(pack.organiser).get(f"/events/{pack.key}/roster.pdf", params)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/pdf"
    return response.content


def page_texts(data: bytes) -> list[str]:
    with pdfplumber.open(io.BytesIO(data)) as document:
        return [" ".join((page.extract_text() or "").split()) for page in document.pages]


def roster_starts(texts: list[str]) -> dict[str, int]:
    """The page (from 1) each player's roster starts on: the page opening with their name."""
    return {text.split()[1]: number for number, text in enumerate(texts, 1) if text.startswith("Player: ")}


# -- the combined roster ---------------------------------------------------------------------
def test_the_cover_names_the_event_and_lists_every_submission(pack, submitted):
    cover = page_texts(roster_of(pack))[0]
    assert cover.startswith("Spring Muster 2026 Age of Fantasy 3.2.0 · 1500 pts Deadline for lists: ")
    local = timezone.localtime(pack.deadline)
    assert f"{local.day} {local:%B %Y, %H:%M}" in cover
    assert "4 lists submitted · 3 legal · 1 not legal" in cover
    assert "# Player Army Book Points Status Issues" in cover
    assert "Army books: each list uses its book's current version" in cover
    rows = list_submissions.submission_rows(pack, submitted)
    for number, (row, name) in enumerate(zip(rows, LISTS, strict=True), 1):
        points, status = row.validation["total_points"], "Legal" if row.valid else "Not legal"
        player, version = row.player_name, row.book_version
        assert f"{number} {player} {ARMIES[name]} {version} {points} / 1500 {status}" in cover


def test_each_roster_starts_on_a_new_page_headed_by_its_player_and_army(pack, submitted):
    texts = page_texts(roster_of(pack))
    starts = roster_starts(texts)
    assert list(starts) == ["ada", "björn", "chen-wei", "dana"]  # in the order they came in
    assert starts["ada"] == 2
    for submission, name in zip(submitted, LISTS, strict=True):
        page = texts[starts[accounts.display_name(submission.player)] - 1]
        assert page.startswith(f"Player: {accounts.display_name(submission.player)} · submitted ")
        assert f"{submission.data['name']} Age of Fantasy 3.2.0 · {ARMIES[name]} · army book " in page
    dwarves = texts[starts["björn"] - 1]
    assert "Not legal: 1 error" in dwarves
    assert "Event rule: Ancestor Colossus may not be fielded" in dwarves
    assert "(Spring Muster 2026 — event rule)" in dwarves


def test_what_matters_is_drawn_and_legible_on_the_rendered_pages(pack, submitted):
    """Read off the pixels pdftoppm draws: the event's name on the cover, each player's
    name and army at the head of their roster, legal or not in its colour."""
    data = roster_of(pack)
    images = page_images(data)
    starts = roster_starts(page_texts(data))
    (title,) = [s for s in seen(data, "Spring Muster 2026", images=images) if s.page == 1 and s.top < 60]
    assert title.height >= TITLE_MIN and title.legible, title
    for submission, name in zip(submitted, LISTS, strict=True):
        player = accounts.display_name(submission.player)
        heads = [s for s in seen(data, player, images=images) if s.page == starts[player] and s.top < 60]
        assert heads and all(s.legible for s in heads), (player, heads)
        army = [s for s in seen(data, ARMIES[name], images=images) if s.page == starts[player] and s.top < 120]
        assert army and all(s.legible for s in army), (player, army)
    not_legal = [s for s in seen(data, "Not legal: 1 error", images=images) if s.page == starts["björn"]]
    assert not_legal and all(s.legible and colour_near(s.ink, ERROR) for s in not_legal), not_legal
    legal = [s for s in seen(data, "Legal list: no issues", images=images) if s.page == starts["ada"]]
    assert legal and all(s.legible and colour_near(s.ink, OK) for s in legal), legal
    on_cover = [s for s in seen(data, "Not legal", images=images) if s.page == 1]
    assert len(on_cover) == 1 and on_cover[0].legible and colour_near(on_cover[0].ink, ERROR)


def test_the_pixel_check_sees_text_that_is_covered(pack, submitted, monkeypatch):
    """The check reads the drawn page: a name the text layer has but a shape drawn over
    it hides is not legible there."""
    real = pdf_event.TableRow.draw

    def covered(row, x, top, width):
        real(row, x, top, width)
        row.table.canvas.setFillColorRGB(1, 1, 1)
        row.table.canvas.rect(x, top - row.height, width, row.height, stroke=0, fill=1)

    monkeypatch.setattr(pdf_event.TableRow, "draw", covered)
    data = roster_of(pack)
    on_cover = [s for s in seen(data, "chen-wei") if s.page == 1]
    assert on_cover and not any(s.legible for s in on_cover)


def test_every_character_is_legible_and_drawn_with_a_real_glyph(pack, submitted):
    submit(pack, "小林", "aof/undead-legions-1500.json", name="Légion des Ombres")
    data = roster_of(pack)
    assert [str(u) for u in unreadable(data)] == []
    drawn = drawn_characters(data)
    assert all(char in drawn for char in "小林björnLégion")


def test_the_text_layer_lists_every_player_and_the_outline_leads_to_each_roster(pack, submitted):
    data = roster_of(pack)
    text = " ".join(page_texts(data))
    for submission in submitted:
        assert accounts.display_name(submission.player) in text
    outline = [item.title for item in PdfReader(io.BytesIO(data)).outline]
    assert outline == [
        "Submissions",
        "ada — The Old Faith Marches",
        "björn — Hold of the Ancestors",
        "chen-wei — Badlands Warband",
        "dana — The Long Dead March",
    ]


def test_a_submission_whose_book_is_gone_still_prints_as_not_legal(pack, submitted):
    Faction.objects.filter(slug="orc-hordes").delete()
    texts = page_texts(roster_of(pack))
    assert "3 chen-wei orc-hordes" in texts[0]
    assert "1 error" in texts[0].split("chen-wei")[1]
    page = texts[roster_starts(texts)["chen-wei"] - 1]
    assert 'The army book "orc-hordes" is no longer in the catalogue.' in page


def test_an_event_with_no_submissions_prints_its_cover(pack):
    data = roster_of(pack)
    assert len(PdfReader(io.BytesIO(data)).pages) == 1
    assert "0 lists submitted No list has been submitted yet." in page_texts(data)[0]


def footer_gaps(data: bytes) -> list[float]:
    """On each page, the room between the footer's text and its page number (negative: they overlap)."""
    gaps = []
    with pdfplumber.open(io.BytesIO(data)) as document:
        for page in document.pages:
            bottom = max(char["bottom"] for char in page.chars)
            line = sorted((c for c in page.chars if abs(c["bottom"] - bottom) < 1), key=lambda c: c["x0"])
            number = "".join(c["text"] for c in line).rindex("page")
            gaps.append(line[number]["x0"] - max(c["x1"] for c in line[:number] if c["text"].strip()))
    return gaps


def test_an_arena_event_counts_models_and_a_long_name_keeps_clear_of_the_page_numbers(organiser):
    for slug in ("dwarf-ironguard", "orc-pitfighters"):
        book_import(data=(DATA / "books" / "aof-arena" / f"{slug}.json").read_bytes())
    name = ("WARBAND WARMONGERS MUSTER " * 5)[:120]  # as wide as a name gets
    deadline = (timezone.now() + timedelta(days=3)).isoformat()
    data = {"name": name, "ruleset": "aof-arena", "points_limit": None, "deadline": deadline}
    pack = event_services.pack_create(organiser=organiser, data=data)
    submit(pack, "ann", "aof-arena/dwarf-ironguard-warband.json")
    submit(pack, "bo", "aof-arena/orc-pitfighters-warband.json")
    roster = roster_of(pack)
    cover = page_texts(roster)[0]
    assert "Age of Fantasy: Arena 2.1 · warbands, no points" in cover
    assert "# Player Army Book Models Status Issues" in cover
    version = Faction.objects.get(slug="dwarf-ironguard").version
    assert f"1 ann Dwarf Ironguard {version} 6 Legal none" in cover
    assert len(footer_gaps(roster)) == 3 and min(footer_gaps(roster)) > 6
    assert [str(u) for u in unreadable(roster)] == []


def test_letter_paper_and_a_bad_paper(pack, submitted):
    letter = PdfReader(io.BytesIO(roster_of(pack, paper="letter"))).pages
    assert {(round(float(p.mediabox.width)), round(float(p.mediabox.height))) for p in letter} == {(612, 792)}
    page = client_of(pack.organiser).get(f"/events/{pack.key}/roster.pdf", {"paper": "a3"})
    assert (page.status_code, page.content) == (400, b'paper must be one of a4, letter, not "a3"')
    api = client_of(pack.organiser).get(f"/api/events/{pack.key}/roster.pdf", {"paper": "a3"})
    assert (api.status_code, api.json()) == (400, {"paper": ['paper must be one of a4, letter, not "a3"']})


def test_the_files_are_named_after_the_event(pack, submitted):
    event_services.pack_update(pack=pack, data={"name": "Muster: Ålborg / Spring"})
    organiser = client_of(pack.organiser)
    for route, suffix in zip(API_ROUTES, ("rosters.pdf", "submissions.csv"), strict=True):
        response = organiser.get(route.format(key=pack.key))
        ascii_name, utf_8_name = f"Muster-Alborg-Spring-{suffix}", f"Muster-%C3%85lborg-Spring-{suffix}"
        expected = f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{utf_8_name}"
        assert response["Content-Disposition"] == expected


# -- caching and queries ----------------------------------------------------------------------
def test_a_second_download_is_the_cached_file_until_a_list_or_the_rules_change(pack, submitted, monkeypatch):
    drawn = []
    real = EventRosterPdf.render
    monkeypatch.setattr(EventRosterPdf, "render", lambda self: drawn.append(1) or real(self))
    first = roster_of(pack)
    assert roster_of(pack) == first and len(drawn) == 1
    submit(pack, "ada", "aof/orc-hordes-1500.json")  # submitted again: a new frozen copy
    assert roster_of(pack) != first and len(drawn) == 2
    event_services.pack_update(pack=pack, data={"bans": []})
    after = roster_of(pack)
    assert len(drawn) == 3
    assert "4 legal · 0 not legal" in page_texts(after)[0]
    event_services.pack_update(pack=pack, data={"deadline": (pack.deadline + timedelta(days=1)).isoformat()})
    roster_of(pack)
    assert len(drawn) == 4


def test_drawing_runs_no_queries(pack, submitted, django_assert_num_queries):
    subs = list(event_selectors.submissions_visible(pack, pack.organiser))
    printout = event_printout_get(pack=pack, submissions=subs, handles=list_submissions.submission_handles(subs))
    with django_assert_num_queries(0):
        data = EventRosterPdf(printout).render()
    assert data.startswith(b"%PDF")


def submit_many(pack, count: int, start: int = 0) -> None:
    for i in range(start, start + count):
        submit(pack, f"player-{i:02}", LISTS[i % len(LISTS)])


def queries(fn) -> int:
    with CaptureQueriesContext(connection) as captured:
        fn()
    return len(captured)


@pytest.mark.parametrize("route", [*ROUTES, *API_ROUTES])
def test_a_download_takes_the_same_queries_for_2_and_for_40_submissions(pack, route):
    organiser = client_of(pack.organiser)
    url = route.format(key=pack.key)

    def download() -> int:
        cache.clear()  # drawn again each time (the engine's books stay in this process)
        return queries(lambda: organiser.get(url))

    submit_many(pack, len(LISTS))
    download()  # every book built once
    Submission.objects.all().delete()
    submit_many(pack, 2)
    two = download(), download()  # the CSV stores the new lists' validations, then reads them
    submit_many(pack, 38, start=2)
    forty = download(), download()
    assert Submission.objects.count() == 40
    assert two == forty


def test_loading_the_roster_takes_the_same_queries_for_2_and_for_40_submissions(pack):
    def load() -> tuple[int, int]:
        subs = list(event_selectors.submissions_visible(pack, pack.organiser))
        handles = list_submissions.submission_handles(subs)
        return len(subs), queries(lambda: event_printout_get(pack=pack, submissions=subs, handles=handles))

    submit_many(pack, len(LISTS))
    load()  # every book built once
    Submission.objects.all().delete()
    submit_many(pack, 2)
    two = load()
    submit_many(pack, 38, start=2)
    forty = load()
    assert (two[0], forty[0]) == (2, 40)
    assert two[1] == forty[1] == 1  # the core rules


# -- the CSV ----------------------------------------------------------------------------------
def csv_of(pack, route: str = ROUTES[1]) -> tuple[str, list[list[str]]]:
    response = client_of(pack.organiser).get(route.format(key=pack.key))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    text = response.content.decode()
    return text, list(csv.reader(io.StringIO(text)))


def test_the_csv_has_a_row_per_submission_with_its_checks(pack, submitted):
    text, rows = csv_of(pack)
    header = "player,army,points,points limit,valid,errors,warnings,issues,submitted at,book_version,list name\r\n"
    assert text.startswith(header)
    assert [row[:2] for row in rows[1:]] == [
        ["ada", "Human Empire"],
        ["björn", "Dwarf Clans"],
        ["chen-wei", "Orc Hordes"],
        ["dana", "Undead Legions"],
    ]
    checked = {row.player_name: row for row in list_submissions.submission_rows(pack, submitted)}
    for row in rows[1:]:
        validation = checked[row[0]].validation
        assert row[2:4] == [str(validation["total_points"]), "1500"]
        assert datetime.fromisoformat(row[8]) == checked[row[0]].submission.submitted_at.replace(microsecond=0)
    dwarves = rows[2]
    assert dwarves[4:8] == ["no", "1", "0", "Event rule: Ancestor Colossus may not be fielded"]
    assert rows[1][4:8] == ["yes", "0", "0", ""]


def test_each_row_carries_the_name_of_the_list_as_submitted(pack, submitted):
    """Two players may enter lists of one army: the organiser tells them apart by the list's
    name, the last column (the ones before keep their places in an organiser's sheet)."""
    submit(pack, "erin", name="=Border Patrol, the second")
    submit(pack, "fay", name="")
    _text, rows = csv_of(pack)
    assert rows[0][-2:] == ["book_version", "list name"]
    names = {row[0]: row[-1] for row in rows[1:]}
    assert names["ada"] == submitted[0].data["name"] != ""
    assert names["erin"] == "'=Border Patrol, the second"  # a formula is never run
    assert names["fay"] == ""
    assert {len(row) for row in rows} == {len(HEADER)}


def test_names_with_commas_quotes_and_formulas_stay_in_their_cells(pack):
    submit(pack, 'O"Brien, Jr')
    submit(pack, "=HYPERLINK(1)")
    text, rows = csv_of(pack, API_ROUTES[1])
    assert '\r\n"O""Brien, Jr",Human Empire,' in text
    assert [row[0] for row in rows[1:]] == ['O"Brien, Jr', "'=HYPERLINK(1)"]
    assert {len(row) for row in rows} == {len(HEADER)}


def test_the_issues_of_a_list_are_joined_in_one_cell(pack):
    submit(pack, "ada", "aof/orc-hordes-1500.json", points_limit=500)
    _text, rows = csv_of(pack)
    (row,) = rows[1:]
    issues = list_submissions.submission_rows(pack, list(Submission.objects.all()))[0].issues
    assert len(issues) >= 2
    assert row[4:8] == ["no", str(len(issues)), "0", "; ".join(issue["message"] for issue in issues)]


# -- who gets the files -------------------------------------------------------------------------
@pytest.mark.parametrize("route", [*ROUTES, *API_ROUTES])
def test_only_the_organiser_and_staff_get_the_files(pack, submitted, route):
    staff = User.objects.create_user("steward", password="x" * 12, is_staff=True)
    stranger = User.objects.create_user("stranger", password="x" * 12)
    url = route.format(key=pack.key)
    answers = {
        "organiser": client_of(pack.organiser).get(url).status_code,
        "staff": client_of(staff).get(url).status_code,
        "submitter": client_of(submitted[0].player).get(url).status_code,
        "another user": client_of(stranger).get(url).status_code,
        "anonymous": client_of().get(url).status_code,
        "no such pack": client_of(pack.organiser).get(route.format(key="no-such-pack")).status_code,
    }
    assert answers == {
        "organiser": 200,
        "staff": 200,
        "submitter": 404,
        "another user": 404,
        "anonymous": 404,
        "no such pack": 404,
    }


def test_an_api_token_of_the_organiser_gets_the_files(pack, submitted):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=pack.organiser)
    for route in API_ROUTES:
        response = Client().get(route.format(key=pack.key), HTTP_AUTHORIZATION=f"Token {token.key}")
        assert response.status_code == 200


def test_a_list_pdf_follows_its_event_s_rules(pack, submitted):
    """A list entered for an event prints the issues of the event's rules as they are now:
    its cached PDF is not served once the rules change (the dwarf list fields a banned unit)."""
    from armybuilder import downloads
    from armybuilder.lists.models import ArmyList

    cache.clear()
    army_list = ArmyList.objects.get(event=pack, faction="dwarf-clans")
    first = downloads.list_pdf_response(army_list, "roster.pdf", {}).content
    assert downloads.list_pdf_response(army_list, "roster.pdf", {}).content == first  # kept
    assert "may not be fielded" in " ".join(page_texts(first))
    event_services.pack_update(pack=pack, data={"bans": []})
    again = downloads.list_pdf_response(ArmyList.objects.get(pk=army_list.pk), "roster.pdf", {}).content
    assert "may not be fielded" not in " ".join(page_texts(again))
