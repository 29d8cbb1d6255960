"""py-evm's database on the node Store.

`StoreKV` is the raw key-value view py-evm sees (keys live under the chain's namespace). Every
write py-evm makes (trie nodes, headers, canonical pointers, tx lookups) lands in an in-memory
overlay (`pending`) instead of LevelDB. The chain then moves the overlay into the block's
`Batch` together with its own index rows and the head pointer, so one accepted block is one
atomic LevelDB write (`flush_into`). Reads see the overlay first, then the Store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eth.db.atomic import AtomicDB
from eth.db.backends.base import BaseDB

if TYPE_CHECKING:
    from ...store import Batch, Store


class StoreKV(BaseDB):
    """A dict-like py-evm backend: overlay of pending writes over the Store."""

    def __init__(self, store: Store, prefix: bytes) -> None:
        self.store = store
        self.prefix = prefix
        self.pending: dict[bytes, bytes | None] = {}
        # Small read cache of committed values (trie nodes are immutable: keyed by hash).
        self._cache: dict[bytes, bytes] = {}
        # This chain's decoded trie nodes by hash (trie_commit.read_node fills it).
        self.decoded_nodes: dict[bytes, list] = {}

    def __getitem__(self, key: bytes) -> bytes:
        pending = self.pending
        if key in pending:
            v = pending[key]
            if v is None:
                raise KeyError(key)
            return v
        v = self._cache.get(key)
        if v is not None:
            return v
        v = self.store.get(self.prefix + key)
        if v is None:
            raise KeyError(key)
        if len(key) == 32:  # content-addressed: safe to cache forever
            if len(self._cache) > 20_000:
                self._cache.clear()
            self._cache[key] = v
        return v

    def __setitem__(self, key: bytes, value: bytes) -> None:
        self.pending[key] = value

    def __delitem__(self, key: bytes) -> None:
        if not self._exists(key):
            raise KeyError(key)
        self.pending[key] = None

    def _exists(self, key: bytes) -> bool:
        try:
            self[key]
        except KeyError:
            return False
        return True

    def flush_into(self, batch: Batch) -> None:
        """Move every pending write into `batch` (the caller commits it)."""
        prefix = self.prefix
        changes = batch.changes
        for k, v in self.pending.items():
            changes[prefix + k] = v
        self.pending = {}

    def discard(self) -> None:
        self.pending = {}

    def reset_cache(self) -> None:
        """After a node-wide revert: content-addressed nodes stay valid, others do not."""
        self._cache.clear()
        self.decoded_nodes.clear()
        self.pending = {}


def atomic_db(kv: StoreKV) -> AtomicDB:
    """py-evm's AtomicDB wrapper: its atomic_batch() applies a diff to `kv` on success."""
    return AtomicDB(kv)
