"""NestJS error bodies: `{message, statusCode, error}` for every 4xx/5xx of the Data and Metrics APIs.

NestJS's ValidationPipe answers a bad parameter with `message` as an array of class-validator
sentences ("pageSize must not be greater than 100"); an exception thrown with a sentence carries it
as a plain string. The Metrics API always sends an array (the seed's Errors section), so the
formatter takes the API's preference.
"""

from __future__ import annotations

from http import HTTPStatus

from simnode.errors import DomainError, NotFound, Unavailable


class ApiError(Exception):
    """An answer other than success: the HTTP status and the sentence(s) of `message`."""

    def __init__(self, status: int, message: str | list[str]) -> None:
        super().__init__(message if isinstance(message, str) else "; ".join(message))
        self.status = status
        self.message = message


# Node's http.STATUS_CODES where Python's phrase differs
_NODE_PHRASES = {413: "Payload Too Large", 414: "URI Too Long", 416: "Range Not Satisfiable"}


def status_text(status: int) -> str:
    """The `error` field: the status's reason phrase as NestJS (Node) writes it ("Bad Request")."""
    if status in _NODE_PHRASES:
        return _NODE_PHRASES[status]
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def error_body(status: int, message: str | list[str], message_as_array: bool = False) -> dict:
    if message_as_array and isinstance(message, str):
        message = [message]
    return {"message": message, "error": status_text(status), "statusCode": status}


def domain_status(exc: DomainError) -> int:
    """The status a domain error raised below the API answers with (its text is the message)."""
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, Unavailable):
        return 503
    return 400


def bad_request(*messages: str) -> ApiError:
    """A parameter that fails validation: class-validator sentences, as an array."""
    return ApiError(400, list(messages))


def not_found(message: str) -> ApiError:
    return ApiError(404, message)


def unavailable(message: str) -> ApiError:
    return ApiError(503, message)
