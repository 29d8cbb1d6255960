"""Index keys: one namespace, a space per chain, short table tags, fixed-width big-endian parts.

    ix/c/<chain ID, 32 bytes>/<tag>/<parts...>     a chain's tables
    ix/c/<chain ID, 32 bytes>/hd                   the last block of the chain indexed
    ix/g/<tag>/<parts...>                          tables across chains

A tag is two ASCII characters, so no table's prefix is a prefix of another's. Every part has a
fixed width (u64/u32/u16/u8 big-endian, 20-byte addresses, 32-byte hashes and token IDs), so the
byte order of keys is the order of their part tuples and every list is a range scan.

Amounts do not fit msgpack's 64-bit integers: values store them as minimal big-endian bytes
(`big`, unsigned) or two's-complement bytes (`sbig`, for derived balances that a non-standard
token can drive below zero).
"""

from __future__ import annotations

NS = b"ix/"
GLOBAL = NS + b"g/"


def chain_space(chain_id: bytes) -> bytes:
    """Prefix of one chain's tables."""
    return NS + b"c/" + chain_id + b"/"


def marker(chain_id: bytes) -> bytes:
    """Key of the number of the last block of the chain that was indexed (u64)."""
    return chain_space(chain_id) + b"hd"


def table(space: bytes, tag: bytes) -> bytes:
    """Prefix of table `tag` (two ASCII characters) in `space`."""
    return space + tag + b"/"


def u8(n: int) -> bytes:
    return n.to_bytes(1, "big")


def u16(n: int) -> bytes:
    return n.to_bytes(2, "big")


def u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def u64(n: int) -> bytes:
    return n.to_bytes(8, "big")


def parts(data: bytes, *widths: int) -> tuple[bytes, ...]:
    """Split `data` into parts of the given widths (ValueError unless they cover it exactly)."""
    if len(data) != sum(widths):
        raise ValueError(f"key part of {len(data)} bytes, expected {sum(widths)}")
    out = []
    pos = 0
    for w in widths:
        out.append(data[pos:pos + w])
        pos += w
    return tuple(out)


def num(data: bytes) -> int:
    return int.from_bytes(data, "big")


def big(n: int) -> bytes:
    """A non-negative amount as minimal big-endian bytes (0 is b"")."""
    return n.to_bytes((n.bit_length() + 7) // 8, "big")


def sbig(n: int) -> bytes:
    """A signed amount as minimal two's-complement bytes."""
    return n.to_bytes(n.bit_length() // 8 + 1, "big", signed=True)


def from_sbig(data: bytes) -> int:
    return int.from_bytes(data, "big", signed=True)
