"""Predicates carried in access lists, and their results in the header extra (AvalancheGo's
vms/evm/predicate: predicate.go and results.go).

A predicate is a byte string (for Warp: a signed message) written as the storage keys of an
access-list tuple: the bytes, then the delimiter 0xff, zero-padded to whole 32-byte chunks. Every
tuple whose address is a predicate precompile is one predicate; its index is its position among
that address's tuples. The block builder verifies each before the tx runs and records the failed
ones as a bitset per tx and address; the header extra carries them, after the fee state, as the
linear codec's `map[txHash]map[address][]byte` (keys in byte order, as the codec sorts them).
A tx with predicates has an entry even when all of them pass (an empty bitset).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ...codec import Reader, Writer
from simnode.errors import Refused

DELIMITER = 0xFF
CHUNK = 32


class PredicateError(Refused):
    """Predicate bytes that do not decode (predicate.Bytes' errors)."""


def encode(data: bytes) -> tuple[bytes, ...]:
    """predicate.New: the storage keys carrying `data`."""
    padded = data + bytes([DELIMITER])
    padded += b"\x00" * (-len(padded) % CHUNK)
    return tuple(padded[i:i + CHUNK] for i in range(0, len(padded), CHUNK))


def decode(chunks: tuple[bytes, ...]) -> bytes:
    """predicate.Bytes: the bytes a predicate's storage keys carry."""
    trimmed = b"".join(chunks).rstrip(b"\x00")
    if not trimmed:
        raise PredicateError(f"no delimiter found: length ({len(chunks)})")
    expected = (len(trimmed) + CHUNK - 1) // CHUNK
    if expected != len(chunks):
        raise PredicateError(f"predicate included excess padding: got length ({len(chunks)}), "
                             f"expected length ({expected})")
    if trimmed[-1] != DELIMITER:
        raise PredicateError("wrong delimiter")
    return trimmed[:-1]


def from_access_list(access_list: Iterable, address: bytes) -> list[tuple[bytes, ...]]:
    """The predicates of `address` in a tx's access list, in order (storage keys as 32 bytes)."""
    out = []
    for entry_address, keys in access_list or ():
        if bytes(entry_address) == address:
            out.append(tuple(k if isinstance(k, bytes) else int(k).to_bytes(32, "big") for k in keys))
    return out


def bits_bytes(indices: Iterable[int]) -> bytes:
    """set.Bits.Bytes(): the bitset as a minimal big-endian integer (empty for no bits)."""
    value = 0
    for i in indices:
        value |= 1 << i
    return value.to_bytes((value.bit_length() + 7) // 8, "big")


def encode_results(results: Mapping[bytes, Mapping[bytes, bytes]]) -> bytes:
    """BlockResults.Bytes(): {tx hash: {address: failed bitset bytes}}."""
    w = Writer()
    w.codec_version()
    w.u32(len(results))
    for tx_hash in sorted(results):
        w.fixed_bytes(tx_hash, 32)
        by_address = results[tx_hash]
        w.u32(len(by_address))
        for address in sorted(by_address):
            w.fixed_bytes(address, 20)
            w.bytes_u32(by_address[address])
    return w.getvalue()


def parse_results(data: bytes) -> dict[bytes, dict[bytes, bytes]]:
    """ParseBlockResults (raises simnode.codec.CodecError)."""
    r = Reader(data)
    r.codec_version()
    out: dict[bytes, dict[bytes, bytes]] = {}
    for _ in range(r.u32()):
        tx_hash = r.fixed_bytes(32)
        inner: dict[bytes, bytes] = {}
        for _ in range(r.u32()):
            address = r.fixed_bytes(20)
            inner[address] = r.bytes_u32()
        out[tx_hash] = inner
    r.done()
    return out

