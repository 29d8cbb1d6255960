"""Plain-HTTP JSON-RPC helpers for integration tests (no client library in the way)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any


def post(url: str, body: bytes | str, content_type: str = "application/json", method: str = "POST") -> tuple[int, bytes, dict[str, str]]:
    data = body.encode() if isinstance(body, str) else body
    req = urllib.request.Request(url, data=data if method == "POST" else None, method=method)
    if content_type:
        req.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read(), dict(resp.headers)
    except urllib.error.HTTPError as err:
        return err.code, err.read(), dict(err.headers)


class RPCFailure(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message"))
        self.error = error


def call(url: str, method: str, params: Any = None) -> Any:
    """A gorilla/geth call that returns `result` or raises RPCFailure with the error object."""
    req: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        req["params"] = params
    status, body, _ = post(url, json.dumps(req))
    assert status == 200, (status, body)
    reply = json.loads(body)
    if "error" in reply:
        raise RPCFailure(reply["error"])
    return reply["result"]
