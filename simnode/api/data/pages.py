"""Page tokens: opaque `nextPageToken` values that carry a list's keyset cursor.

Both kinds are bound to the request they continue: the route plus every filter except
`pageToken` and `pageSize` (a client may change the page size mid-walk). A token used with another
route or other filters, a tampered one and garbage are all a 400.

* `SignedPageTokens` (Data API): the cursor itself travels in the token, msgpack-packed, with a
  keyed BLAKE2b tag (key derived from the node's seed, so tokens survive a restart), url-safe
  base64 without padding. Nothing is kept on the server.
* `UuidPageTokens` (Metrics API, whose tokens are UUIDs valid for 24 hours): the cursor stays on
  the server under a UUID; an expired one is a 400 saying to start again from the first page.
  Expiry reads the node's clock, so virtual time moves it too.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import uuid
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import msgpack

from .errors import bad_request

_TAG_LEN = 12
_BINDING_LEN = 8
TOKEN_TTL_MS = 24 * 3600 * 1000

INVALID = "pageToken is not a page token of this node: start again from the first page (without a pageToken)"
FOREIGN = ("pageToken belongs to another request: pass it with the route and filters that returned it, "
           "or start again from the first page (without a pageToken)")


def binding_of(method: str, template: str, filters: dict[str, Any]) -> bytes:
    """What a token is bound to: the route and its filters (not pageToken, not pageSize)."""
    items = sorted((k, v) for k, v in filters.items() if k not in ("pageToken", "pageSize"))
    data = msgpack.packb([method, template, items], use_bin_type=True)
    return hashlib.blake2b(data, digest_size=_BINDING_LEN).digest()


class SignedPageTokens:
    def __init__(self, secret: bytes) -> None:
        self._key = hashlib.blake2b(b"simnode/data-api/page-token/" + secret, digest_size=32).digest()

    def _tag(self, payload: bytes) -> bytes:
        return hashlib.blake2b(payload, key=self._key, digest_size=_TAG_LEN).digest()

    def issue(self, binding: bytes, cursor: Any) -> str:
        payload = binding + msgpack.packb(cursor, use_bin_type=True)
        return base64.urlsafe_b64encode(payload + self._tag(payload)).rstrip(b"=").decode("ascii")

    def read(self, binding: bytes, token: str) -> Any:
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (binascii.Error, ValueError):
            raise bad_request(INVALID) from None
        payload, tag = raw[:-_TAG_LEN], raw[-_TAG_LEN:]
        if len(payload) <= _BINDING_LEN or self._tag(payload) != tag:
            raise bad_request(INVALID)
        if payload[:_BINDING_LEN] != binding:
            raise bad_request(FOREIGN)
        return msgpack.unpackb(payload[_BINDING_LEN:], raw=False)


class UuidPageTokens:
    """UUID tokens kept in memory (the most recent `capacity`), each valid for `ttl_ms`."""

    def __init__(self, now_ms: Callable[[], int], secret: bytes, ttl_ms: int = TOKEN_TTL_MS,
                 capacity: int = 10_000) -> None:
        self._now_ms = now_ms
        self._secret = secret
        self._ttl_ms = ttl_ms
        self._capacity = capacity
        self._issued = 0
        self._tokens: OrderedDict[str, tuple[bytes, Any, int]] = OrderedDict()

    def issue(self, binding: bytes, cursor: Any) -> str:
        # version-4 layout from a seeded counter: the same run gives the same tokens
        self._issued += 1
        digest = hashlib.blake2b(self._secret + self._issued.to_bytes(8, "big"), digest_size=16).digest()
        token = str(uuid.UUID(bytes=digest, version=4))
        self._tokens[token] = (binding, cursor, self._now_ms() + self._ttl_ms)
        while len(self._tokens) > self._capacity:
            self._tokens.popitem(last=False)
        return token

    def read(self, binding: bytes, token: str) -> Any:
        try:
            key = str(uuid.UUID(token))
        except ValueError:
            raise bad_request("pageToken must be a UUID") from None
        entry = self._tokens.get(key)
        if entry is None:
            raise bad_request(INVALID)
        bound, cursor, expires_ms = entry
        if self._now_ms() >= expires_ms:
            del self._tokens[key]
            raise bad_request("pageToken has expired (page tokens are valid for 24 hours): "
                              "start again from the first page (without a pageToken)")
        if bound != binding:
            raise bad_request(FOREIGN)
        return cursor
