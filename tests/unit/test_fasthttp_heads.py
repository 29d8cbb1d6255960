"""The fast HTTP path's head parsing (api/fasthttp.py), cached per head byte string: the target,
the length and the caller (for the request log) a head gives."""

from __future__ import annotations

from simnode.api import fasthttp

PLAIN = b"POST /ext/bc/C/rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 42"


def test_plain_heads_give_target_and_length() -> None:
    assert fasthttp._parse_head(PLAIN) == (42, fasthttp._Caller("/ext/bc/C/rpc", None, "", "x"))
    assert fasthttp._parse_head(PLAIN + b"\r\nConnection: keep-alive\r\nUser-Agent: t") == (
        42, fasthttp._Caller("/ext/bc/C/rpc", None, "t", "x"))


def test_heads_the_fast_path_leaves_to_aiohttp() -> None:
    for head in (PLAIN.replace(b"POST", b"GET"), PLAIN + b"\r\nOrigin: http://a", PLAIN + b"\r\nConnection: close",
                 PLAIN + b"\r\nContent-Length: 42", PLAIN.replace(b"application/json", b"text/plain"),
                 PLAIN.replace(b"/ext/bc/C/rpc", b"/ext//bc"), PLAIN + b"\r\n Folded: x",
                 b"POST /ext/bc/C/rpc HTTP/1.1\r\nContent-Type: application/json"):
        assert fasthttp._parse_head(head) is None, head
