"""What the `platform.*` methods (service.py and its service_*.py families) share: reading their
params (IDs, uints, encodings) with AvalancheGo's errors, and writing uint64s as it does."""

from __future__ import annotations

from simnode.formats import FormatError, id_from_str, normalize_encoding, parse_uint
from simnode.rpc.jsonrpc import RPCError

from .state import PRIMARY

UNMARSHAL_ERROR = ("couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. "
                   "See documentation for example calls")
ZERO_ID_STR = "11111111111111111111111111111111LpoYY"


def num(n: int) -> str:
    """A uint64 of a reply: a decimal string (json.Uint64)."""
    return str(n)


def id_arg(params: dict, key: str, default: bytes = PRIMARY) -> bytes:
    v = params.get(key)
    if v is None:
        return default
    if not isinstance(v, str) or v == "":
        raise RPCError(UNMARSHAL_ERROR)
    try:
        return id_from_str(v)
    except FormatError:
        raise RPCError(UNMARSHAL_ERROR) from None


def uint_arg(params: dict, key: str, bits: int = 64) -> int:
    try:
        return parse_uint(params.get(key), bits)
    except FormatError:
        raise RPCError(UNMARSHAL_ERROR) from None


def encoding_arg(params: dict) -> str:
    # an unknown encoding fails while the arguments are unmarshalled, as AvalancheGo's
    try:
        return normalize_encoding(params.get("encoding"))
    except FormatError:
        raise RPCError(UNMARSHAL_ERROR) from None


def str_arg(params: dict, key: str) -> str:
    v = params.get(key)
    if v is None:  # absent or null: Go leaves the string empty
        return ""
    if not isinstance(v, str):
        raise RPCError(UNMARSHAL_ERROR)
    return v
