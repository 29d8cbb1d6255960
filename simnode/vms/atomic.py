"""Shared memory: UTXOs exported by one chain, waiting to be imported by another.

An ExportTx accepted on chain S puts its exported UTXOs into the shared memory of the
destination chain D, in the same write batch as S's block. An ImportTx on D removes them, in
the same write batch as D's block. Keys (all under `atomic/`):

    atomic/<D 32 B><S 32 B>u<utxoID 32 B>            -> UTXO bytes (node-api.md §4.2 encoding)
    atomic/<D 32 B><S 32 B>a<address 20 B><utxoID>   -> u64 seq  (address index, one per owner)
    atomic/<D 32 B><S 32 B>o… N O                     its order: newest first (utxo_order.py)

A UTXO can be read with a `Batch` (pending block) or the `Store` (committed state); both have
`get` and `iterate`, so verification sees what the block being built already did.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from ..store import Batch, Store
from . import utxo_order

PREFIX = b"atomic/"


class Reader(Protocol):
    def get(self, key: bytes) -> bytes | None: ...

    def iterate(self, prefix: bytes) -> Iterator[tuple[bytes, bytes]]: ...


class Writer(Protocol):
    def get(self, key: bytes) -> bytes | None: ...

    def put(self, key: bytes, value: bytes) -> None: ...

    def delete(self, key: bytes) -> None: ...


@dataclass(frozen=True, slots=True)
class AtomicUTXO:
    utxo_id: bytes
    utxo_bytes: bytes
    addresses: tuple[bytes, ...]


def _pair(dest: bytes, source: bytes) -> bytes:
    return PREFIX + dest + source


def put_utxo(w: Writer, dest: bytes, source: bytes, utxo: AtomicUTXO) -> None:
    base = _pair(dest, source)
    w.put(base + b"u" + utxo.utxo_id, utxo.utxo_bytes)
    utxo_order.add(w, base, utxo.addresses, utxo.utxo_id)


def get_utxo(r: Reader, dest: bytes, source: bytes, utxo_id: bytes) -> bytes | None:
    return r.get(_pair(dest, source) + b"u" + utxo_id)


def remove_utxo(w: Writer, dest: bytes, source: bytes, utxo_id: bytes, addresses: Iterable[bytes]) -> None:
    base = _pair(dest, source)
    w.delete(base + b"u" + utxo_id)
    utxo_order.remove(w, base, tuple(addresses), utxo_id)


def utxo_ids_by_address(
    r: Store | Batch, dest: bytes, source: bytes, address: bytes, start: bytes | None = None
) -> Iterator[bytes]:
    """UTXO IDs owned (in part) by `address`, newest first; from `start` (itself included, as shared
    memory's Indexed pages) if it is one of them (utxo_order.py)."""
    return utxo_order.ids_of(r, _pair(dest, source), address, start, inclusive=True)
