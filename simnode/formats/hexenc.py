"""AvalancheGo's utils/formatting encodings: ``hex``/``hexc`` (with checksum), ``hexnc``, ``json``."""

from simnode.formats.cb58 import CHECKSUM_LEN, checksum
from simnode.formats.errors import FormatError

HEX = "hex"
HEXC = "hexc"
HEXNC = "hexnc"
JSON = "json"
_ENCODINGS = (HEX, HEXC, HEXNC, JSON)
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def normalize_encoding(value: object) -> str:
    """An ``encoding`` argument: case-insensitive; absent/None/"" means hex."""
    if value is None or value == "":
        return HEX
    if isinstance(value, str) and value.lower() in _ENCODINGS:
        return value.lower()
    raise FormatError("invalid encoding")


def encode_bytes(data: bytes, encoding: str) -> str:
    if encoding in (HEX, HEXC):
        return "0x" + (data + checksum(data)).hex()
    if encoding == HEXNC:
        return "0x" + data.hex()
    if encoding == JSON:
        raise FormatError("unsupported encoding in method")
    raise FormatError("invalid encoding")


def _decode_hex_digits(digits: str) -> bytes:
    # Go's encoding/hex errors, which AvalancheGo returns unchanged.
    for char in digits:
        if char not in _HEX_DIGITS:
            raise FormatError(f"encoding/hex: invalid byte: U+{ord(char):04X} {char!r}")
    if len(digits) % 2:
        raise FormatError("encoding/hex: odd length hex string")
    return bytes.fromhex(digits)


def decode_bytes(text: str, encoding: str) -> bytes:
    """Inverse of encode_bytes; "" decodes to b"" as in AvalancheGo."""
    if encoding == JSON:
        raise FormatError("unsupported encoding in method")
    if encoding not in _ENCODINGS:
        raise FormatError("invalid encoding")
    if not isinstance(text, str):
        raise FormatError(f"expected a hex string, got {type(text).__name__}")
    if text == "":
        return b""
    if not text.startswith("0x"):
        raise FormatError("missing 0x prefix to hex encoding")
    decoded = _decode_hex_digits(text[2:])
    if encoding == HEXNC:
        return decoded
    if len(decoded) < CHECKSUM_LEN:
        raise FormatError("input string is smaller than the checksum size")
    payload, check = decoded[:-CHECKSUM_LEN], decoded[-CHECKSUM_LEN:]
    if check != checksum(payload):
        raise FormatError("invalid input checksum")
    return payload
