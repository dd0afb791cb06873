"""PDF exports (unit cards, roster, rules reference). Being written: until then no PDF
kind is offered and the export endpoints answer 404 for them."""

from __future__ import annotations

from django.http import HttpResponse

from armybuilder.lists.models import ArmyList

PDF_KINDS: tuple[str, ...] = ()


def list_pdf_response(army_list: ArmyList, kind: str, params: dict[str, str]) -> HttpResponse:
    raise LookupError(kind)
