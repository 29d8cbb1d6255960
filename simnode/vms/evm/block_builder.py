"""EVMChain's block builder: one block from the pool (or empty), executed on py-evm and accepted
in one batch; the upgrades a block applies to the state before its first tx."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from typing import TYPE_CHECKING

import msgpack

from ...fork.errors import ForkError
from ...icm.placement import place_messenger
from . import predicates
from .block_rows import BlockInfo, receipt_row
from .db import StoreKV
from .headers import HeaderRules, block_header, cancun_header
from .mempool import Mempool, PoolTx
from .precompiles import warp
from .precompiles.contract import BlockContext
from .precompiles.schedule import Schedule
from .receipts import logs_bloom, receipt_rlp
from .headers import ZERO_HASH
from .trieroot import ordered_trie_root

if TYPE_CHECKING:
    from eth.db.account import AccountDB

log = logging.getLogger("simnode.evm")


class BlockBuilder:
    """EVMChain's part that builds blocks (mixed into EVMChain)."""

    store: Any
    kv: StoreKV
    fork: Any
    atomic: Any
    pool: Mempool
    head: BlockInfo
    state_root: bytes
    header_rules: HeaderRules
    precompiles: Schedule
    first_local_block: int
    first_block_credits: tuple[tuple[bytes, int], ...]
    _view: AccountDB | None
    _block_time_ms: Callable[[], int]
    _cache_block: Callable[[BlockInfo], None]
    _emit: Callable[[str, Any], None]
    _put_block_rows: Callable[..., bytes]
    fee_rules_for: Callable[[BlockInfo], Any]
    coinbase_for: Callable[[BlockInfo], bytes]
    nonce_of: Callable[[bytes], int]
    vm_at: Callable[..., Any]
    warp_results: Callable[[Any, bytes, int], int | None]

    def build_block(self, ts_ms: int | None = None, include_txs: bool = True) -> BlockInfo | None:
        """Build, execute and accept one block from the pool (possibly empty)."""
        from eth._utils.address import generate_contract_address
        from eth.constants import BLANK_ROOT_HASH, EMPTY_UNCLE_HASH
        from eth_utils import ValidationError

        from .tracing import block_frames

        if ts_ms is None:
            ts_ms = self._block_time_ms()
        parent = self.head
        fee_state, base_fee, gas_limit = self.fee_rules_for(parent).next_block_fees(parent.fee, parent.ms, ts_ms)
        coinbase = self.coinbase_for(parent)
        header = cancun_header(dict(
            parent_hash=parent.hash, uncles_hash=EMPTY_UNCLE_HASH, coinbase=coinbase,
            state_root=self.state_root, transaction_root=BLANK_ROOT_HASH, receipt_root=BLANK_ROOT_HASH,
            bloom=0, difficulty=1, block_number=parent.number + 1, gas_limit=gas_limit, gas_used=0,
            timestamp=ts_ms // 1000, extra_data=b"", mix_hash=ZERO_HASH, nonce=b"\x00" * 8,
            base_fee_per_gas=base_fee, withdrawals_root=BLANK_ROOT_HASH, blob_gas_used=0, excess_blob_gas=0,
            parent_beacon_block_root=ZERO_HASH,
        ))
        vm = self.vm_at(header)
        state = vm.state
        self.apply_upgrades(state, parent.header.timestamp, header.block_number, header.timestamp)
        warp_failed = state.warp_failed
        results: dict[bytes, dict[bytes, bytes]] = {}  # included txs' predicate results
        included: list[PoolTx] = []
        receipts: list[bytes] = []  # consensus RLP, for the receipt trie
        rows: list[list] = []
        frames: list[list[list]] = []  # per included tx, its recorded call frames
        dropped: list[PoolTx] = []
        gas_used = 0
        bloom = 0
        if include_txs:
            it = self.pool.iter_for_block(base_fee, self.nonce_of)
            p = next(it, None)
            while p is not None:
                ok = True
                if gas_used + p.gas > gas_limit:
                    ok = False
                    if gas_limit - gas_used < 21000:
                        break
                else:
                    failed = self.warp_results(p.tx, p.hash, header.timestamp)
                    if failed is not None:
                        warp_failed[p.tx.hash] = failed
                    traced = block_frames.start()
                    # py-evm's VM.apply_transaction, its receipt built from the rows' own form
                    # (receipts.py) instead of py-evm's receipt objects; the block's gas limit
                    # was checked above
                    state.lock_changes()
                    snap = state.snapshot() if self.fork is not None else None
                    try:
                        comp = state.apply_transaction(p.tx)
                    except ValidationError as exc:
                        log.debug("tx 0x%s dropped from block: %s", p.hash.hex(), exc)
                        dropped.append(p)
                        ok = False
                    except ForkError as exc:  # a fork's upstream could not give a value the tx read
                        state.revert(snap)
                        log.warning("tx 0x%s dropped from block: %s", p.hash.hex(), exc)
                        self.fork.failed[p.hash] = exc.message
                        dropped.append(p)
                        ok = False
                    else:
                        used = vm.finalize_gas_used(p.tx, comp)
                        gas_used += used
                        logs = [[address, [t.to_bytes(32, "big") for t in topics], data]
                                for address, topics, data in comp.get_log_entries()]
                        tx_bloom = logs_bloom(logs)
                        bloom |= tx_bloom
                        eff = min(p.max_fee, base_fee + p.tip)
                        contract = generate_contract_address(p.sender, p.nonce) if p.tx.to == b"" else None
                        status = 0 if comp.is_error else 1
                        rows.append(receipt_row(status, gas_used, used, eff, contract, logs))
                        receipts.append(receipt_rlp(p.type_id, status == 1, gas_used, tx_bloom, logs))
                        included.append(p)
                        if failed is not None:
                            results[p.hash] = {warp.ADDRESS: predicates.bits_bytes(
                                i for i in range(failed.bit_length()) if failed >> i & 1)}
                        frames.append(traced)
                try:
                    p = it.send(ok)
                except StopIteration:
                    p = None
        block_frames.stop()
        built_atomic = None
        if include_txs and self.atomic is not None and self.atomic.has_pending():
            built_atomic = self.atomic.build(state, base_fee, ts_ms // 1000)
        ext = built_atomic.ext if built_atomic is not None else b""
        ext_gas = built_atomic.gas if built_atomic is not None else 0
        fee_after = fee_state.consume(gas_used + ext_gas)
        # py-evm's finalize_block without its parts that do nothing here (no PoS block rewards)
        # or cost without use (a block object, two header copies, a formatted debug line)
        state.persist()
        raws = [p.raw for p in included]
        final_header = block_header(
            self.header_rules, parent=parent.header, parent_hash=parent.hash, coinbase=coinbase,
            state_root=state.state_root, transaction_root=ordered_trie_root(raws),
            receipt_root=ordered_trie_root(receipts), bloom=bloom, gas_limit=gas_limit, gas_used=gas_used,
            ts_ms=ts_ms, fee_extra=fee_after.encode(), base_fee=base_fee, block_gas_cost=fee_state.block_gas_cost,
            ext=ext, ext_gas_used=ext_gas, predicate_results=predicates.encode_results(results))
        batch = self.store.batch()
        packed = self._put_block_rows(batch, final_header, ts_ms, fee_after, raws, [p.sender for p in included],
                                      rows, pre=None if header.state_root == parent.header.state_root
                                      else header.state_root, ext=ext, ext_gas=ext_gas, frames=frames)
        self.kv.flush_into(batch)
        if built_atomic is not None:
            self.atomic.write_accepted(batch, built_atomic, final_header.block_number)
        batch.commit()
        if built_atomic is not None:
            self.atomic.after_accept(built_atomic)
        for p in dropped:
            self.pool.remove(p.hash)
        for p in included:
            self.pool.remove(p.hash)
        # the new head straight from the row just committed (what _load_head would read back)
        info = BlockInfo(msgpack.unpackb(packed, raw=False), self.header_rules.coreth, final_header)
        info._txs = [p.tx for p in included]  # already decoded, senders set (submit_tx)
        self._cache_block(info)
        self.head = info
        self.state_root = info.header.state_root
        self._view = None
        self._emit("block", self.head)
        return self.head

    def apply_upgrades(self, state: Any, parent_time: int | None, number: int, time: int) -> None:
        """What block `number` at `time` (s) on a parent at `parent_time` (None: the genesis,
        before its alloc) does to the state before its first tx, as coreth's and subnet-evm's
        ApplyUpgrades: the precompile configs that activate (or disable) in it (on the C-Chain,
        Warp's account at Durango); the chain's first block (block 1; on a fork N+1, with the
        upstream's messenger, or none) first places the ICM messenger (icm/placement.py) and
        credits `first_block_credits`."""
        if number == self.first_local_block and parent_time is not None:
            if self.fork is None:  # a forked chain has the upstream's messenger, or none
                place_messenger(state)
            for address, amount in self.first_block_credits:
                state.set_balance(address, state.get_balance(address) + amount)
        self.precompiles.activate(state, parent_time, BlockContext(number, time))

    def _upgrades_between(self, parent_time: int, time: int, number: int) -> bool:
        """Does block `number` at `time` on a parent at `parent_time` change the state before its txs?"""
        return number == self.first_local_block or bool(self.precompiles.activating(parent_time, time))
