"""Plain-HTTP Data/Metrics API calls for integration tests, each answer checked against the
real OpenAPI document (tests/openapi_contract.py)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from ..openapi_contract import contract


def request(base: str, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
            raw_body: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
    data = raw_body if raw_body is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        req.add_header(name, value)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def api(base: str, path: str, status: int = 200, method: str = "GET", body: Any = None,
        headers: dict[str, str] | None = None) -> Any:
    """The parsed answer of a route of the documents, after the contract check; asserts `status`."""
    got, hdrs, raw = request(base, method, path, body, headers)
    assert got == status, (path, got, raw[:500])
    return contract().check(method, path, got, hdrs, raw)


def unknown_route(base: str, path: str, method: str = "GET", status: int = 404) -> dict[str, Any]:
    """The NestJS error answer of a path no operation of the documents has."""
    got, hdrs, raw = request(base, method, path)
    assert got == status, (path, got, raw[:500])
    return contract().check_error(got, hdrs, raw)
