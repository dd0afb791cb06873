"""The print choices of a list on the builder and the share page (web/printing.py): one GET
form whose buttons are the PDFs, so that the browser builds each file's address from the
choices. Read through Django's test client: the form as a browser submits it (HTML's
rules for a form's data set), and the file each submission downloads."""

from __future__ import annotations

import io
from html.parser import HTMLParser
from urllib.parse import urlencode

import pdfplumber
import pytest
from django.core.cache import cache
from pypdf import PdfReader
from reportlab.lib.pagesizes import A4, LETTER

from armybuilder.web import pages, printing
from tests.conftest import wardens_list
from tests.exports.test_pdf import card_boxes

PAPER_SIZES = {"a4": A4, "letter": LETTER}
POKER_CARD = (178.6, 249.4)  # 63 × 88 mm in points


class Form(HTMLParser):
    """The print form of a page: its inputs and its submit buttons, as a browser sees them."""

    def __init__(self, page: str):
        super().__init__()
        self.inside = False
        self.attrs: dict[str, str | None] = {}
        self.inputs: list[dict[str, str | None]] = []
        self.buttons: list[dict[str, str | None]] = []
        self._button: dict[str, str | None] | None = None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form" and "data-print-choices" in attributes:
            self.inside, self.attrs = True, attributes
        elif self.inside and tag == "input":
            self.inputs.append(attributes)
        elif self.inside and tag == "button":
            self._button = {**attributes, "label": ""}

    def handle_data(self, data):
        if self._button is not None:
            self._button["label"] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "button" and self._button is not None:
            self.buttons.append(self._button)
            self._button = None

    def checked(self, name: str) -> list[str]:
        return [i["value"] for i in self.inputs if i["name"] == name and "checked" in i]

    def submit(self, label: str, **choices: str | bool) -> str:
        """The address a browser opens for the button `label` after the reader picks
        `choices` (a radio's value, or True/False for a checkbox): the form's data set
        in tree order, then the button's own name and value, on its formaction."""
        button = next(b for b in self.buttons if b["label"] == label)
        data = []
        for field in self.inputs:
            name, value = field["name"], field["value"]
            if name in choices:
                wanted = choices[name]
                on = wanted is True if field["type"] == "checkbox" else wanted == value
            else:
                on = "checked" in field
            if on:
                data.append((name, value))
        if button.get("name"):
            data.append((button["name"], button["value"]))
        return f"{button['formaction']}?{urlencode(data)}"


@pytest.fixture(autouse=True)
def fresh_caches():
    cache.clear()
    pages.READY_PAGES.clear()
    yield
    cache.clear()
    pages.READY_PAGES.clear()


@pytest.fixture
def patrol(wardens, user):
    return wardens_list(user, ["warden-captain", "wardens"], name="Border Patrol")


