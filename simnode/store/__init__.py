"""LevelDB store with namespaces, msgpack values, atomic batches and undo records."""

from .kv import KVBackend, LevelDBBackend, MemoryBackend
from .snapshots import Snapshots
from .store import META, SCHEMA_VERSION, Batch, Store, StoreError, chain_prefix, key_suffixes, pack, unpack

__all__ = [
    "KVBackend", "LevelDBBackend", "MemoryBackend", "META", "SCHEMA_VERSION", "Batch", "Snapshots", "Store",
    "StoreError", "chain_prefix", "key_suffixes", "pack", "unpack",
]
