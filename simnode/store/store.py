"""The node's one database: namespaced keys, msgpack values, atomic batches with undo records.

Every accepted block (on any chain) commits one `Batch`. While a snapshot is live, the commit
also writes, in the same LevelDB write batch, an undo record holding the previous value of
every key it touches. A node-wide snapshot is just the current commit sequence number;
reverting to it replays the undo records backwards in one more atomic batch. That gives
snapshot/revert across P, X and C together without any chain knowing about it. With no live
snapshot nothing could ever be reverted, so no undo records are written (reading the previous
value of every trie node a block writes is a large part of a commit's cost), and those written
while one was live are deleted once none is: when the last live snapshot is reverted, and when
the store opens (snapshots live in memory only, so none outlives the process that took it).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack

from .kv import KVBackend, LevelDBBackend, MemoryBackend

SCHEMA_VERSION = 3  # 2: coreth block headers and accounts on the C-Chain; 3: P-Chain block facts (index)

# Node-level namespaces. Chains use their own prefix (see `chain_prefix`).
META = b"meta/"
UNDO = b"undo/"
_SCHEMA_KEY = META + b"schema"
_SEQ_KEY = META + b"commit-seq"


class StoreError(RuntimeError):
    pass


def pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def chain_prefix(name: str) -> bytes:
    """Key prefix of a chain's namespace, e.g. b"X/" or b"C/"."""
    return name.encode() + b"/"


def key_suffixes(db: Store | Batch, prefix: bytes, after: bytes | None = None) -> Iterator[bytes]:
    """The rest of every key under `prefix` (an index row's ID), ascending, strictly after `after` if given.

    A Store seeks straight to `after` (O(page)); a Batch merges its pending writes and filters.
    """
    cut = len(prefix)
    rows = db.iterate(prefix, prefix + after) if after is not None and isinstance(db, Store) else db.iterate(prefix)
    for key, _ in rows:
        suffix = key[cut:]
        if after is None or suffix > after:
            yield suffix


class Batch:
    """Pending writes; reads through it see its own writes first."""

    __slots__ = ("_store", "changes")

    def __init__(self, store: Store) -> None:
        self._store = store
        self.changes: dict[bytes, bytes | None] = {}

    def get(self, key: bytes) -> bytes | None:
        if key in self.changes:
            return self.changes[key]
        return self._store.get(key)

    @property
    def store(self) -> Store:
        """The store it commits to: its committed rows alone."""
        return self._store

    def put(self, key: bytes, value: bytes) -> None:
        self.changes[key] = value

    def delete(self, key: bytes) -> None:
        self.changes[key] = None

    def put_obj(self, key: bytes, value: Any) -> None:
        self.changes[key] = pack(value)

    def get_obj(self, key: bytes) -> Any:
        raw = self.get(key)
        return None if raw is None else unpack(raw)

    def iterate(self, prefix: bytes, start: bytes | None = None) -> Iterator[tuple[bytes, bytes]]:
        """Committed keys merged with this batch's pending writes, in key order (from `start`, a
        whole key, when given)."""
        pending = sorted((k, v) for k, v in self.changes.items()
                         if k.startswith(prefix) and (start is None or k >= start))
        committed = self._store.iterate(prefix, start)
        pi = 0
        for k, v in committed:
            while pi < len(pending) and pending[pi][0] < k:
                if pending[pi][1] is not None:
                    yield pending[pi]  # type: ignore[misc]
                pi += 1
            if pi < len(pending) and pending[pi][0] == k:
                if pending[pi][1] is not None:
                    yield pending[pi]  # type: ignore[misc]
                pi += 1
                continue
            yield k, v
        for k, v in pending[pi:]:
            if v is not None:
                yield k, v

    def merge(self, other: Batch) -> None:
        self.changes.update(other.changes)

    def commit(self) -> int:
        return self._store.commit(self)


