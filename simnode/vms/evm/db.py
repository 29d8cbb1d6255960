"""py-evm's database on the node Store.

`StoreKV` is the raw key-value view py-evm sees (keys live under the chain's namespace). Every
write py-evm makes (trie nodes, headers, canonical pointers, tx lookups) lands in an in-memory
overlay (`pending`) instead of LevelDB. The chain then moves the overlay into the block's
`Batch` together with its own index rows and the head pointer, so one accepted block is one
atomic LevelDB write (`flush_into`). Reads see the overlay first, then the Store.

A branch node a block's trie commit made out of another is written as a DELTA record under
`delta_prefix` instead of whole (trie_delta.py); reads rebuild it, so py-evm sees whole nodes.
A data dir written before deltas holds whole nodes only, which read as before.

StoreKV has py-evm's BaseDB interface without deriving from it: a chain writes its genesis and
reads its head through it before py-evm is imported (evm_chain.py loads py-evm on first use).

py-evm's canonical number -> hash entries (what BLOCKHASH reads) are not stored: `block_hash`
answers them from the chain's own block rows. A data dir written before holds them, read as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Any, cast

from .rlpcodec import encode
from .trie_delta import deltas, depth_of_record, rebuild

if TYPE_CHECKING:
    from eth.abc import DatabaseAPI

    from ...store import Batch, Store

CANONICAL_HASH_KEY = b"block-number-to-hash:"  # + decimal number: py-evm's SchemaV1 key


class StoreKV(MutableMapping[bytes, bytes]):
    """A dict-like py-evm backend: overlay of pending writes over the Store (the methods of
    py-evm's BaseDB, which cannot be iterated or counted, as it is)."""

    def __init__(self, store: Store, prefix: bytes, delta_prefix: bytes | None = None,
                 block_hash: Callable[[int], bytes | None] | None = None) -> None:
        self.store = store
        self.prefix = prefix
        self.block_hash = block_hash  # the hash of canonical block n, None when there is none
        # b"C/s/" -> b"C/sd/": not under `prefix`, so no py-evm key can land there
        self.delta_prefix = delta_prefix if delta_prefix is not None else prefix.rstrip(b"/") + b"d/"
        self.pending: dict[bytes, bytes | None] = {}
        # (root before, root after) of each trie commit since the last flush (trie_commit.py)
        self.commits: list[tuple[bytes, bytes]] = []
        self._depths: dict[bytes, int] = {}  # DELTA depths of nodes written or read lately
        # Small read cache of committed values (trie nodes are immutable: keyed by hash).
        self._cache: dict[bytes, bytes] = {}
        # This chain's decoded trie nodes by hash (trie_commit.read_node fills it).
        self.decoded_nodes: dict[bytes, list] = {}
        # Values read from this chain's tries by (root, key) (speedups.fast_get fills it).
        self.trie_values: dict[tuple[bytes, bytes], bytes] = {}

    def __getitem__(self, key: bytes) -> bytes:
        return self._read(key, True)

    def _base(self, key: bytes) -> bytes:
        """A DELTA's base, not cached: an older version of the node the trie holds now, which no
        trie read asks for again (caching each base of a chain flushed the cache of live nodes)."""
        return self._read(key, False)

    def _read(self, key: bytes, remember: bool) -> bytes:
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
            if len(key) != 32:
                return self._canonical_hash(key)
            record = self.store.get(self.delta_prefix + key)
            if record is None:
                raise KeyError(key)
            v = rebuild(record, self._base)
            self._remember_depth(key, depth_of_record(record))
        if remember and len(key) == 32:  # content-addressed: safe to cache forever
            if len(self._cache) > 20_000:
                self._cache.clear()
            self._cache[key] = v
        return v

    def _canonical_hash(self, key: bytes) -> bytes:
        """py-evm's canonical number -> hash entry, from the block rows (RLP, as py-evm stores it)."""
        if self.block_hash is None or not key.startswith(CANONICAL_HASH_KEY):
            raise KeyError(key)
        h = self.block_hash(int(key[len(CANONICAL_HASH_KEY):]))
        if h is None:
            raise KeyError(key)
        return encode(h)

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

    def __contains__(self, key: object) -> bool:
        return isinstance(key, bytes) and self._exists(key)

    def set(self, key: bytes, value: bytes) -> None:
        self[key] = value

    def exists(self, key: bytes) -> bool:
        return self._exists(key)

    def delete(self, key: bytes) -> None:
        try:
            del self[key]
        except KeyError:
            pass

    def __iter__(self) -> Iterator[bytes]:
        raise NotImplementedError("By default, DB classes cannot be iterated.")

    def __len__(self) -> int:
        raise NotImplementedError("By default, DB classes cannot return the total number of keys.")

    def _remember_depth(self, key: bytes, depth: int) -> None:
        if len(self._depths) > 20_000:
            self._depths.clear()
        self._depths[key] = depth

    def _stored(self, key: bytes) -> bool:
        """Whether the Store holds the node already (whole or as a DELTA)."""
        return self.store.get(self.prefix + key) is not None or self.store.get(self.delta_prefix + key) is not None

    def _stored_depth(self, key: bytes) -> int:
        """0 for a node stored whole (or absent), else its DELTA depth."""
        depth = self._depths.get(key)
        if depth is not None:
            return depth
        if key in self.pending or self.store.get(self.prefix + key) is not None:
            return 0
        record = self.store.get(self.delta_prefix + key)
        return 0 if record is None else depth_of_record(record)

    def flush_into(self, batch: Batch) -> None:
        """Move every pending write into `batch` (the caller commits it): the branch nodes the
        trie commits made out of others as DELTA records, the rest as they are."""
        prefix = self.prefix
        changes = batch.changes
        records = (deltas(self.pending, self.commits, self.__getitem__, self._stored_depth, self._stored,
                          self.decoded_nodes) if self.commits else {})
        cache = self._cache
        for k, v in self.pending.items():
            record = records.get(k)
            if record is not None and v is not None:
                changes[self.delta_prefix + k] = record
                self._remember_depth(k, depth_of_record(record))
                if len(cache) > 20_000:
                    cache.clear()
                cache[k] = v  # read back whole, not rebuilt
            else:
                changes[prefix + k] = v
        self.pending = {}
        self.commits = []

    def discard(self) -> None:
        self.pending = {}
        self.commits = []

    def reset_cache(self) -> None:
        """After a node-wide revert: content-addressed nodes stay valid, others do not."""
        self._cache.clear()
        self.decoded_nodes.clear()
        self.trie_values.clear()
        self._depths.clear()
        self.pending = {}
        self.commits = []


def atomic_db(kv: StoreKV) -> Any:
    """py-evm's AtomicDB wrapper: its atomic_batch() applies a diff to `kv` on success."""
    from eth.db.atomic import AtomicDB

    return AtomicDB(cast("DatabaseAPI", kv))  # StoreKV has DatabaseAPI's methods, not its base class
