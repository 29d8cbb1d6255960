"""Big-endian packing of the Avalanche linear codec (AvalancheGo's utils/wrappers.Packer)."""

from simnode.codec.errors import CodecError

CODEC_VERSION = 0
MAX_STRING_LEN = 0xFFFF
INSUFFICIENT_LENGTH = "packer has insufficient length for input"
MAX_SLICE_LEN = 2**31 - 1  # math.MaxInt32


def _check_uint(value: int, bits: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << bits:
        raise CodecError(f"value {value!r} does not fit in u{bits}")
    return value


class Writer:
    """Appends codec values to a growing buffer."""

    __slots__ = ("_buffer",)

    def __init__(self) -> None:
        self._buffer = bytearray()

    def u8(self, value: int) -> None:
        self._buffer.append(_check_uint(value, 8))

    def u16(self, value: int) -> None:
        self._buffer += _check_uint(value, 16).to_bytes(2, "big")

    def u32(self, value: int) -> None:
        self._buffer += _check_uint(value, 32).to_bytes(4, "big")

    def u64(self, value: int) -> None:
        self._buffer += _check_uint(value, 64).to_bytes(8, "big")

    def bool(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise CodecError(f"value {value!r} is not a bool")
        self._buffer.append(1 if value else 0)

    def fixed_bytes(self, data: bytes, length: int) -> None:
        """A [N]byte array: exactly `length` raw bytes."""
        if not isinstance(data, (bytes, bytearray)):
            raise CodecError(f"expected {length} bytes but got a {type(data).__name__}")
        if len(data) != length:
            raise CodecError(f"expected {length} bytes but got {len(data)}")
        self._buffer += data

    def raw(self, data: bytes) -> None:
        """Bytes that are already encoded (a nested tx, a body written elsewhere)."""
        self._buffer += data

    def bytes_u32(self, data: bytes) -> None:
        """A []byte: u32 length then the bytes."""
        self.u32(len(data))
        self._buffer += data

    def str_u16(self, text: str) -> None:
        """A Go string: u16 length then the bytes (surrogateescape keeps non-UTF-8 bytes round-tripping)."""
        raw = text.encode("utf-8", "surrogateescape")
        if len(raw) > MAX_STRING_LEN:
            raise CodecError("size is larger than limit")
        self.u16(len(raw))
        self._buffer += raw

    def codec_version(self) -> None:
        self.u16(CODEC_VERSION)

    def getvalue(self) -> bytes:
        return bytes(self._buffer)


class Reader:
    """Reads codec values from bytes; every read past the end raises CodecError."""

    __slots__ = ("_data", "offset")

    def __init__(self, data: bytes, offset: int = 0) -> None:
        self._data = bytes(data)
        self.offset = offset

    @property
    def remaining(self) -> int:
        return len(self._data) - self.offset

    def _take(self, n: int) -> bytes:
        if n > self.remaining:
            raise CodecError(INSUFFICIENT_LENGTH)
        start = self.offset
        self.offset += n
        return self._data[start:self.offset]

    def _read(self, n: int, kind: str) -> bytes:
        """A value of the reflect codec: a short read names the field kind, as Go's codec wraps it."""
        if n > self.remaining:
            raise CodecError(f"couldn't unmarshal {kind}: {INSUFFICIENT_LENGTH}")
        return self._take(n)

    def u8(self) -> int:
        return self._read(1, "uint8")[0]

    def u16(self) -> int:
        return int.from_bytes(self._read(2, "uint16"), "big")

    def u32(self) -> int:
        return int.from_bytes(self._read(4, "uint32"), "big")

    def u64(self) -> int:
        return int.from_bytes(self._read(8, "uint64"), "big")

    def type_id(self) -> int:
        """The u32 type ID that prefixes an interface value."""
        return int.from_bytes(self._read(4, "interface"), "big")

    def bool(self) -> bool:
        value = self._read(1, "bool")[0]
        if value > 1:
            raise CodecError("unexpected value when unpacking bool")
        return value == 1

    def fixed_bytes(self, length: int) -> bytes:
        return self._take(length)

    def bytes_u32(self, max_len: int | None = None) -> bytes:
        """A []byte; the length is checked against max_len and the remaining bytes before reading."""
        length = self.count_u32()
        if max_len is not None and length > max_len:
            raise CodecError(f"byte array exceeds maximum length: {length} > {max_len}")
        return self._take(length)

    def str_u16(self) -> str:
        length = int.from_bytes(self._read(2, "string"), "big")
        return self._read(length, "string").decode("utf-8", "surrogateescape")

    def count_u32(self) -> int:
        """A slice length. As Go's reflect codec, no check against the remaining bytes: the elements are
        read one by one (lazily, so a huge count allocates nothing) and the first short one fails."""
        count = int.from_bytes(self._read(4, "slice"), "big")
        if count > MAX_SLICE_LEN:
            raise CodecError(f"max slice length exceeded; array length, {count}, exceeds maximum length, "
                             f"{MAX_SLICE_LEN}")
        return count

    def codec_version(self) -> int:
        if self.remaining < 2:
            raise CodecError("couldn't unpack codec version")
        version = self.u16()
        if version != CODEC_VERSION:
            raise CodecError("unknown codec version")
        return version

    def slice(self, start: int, end: int) -> bytes:
        """Raw bytes already read, e.g. the unsigned part of a signed tx."""
        return self._data[start:end]

    def done(self) -> None:
        if self.remaining:
            raise CodecError(f"trailing buffer space: read {self.offset} provided {len(self._data)}")
