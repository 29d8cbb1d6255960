"""EVMChain's dev state edits: direct edits of the latest state (anvil_setBalance & co.), the
node-wide snapshot and revert (evm_snapshot, evm_revert) and re-reading the chain after one."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..chain_context import ChainContext
from .block_rows import BlockInfo
from .db import StoreKV
from .mempool import Mempool

if TYPE_CHECKING:
    from eth.db.account import AccountDB


class DevStateEdits:
    """EVMChain's part that edits its state outside blocks (mixed into EVMChain)."""

    ctx: ChainContext
    store: Any
    kv: StoreKV
    db: Any
    evm: Any
    chain_class: Any
    pool: Mempool
    _atomic: Any
    state_root: bytes
    _view: AccountDB | None
    _blocks: OrderedDict[int, BlockInfo]
    _key: Callable[..., bytes]
    account_db: Callable[[bytes], AccountDB]
    view: Callable[..., AccountDB]
    _load_head: Callable[[], None]

    def edit_state(self, fn: Callable[[AccountDB], None]) -> None:
        """Apply a direct state edit (anvil_setBalance & co.) on top of the latest state."""
        acct = self.account_db(self.state_root)
        fn(acct)
        acct.persist()
        root = acct.state_root
        batch = self.store.batch()
        self.kv.flush_into(batch)
        batch.put(self._key(b"root"), root)
        batch.commit()
        self.state_root = root
        self._view = None

    def snapshot(self) -> int:
        """A node-wide snapshot (evm_snapshot): reverting it restores every chain."""
        return self.ctx.snapshots.take()

    def revert(self, snap_id: int) -> bool:
        """evm_revert: False for an unknown (or already consumed) snapshot, as Anvil answers."""
        return self.ctx.snapshots.revert(snap_id)

    def reload(self) -> None:
        """Re-read everything from the store (after a node-wide revert)."""
        self.kv.reset_cache()
        self._blocks.clear()
        self.evm = self.chain_class(self.db)
        self._load_head()
        if self.__dict__.get("_atomic") is not None:
            self._atomic.clear()
        view = self.view()
        for sender in list(self.pool.by_sender):
            self.pool.drop_stale(sender, view.get_nonce(sender))
