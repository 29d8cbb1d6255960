"""Node-wide snapshots: an ID names a store commit sequence; reverting restores the store from
its undo records and then runs the revert hooks (the node's: reload every chain, in order).

One registry serves `simnode.snapshot`/`simnode.revert` and the C-Chain's `evm_snapshot`/
`evm_revert`, so every revert leaves all chains consistent with the store.
"""

from __future__ import annotations

from collections.abc import Callable

from .store import Store


class Snapshots:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._seqs: dict[int, int] = {}
        self._next = 1
        self.on_revert: list[Callable[[], None]] = []

    def take(self) -> int:
        sid = self._next
        self._next += 1
        self._seqs[sid] = self._store.seq
        self._keep_undo()
        return sid

    def _keep_undo(self) -> None:
        self._store.keep_undo_since(min(self._seqs.values(), default=None))

    def revert(self, sid: int) -> bool:
        """Restore snapshot `sid`; it and every later snapshot are consumed. False if unknown."""
        seq = self._seqs.get(sid)
        if seq is None:
            return False
        self._store.revert_to(seq)
        self._seqs = {k: v for k, v in self._seqs.items() if k < sid and v <= seq}
        self._keep_undo()
        for hook in self.on_revert:
            hook()
        return True
