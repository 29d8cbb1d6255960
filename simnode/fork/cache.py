"""The read-through cache of upstream answers, in the node's LevelDB under `fork/`.

What the upstream answered at the fork point never changes (an account at the fork block, a block
up to it, a tx), so a value fetched once is kept for good: written at once (not with a block, and
no snapshot revert undoes it) and read back after a restart, when the upstream may be gone. Values
are msgpack; a small memory map in front saves the store reads of values asked again and again.
Absent answers are kept too (as None inside a one-element list), so they are not asked again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..store import Store, pack, unpack

PREFIX = b"fork/"
IDENTITY_KEY = b"identity"  # the fork's identity record (identity.py): a data dir holding it is a fork's
MEMORY_ITEMS = 100_000

_MISSING = object()


class ForkCache:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._memory: dict[bytes, Any] = {}

    def get(self, key: bytes) -> Any:
        """The kept value (`default`-free: raises KeyError when nothing is kept)."""
        value = self._memory.get(key, _MISSING)
        if value is not _MISSING:
            return value
        raw = self.store.get(PREFIX + key)
        if raw is None:
            raise KeyError(key)
        value = unpack(raw)[0]
        self._remember(key, value)
        return value

    def has(self, key: bytes) -> bool:
        try:
            self.get(key)
        except KeyError:
            return False
        return True

    def put(self, key: bytes, value: Any) -> None:
        self.put_many({key: value})

    def put_many(self, items: dict[bytes, Any]) -> None:
        self.store.put_unversioned({PREFIX + k: pack([v]) for k, v in items.items()})
        for k, v in items.items():
            self._remember(k, v)

    def get_or_fetch(self, key: bytes, fetch: Callable[[], Any]) -> Any:
        try:
            return self.get(key)
        except KeyError:
            pass
        value = fetch()
        self.put(key, value)
        return value

    def _remember(self, key: bytes, value: Any) -> None:
        if len(self._memory) >= MEMORY_ITEMS:
            self._memory.clear()
        self._memory[key] = value

    def held_url(self) -> str | None:
        """The upstream URL of the fork this store holds (None: not a fork's data dir)."""
        try:
            return self.get(IDENTITY_KEY)[0]
        except KeyError:
            return None

    def clear(self) -> None:
        """Forget every kept value (anvil_reset onto another fork)."""
        self._memory.clear()
        batch: dict[bytes, bytes | None] = {}
        for key, _ in self.store.iterate(PREFIX):
            batch[key] = None
        if batch:
            self.store.put_unversioned(batch)
