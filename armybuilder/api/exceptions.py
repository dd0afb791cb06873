"""The API's answer to an exception: DRF's, plus the domain's own errors carried over
(a list body that is not armylist/1 is a 400 with its field errors)."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from armybuilder.lists.format import ListFormatError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ListFormatError):
        exc = ValidationError(exc.errors)
    return drf_exception_handler(exc, context)
