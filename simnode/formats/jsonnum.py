"""AvalancheGo's JSON value conventions (utils/json): quoted uints, 4-decimal floats, RFC 3339 times."""

import math
from datetime import datetime, timezone

from simnode.formats.errors import FormatError


def _quoted(value: object) -> str:
    return value if isinstance(value, str) else repr(value)


def parse_uint(value: object, bits: int = 64) -> int:
    """A json.Uint64/32/16/8 field: a JSON number or a quoted decimal string (strconv.ParseUint rules).

    JSON null leaves the Go field at zero, so None gives 0.
    """
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise FormatError(f'strconv.ParseUint: parsing "{_quoted(value)}": invalid syntax')
    if isinstance(value, str):
        if not (value.isascii() and value.isdigit()):
            raise FormatError(f'strconv.ParseUint: parsing "{value}": invalid syntax')
        number = int(value)
    else:
        if value < 0:
            raise FormatError(f'strconv.ParseUint: parsing "{value}": invalid syntax')
        number = value
    if number >= 1 << bits:
        raise FormatError(f'strconv.ParseUint: parsing "{value}": value out of range')
    return number


def json_kind(value: object) -> str:
    """The JSON type of a decoded value as Go's encoding/json names it in an UnmarshalTypeError."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def hex_or_decimal(value: object, signed: bool = False) -> int:
    """go-ethereum's math.HexOrDecimal64/256 (genesis and chain config numbers): a JSON number, a
    "0x"-prefixed hex string or a decimal string; negative only when `signed` (a leading "-" on
    the decimal digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and (signed or value >= 0):
        return value
    if isinstance(value, str) and value.isascii():
        if value[:2] in ("0x", "0X"):
            digits = value[2:]
            if digits and all(c in "0123456789abcdefABCDEF" for c in digits):
                return int(digits, 16)
        else:
            digits = value[1:] if signed and value[:1] == "-" else value
            if digits.isdigit():
                return int(value)
    raise FormatError(f"invalid hex or decimal integer {_quoted(value)}")


def format_uint(n: int) -> str:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise FormatError(f"not an unsigned integer: {n!r}")
    return str(n)


def format_float4(x: float) -> str:
    """json.Float64: exactly four decimals, e.g. "100.0000"."""
    if not math.isfinite(x):
        raise FormatError(f"not a finite number: {x!r}")
    return f"{x:.4f}"


def format_rfc3339(unix_seconds: int) -> str:
    """Go's time.RFC3339 in UTC: "2020-12-05T05:00:00Z"."""
    return datetime.fromtimestamp(unix_seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def format_rfc3339_nano(unix_nanos: int) -> str:
    """Go's time.RFC3339Nano in UTC: fractional seconds with trailing zeros removed."""
    seconds, nanos = divmod(unix_nanos, 1_000_000_000)
    base = format_rfc3339(seconds)[:-1]
    fraction = f"{nanos:09d}".rstrip("0")
    return f"{base}.{fraction}Z" if fraction else f"{base}Z"