def share_form(client, army_list, language="en-GB,en;q=0.8") -> Form:
    response = client.get(army_list.share_path, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return Form(response.content.decode())


def builder_form(client, army_list, language="en-GB,en;q=0.8") -> Form:
    client.force_login(army_list.owner)
    response = client.get(f"/lists/{army_list.pk}/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return Form(response.content.decode())


def download(client, address: str) -> bytes:
    response = client.get(address)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/pdf"
    return response.content


def page_size(data: bytes) -> tuple[float, float]:
    box = PdfReader(io.BytesIO(data)).pages[0].mediabox
    return float(box.width), float(box.height)


def title(data: bytes) -> str:
    return PdfReader(io.BytesIO(data)).metadata.title


# -- the form -----------------------------------------------------------------------------
@pytest.mark.parametrize("where", ["share", "builder"])
def test_the_pdfs_are_buttons_of_one_get_form_that_needs_no_script(patrol, client, where):
    form = share_form(client, patrol) if where == "share" else builder_form(client, patrol)
    base = f"/api/shared/{patrol.share_key}/export/" if where == "share" else f"/api/lists/{patrol.pk}/export/"
    assert form.attrs["method"] == "get"
    assert [(b["label"], b["formaction"], b.get("name")) for b in form.buttons] == [
        ("Unit cards", base + "cards.pdf", None),
        ("Army sheet", base + "roster.pdf", "sheet"),
        ("Roster", base + "roster.pdf", None),
        ("Rules reference", base + "reference.pdf", None),
    ]
    assert form.checked("paper") == ["a4"] and form.checked("layout") == ["sheet"]
    assert form.checked("combine") == [] and form.checked("rules") == []


CHOICES = [
    ("Unit cards", {}, "cards.pdf?paper=a4&layout=sheet"),
    ("Unit cards", {"paper": "letter"}, "cards.pdf?paper=letter&layout=sheet"),
    ("Unit cards", {"layout": "poker"}, "cards.pdf?paper=a4&layout=poker"),
    ("Unit cards", {"combine": True}, "cards.pdf?paper=a4&layout=sheet&combine=1"),
    ("Unit cards", {"rules": True}, "cards.pdf?paper=a4&layout=sheet&rules=1"),
    (
        "Unit cards",
        {"paper": "letter", "layout": "poker", "combine": True, "rules": True},
        "cards.pdf?paper=letter&layout=poker&combine=1&rules=1",
    ),
    ("Army sheet", {}, "roster.pdf?paper=a4&layout=sheet&sheet=1"),
    ("Army sheet", {"paper": "letter"}, "roster.pdf?paper=letter&layout=sheet&sheet=1"),
    ("Roster", {"paper": "letter"}, "roster.pdf?paper=letter&layout=sheet"),
    ("Rules reference", {"paper": "letter"}, "reference.pdf?paper=letter&layout=sheet"),
]


@pytest.mark.parametrize(("button", "choices", "address"), CHOICES)
def test_each_choice_of_the_share_page_downloads_its_pdf(patrol, client, button, choices, address):
    form = share_form(client, patrol)
    link = form.submit(button, **choices)
    assert link == f"/api/shared/{patrol.share_key}/export/{address}"
    data = download(client, link)
    paper = choices.get("paper", "a4")
    assert page_size(data) == pytest.approx(PAPER_SIZES[paper], abs=0.5)
    kind = {"Unit cards": "unit cards", "Army sheet": "army sheet", "Roster": "roster"}
    assert title(data) == f"Border Patrol — {kind.get(button, 'rules reference')}"
    if choices.get("layout") == "poker":
        assert len(poker_cards(data)) >= 2  # a card for each entry (with rules, one may go on)
    if choices.get("rules"):
        assert "Shieldbrothers" in text_of(data) and "Test rule text." in text_of(data)
    if choices.get("combine"):
        assert "1× Wardens" not in text_of(data)  # a single unit is printed as itself


@pytest.mark.parametrize(("button", "choices", "address"), CHOICES[::3])
def test_each_choice_of_the_builder_downloads_its_pdf(patrol, client, button, choices, address):
    form = builder_form(client, patrol)
    link = form.submit(button, **choices)
    assert link == f"/api/lists/{patrol.pk}/export/{address}"
    assert page_size(download(client, link)) == pytest.approx(PAPER_SIZES[choices.get("paper", "a4")], abs=0.5)


def test_the_roster_is_drawn_once_whatever_the_cards_choices_sent_with_it(patrol, client):
    """The form sends the cards' choices with every file: the roster and the sheet keep
    one cache entry each (the files' cache key holds only what draws them)."""
    form = share_form(client, patrol)
    plain = download(client, form.submit("Roster"))
    with_cards = download(client, form.submit("Roster", layout="poker", combine=True, rules=True))
    assert plain == with_cards
    assert len([key for key in cache._cache if "armybuilder:pdf" in key]) == 1
    assert download(client, form.submit("Army sheet", layout="poker")) != plain


def poker_cards(data: bytes) -> list[tuple[float, float, float, float]]:
    """The card frames of the first page that fit a poker card (63 × 88 mm; the frame
    sits a little inside the cutting line)."""
    with pdfplumber.open(io.BytesIO(data)) as document:
        frames = card_boxes(document.pages[0], "poker")
    width, height = POKER_CARD
    return [f for f in frames if 0.9 * width < f[2] <= width and 0.9 * height < f[3] <= height]


def text_of(data: bytes) -> str:
    with pdfplumber.open(io.BytesIO(data)) as document:
        return " ".join(" ".join((page.extract_text() or "").split()) for page in document.pages)


# -- the paper, from the reader's region --------------------------------------------------
@pytest.mark.parametrize(
    ("header", "paper"),
    [
        ("en-US,en;q=0.9", "letter"),
        ("en-CA", "letter"),
        ("es-MX,es;q=0.9,en;q=0.8", "letter"),
        ("fr-CA,fr;q=0.9,en-US;q=0.8", "letter"),
        ("pt-BR,pt;q=0.9,en-US;q=0.8", "a4"),  # Brazil prints on A4
        ("en-GB,en;q=0.9", "a4"),
        ("de-DE,de;q=0.9", "a4"),
        ("fr,en-US;q=0.8", "a4"),  # a second language's region says little of where one prints
        ("fr,fr-CA;q=0.8", "letter"),
        ("en;q=0.5,en-US;q=0.9", "letter"),  # by preference, not by order
        ("zh-Hant-TW", "a4"),
        ("es-419", "a4"),  # Latin America as a whole: no one paper
        ("", "a4"),
        ("*", "a4"),
        ("en-US;q=abc", "a4"),
    ],
)
def test_the_paper_is_the_one_of_the_readers_region(header, paper):
    assert printing.paper_for(header) == paper


@pytest.mark.parametrize("where", ["share", "builder"])
def test_the_page_preselects_letter_for_a_reader_in_the_united_states(patrol, client, where):
    opened = share_form if where == "share" else builder_form
    assert opened(client, patrol, "en-US,en;q=0.9").checked("paper") == ["letter"]
    assert opened(client, patrol, "en-GB,en;q=0.9").checked("paper") == ["a4"]
    assert opened(client, patrol, "").checked("paper") == ["a4"]
    address = patrol.share_path if where == "share" else f"/lists/{patrol.pk}/"
    assert "Accept-Language" in client.get(address)["Vary"]  # for the caches between


def test_the_kept_share_page_is_kept_per_paper(patrol, client):
    """Readers of one link from two regions each get their paper, the second time too
    (the page is kept ready, per paper)."""
    for _ in range(2):
        assert share_form(client, patrol, "en-US").checked("paper") == ["letter"]
        assert share_form(client, patrol, "en-AU").checked("paper") == ["a4"]
    assert len(pages.READY_PAGES) == 2
