"""EVMChain's mining schedule: automine (a block as soon as the event loop is free), interval
mining on the node's clock, `mine` and the empty blocks of anvil_mine / hardhat_mine."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import msgpack

from ..chain_context import ChainContext
from .block_rows import BLOCK_CACHE, BlockInfo
from .db import StoreKV
from .headers import EMPTY_ROOT_HASH, HeaderRules, block_header

log = logging.getLogger("simnode.evm")


class MiningSchedule:
    """EVMChain's part that decides when blocks are built (mixed into EVMChain)."""

    ctx: ChainContext
    clock: Any
    store: Any
    kv: StoreKV
    head: BlockInfo
    state_root: bytes
    header_rules: HeaderRules
    closed: bool
    automine: bool
    interval_ms: int
    next_timestamp: int | None
    _mine_scheduled: bool
    _interval_handle: Any
    _blocks: OrderedDict[int, BlockInfo]
    has_pending: Callable[[], bool]
    build_block: Callable[..., BlockInfo | None]
    fee_rules_for: Callable[[BlockInfo], Any]
    coinbase_for: Callable[[BlockInfo], bytes]
    _upgrades_between: Callable[[int, int, int], bool]
    _put_block_rows: Callable[..., bytes]
    _emit: Callable[[str, Any], None]
    _load_head: Callable[[], None]

    def request_mine(self) -> None:
        """Automine: build as soon as the loop is free, batching everything that arrived."""
        if self._mine_scheduled or not self.ctx.block_building.automatic:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.mine_pending()
            return
        self._mine_scheduled = True
        loop.call_soon(self._mine_soon)

    @property
    def mine_requested(self) -> bool:
        """An automine block is due at the event loop's next turn (request_mine)."""
        return self._mine_scheduled

    def _mine_soon(self) -> None:
        self._mine_scheduled = False
        if not self.closed and self.automine:
            try:
                self.mine_pending()
            except Exception:
                log.exception("automine failed")

    def mine_pending(self, max_blocks: int = 1_000_000) -> int:
        """Build blocks while executable txs remain; returns how many were built."""
        built = 0
        while built < max_blocks and self.has_pending():
            info = self.build_block()
            built += 1
            if info is None or not (info.raws or info.ext):
                break
        return built

    def mine(self, blocks: int) -> int:
        """Node-wide `mine`: `blocks` blocks now (pending txs first, then empty ones)."""
        built = 0
        while built < blocks and self.has_pending():
            self.build_block()
            built += 1
        if built < blocks:
            self.mine_empty(blocks - built)
        return blocks

    def _block_time_ms(self) -> int:
        now = self.clock.now_ms()
        parent_ms = self.head.ms
        if self.next_timestamp is not None:
            ts = self.next_timestamp * 1000
            self.next_timestamp = None
            return max(ts, parent_ms)
        return max(now, parent_ms)

    def mine_empty(self, count: int, interval_s: int | None = None) -> None:
        """anvil_mine / hardhat_mine: `count` empty blocks, O(1) each, committed in chunks."""
        remaining = count
        while remaining > 0:
            chunk = min(remaining, 500)
            batch = self.store.batch()
            for _ in range(chunk):
                parent = self.head
                if interval_s is not None and interval_s > 0:
                    ts_ms = parent.ms + interval_s * 1000
                else:
                    ts_ms = self._block_time_ms()
                if self._upgrades_between(parent.header.timestamp, ts_ms // 1000, parent.number + 1):
                    # an upgrade that changes state (coreth's warp account, a precompile
                    # activation): this one block is built the executing way, after the blocks before it
                    self.kv.flush_into(batch)
                    batch.commit()
                    batch = self.store.batch()
                    self.build_block(ts_ms, include_txs=False)
                    continue
                fee_state, base_fee, gas_limit = self.fee_rules_for(parent).next_block_fees(parent.fee, parent.ms,
                                                                                             ts_ms)
                header = block_header(
                    self.header_rules, parent=parent.header, parent_hash=parent.hash,
                    coinbase=self.coinbase_for(parent), state_root=self.state_root, transaction_root=EMPTY_ROOT_HASH,
                    receipt_root=EMPTY_ROOT_HASH, bloom=0, gas_limit=gas_limit, gas_used=0, ts_ms=ts_ms,
                    fee_extra=fee_state.encode(), base_fee=base_fee, block_gas_cost=fee_state.block_gas_cost)
                # the canonical hash stays in kv.pending until the chunk ends
                packed = self._put_block_rows(batch, header, ts_ms, fee_state, [], [], [])
                # make the new head visible to the next iteration without a store round trip
                info = BlockInfo(msgpack.unpackb(packed, raw=False), self.header_rules.coreth, header)
                self._blocks[info.number] = info
                self.head = info
                self._emit("block", info)
            self.kv.flush_into(batch)
            batch.commit()
            remaining -= chunk
            if len(self._blocks) > BLOCK_CACHE:
                while len(self._blocks) > BLOCK_CACHE:
                    self._blocks.popitem(last=False)
        self._load_head()
        if self.head.ms > self.clock.now_ms():
            try:
                self.clock.set_ms(self.head.ms)
            except Exception:  # noqa: BLE001 - a clock that cannot move keeps its time
                log.debug("clock not moved to %s", self.head.ms)

    # ------------------------------------------------------------------ interval mining

    def set_interval(self, seconds: float) -> None:
        if self._interval_handle is not None:
            self._interval_handle.cancel()
            self._interval_handle = None
        self.interval_ms = int(seconds * 1000)
        if self.interval_ms > 0:
            self.automine = False
            self._schedule_interval()
            notify = getattr(self.clock, "_notify", None)
            if notify is not None:
                notify()

    def set_automine(self, on: bool) -> None:
        self.automine = bool(on)
        if on:
            if self._interval_handle is not None:
                self._interval_handle.cancel()
                self._interval_handle = None
            self.interval_ms = 0
            if self.has_pending():
                self.request_mine()

    def _schedule_interval(self) -> None:
        at = self.clock.now_ms() + self.interval_ms
        self._interval_handle = self.clock.scheduler.schedule(at, self._on_interval)

    def _on_interval(self, _at_ms: int) -> None:
        self._interval_handle = None
        if self.closed or self.interval_ms <= 0:
            return
        try:
            if self.has_pending() and self.ctx.block_building.automatic:
                self.build_block()
        except Exception:
            log.exception("interval block failed")
        self._schedule_interval()
