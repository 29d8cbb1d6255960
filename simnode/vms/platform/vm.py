"""The P-Chain VM: genesis, issuance, block building/acceptance, time-driven staker transitions.

Mempool txs go into BanffStandardBlocks (blocks.py), built as soon as a tx is issued (the
simulator's "automine"). Chain time must also pass staker end times and L1 validators'
deactivation times: those transitions are driven by clock events, never by reading the wall clock.
As in AvalancheGo, each staker whose end time has come leaves through its own BanffProposalBlock
(holding its RewardValidatorTx) and the decision on it, a BanffCommitBlock: stakers ending at the
same second give consecutive pairs, in the order of the current staker set.

The VM decides what happens when; the rules are below it: executor.py verifies a tx into an
`Effects`, effects.py writes it, time_transitions.py is what the passing of chain time does to the
state, staker_history.py the stakers' history records. They read the VM through
context.PlatformContext and never import this module.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any

from simnode.clock import EventHandle
from simnode.codec import CodecError, SignedTx
from simnode.formats import id_to_str
from simnode.formats.ids import PLATFORM_VM_ID, ZERO_ID
from simnode.genesis import build_genesis
from simnode.network import params_for
from simnode.vms import atomic
from simnode.vms.chain_context import ChainContext

from . import blocks, executor, fees, rewards
from . import txs as t
from .effects import apply
from .staker_history import history_add
from .state import (
    PRIMARY,
    PRIO_PRIMARY_VALIDATOR,
    ChainRecord,
    L1Validator,
    Staker,
    State,
)
from .time_transitions import advance_chain_state, next_l1_deactivation, reward_staker
from .tx_parts import ProofOfPossession
from .verifier import TxError
from .verify_l1 import verify_warp_messages
from simnode.errors import Refused

log = logging.getLogger("simnode.platform")
DROPPED_KEPT = 64  # dropped tx IDs and why (AvalancheGo's mempool keeps the last 64)


class IssueError(Refused):
    pass


class PlatformVM:
    name = "P-Chain"
    vm_id = PLATFORM_VM_ID
    default_aliases = ("P", "platform")

    def __init__(self, ctx: ChainContext) -> None:
        self.ctx = ctx
        self.chain_id = ZERO_ID
        self.subnet_id = ZERO_ID
        self.clock = ctx.clock
        self.network_id = ctx.genesis.network_id
        self.hrp = ctx.genesis.hrp
        self.avax_asset_id = ctx.genesis.avax_asset_id
        self.x_chain_id = ctx.genesis.x_chain_id
        self.c_chain_id = ctx.genesis.c_chain_id
        params = params_for(self.network_id)
        self.staking = params.staking
        self.upgrades = params.upgrades
        self.fee_config = fees.LOCAL_FEE_CONFIG
        self.validator_fee_config = fees.validator_fee_config_for(self.network_id)
        self.state = State(ctx.store)
        self.mempool: list[SignedTx] = []
        self.dropped: OrderedDict[bytes, str] = OrderedDict()  # the last DROPPED_KEPT, as AvalancheGo's
        self._timer: EventHandle | None = None
        self._timer_at: int | None = None
        self._in_advance = False
        self.listeners: list = []  # called with (height, block_id, [tx_ids]) after each accepted block
        self.genesis = self._genesis()
        # on a fork of a live network: the upstream's P-Chain at the fork (fork.py)
        self.fork: Any = None
        self.utxo_fork: Any = None
        if ctx.fork is not None:
            from .fork import PlatformFork
            self.fork = PlatformFork(self, ctx.fork)
            self.utxo_fork = self.fork.utxos()
            self.state.upstream_tx = self.fork.tx_bytes
        if self.state.is_initialized():
            self.state.load()
        elif self.fork is not None:
            self.fork.init_state()
        else:
            self._init_genesis()
        if ctx.indexer is not None:
            ctx.indexer.chain_opened(self)  # indexes blocks accepted while indexing was off
        self.advance_to(self.clock.now())
        self._reschedule()

    # ----------------------------------------------------------------------------- Chain protocol

    def is_bootstrapped(self) -> bool:
        return True

    def last_accepted(self) -> tuple[bytes, int] | None:
        return self.state.meta.last_block_id, self.state.meta.height

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def reload(self) -> None:
        """Re-read everything from the store (after a node-wide revert)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._reload_state()
        self.mempool.clear()
        self.dropped.clear()
        self._timer_at = None
        self._reschedule()

    def _reload_state(self) -> None:
        """A fresh in-memory state from the committed store (loading into the old object would
        count every staker twice)."""
        self.state = State(self.ctx.store)
        self.state.upstream_tx = None if self.fork is None else self.fork.tx_bytes
        self.state.load()

    def mine(self, blocks: int) -> int:
        """Build up to `blocks` blocks from the mempool (the P-Chain builds no empty blocks)."""
        built = 0
        while built < blocks and self.mempool:
            if self.build_block() is None:
                break
            built += 1
        return built

    # ----------------------------------------------------------------------------- genesis

    def _genesis(self) -> Any:
        """The node's genesis (its stakers' signers are the keys they sign with, see node.py) at the
        node's genesis time."""
        g = self.ctx.genesis
        start = self.ctx.genesis_time or g.start_time
        return g if start == g.start_time else build_genesis(g.config, start)

    def _init_genesis(self) -> None:
        g = self.genesis
        st = self.state
        st.w = self.ctx.store.batch()
        st.meta.timestamp = g.start_time
        st.meta.supply = {PRIMARY: g.initial_supply}
        for entry in g.p_utxos:
            st.add_utxo(entry.utxo)
        for v in g.validators:
            supply = st.meta.supply[PRIMARY]
            duration = v.end_time - v.start_time
            reward = rewards.calculate(self.staking, duration, v.weight, supply)
            st.meta.supply[PRIMARY] = supply + reward
            staker = Staker(v.tx_id, v.node_id, PRIMARY, PRIO_PRIMARY_VALIDATOR, v.weight, v.start_time, v.end_time,
                            reward, v.signer.public_key if v.signer else None, v.delegation_fee, 0)
            st.put_staker(staker)
            st.put_tx(v.tx_id, v.tx_bytes, "Committed", 0)
            history_add(st, staker, "validator")
        for c in g.chains:
            st.put_chain(ChainRecord(c.chain_id, c.subnet_id, c.name, c.vm_id, b""))
            st.put_tx(c.chain_id, c.tx_bytes, "Committed", 0)
        genesis_block = blocks.genesis_block_bytes(g.p_genesis_bytes)
        st.put_block(g.p_genesis_block_id, 0, genesis_block)
        st.meta.height = 0
        st.meta.last_block_id = g.p_genesis_block_id
        st.flush_vdiff(0)
        self._index_block(0, g.p_genesis_block_id, genesis_block, st.put_facts(0, g.start_time))
        st.save_meta()
        st.w.commit()
        st.w = None

    # ----------------------------------------------------------------------------- fees / time helpers

    def fee_state_at(self, time: int) -> fees.FeeState:
        m = self.state.meta
        fs = fees.FeeState(m.fee_capacity, m.fee_excess)
        return fs.advance(self.fee_config, max(0, time - m.timestamp))

    def gas_price(self, time: int | None = None) -> int:
        t_ = self.next_block_time() if time is None else time
        return self.fee_state_at(t_).price(self.fee_config)

    def next_block_time(self) -> int:
        return max(self.clock.now(), self.state.meta.timestamp)

    @property
    def timestamp(self) -> int:
        return self.state.meta.timestamp

    @property
    def height(self) -> int:
        return self.state.meta.height

    def current_supply(self, subnet_id: bytes = PRIMARY) -> int:
        return self.state.meta.supply.get(subnet_id, 0)

    # ----------------------------------------------------------------------------- issuance

    def parse(self, tx_bytes: bytes) -> SignedTx:
        return t.parse_tx(tx_bytes)

    def issue_tx(self, tx_bytes: bytes, build: bool = True) -> bytes:
        """Verify and add to the mempool (then build a block); raises IssueError with AvalancheGo's text."""
        try:
            stx = t.parse_tx(tx_bytes)
        except CodecError as e:
            # the service and txs.Parse each say so
            raise IssueError(f"couldn't parse tx: couldn't parse tx: {e}") from None
        tx_id = stx.tx_id
        try:
            self._add_to_mempool(stx)
        except TxError as e:
            raise IssueError(f"couldn't issue tx: {e}") from None
        if build and self.ctx.block_building.automatic:
            self.build_block()
        return tx_id

    def _drop(self, tx_id: bytes, reason: str) -> None:
        self.dropped[tx_id] = reason
        self.dropped.move_to_end(tx_id)
        while len(self.dropped) > DROPPED_KEPT:
            self.dropped.popitem(last=False)

    def _add_to_mempool(self, stx: SignedTx) -> None:
        tx_id = stx.tx_id
        if any(m.tx_id == tx_id for m in self.mempool):
            raise TxError(f"tx {id_to_str(tx_id)} dropped: duplicate tx")
        if tx_id in self.dropped:
            raise TxError(self.dropped[tx_id])
        self.advance_to(self.clock.now())
        self._touch_inputs(stx)
        when = self.next_block_time()
        fs = self.fee_state_at(when)
        try:
            verify_warp_messages(self, stx.unsigned)
            try:  # AvalancheGo's block manager sizes every tx first (legacy and proposal types: unsupported)
                gas = fees.tx_gas(stx.unsigned, self.fee_config)
            except fees.UnsupportedTx as e:
                raise TxError(f"failed to calculate tx complexity: {e}") from None
            if gas > fs.capacity:
                raise TxError(f"tx exceeds current gas capacity: {gas} > {fs.capacity}")
            executor.verify(self, stx, when, fs.price(self.fee_config), pending=self.mempool)
        except TxError as e:
            reason = str(e)
            self._drop(tx_id, reason)
            raise TxError(f"failed verification: {reason}") from None
        self.mempool.append(stx)

    @property
    def first_indexed_block(self) -> int:
        """The first block the index derives rows from (on a fork: the first after the upstream's)."""
        if self.fork is None:
            return 0
        from .state import K_HEIGHT
        first = next(iter(self.ctx.store.iterate(K_HEIGHT)), None)
        return 0 if first is None else int.from_bytes(first[0][len(K_HEIGHT):], "big") + 1

    def touch_addresses(self, addresses: Any, source: bytes | None = None) -> None:
        """On a fork: bring the upstream UTXOs of `addresses` (own, or exported to the P-Chain by
        `source`) into the fork the first time (vms/fork_utxos.py). Nothing otherwise."""
        if self.utxo_fork is not None:
            self.utxo_fork.touch(addresses, source)

    def fund(self, address: bytes, amount: int) -> bytes:
        """simnode.fundAddress: a new AVAX UTXO of `amount` nAVAX owned by `address` (faucet.py);
        returns its UTXO's tx ID (output 0)."""
        from simnode.vms.faucet import fund_utxo
        self.touch_addresses((address,))
        st = self.state
        st.w = self.ctx.store.batch()
        try:
            utxo = fund_utxo(st.w, self.chain_id, self.avax_asset_id, address, amount)
            st.add_utxo(utxo)
            st.w.commit()
        finally:
            st.w = None
        return utxo.tx_id

    def _touch_inputs(self, stx: SignedTx) -> None:
        """On a fork: a tx spending UTXOs the fork does not hold brings its signers' upstream UTXOs in."""
        if self.utxo_fork is None:
            return
        tx = stx.unsigned
        own = [i for i in (tx.base.ins if hasattr(tx, "base") else ()) if self.state.get_utxo(i.utxo_id) is None]
        source = getattr(tx, "source_chain", None)
        imported = [i for i in getattr(tx, "imported_inputs", ())
                    if atomic.get_utxo(self.ctx.store, self.chain_id, source, i.utxo_id) is None]
        if not own and not imported:
            return
        from simnode.vms.fork_utxos import signer_addresses
        signers = signer_addresses(stx.unsigned_hash, stx.credentials)
        if own:
            self.utxo_fork.touch(signers)
        if imported:
            self.utxo_fork.touch(signers, source)

    def signer_of(self, tx_id: bytes, tx: Any) -> tuple[bytes, bytes] | None:
        """A validator's BLS key and proof of possession as this P-Chain reports them: its tx's,
        or on a fork the key simnode gave the forked validator."""
        if not isinstance(getattr(tx, "signer", None), ProofOfPossession):
            return None
        if self.fork is not None:
            from simnode.store import unpack
            from .fork import SIGNER_PREFIX
            raw = self.state.get(SIGNER_PREFIX + tx_id)
            if raw is not None:
                pk, pop = unpack(raw)
                return pk, pop
        return tx.signer.public_key, tx.signer.proof

    def tx_status(self, tx_id: bytes) -> tuple[str, str | None]:
        rec = self.state.get_tx(tx_id)
        if rec is not None:
            return rec[1], None
        if any(m.tx_id == tx_id for m in self.mempool):
            return "Processing", None
        if tx_id in self.dropped:
            return "Dropped", self.dropped[tx_id]
        return "Unknown", None

    # ----------------------------------------------------------------------------- blocks

    def build_block(self) -> bytes | None:
        """Build and accept one block from the mempool at max(now, chain time)."""
        if not self.mempool:
            return None
        now = self.clock.now()
        self.advance_to(now)
        when = self.next_block_time()
        st = self.state
        st.w = self.ctx.store.batch()
        try:
            advance_chain_state(self, when)
            fs = fees.FeeState(st.meta.fee_capacity, st.meta.fee_excess)
            price = fs.price(self.fee_config)
            included: list[SignedTx] = []
            keep: list[SignedTx] = []
            for stx in self.mempool:
                try:
                    verify_warp_messages(self, stx.unsigned)
                    eff = executor.verify(self, stx, when, price)
                except TxError as e:
                    self._drop(stx.tx_id, str(e))
                    continue
                if eff.gas > fs.capacity:
                    keep.append(stx)
                    continue
                fs = fs.consume(eff.gas)
                apply(self, stx, eff)
                included.append(stx)
            st.meta.fee_capacity, st.meta.fee_excess = fs.capacity, fs.excess
            self.mempool = keep
            if not included:
                st.w = None
                if keep:
                    self._schedule_retry(keep)
                return None
            block_id = self._finish_block(when, included)
        except BaseException:
            st.w = None
            self._reload_state()  # drop half-applied in-memory changes
            raise
        if keep:
            self._schedule_retry(keep)
        return block_id

    def _schedule_retry(self, keep: list[SignedTx]) -> None:
        need = max(fees.tx_gas(s.unsigned, self.fee_config) for s in keep)
        m = self.state.meta
        secs = max(1, -(-(need - m.fee_capacity) // self.fee_config.max_per_second))
        self.clock.scheduler.schedule((m.timestamp + secs) * 1000, lambda _ms: self._retry_build())

    def _retry_build(self) -> None:
        if self.ctx.block_building.automatic:
            self.build_block()

    def _finish_block(self, when: int, txs_: list[SignedTx]) -> bytes:
        m = self.state.meta
        block = blocks.encode_standard_block(when, m.last_block_id, m.height + 1, [s.tx_bytes for s in txs_])
        return self._accept([(block, txs_)])

    def _accept(self, decided: list[tuple[bytes, list[SignedTx]]]) -> bytes:
        """Accept blocks at the next heights (each the parent of the next) in the open batch: their bytes, their
        txs, the state changes (validator-set diffs at the last block's height, where AvalancheGo writes them)
        and the last-accepted pointer; commit the batch, then tell the listeners. Returns the last block's ID."""
        st = self.state
        m = st.meta
        accepted: list[tuple[int, bytes, list[bytes]]] = []
        for block, txs_ in decided:
            height = m.height + 1
            block_id = blocks.block_id(block)
            st.put_block(block_id, height, block)
            self._index_block(height, block_id, block, st.put_facts(height, m.timestamp))
            for s in txs_:
                st.put_tx(s.tx_id, s.tx_bytes, "Committed", height)
                self.dropped.pop(s.tx_id, None)
            m.height = height
            m.last_block_id = block_id
            accepted.append((height, block_id, [s.tx_id for s in txs_]))
        st.flush_vdiff(m.height)
        st.save_meta()
        st.w.commit()
        st.w = None
        for height, block_id, tx_ids in accepted:
            for listener in list(self.listeners):
                try:
                    listener(height, block_id, tx_ids)
                except Exception:  # a listener must not break the chain
                    log.exception("block listener failed")
        self._reschedule()
        return m.last_block_id

    def _index_block(self, height: int, block_id: bytes, block: bytes, facts: list) -> None:
        if self.ctx.indexer is not None:
            self.ctx.indexer.block_accepted(self, {"height": height, "id": block_id, "b": block, "facts": facts},
                                            self.state.w)

    def block_row(self, height: int) -> dict | None:
        """Block `height` as the indexer is handed it: its ID, bytes and facts (None: no such
        block, or stored before the P-Chain kept its facts)."""
        st = self.state
        facts = st.facts_at(height)
        block_id = st.block_id_at(height)
        if facts is None or block_id is None:
            return None
        return {"height": height, "id": block_id, "b": st.block_by_id(block_id), "facts": facts}

    # ----------------------------------------------------------------------------- time

    def next_change_time(self) -> int | None:
        nxt = self.state.next_staker_end()
        times = [nxt[0]] if nxt else []
        l1 = next_l1_deactivation(self)
        if l1 is not None:
            times.append(l1)
        return min(times) if times else None

    def advance_to(self, target: int) -> None:
        """Make every staker transition due by `target` happen, each in a block at its own time."""
        if self._in_advance:
            return
        self._in_advance = True
        try:
            while True:
                nxt = self.next_change_time()
                if nxt is None or nxt > target:
                    break
                self._time_block(max(nxt, self.state.meta.timestamp))
        finally:
            self._in_advance = False

    def _on_timer(self, at_ms: int) -> None:
        self._timer = None
        self._timer_at = None
        self.advance_to(max(at_ms // 1000, self.clock.now()))
        self._reschedule()

    def _reschedule(self) -> None:
        nxt = self.next_change_time()
        if nxt == self._timer_at:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timer_at = nxt
        if nxt is not None:
            self._timer = self.clock.scheduler.schedule(nxt * 1000, self._on_timer)

    def _time_block(self, when: int) -> None:
        """What AvalancheGo's buildBlock makes at `when` (a staker end time or an L1 deactivation time).

        If the next staker to reward (getNextStakerToReward: the first current staker in (end, priority,
        txID) order that is not a permissioned subnet validator — those left in AdvanceTimeTo) ends by
        `when`: a BanffProposalBlock with its RewardValidatorTx, then the decision on it. The node's
        preference is to commit (the uptime requirement is always met here), so a BanffCommitBlock follows;
        abort blocks are never built. Otherwise an empty BanffStandardBlock that only advances time.

        The proposal and its commit go to the store in ONE batch, as AvalancheGo's acceptor writes a
        proposal block only together with its accepted option (the engine needs the last committed block
        to be a decision block): a crash never leaves a proposal without its decision, and on restart
        `advance_to` builds the pairs still due.
        """
        st = self.state
        st.w = self.ctx.store.batch()
        try:
            advance_chain_state(self, when)
            nxt = st.next_staker_end()
            if nxt is None or nxt[0] > when:
                self._finish_block(when, [])
                return
            m = st.meta
            reward_tx = t.sign_tx(t.RewardValidatorTx(nxt[2]), [])
            proposal = blocks.encode_proposal_block(when, m.last_block_id, m.height + 1, reward_tx.tx_bytes)
            commit = blocks.encode_commit_block(when, blocks.block_id(proposal), m.height + 2)
            reward_staker(self, st.stakers[nxt[2]], reward_tx.tx_id)
            self._accept([(proposal, [reward_tx]), (commit, [])])
        except BaseException:
            st.w = None
            self._reload_state()
            raise


def l1_balance(vm: PlatformVM, v: L1Validator) -> int:
    return max(0, v.end_accumulated_fee - vm.state.meta.accrued_fees) if v.end_accumulated_fee else 0
