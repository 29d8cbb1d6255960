"""What the `platform.*` methods (service.py and its service_*.py families) share: reading their
params (IDs, uints, encodings) with AvalancheGo's errors, and writing uint64s as it does."""

from __future__ import annotations

from simnode.formats import FormatError, id_from_str
from simnode.rpc.params import bad_arg

from .state import PRIMARY

ZERO_ID_STR = "11111111111111111111111111111111LpoYY"


def num(n: int) -> str:
    """A uint64 of a reply: a decimal string (json.Uint64)."""
    return str(n)


def id_arg(params: dict, key: str, default: bytes = PRIMARY) -> bytes:
    v = params.get(key)
    if v is None:
        return default
    if not isinstance(v, str) or v == "":
        raise bad_arg()
    try:
        return id_from_str(v)
    except FormatError:
        raise bad_arg() from None

