"""A live action answers with only the pieces of the builder it changed
(armybuilder/web/fragments.py): small, compressed when nothing sent holds a key, and
without the CSRF token, which the page fills in. Through Django's test client; the
browser side is tests/web/test_builder_pieces_browser.py."""

import gzip
import json
import re

import pytest
from django.conf import settings

from armybuilder.lists import services
from armybuilder.lists.format import parse_list_body
from armybuilder.lists.models import ArmyList
from armybuilder.memo import clear_all
from armybuilder.web import fragments
from factions.selectors import engine_book_get
from factions.services import armybook_import_file

HUMAN_EMPIRE = settings.BASE_DIR / "factions/data/books/aof/human-empire.json"
KB = 1024


@pytest.fixture
def big_list(db, client, django_user_model) -> ArmyList:
    """A 50-entry Human Empire list of the client's user: every unit of the book in turn,
    each with one option in every section, another one from copy to copy."""
    clear_all()
    armybook_import_file(path=HUMAN_EMPIRE)
    book, _ruleset = engine_book_get(system="aof", slug="human-empire")
    units = list(book.units.values())
    entries = []
    for i in range(50):
        unit = units[i % len(units)]
        options = {s.options[(i // len(units)) % len(s.options)].id: 1 for s in unit.sections}
        entries.append({"id": f"e{i}", "unit": unit.id, "options": options})
    body = {"name": "Big", "system": "aof", "faction": "human-empire", "points_limit": 9000, "entries": entries}
    user = django_user_model.objects.create_user("player")
    client.force_login(user)
    data, _handle = parse_list_body(body)
    return services.army_list_create(data=data, owner=user)


class Page:
    """What the page's script holds: the hashes of the pieces it shows, the list version."""

    def __init__(self, client, army_list: ArmyList, entry: str = ""):
        self.client, self.url = client, f"/lists/{army_list.pk}/"
        html = client.get(self.url + (f"?entry={entry}" if entry else "")).content.decode()
        self.pieces = re.search(r'data-pieces="([^"]*)"', html).group(1)
        self.version = re.search(r'data-version="(\d+)"', html).group(1)

    def act(self, *, gzip_ok: bool = False, **fields):
        """Post an action as the script does; the answer (decoded) and its size on the wire."""
        headers = {"HTTP_X_LIVE": "1", "HTTP_X_PIECES": self.pieces}
        if gzip_ok:
            headers["HTTP_ACCEPT_ENCODING"] = "gzip, deflate, br"
        response = self.client.post(self.url + "act/", {"version": self.version, **fields}, **headers)
        assert response.status_code == 200, response.content[:300]
        raw = response.content
        body = gzip.decompress(raw) if response.get("Content-Encoding") == "gzip" else raw
        answer = json.loads(body)
        self.pieces = " ".join(h for _id, h in answer["slots"] + answer["entries"] + answer["inner"])
        self.version = response["X-List-Version"]
        return answer, response, len(raw)


ACTIONS = {
    "add": {"action": "add", "unit": "pike-levy"},
    "plus": {"action": "options", "entry": "e4", "partial": "1", "bump": "J1a:+1"},
    "toggle": {"action": "options", "entry": "e5", "partial": "1", "set": "D1b=1"},
    "combine": {"action": "combine", "entry": "e5", "combined": "1"},
    "join": {"action": "join", "entry": "e0", "target": "e5"},
    "move": {"action": "move", "entry": "e5", "step": "down"},
    "remove": {"action": "remove", "entry": "e7"},
    "rename": {"action": "rename", "entry": "e5", "name": "Front Rank"},
}


@pytest.mark.parametrize("action", ["plus", "toggle", "combine"])
def test_a_one_entry_change_on_a_fifty_entry_list_answers_under_20_kb(big_list, client, action):
    page = Page(client, big_list, entry=ACTIONS[action]["entry"])  # its upgrades open, as after a click
    answer, _response, size = page.act(**ACTIONS[action])
    assert len(answer["entries"]) == 50
    assert sorted(answer["html"]) == [f"entry-{ACTIONS[action]['entry']}", "tally"]
    assert size < 20 * KB


@pytest.mark.parametrize("action", ACTIONS)
def test_every_action_on_a_fifty_entry_list_answers_under_20_kb_compressed(big_list, client, action):
    """Adding, moving, renaming, joining or removing a unit changes every hero's menu of
    the units it may join (12 heroes here): those menus go again (about 2 KB each)."""
    page = Page(client, big_list, entry=ACTIONS[action].get("entry", "e5"))
    answer, response, size = page.act(gzip_ok=True, **ACTIONS[action])
    assert response["Content-Encoding"] == "gzip"
    assert len(answer["entries"]) in (49, 50, 51)
    assert size < 20 * KB


def test_an_answer_sends_only_the_pieces_that_changed(big_list, client):
    page = Page(client, big_list, entry="e4")
    answer, _response, _size = page.act(**ACTIONS["plus"])
    assert sorted(answer["html"]) == ["entry-e4", "tally"]
    answer, _response, _size = page.act(action="options", entry="e5", partial="1", set="D1b=1")
    assert sorted(answer["html"]) == ["entry-e4", "entry-e5", "tally"]  # e4's upgrades closed, e5's open
    answer, _response, _size = page.act(action="move", entry="e5", step="up")
    assert "entry-e4" not in answer["html"] and "entry-e5" not in answer["html"]  # the same, elsewhere
    assert {key for key in answer["html"] if not key.startswith("joining-")} == {"tally"}  # and the heroes' menus
    assert [entry_id for entry_id, _hash in answer["entries"][3:7]] == ["entry-e3", "entry-e5", "entry-e4", "entry-e6"]
    answer, _response, _size = page.act(action="remove", entry="e7")
    assert "entry-e7" not in dict(answer["entries"])


def test_an_answer_without_a_key_in_it_is_compressed_and_holds_no_csrf_token(big_list, client):
    page = Page(client, big_list, entry="e5")
    answer, response, size = page.act(gzip_ok=True, **ACTIONS["add"])
    assert response["Content-Encoding"] == "gzip" and "Accept-Encoding" in response["Vary"]
    assert size < 8 * KB
    html = "".join(answer["html"].values())
    assert 'name="csrfmiddlewaretoken" value=""' in html and 'name="version" value=""' in html
    assert not re.search(r'csrfmiddlewaretoken" value="[^"]', html)


def test_an_answer_that_sends_the_share_link_or_the_settings_is_not_compressed(big_list, client):
    """Both hold keys: the share link opens the list; the settings hold the link of the
    event a list is built for."""
    page = Page(client, big_list)
    page.pieces = ""  # a page that holds nothing: everything is sent, the share link too
    answer, response, _size = page.act(gzip_ok=True, **ACTIONS["add"])
    assert big_list.share_key in answer["html"]["share"]
    assert not response.has_header("Content-Encoding")
    answer, response, _size = page.act(gzip_ok=True, action="settings", name="Renamed", points_limit="7500")
    assert {"list-title", "settings", "tally"} <= set(answer["html"])
    assert not response.has_header("Content-Encoding")


def test_every_piece_is_the_element_of_its_id(big_list, client):
    page = Page(client, big_list, entry="e4")
    page.pieces = ""
    answer, _response, _size = page.act(**ACTIONS["plus"])
    assert len(answer["html"]) == len(answer["slots"]) + len(answer["entries"]) == len(fragments.SLOTS) + 1 + 50
    for piece_id, html in answer["html"].items():
        first_tag = html[: html.index(">") + 1]
        assert first_tag.startswith("<") and f'id="{piece_id}"' in first_tag, first_tag
    heroes = [piece_id for piece_id, _hash in answer["inner"]]  # sent inside their entries
    assert len(heroes) == 12
    for piece_id in heroes:
        entry = answer["html"][piece_id.replace("joining-", "entry-")]
        assert re.search(f'<form [^>]*id="{piece_id}"', entry)


def test_the_full_page_has_every_form_head_filled_in(big_list, client):
    """Without JavaScript every form carries the token and the version, as before."""
    html = client.get(f"/lists/{big_list.pk}/?entry=e5").content.decode()
    assert "<!--form-head-->" not in html and 'csrfmiddlewaretoken" value=""' not in html
    forms = html.count('method="post" action="/lists/')
    # The forms every entry's buttons belong to, and each entry's name field.
    assert html.count(f'name="version" value="{big_list.version}"') == forms > len(fragments.ENTRY_FORMS) + 50