class Store:
    def __init__(self, backend: KVBackend) -> None:
        self._kv = backend
        schema = backend.get(_SCHEMA_KEY)
        if schema is None:
            backend.commit({_SCHEMA_KEY: pack(SCHEMA_VERSION), _SEQ_KEY: pack(0)})
        elif unpack(schema) != SCHEMA_VERSION:
            raise StoreError(f"database schema {unpack(schema)} is not {SCHEMA_VERSION}; use a new --data-dir")
        self._seq: int = unpack(backend.get(_SEQ_KEY))  # type: ignore[arg-type]
        self._undo_since: int | None = None
        self._drop_undo()
        self._subscribers: list = []

    @classmethod
    def open(cls, path: str | Path) -> Store:
        return cls(LevelDBBackend(path))

    @classmethod
    def memory(cls) -> Store:
        return cls(MemoryBackend())

    @property
    def seq(self) -> int:
        """Number of batches committed so far: the node-wide snapshot handle."""
        return self._seq

    def get(self, key: bytes) -> bytes | None:
        return self._kv.get(key)

    def get_obj(self, key: bytes) -> Any:
        raw = self._kv.get(key)
        return None if raw is None else unpack(raw)

    def iterate(
        self, prefix: bytes, start: bytes | None = None, reverse: bool = False
    ) -> Iterator[tuple[bytes, bytes]]:
        return self._kv.iterate(prefix, start, reverse)

    def batch(self) -> Batch:
        return Batch(self)

    def keep_undo_since(self, seq: int | None) -> None:
        """Write undo records for every commit after `seq` (the oldest live snapshot), so that
        `revert_to(seq)` and anything later works; None: no snapshot is live, write none."""
        if seq is not None and seq > self._seq:
            raise StoreError(f"cannot keep undo records since commit {seq}: current commit is {self._seq}")
        if seq is None and self._undo_since is not None:
            self._drop_undo()
        self._undo_since = seq

    def _drop_undo(self) -> None:
        """Delete every undo record (no live snapshot can use one), in one atomic write."""
        stale: dict[bytes, bytes | None] = {k: None for k, _ in self._kv.iterate(UNDO)}
        if stale:
            self._kv.commit(stale)

    def commit(self, batch: Batch) -> int:
        """Write the batch (plus its undo record while a snapshot is live) atomically; returns the
        new sequence number."""
        if not batch.changes:
            return self._seq
        seq = self._seq + 1
        changes = dict(batch.changes)
        if self._undo_since is not None:
            undo = [(k, self._kv.get(k)) for k in batch.changes]
            changes[UNDO + seq.to_bytes(8, "big")] = pack(undo)
        changes[_SEQ_KEY] = pack(seq)
        self._kv.commit(changes)
        self._seq = seq
        batch.changes = {}
        return seq

    def put_unversioned(self, changes: dict[bytes, bytes | None]) -> None:
        """Write values no revert undoes and no snapshot counts (a fork's read-through cache of
        upstream values, which never change), atomically."""
        if changes:
            self._kv.commit(dict(changes))

    def revert_to(self, seq: int) -> None:
        """Undo every batch committed after `seq`, atomically."""
        if seq < 0 or seq > self._seq:
            raise StoreError(f"cannot revert to commit {seq}: current commit is {self._seq}")
        if seq < self._seq and (self._undo_since is None or seq < self._undo_since):
            raise StoreError(f"cannot revert to commit {seq}: no undo records are kept before it")
        restored: dict[bytes, bytes | None] = {}
        for s in range(self._seq, seq, -1):
            ukey = UNDO + s.to_bytes(8, "big")
            record = self._kv.get(ukey)
            if record is None:
                raise StoreError(f"undo record {s} is missing")
            for k, old in unpack(record):
                restored[k] = old  # oldest write wins: later iterations overwrite
            restored[ukey] = None
        restored[_SEQ_KEY] = pack(seq)
        self._kv.commit(restored)
        self._seq = seq

    def close(self) -> None:
        self._kv.close()
