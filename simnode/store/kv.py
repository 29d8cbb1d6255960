"""Key-value backends: LevelDB (plyvel) for nodes, a sorted in-memory twin for unit tests.

Both expose the same small interface: point reads, ordered prefix iteration and an atomic
commit of a dict of puts/deletes (None = delete).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Protocol

import plyvel


class KVBackend(Protocol):
    def get(self, key: bytes) -> bytes | None: ...

    def iterate(
        self, prefix: bytes, start: bytes | None = None, reverse: bool = False
    ) -> Iterator[tuple[bytes, bytes]]: ...

    def commit(self, changes: Mapping[bytes, bytes | None]) -> None: ...

    def close(self) -> None: ...


# Bloom filters make a read of a missing key ("already known" checks, first reads of new trie
# nodes) a probe of an in-memory filter instead of a block read in every level.
BLOOM_FILTER_BITS = 10
# LevelDB's unit of compression (Snappy) and of reading. 16 KiB instead of its default 4 KiB:
# Snappy finds more to share in a bigger block (a one-tx C-Chain block -110 bytes on disk), while
# a read outside the block cache decompresses more (old receipts, balances: within the noise of
# scripts/bench_latency.py --old; 64 KiB saved 36 bytes more and cost up to a third more at p90).
# Tables written with another size read as they are (each table records its own).
BLOCK_BYTES = 16 << 10
# how every table the node writes is built (scripts/bytes_per_block.py compacts with the same)
TABLE_OPTIONS = {"bloom_filter_bits": BLOOM_FILTER_BITS, "block_size": BLOCK_BYTES}

# LevelDB's memory, bounded whatever the size of the database (docs/memory.md):
# - the block cache holds uncompressed data blocks read back: LRU_CACHE_BYTES;
# - a memtable takes writes until WRITE_BUFFER_BYTES, then is written out as a table while the
#   next one fills (two at most);
# - every table file in the table cache is memory-mapped, and the pages reads touch count in the
#   process's RSS (RssFile): LevelDB's default (1,000 open files of 2 MiB) lets that grow with the
#   database. MAX_OPEN_FILES - 10 tables (LevelDB keeps 10 for its logs) of MAX_FILE_BYTES bound it
#   to 64 MiB; a table left out of the cache is opened again when read (an index block read).
LRU_CACHE_BYTES = 8 << 20
WRITE_BUFFER_BYTES = 4 << 20
MAX_OPEN_FILES = 74  # LevelDB's smallest
MAX_FILE_BYTES = 1 << 20


class LevelDBBackend:
    def __init__(self, path: str | Path) -> None:
        Path(path).mkdir(parents=True, exist_ok=True)
        self._db = plyvel.DB(str(path), create_if_missing=True, lru_cache_size=LRU_CACHE_BYTES,
                             write_buffer_size=WRITE_BUFFER_BYTES, max_open_files=MAX_OPEN_FILES,
                             max_file_size=MAX_FILE_BYTES, **TABLE_OPTIONS)

    def get(self, key: bytes) -> bytes | None:
        return self._db.get(key)

    def iterate(
        self, prefix: bytes, start: bytes | None = None, reverse: bool = False
    ) -> Iterator[tuple[bytes, bytes]]:
        if start is None:
            yield from self._db.iterator(prefix=prefix, reverse=reverse)
            return
        if reverse:
            it = self._db.iterator(start=prefix, stop=start + b"\x00", reverse=True)
        else:
            it = self._db.iterator(start=start, stop=_prefix_end(prefix))
        for k, v in it:
            if k.startswith(prefix):
                yield k, v

    def commit(self, changes: Mapping[bytes, bytes | None]) -> None:
        # One LevelDB write batch: a crash leaves either all of it or none of it.
        with self._db.write_batch(transaction=True) as wb:
            for k, v in changes.items():
                if v is None:
                    wb.delete(k)
                else:
                    wb.put(k, v)

    def close(self) -> None:
        if not self._db.closed:
            self._db.close()


class MemoryBackend:
    """Sorted dict with the LevelDB interface, for unit tests and throwaway nodes."""

    def __init__(self) -> None:
        self._data: dict[bytes, bytes] = {}
        self._keys: list[bytes] = []

    def get(self, key: bytes) -> bytes | None:
        return self._data.get(key)

    def iterate(
        self, prefix: bytes, start: bytes | None = None, reverse: bool = False
    ) -> Iterator[tuple[bytes, bytes]]:
        keys = self._keys
        if reverse:
            hi = (bisect.bisect_right(keys, start) if start is not None
                  else bisect.bisect_left(keys, _prefix_end(prefix) or b"\xff" * 64))
            lo = bisect.bisect_left(keys, prefix)
            selected = keys[lo:hi][::-1]
        else:
            lo = bisect.bisect_left(keys, max(prefix, start) if start is not None else prefix)
            end = _prefix_end(prefix)
            hi = bisect.bisect_left(keys, end) if end is not None else len(keys)
            selected = keys[lo:hi]
        for k in selected:
            if k.startswith(prefix):
                yield k, self._data[k]

    def commit(self, changes: Mapping[bytes, bytes | None]) -> None:
        for k, v in changes.items():
            if v is None:
                if k in self._data:
                    del self._data[k]
                    self._keys.pop(bisect.bisect_left(self._keys, k))
            else:
                if k not in self._data:
                    bisect.insort(self._keys, k)
                self._data[k] = v

    def close(self) -> None:
        pass


def _prefix_end(prefix: bytes) -> bytes | None:
    """Smallest key greater than every key starting with prefix (None: no such key)."""
    p = bytearray(prefix)
    while p:
        if p[-1] != 0xFF:
            p[-1] += 1
            return bytes(p)
        p.pop()
    return None
