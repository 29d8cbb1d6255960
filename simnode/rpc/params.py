"""Typed fields of a gorilla JSON-RPC params object, decoded as Go's encoding/json would.

A field of the wrong JSON type, or an unparsable ID/number/encoding, fails the whole request
with gorilla's unmarshal error, as AvalancheGo does before its handler runs.
"""

from __future__ import annotations

from typing import Any

from simnode.rpc.jsonrpc import UNMARSHAL_ERROR, RPCError
from simnode.formats import FormatError
from simnode.formats.hexenc import normalize_encoding
from simnode.formats.ids import ZERO_ID, id_from_str
from simnode.formats.jsonnum import parse_uint


def bad_arg() -> RPCError:
    return RPCError(UNMARSHAL_ERROR)


def _typed(params: dict[str, Any], key: str, kind: type, default: Any) -> Any:
    """A field of one JSON type; null or absent leaves the Go field at its zero value."""
    value = params.get(key)
    if value is None:
        return default
    if not isinstance(value, kind):
        raise bad_arg()
    return value


def str_arg(params: dict[str, Any], key: str) -> str:
    return _typed(params, key, str, "")


def bool_arg(params: dict[str, Any], key: str) -> bool:
    return _typed(params, key, bool, False)


def dict_arg(params: dict[str, Any], key: str) -> dict[str, Any]:
    return _typed(params, key, dict, {})


def id_arg(params: dict[str, Any], key: str) -> bytes:
    """An ids.ID field: cb58 string; null/absent = zero; anything else unparsable → unmarshal error."""
    value = params.get(key)
    if value is None:
        return ZERO_ID
    if not isinstance(value, str):
        raise bad_arg()
    try:
        return id_from_str(value)
    except (FormatError, ValueError):
        raise bad_arg() from None


def uint_arg(params: dict[str, Any], key: str, bits: int = 64) -> int:
    try:
        return parse_uint(params.get(key), bits)
    except (FormatError, ValueError):
        raise bad_arg() from None


def encoding_arg(params: dict[str, Any]) -> str:
    try:
        return normalize_encoding(params.get("encoding"))
    except FormatError:
        raise bad_arg() from None


def str_list_arg(params: dict[str, Any], key: str) -> list[str]:
    value: list[Any] = _typed(params, key, list, [])
    if not all(isinstance(v, str) for v in value):
        raise bad_arg()
    return value


def go_quote(text: str) -> str:
    """Go's %q for plain strings."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
