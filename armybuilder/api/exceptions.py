"""The API's answer to an exception: DRF's, plus the domain's own errors carried over
(a lookup that found nothing is a 404, saying what was asked for in the catalogue and
no more of a list or a pack, which may be someone else's; a list body that is not
armylist/1, or an event pack that cannot be made as asked, is a 400 with its field
errors; a submission after the deadline a 409 that says so; a file too large to draw a
422 that says why)."""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.exceptions import APIException, NotFound, Throttled, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from armybuilder.downloads import PrintoutsBusy, TooLargeToPrint, TooManyDrawings
from armybuilder.events.format import EventError
from armybuilder.events.services import SubmissionsClosed
from armybuilder.lists.format import ListFormatError
from armybuilder.missing import Missing


class SignInRequired(APIException):
    """An action for signed-in users, asked for by no one: 401, whichever authentication
    comes first (DRF's own NotAuthenticated turns into a 403 behind session authentication)."""

    status_code = status.HTTP_401_UNAUTHORIZED
    default_detail = "Sign in first: send your API token (Authorization: Token …) or use a signed-in session."
    auth_header = "Token"  # (WWW-Authenticate: how to sign in)


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT


class Unprocessable(APIException):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY


class Busy(APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, Missing):
        exc = NotFound(str(exc) or None)
    elif isinstance(exc, (ListFormatError, EventError)):
        exc = ValidationError(exc.errors)
    elif isinstance(exc, SubmissionsClosed):
        exc = Conflict(str(exc))
    elif isinstance(exc, TooLargeToPrint):
        exc = Unprocessable(str(exc))
    elif isinstance(exc, TooManyDrawings):
        exc = Throttled(wait=exc.wait, detail=str(exc))
    elif isinstance(exc, PrintoutsBusy):
        response = drf_exception_handler(Busy(str(exc)), context)
        if response is not None:
            response["Retry-After"] = str(exc.wait)
        return response
    return drf_exception_handler(exc, context)  # (which rolls back the request's writes)
