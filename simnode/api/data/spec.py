"""The two OpenAPI documents (shipped as package data) and the route table built from them.

The documents are read on the first Data/Metrics API request, never at node start. Every
operation of both documents becomes an `Operation` with its path template, its parameters
compiled for validation (params.py) and its success status; `RouteTable.match` finds the
operation of a request path the way NestJS's router does (literal segments win over
parameters, a trailing slash is ignored, literals compare case-insensitively).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any
from urllib.parse import unquote

import orjson

from .params import BodySpec, ParamSpec, compile_body, compile_param

DATA = "data"
METRICS = "metrics"
_FILES = {DATA: "data-api.openapi.json", METRICS: "metrics-api.openapi.json"}
_METHODS = ("get", "post", "put", "patch", "delete")


@functools.cache
def document(api: str) -> dict[str, Any]:
    """The OpenAPI document of `api` (DATA or METRICS), parsed once per process."""
    return orjson.loads(resources.files(__package__).joinpath("openapi", _FILES[api]).read_bytes())


@dataclass(frozen=True, slots=True)
class Operation:
    api: str                   # DATA or METRICS: which document (and error style) it belongs to
    method: str                # "GET", "POST", ...
    template: str              # "/v1/chains/{chainId}"
    operation_id: str
    params: tuple[ParamSpec, ...]
    body: BodySpec | None
    success_status: int
    segments: tuple[Any, ...] = field(repr=False)  # str (literal, lower-cased) or re.Pattern
    weight: str = ""           # x-execution-weight: what a call costs on the hosted API (usage.py)

    @property
    def key(self) -> tuple[str, str]:
        return self.method, self.template


def _segment(text: str) -> Any:
    if "{" not in text:
        return text.lower()
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+)", re.escape(text))
    return re.compile(pattern + r"\Z", re.IGNORECASE | re.DOTALL)


def make_operation(api: str, method: str, template: str, op: dict[str, Any], doc: dict[str, Any]) -> Operation:
    """An Operation from an OpenAPI operation object of `doc`."""
    params = tuple(compile_param(p, doc) for p in op.get("parameters", ()))
    body = compile_body(op["requestBody"], doc) if "requestBody" in op else None
    success = min(int(code) for code in op.get("responses", {"200": None}) if code.startswith("2"))
    segments = tuple(_segment(s) for s in template.strip("/").split("/"))
    return Operation(api, method.upper(), template, op.get("operationId", template), params, body, success, segments,
                     op.get("x-execution-weight", ""))


def document_operations(api: str) -> list[Operation]:
    doc = document(api)
    return [make_operation(api, method, template, op, doc)
            for template, item in doc["paths"].items()
            for method, op in item.items() if method in _METHODS]


def split_path(raw_path: str) -> list[str]:
    """The percent-decoded segments of a raw request path (an encoded "/" stays inside its segment)."""
    path = raw_path.rstrip("/") if raw_path != "/" else raw_path
    return [unquote(s) for s in path.strip("/").split("/")]


class RouteTable:
    """(method, path) → Operation and its path parameters."""

    def __init__(self, operations: list[Operation]) -> None:
        by_shape: dict[tuple[str, int], list[Operation]] = {}
        for op in operations:
            by_shape.setdefault((op.method, len(op.segments)), []).append(op)
        # the most literal template first, segment by segment (NestJS registers static routes first)
        self._by_shape = {k: sorted(v, key=lambda o: tuple(not isinstance(s, str) for s in o.segments))
                          for k, v in by_shape.items()}

    def match(self, method: str, segments: list[str]) -> tuple[Operation, dict[str, str]] | None:
        lowered = [s.lower() for s in segments]
        for op in self._by_shape.get((method, len(segments)), ()):
            params: dict[str, str] = {}
            for want, got, low in zip(op.segments, segments, lowered, strict=True):
                if isinstance(want, str):
                    if want != low:
                        break
                else:
                    m = want.match(got)
                    if m is None:
                        break
                    params.update(m.groupdict())
            else:
                return op, params
        return None
