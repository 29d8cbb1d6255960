"""Parameters validated from the OpenAPI document, answered in class-validator's words.

The hosted APIs are NestJS services: a ValidationPipe with implicit conversion turns query strings
into the DTO's types and class-validator checks them. What that means here, per parameter kind:

* integer / number: a JavaScript number literal ("10", "1.5", "1e3"); anything else is NaN and
  fails every constraint. A failure lists the constraints in the order the decorators register
  (`@IsInt() @Min(1) @Max(100)` registers bottom-up): "must not be greater than 100", "must not
  be less than 1", "must be an integer number" ("must be a number conforming to the specified
  constraints" for numbers). An integer the document leaves unbounded on a side is bounded there
  by JavaScript's safe integers (±9007199254740991, in @Max/@Min's words): past them the
  hosted service's number is no longer the integer that was sent, and no timestamp, height or
  count of a chain gets there.
* boolean: the literal strings `true` / `false`; else "must be a boolean value".
* enum: the exact value; else "must be one of the following values: a, b" (the array param
  `txTypes`, sent as repeated keys, says "each value in txTypes must be …").
* string: taken as sent; comma-separated lists stay one string. A string key sent twice (an
  untyped client exploding an array) is joined back with commas.
* unknown query keys are ignored; defaults of the document apply when a key is absent.

POST bodies are JSON and keep their JSON types (no conversion): a required string field that is
absent or not a string is "addresses must be a string".
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ApiError, bad_request

STRING, INTEGER, NUMBER, BOOLEAN = "string", "integer", "number", "boolean"
ENUM, ENUM_LIST, ANY = "enum", "enum[]", "any"

_JS_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*\Z")
MAX_SAFE_INTEGER = 2**53 - 1  # JavaScript's Number.MAX_SAFE_INTEGER
MAX_U64 = 2**64 - 1  # no chain's height, timestamp or nonce gets past it


@dataclass(frozen=True, slots=True)
class ParamSpec:
    name: str
    location: str  # "path" | "query" | "body"
    required: bool
    kind: str
    enum: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    default: Any = None


@dataclass(frozen=True, slots=True)
class BodySpec:
    fields: tuple[ParamSpec, ...]  # empty for bodies the document gives as a oneOf of shapes


def resolve_schema(schema: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = doc["components"]["schemas"][name]
    return schema


def _spec(name: str, location: str, required: bool, schema: dict[str, Any], doc: dict[str, Any]) -> ParamSpec:
    schema = resolve_schema(schema, doc)
    kind = schema.get("type", ANY)
    enum: tuple[str, ...] = ()
    if kind == "array":
        items = resolve_schema(schema.get("items", {}), doc)
        kind, enum = (ENUM_LIST, tuple(items["enum"])) if "enum" in items else (STRING, ())
    elif "enum" in schema:
        kind, enum = ENUM, tuple(schema["enum"])
    elif kind not in (STRING, INTEGER, NUMBER, BOOLEAN):
        kind = ANY
    return ParamSpec(name, location, required, kind, enum, schema.get("minimum"), schema.get("maximum"),
                     schema.get("default"))


def compile_param(param: dict[str, Any], doc: dict[str, Any]) -> ParamSpec:
    return _spec(param["name"], param["in"], bool(param.get("required")), param.get("schema", {}), doc)


def compile_body(request_body: dict[str, Any], doc: dict[str, Any]) -> BodySpec:
    schema = resolve_schema(request_body["content"]["application/json"]["schema"], doc)
    required = set(schema.get("required", ()))
    return BodySpec(tuple(_spec(name, "body", name in required, sub, doc)
                          for name, sub in schema.get("properties", {}).items()))


# ------------------------------------------------------------------------------- class-validator's words

def _fmt(n: float) -> str:
    return str(int(n)) if float(n).is_integer() else repr(n)


def enum_message(name: str, values: tuple[str, ...] | list[str], each: bool = False) -> str:
    return f"{'each value in ' if each else ''}{name} must be one of the following values: {', '.join(values)}"


def _number_errors(spec: ParamSpec, value: float | None) -> list[str]:
    """value None = NaN (not a number at all): every constraint of the document fails."""
    out = []
    maximum, minimum = spec.maximum, spec.minimum
    if spec.kind == INTEGER and value is not None:
        maximum = MAX_SAFE_INTEGER if maximum is None else maximum
        minimum = -MAX_SAFE_INTEGER if minimum is None else minimum
    if maximum is not None and (value is None or value > maximum):
        out.append(f"{spec.name} must not be greater than {_fmt(maximum)}")
    if minimum is not None and (value is None or value < minimum):
        out.append(f"{spec.name} must not be less than {_fmt(minimum)}")
    if spec.kind == INTEGER and (value is None or not (isinstance(value, int) or value.is_integer())):
        out.append(f"{spec.name} must be an integer number")
    elif spec.kind == NUMBER and (value is None or not math.isfinite(value)):  # IsNumber refuses Infinity
        out.append(f"{spec.name} must be a number conforming to the specified constraints")
    return out


def _js_number(text: str) -> int | float | None:
    """The number a JavaScript `Number(text)` gives (None for NaN; ±inf past a double's range, as
    JavaScript's Infinity); integers exactly below that, whatever their size."""
    if _JS_NUMBER.match(text) is None:
        return None
    stripped = text.strip()
    value = float(stripped)
    if math.isinf(value):
        return value
    if stripped.lstrip("+-").isdigit():
        return int(stripped)
    return int(value) if value.is_integer() else value


def decimal(text: str, maximum: int) -> int | None:
    """`text` as an integer from 0 to `maximum` written in decimal digits; None for anything else,
    a number past `maximum` included (however many digits: Python refuses to parse thousands)."""
    digits = text.lstrip("0") or "0"
    if not (text.isascii() and text.isdigit()) or len(digits) > len(str(maximum)):
        return None
    value = int(digits)
    return value if value <= maximum else None


# ------------------------------------------------------------------------------- validation

Special = Callable[[str, ParamSpec], Any]


def _from_text(spec: ParamSpec, values: list[str], errors: list[str]) -> Any:
    kind = spec.kind
    if kind == ENUM_LIST:
        bad = [v for v in values if v not in spec.enum]
        if bad:
            errors.append(enum_message(spec.name, spec.enum, each=True))
        return values
    if kind in (STRING, ANY):
        return ",".join(values)
    if len(values) > 1:
        text = None  # a scalar sent twice reaches the DTO as an array: no number, boolean or enum
    else:
        text = values[0]
    if kind in (INTEGER, NUMBER):
        number = None if text is None else _js_number(text)
        problems = _number_errors(spec, number)
        errors.extend(problems)
        return None if problems else number
    if kind == BOOLEAN:
        if text not in ("true", "false"):
            errors.append(f"{spec.name} must be a boolean value")
            return None
        return text == "true"
    if text not in spec.enum:
        errors.append(enum_message(spec.name, spec.enum))
    return text


def validate_params(specs: tuple[ParamSpec, ...], path: Mapping[str, str], query: Any,
                    special: Mapping[str, Special]) -> dict[str, Any]:
    """Path params first, then the query (NestJS runs the @Param pipe before the @Query one);
    raises a 400 with every failing sentence of the first group that fails. `query` is a
    multidict (getall); `special` maps a path parameter's name to a resolver that replaces the
    document's check (e.g. {blockchainId} also takes the local network's chain IDs)."""
    out: dict[str, Any] = {}
    for location in ("path", "query"):
        errors: list[str] = []
        for spec in specs:
            if spec.location != location:
                continue
            if location == "path":
                values = [path[spec.name]]
            else:
                values = query.getall(spec.name, [])
                if not values:
                    if spec.required:
                        errors.append(f"{spec.name} must be a string" if spec.kind in (STRING, ANY)
                                      else _missing(spec))
                    elif spec.default is not None:
                        out[spec.name] = spec.default
                    continue
            if location == "path" and spec.name in special:
                try:
                    out[spec.name] = special[spec.name](values[-1], spec)
                except ApiError as exc:
                    if exc.status != 400:
                        raise
                    errors.extend([exc.message] if isinstance(exc.message, str) else exc.message)
                continue
            out[spec.name] = _from_text(spec, values, errors)
        if errors:
            raise bad_request(*errors)
    return out


def _missing(spec: ParamSpec) -> str:
    if spec.kind in (INTEGER, NUMBER):
        return _number_errors(spec, None)[-1]
    if spec.kind == BOOLEAN:
        return f"{spec.name} must be a boolean value"
    return enum_message(spec.name, spec.enum, each=spec.kind == ENUM_LIST)


def validate_body(spec: BodySpec, body: Any) -> dict[str, Any]:
    """A JSON body against the document's object schema; a body that is not an object counts as
    an empty one (express's JSON parser hands the pipe `{}`). A body the document gives as a oneOf
    of shapes (no fields here) is handed over whole: its handler checks it."""
    obj = body if isinstance(body, dict) else {}
    if not spec.fields:
        return obj
    errors: list[str] = []
    out: dict[str, Any] = {}
    for field in spec.fields:
        value = obj.get(field.name)
        if value is None:
            if field.required:
                errors.append(_missing(field) if field.kind != STRING else f"{field.name} must be a string")
            continue
        out[field.name] = _from_json(field, value, errors)
    if errors:
        raise bad_request(*errors)
    return out


def _from_json(spec: ParamSpec, value: Any, errors: list[str]) -> Any:
    kind = spec.kind
    if kind == STRING:
        if not isinstance(value, str):
            errors.append(f"{spec.name} must be a string")
        return value
    if kind in (INTEGER, NUMBER):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        errors.extend(_number_errors(spec, value if ok else None))
        return value
    if kind == BOOLEAN:
        if not isinstance(value, bool):
            errors.append(f"{spec.name} must be a boolean value")
        return value
    if kind == ENUM and value not in spec.enum:
        errors.append(enum_message(spec.name, spec.enum))
    return value
