"""The request body limit (--http-body-limit), one rule for every HTTP endpoint: a body declared or
read longer than the limit is refused with 413 before it is parsed. Each wire format words the
refusal its own way (geth's and gorilla's "content length too large (N>limit)", NestJS's "request
entity too large"), so the check raises and the endpoint answers."""

from __future__ import annotations

from typing import Protocol


class BodyTooLarge(Exception):
    def __init__(self, length: int, limit: int) -> None:
        super().__init__(f"content length too large ({length}>{limit})")
        self.length = length
        self.limit = limit


class _Request(Protocol):
    @property
    def content_length(self) -> int | None: ...

    async def read(self) -> bytes: ...


def over_limit(length: int | None, limit: int) -> bool:
    return length is not None and length > limit


def check_declared(request: _Request, limit: int) -> None:
    """Refuse a Content-Length past the limit before anything is read."""
    if over_limit(request.content_length, limit):
        raise BodyTooLarge(request.content_length or 0, limit)


async def read_body(request: _Request, limit: int) -> bytes:
    """The whole body, refused when it turns out longer than the limit (chunked, or a short
    Content-Length)."""
    body = await request.read()
    if over_limit(len(body), limit):
        raise BodyTooLarge(len(body), limit)
    return body
