"""Signed-tx framing shared by X, P and C: ``u16 0 | u32 typeID | unsigned | u32 nCreds | (u32 typeID | cred)…``.

unsignedBytes = everything before the credentials (version + type ID + fields); each signature is over
sha256(unsignedBytes); txID = sha256(signedBytes).
"""

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from simnode.codec.packer import Reader, Writer
from simnode.codec.registry import Encodable, TypeRegistry

CODEC_VERSION_BYTES = b"\x00\x00"

# Reads the unsigned part (type ID included) from a Reader positioned right after the codec version.
UnsignedParser = Callable[[Reader], Any]


@dataclass(frozen=True, slots=True)
class SignedTx:
    unsigned: Any
    unsigned_bytes: bytes
    credentials: tuple[Any, ...]
    tx_bytes: bytes

    @property
    def tx_id(self) -> bytes:
        return tx_id(self.tx_bytes)

    @property
    def unsigned_hash(self) -> bytes:
        """What every signature signs."""
        return unsigned_hash(self.unsigned_bytes)


def tx_id(signed_bytes: bytes) -> bytes:
    return hashlib.sha256(signed_bytes).digest()


def unsigned_hash(unsigned_bytes: bytes) -> bytes:
    return hashlib.sha256(unsigned_bytes).digest()


def read_signed_body(r: Reader, reg: TypeRegistry, parse_unsigned: UnsignedParser | None = None,
                     credential: type | None = None) -> SignedTx:
    """A signed tx without its own version prefix (as inside an X block); bytes get the prefix added.

    `parse_unsigned` defaults to ``reg.decode_typed`` (the unsigned tx as an interface value);
    `credential`, when given, is the interface every credential must implement.
    """
    start = r.offset
    unsigned = parse_unsigned(r) if parse_unsigned is not None else reg.decode_typed(r)
    unsigned_end = r.offset
    count = r.count_u32()
    credentials = tuple(reg.decode_typed(r, credential) for _ in range(count))
    return SignedTx(
        unsigned=unsigned,
        unsigned_bytes=CODEC_VERSION_BYTES + r.slice(start, unsigned_end),
        credentials=credentials,
        tx_bytes=CODEC_VERSION_BYTES + r.slice(start, r.offset),
    )


def parse_signed(data: bytes, reg: TypeRegistry, parse_unsigned: UnsignedParser | None = None) -> SignedTx:
    """Decode a whole signed tx; rejects a wrong codec version and trailing bytes."""
    r = Reader(data)
    r.codec_version()
    signed = read_signed_body(r, reg, parse_unsigned)
    r.done()
    return signed


def encode_signed(unsigned: Encodable, credentials: Sequence[Encodable], reg: TypeRegistry) -> SignedTx:
    """Build the bytes of a signed tx from an unsigned tx (a registered type) and its credentials."""
    unsigned_bytes = reg.marshal(unsigned)
    w = Writer()
    w.u32(len(credentials))
    for credential in credentials:
        reg.encode_typed(w, credential)
    return SignedTx(unsigned, unsigned_bytes, tuple(credentials), unsigned_bytes + w.getvalue())
