"""Classic bech32 (BIP 173, not bech32m) with the checks and error texts of btcutil/bech32."""

from simnode.formats.errors import FormatError

CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_CHARSET_INDEX = {c: i for i, c in enumerate(CHARSET)}
_GENERATOR = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
MAX_LENGTH = 90
CHECKSUM_LEN = 6


def _polymod(values: list[int]) -> int:
    chk = 1
    for value in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ value
        for i in range(5):
            if (top >> i) & 1:
                chk ^= _GENERATOR[i]
    return chk


def _hrp_expand(hrp: str) -> list[int]:
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def _create_checksum(hrp: str, data: list[int]) -> list[int]:
    polymod = _polymod(_hrp_expand(hrp) + data + [0] * CHECKSUM_LEN) ^ 1
    return [(polymod >> 5 * (5 - i)) & 31 for i in range(CHECKSUM_LEN)]


def convert_bits(data: bytes | list[int], from_bits: int, to_bits: int, pad: bool) -> list[int]:
    """Regroup a sequence of from_bits-wide values into to_bits-wide values."""
    acc = 0
    bits = 0
    out: list[int] = []
    max_value = (1 << to_bits) - 1
    for value in data:
        if value < 0 or value >> from_bits:
            raise FormatError("invalid data range")
        acc = (acc << from_bits) | value
        bits += from_bits
        while bits >= to_bits:
            bits -= to_bits
            out.append((acc >> bits) & max_value)
    if pad:
        if bits:
            out.append((acc << (to_bits - bits)) & max_value)
    elif bits >= from_bits or (acc << (to_bits - bits)) & max_value:
        raise FormatError("invalid padding")
    return out


def bech32_encode(hrp: str, payload: bytes) -> str:
    """Encode 8-bit payload bytes under hrp (lower case)."""
    data = convert_bits(payload, 8, 5, pad=True)
    return hrp + "1" + "".join(CHARSET[d] for d in data + _create_checksum(hrp, data))


def bech32_decode(text: str) -> tuple[str, bytes]:
    """Decode to (hrp, 8-bit payload); raises FormatError with btcutil-like texts."""
    if not isinstance(text, str):
        raise FormatError(f"address must be a string, got {type(text).__name__}")
    if len(text) < 8 or len(text) > MAX_LENGTH:
        raise FormatError(f"invalid bech32 string length {len(text)}")
    for char in text:
        if ord(char) < 33 or ord(char) > 126:
            raise FormatError(f"invalid character in string: {char!r}")
    lower = text.lower()
    if text != lower and text != text.upper():
        raise FormatError("string not all lowercase or all uppercase")
    separator = lower.rfind("1")
    if separator < 1 or separator + CHECKSUM_LEN + 1 > len(lower):
        raise FormatError(f"invalid separator index {separator}")
    hrp = lower[:separator]
    data: list[int] = []
    for char in lower[separator + 1:]:
        value = _CHARSET_INDEX.get(char)
        if value is None:
            raise FormatError(f"invalid character not part of charset: {char!r}")
        data.append(value)
    if _polymod(_hrp_expand(hrp) + data) != 1:
        raise FormatError("invalid checksum")
    try:
        payload = bytes(convert_bits(data[:-CHECKSUM_LEN], 5, 8, pad=False))
    except FormatError:
        raise FormatError("unable to convert address from 5-bit to 8-bit formatting") from None
    return hrp, payload
