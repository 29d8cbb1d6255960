"""Warp messages (vms/platformvm/warp): the unsigned message, the BitSetSignature and the signed message.

    UnsignedMessage  u16 0 | u32 networkID | [32] sourceChainID | u32 len | payload
    SignedMessage    UnsignedMessage bytes | u32 0 (BitSetSignature) | u32 len | signers | [96] signature

The signed message embeds the unsigned one, codec version included, and those exact bytes are
what validators sign; the message ID is their SHA-256. The outer codec has no size limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simnode.codec import CodecError, Reader, Writer
from simnode.crypto.hashing import sha256

from .errors import WarpError

BIT_SET_SIGNATURE_TYPE_ID = 0
SIGNATURE_LEN = 96
ID_LEN = 32
ERR_INVALID_BIT_SET = "bitset is invalid"


@dataclass(frozen=True, slots=True)
class UnsignedMessage:
    """`encoded`: the codec bytes validators sign; `id`: their sha256, the message ID (also the
    SendWarpMessage event's topic 2)."""

    network_id: int
    source_chain_id: bytes
    payload: bytes
    encoded: bytes = field(init=False, repr=False, compare=False)
    id: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        w = Writer()
        w.codec_version()
        w.u32(self.network_id)
        w.fixed_bytes(self.source_chain_id, ID_LEN)
        w.bytes_u32(self.payload)
        encoded = w.getvalue()
        object.__setattr__(self, "encoded", encoded)
        object.__setattr__(self, "id", sha256(encoded))


@dataclass(frozen=True, slots=True)
class BitSetSignature:
    """`signers`: big-endian bitset, bit i = canonical validator i; `signature`: aggregate G2 point."""

    signers: bytes
    signature: bytes

    def signer_bits(self) -> int:
        """The bitset as an integer; a bitset with leading zero bytes does not re-encode to the same
        bytes and is refused (ErrInvalidBitSet), as AvalancheGo's `NumSigners` and `Verify` do."""
        bits = int.from_bytes(self.signers, "big")
        if len(self.signers) != (bits.bit_length() + 7) // 8:
            raise WarpError(ERR_INVALID_BIT_SET)
        return bits

    def num_signers(self) -> int:
        return self.signer_bits().bit_count()

    def encode(self, w: Writer) -> None:
        w.u32(BIT_SET_SIGNATURE_TYPE_ID)
        w.bytes_u32(self.signers)
        w.fixed_bytes(self.signature, SIGNATURE_LEN)


@dataclass(frozen=True, slots=True)
class SignedMessage:
    unsigned: UnsignedMessage
    signature: BitSetSignature
    encoded: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        w = Writer()
        w.raw(self.unsigned.encoded)
        self.signature.encode(w)
        object.__setattr__(self, "encoded", w.getvalue())


def _read_unsigned(r: Reader) -> UnsignedMessage:
    r.codec_version()
    network_id = r.u32()
    source = r.fixed_bytes(ID_LEN)
    return UnsignedMessage(network_id, source, r.bytes_u32())


def parse_unsigned_message(data: bytes) -> UnsignedMessage:
    r = Reader(data)
    msg = _read_unsigned(r)
    r.done()
    return msg


def parse_signed_message(data: bytes) -> SignedMessage:
    """Decode a signed message; the bitset is checked only when used (as in AvalancheGo)."""
    r = Reader(data)
    unsigned = _read_unsigned(r)
    type_id = r.type_id()
    if type_id != BIT_SET_SIGNATURE_TYPE_ID:
        raise CodecError(f"couldn't unmarshal interface: unknown type ID {type_id}")
    signers = r.bytes_u32()
    signature = r.fixed_bytes(SIGNATURE_LEN)
    r.done()
    return SignedMessage(unsigned, BitSetSignature(signers, signature))
