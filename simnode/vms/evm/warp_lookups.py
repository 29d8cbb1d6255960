"""EVMChain's Warp lookups: the failed-predicate bits of a tx (and of a stored block), the Warp
config active at a time, and the accepted SendWarpMessage messages and blocks the chain's Warp
backend answers for."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ...codec import CodecError
from ...warp.message import UnsignedMessage, parse_unsigned_message
from . import predicates
from .block_rows import BlockInfo
from .precompiles import warp
from .precompiles.schedule import Schedule

log = logging.getLogger("simnode.evm")


class WarpLookups:
    """EVMChain's part that answers Warp questions (mixed into EVMChain)."""

    store: Any
    precompiles: Schedule
    warp_identity: warp.Identity
    warp_validators: warp.ValidatorView | None
    _key: Callable[..., bytes]

    def warp_failed_of(self, block: BlockInfo) -> dict[bytes, int]:
        """A block's failed Warp predicates by tx hash, from its header extra (re-execution)."""
        extra = block.header.extra_data
        fee_len = len(block.fee.encode())
        if len(extra) <= fee_len:
            return {}
        try:
            results = predicates.parse_results(extra[fee_len:])
        except CodecError:
            return {}
        return {h: int.from_bytes(by_addr.get(warp.ADDRESS, b""), "big") for h, by_addr in results.items()}

    def warp_results(self, tx: Any, tx_hash: bytes, timestamp: int) -> int | None:
        """The failed-predicate bits of `tx` in a block at `timestamp` (None: no Warp predicates)."""
        config = self.warp_config(timestamp)
        if config is None:
            return None
        found = warp.tx_predicates(tx)
        if not found:
            return None
        failed = 0
        for i, chunks in enumerate(found):
            reason = ("no P-Chain validators" if self.warp_validators is None
                      else warp.verify_predicate(config.settings, chunks, self.warp_identity, self.warp_validators))
            if reason is not None:
                log.debug("tx 0x%s: warp predicate %d failed: %s", tx_hash.hex(), i, reason)
                failed |= 1 << i
        return failed

    def warp_config(self, timestamp: int) -> Any:
        for config in self.precompiles.active(timestamp):
            if config.module is warp.MODULE:
                return config
        return None

    def accepted_message(self, message_id: bytes) -> UnsignedMessage | None:
        """ChainWarpBackend: the unsigned message of an accepted SendWarpMessage with this ID."""
        raw = self.store.get(self._key(b"wm/", message_id))
        return None if raw is None else parse_unsigned_message(raw)

    def accepted_messages(self) -> list[UnsignedMessage]:
        """The unsigned message of every accepted SendWarpMessage (by message ID)."""
        return [parse_unsigned_message(raw) for _, raw in self.store.iterate(self._key(b"wm/"))]

    def is_accepted_block(self, block_id: bytes) -> bool:
        """ChainWarpBackend: is `block_id` the hash of an accepted block?"""
        return self.store.get(self._key(b"h/", block_id)) is not None
