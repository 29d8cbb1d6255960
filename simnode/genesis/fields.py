"""Reading the fields of AvalancheGo's genesis JSON, with the error a genesis AvalancheGo refuses gets."""

from typing import Any

from simnode.formats.address import parse_address
from simnode.formats.errors import FormatError

MAX_UINT64 = (1 << 64) - 1
MAX_UINT32 = (1 << 32) - 1


class GenesisError(ValueError):
    """A genesis file that cannot be read or that AvalancheGo would refuse."""


def require(obj: Any, key: str, where: str) -> Any:
    if not isinstance(obj, dict):
        raise GenesisError(f"{where}: expected a JSON object")
    if key not in obj:
        raise GenesisError(f"{where}: missing field {key!r}")
    return obj[key]


def uint(value: Any, where: str, maximum: int = MAX_UINT64) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= maximum:
        raise GenesisError(f"{where}: expected an unsigned integer ≤ {maximum}, got {value!r}")
    return value


def optional_uint(obj: dict[str, Any], key: str, where: str, maximum: int = MAX_UINT64) -> int:
    # Go leaves an absent (or null) field at zero.
    value = obj.get(key)
    return 0 if value is None else uint(value, f"{where}.{key}", maximum)


def json_list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise GenesisError(f"{where}: expected a JSON array")
    return value


def avax_address(value: Any, where: str) -> bytes:
    # AvalancheGo keeps only the payload: any chain alias and HRP are accepted here.
    try:
        return parse_address(value)[2]
    except FormatError as e:
        raise GenesisError(f"{where}: invalid address {value!r}: {e}") from None


def hex_bytes(value: Any, where: str, length: int | None = None) -> bytes:
    if not isinstance(value, str) or not value.startswith("0x"):
        raise GenesisError(f"{where}: expected a 0x-prefixed hex string")
    try:
        raw = bytes.fromhex(value[2:])
    except ValueError:
        raise GenesisError(f"{where}: invalid hex {value!r}") from None
    if length is not None and len(raw) != length:
        raise GenesisError(f"{where}: expected {length} bytes but got {len(raw)}")
    return raw

