"""The protobuf justification the P-Chain wants before it signs L1ValidatorRegistration(false)
(proto/platformvm/platformvm.proto):

    message L1ValidatorRegistrationJustification {
      oneof preimage {
        SubnetIDIndex convert_subnet_to_l1_tx_data = 1;  // an initial validator of a conversion
        bytes register_l1_validator_message = 2;        // a RegisterL1ValidatorMessage
      }
    }
    message SubnetIDIndex { bytes subnet_id = 1; uint32 index = 2; }

Two small messages, so the wire format is written by hand: proto3 rules (zero scalars left out
when encoding, unknown fields skipped and the last oneof member winning when decoding).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import WarpError

ERR_INVALID_WIRE = "proto: cannot parse invalid wire-format data"
_VARINT, _FIXED64, _LEN, _FIXED32 = 0, 1, 2, 5


@dataclass(frozen=True, slots=True)
class SubnetIDIndex:
    subnet_id: bytes
    index: int


Preimage = SubnetIDIndex | bytes | None


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _len_field(number: int, data: bytes) -> bytes:
    return _field(number, _LEN) + _varint(len(data)) + data


def encode_justification(preimage: SubnetIDIndex | bytes) -> bytes:
    if isinstance(preimage, SubnetIDIndex):
        inner = b""
        if preimage.subnet_id:
            inner += _len_field(1, preimage.subnet_id)
        if preimage.index:
            inner += _field(2, _VARINT) + _varint(preimage.index)
        return _len_field(1, inner)
    return _len_field(2, preimage)


def _fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """(field number, value) in wire order; varints as ints, length-delimited as bytes."""
    out: list[tuple[int, int | bytes]] = []
    pos = 0

    def varint() -> int:
        nonlocal pos
        value = shift = 0
        while True:
            if pos >= len(data) or shift > 63:
                raise WarpError(ERR_INVALID_WIRE)
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    while pos < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if number == 0:
            raise WarpError(ERR_INVALID_WIRE)
        if wire == _VARINT:
            out.append((number, varint()))
        elif wire == _LEN:
            n = varint()
            if pos + n > len(data):
                raise WarpError(ERR_INVALID_WIRE)
            out.append((number, data[pos:pos + n]))
            pos += n
        elif wire in (_FIXED64, _FIXED32):
            size = 8 if wire == _FIXED64 else 4
            if pos + size > len(data):
                raise WarpError(ERR_INVALID_WIRE)
            pos += size
        else:
            raise WarpError(ERR_INVALID_WIRE)
    return out


def decode_justification(data: bytes) -> Preimage:
    """The preimage the justification carries, or None when it sets neither member."""
    preimage: Preimage = None
    for number, value in _fields(data):
        if number in (1, 2) and not isinstance(value, bytes):
            raise WarpError(ERR_INVALID_WIRE)  # a known field with the wrong wire type
        if number == 1:
            subnet_id, index = b"", 0
            for inner_number, inner in _fields(value):  # type: ignore[arg-type]
                if inner_number == 1:
                    if not isinstance(inner, bytes):
                        raise WarpError(ERR_INVALID_WIRE)
                    subnet_id = inner
                elif inner_number == 2:
                    if not isinstance(inner, int):
                        raise WarpError(ERR_INVALID_WIRE)
                    index = inner & 0xFFFFFFFF
            preimage = SubnetIDIndex(subnet_id, index)
        elif number == 2:
            preimage = value  # type: ignore[assignment]
    return preimage
