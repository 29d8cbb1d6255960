"""Page tokens (signed and UUID), the rate limiter and the null-free JSON of the Data API layer."""

from __future__ import annotations

import base64
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simnode.api.data.app import drop_none
from simnode.api.data.errors import ApiError
from simnode.api.data.pages import SignedPageTokens, UuidPageTokens, binding_of
from simnode.api.data.ratelimit import RateLimiter

BLOCKS = binding_of("GET", "/v1/chains/{chainId}/blocks", {"chainId": "43112", "pageSize": 10})
cursors = st.recursive(st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.binary(max_size=40)
                       | st.text(max_size=20), lambda c: st.lists(c, max_size=4), max_leaves=8)


def unb64(token: str) -> bytes:
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))


def refused(fn, *args) -> str:  # noqa: ANN001
    with pytest.raises(ApiError) as info:
        fn(*args)
    assert info.value.status == 400
    return info.value.message[0]


@settings(deadline=None)  # tests assert no timings
@given(cursors)
def test_signed_tokens_round_trip_url_safe(cursor: object) -> None:
    tokens = SignedPageTokens(b"seed")
    token = tokens.issue(BLOCKS, cursor)
    assert re.fullmatch(r"[A-Za-z0-9_-]+", token)
    assert tokens.read(BLOCKS, token) == cursor


@settings(deadline=None)
@given(cursors, st.data())
def test_any_changed_byte_is_refused(cursor: object, data: st.DataObject) -> None:
    tokens = SignedPageTokens(b"seed")
    token = tokens.issue(BLOCKS, cursor)
    i = data.draw(st.integers(0, len(token) - 1))
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    c = data.draw(st.sampled_from(alphabet.replace(token[i], "")))
    tampered = token[:i] + c + token[i + 1:]
    if unb64(tampered) == unb64(token):
        return  # only the unused low bits of the last base64 digit changed: the same token
    assert "not a page token of this node" in refused(tokens.read, BLOCKS, tampered)


def test_signed_tokens_are_bound_to_route_filters_and_key() -> None:
    tokens = SignedPageTokens(b"seed")
    token = tokens.issue(BLOCKS, [5, b"x"])
    # another page size is the same walk
    assert tokens.read(binding_of("GET", "/v1/chains/{chainId}/blocks", {"chainId": "43112", "pageSize": 3}),
                       token) == [5, b"x"]
    other_chain = binding_of("GET", "/v1/chains/{chainId}/blocks", {"chainId": "99999", "pageSize": 10})
    other_route = binding_of("GET", "/v1/chains/{chainId}/transactions", {"chainId": "43112", "pageSize": 10})
    for binding in (other_chain, other_route):
        assert refused(tokens.read, binding, token).startswith("pageToken belongs to another request")
    for garbage in ("", "abc", "!!!!", "a" * 50):
        assert "not a page token" in refused(tokens.read, BLOCKS, garbage)
    assert "not a page token" in refused(SignedPageTokens(b"other seed").read, BLOCKS, token)


def test_uuid_tokens_expire_after_24_hours() -> None:
    now = [1_000]
    tokens = UuidPageTokens(lambda: now[0], b"seed")
    token = tokens.issue(BLOCKS, 7)
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", token)
    assert tokens.read(BLOCKS, token) == 7
    assert UuidPageTokens(lambda: 0, b"seed").issue(BLOCKS, 7) == token  # seeded: the same run, the same tokens
    assert refused(tokens.read, BLOCKS, "not-a-uuid") == "pageToken must be a UUID"
    assert "not a page token" in refused(tokens.read, BLOCKS, "00000000-0000-4000-8000-000000000000")
    assert refused(tokens.read, binding_of("GET", "/x", {}), token).startswith("pageToken belongs to another")
    now[0] += 24 * 3600 * 1000
    assert "has expired" in refused(tokens.read, BLOCKS, token)


def test_rate_limiter_windows_per_tracker() -> None:
    now = [100.0]
    limiter = RateLimiter(2, clock=lambda: now[0])
    first = limiter.hit("key:a")
    assert first.allowed and first.headers == {"X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "1",
                                               "X-RateLimit-Reset": "1"}
    assert limiter.hit("key:a").headers["X-RateLimit-Remaining"] == "0"
    over = limiter.hit("key:a")
    assert not over.allowed and over.headers == {"Retry-After": "1"}
    assert limiter.hit("key:b").allowed  # another key, its own window
    now[0] += 0.999
    assert not limiter.hit("key:a").allowed
    now[0] += 0.001
    assert limiter.hit("key:a").allowed  # a new window
    slow = RateLimiter(1, window_s=10, clock=lambda: now[0])
    slow.hit("ip:1")
    now[0] += 2.5
    assert slow.hit("ip:1").headers == {"Retry-After": "8"}


def test_drop_none_removes_null_members_at_any_depth() -> None:
    assert drop_none({"a": None, "b": [{"c": None, "d": 1}], "e": {"f": None}, "g": 0, "h": ""}) == {
        "b": [{"d": 1}], "e": {}, "g": 0, "h": ""}
