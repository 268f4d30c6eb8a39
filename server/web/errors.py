"""Errors on the wire: a status from the code, and one JSON shape everywhere."""

from collections.abc import Mapping

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from server.rules.core import RuleError
from server.store import Unavailable, Unstorable
from server.web.limits import RateLimited

STATUS = {
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "method_not_allowed": 405,
    "too_large": 413,
    "invalid": 422,
    "rate_limited": 429,
    "unavailable": 503,
}
HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}


def status(code: str) -> int:
    """A rule's refusal in the current state is a 409; the rest have their own status."""
    return STATUS.get(code, 409)


def error_response(
    code: str,
    message: str,
    status_code: int | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message}},
        status_code=status_code or status(code),
        headers=headers,
    )


# What the layers below refuse with, each in its own type: the rules, the store, the limits.
Refused = RuleError | Unavailable | RateLimited
REFUSED = (RuleError, Unavailable, RateLimited)


def wire(error: Refused) -> tuple[str, str]:
    """A refusal's code and message on the wire."""
    if isinstance(error, RuleError):
        return error.code, error.message
    if isinstance(error, RateLimited):
        return "rate_limited", error.message
    if isinstance(error, Unstorable):
        return "invalid", "the command holds a value that cannot be stored"
    return "unavailable", "the game could not be saved; try again"


async def refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, REFUSED)
    response = error_response(*wire(exc))
    if isinstance(exc, RateLimited):
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = HTTP_CODES.get(exc.status_code, "invalid")
    # A 405's headers carry `Allow`: the methods the path takes.
    return error_response(code, str(exc.detail), exc.status_code, exc.headers)


async def unexpected(request: Request, exc: Exception) -> Response:
    return error_response("internal", "the server failed; the error is logged", 500)


HANDLERS = {
    **dict.fromkeys(REFUSED, refused),
    HTTPException: http_error,
    Exception: unexpected,
}
