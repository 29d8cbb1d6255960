"""A contract checker for Data API and Metrics API answers, driven by the real OpenAPI documents.

`Contract().check(method, path, status, headers, body)` finds the operation of a concrete request
path in data-api.openapi.json / metrics-api.openapi.json (the copies simnode ships) and checks the
answer the way the strictest real client (chainkit's zod schemas) reads it:

* the status is one the operation declares;
* `Content-Type` is `application/json` (parameters such as `; charset=utf-8` allowed);
* the body validates, with jsonschema's Draft 2020-12 validator (the dialect of OpenAPI 3.1),
  against the declared schema of that status: types, `required`, enums, oneOf unions. Both
  documents type every field, so `null` fails wherever the schema does not list the `null` type
  (as chainkit rejects a null optional field). Two rules are added on top of the document: an
  object schema with `properties` is closed (an unknown key fails: chainkit strips extras
  silently, so one is a misspelt field); a schema whose `type` lists "null" admits null even
  where its `enum` leaves null out (tokenReputation: the document says null means unknown, and
  chainkit's schema is `z.nullable(enum)`);
* an error answer's `statusCode` is its HTTP status.

Two readings follow the generated clients rather than the letter of JSON Schema: a `oneOf` union
passes when any of its shapes matches (zod tries a union's members in order and takes the first
that parses; the primary network's list responses are a oneOf of shapes that an empty list
satisfies alike), and a schema marked `nullable: true` (the OpenAPI 3.0 keyword the document
still carries, e.g. ActiveValidatorDetails.geolocation, required but nullable) also admits null.

It raises ContractError (an AssertionError) naming the operation, the JSON path and the reason.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

DOCUMENTS = {"data": "data-api.openapi.json", "metrics": "metrics-api.openapi.json"}
_COMPOSITE = ("allOf", "oneOf", "anyOf")


class ContractError(AssertionError):
    pass


def raw_document(api: str) -> dict[str, Any]:
    data = resources.files("simnode.api.data").joinpath("openapi", DOCUMENTS[api]).read_bytes()
    return json.loads(data)


def _strict(schema: Any, base: str) -> Any:
    """The schema with its refs made absolute and its objects closed."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if out.pop("nullable", False):
        return {"anyOf": [_strict(out, base), {"type": "null"}]}
    if "$ref" in out:
        out["$ref"] = base + out["$ref"]
    if "oneOf" in out:
        out["anyOf"] = out.pop("oneOf")
    if "enum" in out and isinstance(out.get("type"), list) and "null" in out["type"] and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    for key in _COMPOSITE:
        if key in out:
            out[key] = [_strict(s, base) for s in out[key]]
    if "properties" in out:
        out["properties"] = {k: _strict(v, base) for k, v in out["properties"].items()}
        if "additionalProperties" not in out and "unevaluatedProperties" not in out:
            out["unevaluatedProperties"] = False
    for key in ("items", "additionalProperties"):
        if isinstance(out.get(key), dict):
            out[key] = _strict(out[key], base)
    return out


class _Api:
    def __init__(self, api: str) -> None:
        self.api = api
        self.base = f"urn:simnode:{api}-api"
        doc = raw_document(api)
        strict = dict(doc)
        strict["components"] = dict(doc["components"])
        strict["components"]["schemas"] = {k: _strict(v, self.base) for k, v in doc["components"]["schemas"].items()}
        self.registry = Registry().with_resource(self.base, Resource.from_contents(strict, DRAFT202012))
        self.operations: list[tuple[str, re.Pattern[str], str, dict[str, Any]]] = []
        for template, item in doc["paths"].items():
            pattern = re.compile("".join(
                "[^/]+" if part.startswith("{") else re.escape(part)
                for part in re.split(r"(\{[^}]+\})", template)) + r"\Z")
            for method, op in item.items():
                self.operations.append((method.upper(), pattern, template, op))
        # literal segments before parameters, as the server's router decides
        self.operations.sort(key=lambda o: tuple(s.startswith("{") for s in o[2].split("/")))


class Contract:
    def __init__(self) -> None:
        self.apis = [_Api(api) for api in DOCUMENTS]

    def find(self, method: str, path: str, as_template: str | None = None) -> tuple[_Api, str, dict[str, Any]]:
        """The operation of a request path (or, `as_template`, the operation of that template: a
        deprecated route the documents dropped is checked as the route that replaced it)."""
        path = path.split("?", 1)[0].rstrip("/")
        for api in self.apis:
            for m, pattern, template, op in api.operations:
                if m == method.upper() and (template == as_template if as_template else pattern.match(path)):
                    return api, template, op
        raise ContractError(f"{method} {as_template or path} is no operation of the Data or Metrics API documents")

    def check(self, method: str, path: str, status: int, headers: Mapping[str, str], body: bytes | str,
              as_template: str | None = None) -> Any:
        """The parsed body, after checking status, content type and body against the operation."""
        api, template, op = self.find(method, path, as_template)
        where = f"{method} {template} -> {status}"
        response = op["responses"].get(str(status))
        if response is None:
            raise ContractError(f"{where}: status {status} is not declared (declared: {', '.join(op['responses'])})")
        content = response.get("content", {})
        if not content:
            return None
        media = _media_type(headers)
        if media not in content:
            raise ContractError(f"{where}: Content-Type {media!r}, expected one of {', '.join(content)}")
        try:
            value = json.loads(body)
        except ValueError as exc:
            raise ContractError(f"{where}: the body is not JSON ({exc})") from None
        self.validate(api, content[media]["schema"], value, where)
        if status >= 400 and value["statusCode"] != status:
            raise ContractError(f"{where}: statusCode {value['statusCode']} in the body")
        return value

    def check_error(self, status: int, headers: Mapping[str, str], body: bytes | str) -> dict[str, Any]:
        """An error answer of a path no operation has (an unknown route): the NestJS error body."""
        where = f"error {status}"
        media = _media_type(headers)
        if media != "application/json":
            raise ContractError(f"{where}: Content-Type {media!r}, expected application/json")
        value = json.loads(body)
        self.validate(self.apis[0], {"$ref": "#/components/schemas/NotFound"}, value, where)
        if value["statusCode"] != status:
            raise ContractError(f"{where}: statusCode {value['statusCode']} in the body")
        return value

    @staticmethod
    def validate(api: _Api, schema: dict[str, Any], value: Any, where: str) -> None:
        validator = Draft202012Validator(_strict(schema, api.base), registry=api.registry)
        error = best_match(validator.iter_errors(value))
        if error is not None:
            path = "$" + "".join(f"[{p!r}]" for p in error.absolute_path)
            raise ContractError(f"{where}: {path}: {error.message}")


def _media_type(headers: Mapping[str, str]) -> str:
    ctype = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    return ctype.split(";", 1)[0].strip().lower()


@functools.cache
def contract() -> Contract:
    """One Contract per test session (building the registries takes a moment)."""
    return Contract()
