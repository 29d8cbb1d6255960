"""Warp payloads (vms/platformvm/warp/payload), their own codec (version 0, at most 24 KiB):

    Hash           u16 0 | u32 0 | [32] hash                           (a block hash)
    AddressedCall  u16 0 | u32 1 | u32 len | sourceAddress | u32 len | payload

An EVM chain's AddressedCall carries the 20-byte sender; P-Chain messages and an L1's own
messages have an empty source address.
"""

from __future__ import annotations

from dataclasses import dataclass

from simnode.codec import CodecError, Reader, Writer

MAX_PAYLOAD_SIZE = 24 * 1024
HASH_TYPE_ID = 0
ADDRESSED_CALL_TYPE_ID = 1


@dataclass(frozen=True, slots=True)
class Hash:
    hash: bytes

    def encode(self) -> bytes:
        w = Writer()
        w.codec_version()
        w.u32(HASH_TYPE_ID)
        w.fixed_bytes(self.hash, 32)
        return w.getvalue()


@dataclass(frozen=True, slots=True)
class AddressedCall:
    source_address: bytes
    payload: bytes

    def encode(self) -> bytes:
        w = Writer()
        w.codec_version()
        w.u32(ADDRESSED_CALL_TYPE_ID)
        w.bytes_u32(self.source_address)
        w.bytes_u32(self.payload)
        return w.getvalue()


Payload = Hash | AddressedCall
_GO_NAMES = {Hash: "*payload.Hash", AddressedCall: "*payload.AddressedCall"}


def parse_payload(data: bytes) -> Payload:
    if len(data) > MAX_PAYLOAD_SIZE:
        raise CodecError(f"byte array exceeds maximum length: {len(data)} > {MAX_PAYLOAD_SIZE}")
    r = Reader(data)
    r.codec_version()
    type_id = r.type_id()
    out: Payload
    if type_id == HASH_TYPE_ID:
        out = Hash(r.fixed_bytes(32))
    elif type_id == ADDRESSED_CALL_TYPE_ID:
        out = AddressedCall(r.bytes_u32(), r.bytes_u32())
    else:
        raise CodecError(f"couldn't unmarshal interface: unknown type ID {type_id}")
    r.done()
    return out


def parse_addressed_call(data: bytes) -> AddressedCall:
    p = parse_payload(data)
    if not isinstance(p, AddressedCall):
        raise CodecError(f"wrong payload type: {_GO_NAMES[type(p)]}")
    return p


def parse_hash(data: bytes) -> Hash:
    p = parse_payload(data)
    if not isinstance(p, Hash):
        raise CodecError(f"wrong payload type: {_GO_NAMES[type(p)]}")
    return p
