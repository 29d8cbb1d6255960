"""cb58: base58 (bitcoin alphabet) of ``payload ‖ sha256(payload)[-4:]``, as AvalancheGo's utils/cb58."""

import hashlib

from simnode.formats.errors import FormatError

BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BASE58_INDEX = {c: i for i, c in enumerate(BASE58_ALPHABET)}
CHECKSUM_LEN = 4


def checksum(payload: bytes) -> bytes:
    """The last 4 bytes of sha256(payload) (AvalancheGo's hashing.Checksum)."""
    return hashlib.sha256(payload).digest()[-CHECKSUM_LEN:]


def base58_encode(data: bytes) -> str:
    n = int.from_bytes(data, "big")
    digits = []
    while n:
        n, r = divmod(n, 58)
        digits.append(BASE58_ALPHABET[r])
    # Each leading zero byte is written as a '1'.
    leading_zeros = len(data) - len(data.lstrip(b"\0"))
    return "1" * leading_zeros + "".join(reversed(digits))


def base58_decode(text: str) -> bytes:
    n = 0
    for position, char in enumerate(text):
        digit = _BASE58_INDEX.get(char)
        if digit is None:
            raise FormatError(f"base58 decoding error: invalid base58 character {char!r} at position {position}")
        n = n * 58 + digit
    leading_ones = len(text) - len(text.lstrip("1"))
    body = n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""
    return b"\0" * leading_ones + body


def cb58_encode(payload: bytes) -> str:
    return base58_encode(payload + checksum(payload))


def cb58_decode(text: str) -> bytes:
    if not isinstance(text, str):
        raise FormatError(f"cb58 value must be a string, got {type(text).__name__}")
    decoded = base58_decode(text)
    if len(decoded) < CHECKSUM_LEN:
        raise FormatError("input string is smaller than the checksum size")
    payload, check = decoded[:-CHECKSUM_LEN], decoded[-CHECKSUM_LEN:]
    if check != checksum(payload):
        raise FormatError("invalid input checksum")
    return payload
