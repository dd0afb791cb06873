"""The print choices of a list (paper, the cards' layout, combined cards, rules on the
cards) and the files they print, as one small GET form on the builder and the share
page: each file is a submit button whose `formaction` is that file, so the browser
builds the PDF's address from the choices, with no script.

The paper is preselected from the reader's region: Letter where it is the usual paper
(the CLDR's US-Letter territories), A4 elsewhere; the server guesses from the
Accept-Language header and static/print.js from navigator.languages (the same rule),
then keeps the reader's own choice in the browser.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest

from armybuilder.downloads import too_many_to_print

# CLDR supplemental data, measurementData paperSize "US-Letter".
LETTER_REGIONS = frozenset("BZ CA CL CO CR GT MX NI PA PH PR SV US VE".split())


@dataclass(frozen=True, slots=True)
class PrintFile:
    label: str
    address: str
    sheet: bool = False  # the roster's army sheet (`sheet=1`, sent by its button)


def paper_for(accept_language: str) -> str:
    """ "letter" or "a4" for an Accept-Language header: the region of the most wanted
    language ("en-US,en;q=0.9" → US; "fr,fr-CA;q=0.8" → CA; "fr,en-US;q=0.8" → none,
    A4: the region of a second language says little of where the reader prints)."""
    tags = []
    for position, part in enumerate(accept_language.split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                continue
        if tag and tag != "*" and quality > 0:
            tags.append((-quality, position, tag.lower().split("-")))
    tags.sort()
    if not tags:
        return "a4"
    language = tags[0][2][0]
    for _quality, _position, subtags in tags:
        region = next((s for s in subtags[1:] if len(s) == 2 and s.isalpha()), None)
        if subtags[0] == language and region is not None:
            return "letter" if region.upper() in LETTER_REGIONS else "a4"
    return "a4"


def request_paper(request: HttpRequest) -> str:
    return paper_for(request.headers.get("Accept-Language", ""))


def print_files(base: str) -> list[PrintFile]:
    """The PDFs of a list whose exports are at `base` (ending in "/")."""
    return [
        PrintFile("Unit cards", base + "cards.pdf"),
        PrintFile("Army sheet", base + "roster.pdf", sheet=True),
        PrintFile("Roster", base + "roster.pdf"),
        PrintFile("Rules reference", base + "reference.pdf"),
    ]


def print_context(base: str, paper: str, *, entries: int = 0) -> dict[str, object]:
    """What templates/_print_choices.html shows: for a list of more entries than its cards
    and roster print (downloads.too_many_to_print), its rules reference and why."""
    too_many = too_many_to_print(entries)
    files = [file for file in print_files(base) if file.label == "Rules reference"] if too_many else print_files(base)
    return {"print_files": files, "print_paper": paper, "print_too_many": too_many}
