"""Human amounts and durations for scenario files: "1.5 AVAX", "3 gwei", "1h30m". Exact (no floats)."""

import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from simnode.formats.errors import FormatError

AVAX_FAMILY = "avax"  # smallest unit nAVAX
WEI_FAMILY = "wei"  # smallest unit wei
NO_UNIT = ""  # a bare integer: already in the smallest unit of whatever the context uses

# unit (lower case) -> (family, decimals above the family's smallest unit)
_UNITS: dict[str, tuple[str, int]] = {
    "avax": (AVAX_FAMILY, 9),
    "mavax": (AVAX_FAMILY, 6),
    "uavax": (AVAX_FAMILY, 3),
    "µavax": (AVAX_FAMILY, 3),
    "navax": (AVAX_FAMILY, 0),
    "ether": (WEI_FAMILY, 18),
    "eth": (WEI_FAMILY, 18),
    "gwei": (WEI_FAMILY, 9),
    "mwei": (WEI_FAMILY, 6),
    "kwei": (WEI_FAMILY, 3),
    "wei": (WEI_FAMILY, 0),
}

_AMOUNT = re.compile(r"\s*([0-9][0-9_]*(?:\.[0-9][0-9_]*)?(?:[eE][+-]?[0-9]+)?)\s*([^\s0-9]*)\s*")
_DURATION_PART = re.compile(r"([0-9]+)\s*([wdhms])")
_DURATION = re.compile(r"\s*(?:[0-9]+\s*[wdhms]\s*)+")
_SECONDS_PER = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60, "s": 1}


def parse_amount(text: str) -> tuple[int, str]:
    """``"1.5 AVAX"`` → (1500000000, "avax"); ``"2 ether"`` → (2·10^18, "wei"); ``"42"`` → (42, "").

    The value is in the smallest unit of the family; a fraction finer than that unit is an error.
    """
    if not isinstance(text, str):
        raise FormatError(f"amount must be a string, got {type(text).__name__}")
    match = _AMOUNT.fullmatch(text)
    if match is None:
        raise FormatError(f"invalid amount {text!r}: expected a non-negative number and an optional unit")
    number_text, unit = match.group(1).replace("_", ""), match.group(2)
    if unit:
        if unit.lower() not in _UNITS:
            raise FormatError(f"invalid amount {text!r}: unknown unit {unit!r} (known: {', '.join(_UNITS)})")
        family, decimals = _UNITS[unit.lower()]
    else:
        family, decimals = NO_UNIT, 0
    try:
        value = Fraction(Decimal(number_text)) * 10**decimals  # Decimal(str) and Fraction are exact
    except InvalidOperation:
        raise FormatError(f"invalid amount {text!r}") from None
    if value.denominator != 1:
        smallest = "the smallest unit" if family == NO_UNIT else ("nAVAX" if family == AVAX_FAMILY else "wei")
        raise FormatError(f"invalid amount {text!r}: not a whole number of {smallest}")
    return int(value), family


def parse_duration(text: str) -> int:
    """``"14d"``, ``"90m"``, ``"1h30m"``, ``"45s"``, ``"2w"`` or a bare number of seconds → seconds."""
    if not isinstance(text, str):
        raise FormatError(f"duration must be a string, got {type(text).__name__}")
    stripped = text.strip()
    if stripped.isascii() and stripped.isdigit():
        return int(stripped)
    if not _DURATION.fullmatch(text):
        raise FormatError(f"invalid duration {text!r}: expected parts like 2w, 14d, 1h30m, 45s")
    return sum(int(number) * _SECONDS_PER[unit] for number, unit in _DURATION_PART.findall(text))
