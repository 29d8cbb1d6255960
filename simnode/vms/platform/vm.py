"""The P-Chain VM: genesis, issuance, block building/acceptance, time-driven staker transitions.

Mempool txs go into BanffStandardBlocks (blocks.py), built as soon as a tx is issued (the
simulator's "automine"). Chain time must also pass staker end times and L1 validators'
deactivation times: those transitions are driven by clock events, never by reading the wall clock.
As in AvalancheGo, each staker whose end time has come leaves through its own BanffProposalBlock
(holding its RewardValidatorTx) and the decision on it, a BanffCommitBlock: stakers ending at the
same second give consecutive pairs, in the order of the current staker set.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from simnode.codec import UTXO, CodecError, SignedTx, TransferOutput
from simnode.formats import id_to_str
from simnode.formats.ids import PLATFORM_VM_ID, ZERO_ID
from simnode.genesis import build_genesis
from simnode.network import params_for
from simnode.vms import atomic
from simnode.warp import signatures
from simnode.warp.errors import WarpError
from simnode.warp.message import parse_signed_message

from . import blocks, fees, rewards
from . import txs as t
from .executor import Effects, TxError, Verifier, pchain_owner_from_bytes
from .state import (
    PRIMARY,
    PRIO_PRIMARY_DELEGATOR,
    PRIO_PRIMARY_VALIDATOR,
    PRIO_SUBNET_PERMISSIONED,
    ChainRecord,
    L1Validator,
    Staker,
    State,
    Subnet,
)

log = logging.getLogger("simnode.platform")

MAX_U64 = (1 << 64) - 1
MAX_L1_LOOKAHEAD = 10 * 365 * 24 * 3600
WARP_QUORUM_NUMERATOR = 67  # hard-coded for the L1 messages the P-Chain consumes
WARP_QUORUM_DENOMINATOR = 100


class IssueError(ValueError):
    pass


class PlatformVM:
    name = "P-Chain"
    vm_id = PLATFORM_VM_ID
    default_aliases = ("P", "platform")

    def __init__(self, ctx: Any) -> None:
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
        self.dropped: dict[bytes, str] = {}
        self._timer = None
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
            self._history_add(staker, "validator")
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
            raise IssueError(f"couldn't parse tx: {e}") from None
        tx_id = stx.tx_id
        try:
            self._add_to_mempool(stx)
        except TxError as e:
            raise IssueError(f"couldn't issue tx: {e}") from None
        if build and self.ctx.block_building.automatic:
            self.build_block()
        return tx_id

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
            self.verify_warp(stx.unsigned)
            if isinstance(stx.unsigned, t.UnsignedTx):
                gas = fees.tx_gas(stx.unsigned, self.fee_config)
                if gas > fs.capacity:
                    raise TxError(f"tx exceeds current gas capacity: {gas} > {fs.capacity}")
            self._verify(stx, when, fs.price(self.fee_config), pending=self.mempool)
        except TxError as e:
            reason = str(e)
            self.dropped[tx_id] = reason
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
        if not isinstance(getattr(tx, "signer", None), t.ProofOfPossession):
            return None
        if self.fork is not None:
            from simnode.store import unpack
            from .fork import SIGNER_PREFIX
            raw = self.state.get(SIGNER_PREFIX + tx_id)
            if raw is not None:
                pk, pop = unpack(raw)
                return pk, pop
        return tx.signer.public_key, tx.signer.proof

    def verify_warp(self, tx: Any) -> None:
        """VerifyWarpMessages, done before a tx executes: a RegisterL1ValidatorTx's or
        SetL1ValidatorWeightTx's message must be signed by at least 67% of the weight of its source
        chain's subnet at the current P-Chain height."""
        if not isinstance(tx, (t.RegisterL1ValidatorTx, t.SetL1ValidatorWeightTx)):
            return
        try:
            msg = parse_signed_message(tx.message)
            source = msg.unsigned.source_chain_id
            subnet = self.state.subnet_of_chain(source)
            if subnet is None:
                raise WarpError(f'problem retrieving blockchain "{id_to_str(source)}": not found')
            warp_set = self.state.warp_set(subnet, self.state.meta.height)
            signatures.verify(msg, self.network_id, warp_set, WARP_QUORUM_NUMERATOR, WARP_QUORUM_DENOMINATOR)
        except (CodecError, WarpError) as e:
            raise TxError(f"failed verifying warp messages: {e}") from None

    def _verify(self, stx: SignedTx, when: int, price: int, pending: list[SignedTx] | None = None) -> Effects:
        try:
            if pending:
                spent = {i.utxo_id for m in pending for i in m.unsigned.all_inputs()} \
                    if pending else set()
                for i in getattr(stx.unsigned, "all_inputs", lambda: ())():
                    if i.utxo_id in spent:
                        raise TxError(f"failed to read consumed UTXO {id_to_str(i.tx_id)}:{i.output_index} "
                                      "due to: not found")
            try:
                return Verifier(self, stx, when, price).run()
            except CodecError as e:
                raise TxError(str(e)) from None
        except TxError as e:
            raise TxError(f"failed execution: standard tx {id_to_str(stx.tx_id)} failed execution: {e}") from None

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
            self._advance_chain_state(when)
            fs = fees.FeeState(st.meta.fee_capacity, st.meta.fee_excess)
            price = fs.price(self.fee_config)
            included: list[SignedTx] = []
            keep: list[SignedTx] = []
            for stx in self.mempool:
                try:
                    self.verify_warp(stx.unsigned)
                    eff = self._verify(stx, when, price)
                except TxError as e:
                    self.dropped[stx.tx_id] = str(e)
                    continue
                if eff.gas > fs.capacity:
                    keep.append(stx)
                    continue
                fs = fs.consume(eff.gas)
                self._apply(stx, eff)
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

    def _next_l1_deactivation(self) -> int | None:
        v = self.state.next_l1_to_deactivate()
        if v is None:
            return None
        m = self.state.meta
        remaining = max(0, v.end_accumulated_fee - m.accrued_fees)
        secs = fees.validator_seconds_remaining(self.validator_fee_config, self.state.num_active_l1, m.l1_excess,
                                                MAX_L1_LOOKAHEAD, remaining)
        return m.timestamp + secs

    def next_change_time(self) -> int | None:
        nxt = self.state.next_staker_end()
        times = [nxt[0]] if nxt else []
        l1 = self._next_l1_deactivation()
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

    def _advance_chain_state(self, when: int) -> None:
        """AdvanceTimeTo: fee states, L1 validator fees and deactivations, expiries, timestamp."""
        st = self.state
        m = st.meta
        seconds = max(0, when - m.timestamp)
        fs = fees.FeeState(m.fee_capacity, m.fee_excess).advance(self.fee_config, seconds)
        m.fee_capacity, m.fee_excess = fs.capacity, fs.excess
        st.remove_stale_expiries(when)
        cfg = self.validator_fee_config
        cost = fees.validator_cost_of(cfg, st.num_active_l1, m.l1_excess, seconds)
        if cost and st.num_active_l1:
            st.facts.charged(m.timestamp, seconds, st.num_active_l1, m.l1_excess,
                             [[v.validation_id, v.subnet_id, v.node_id, min(cost, v.end_accumulated_fee - m.accrued_fees)]
                              for v in st.l1.values() if v.end_accumulated_fee])
        m.accrued_fees = min(m.accrued_fees + cost, MAX_U64)
        while True:
            v = st.next_l1_to_deactivate()
            if v is None or v.end_accumulated_fee > m.accrued_fees:
                break
            nv = replace(v, end_accumulated_fee=0)
            st.put_l1(nv)
        m.l1_excess = fees.validator_advance(st.num_active_l1, m.l1_excess, cfg.target, seconds)
        m.timestamp = max(m.timestamp, when)
        for s in st.pop_permissioned_ending_by(when):
            st.remove_staker(s)
            self._history_end(s, "completed", 0, [])

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
            self._advance_chain_state(when)
            nxt = st.next_staker_end()
            if nxt is None or nxt[0] > when:
                self._finish_block(when, [])
                return
            m = st.meta
            reward_tx = t.sign_tx(t.RewardValidatorTx(nxt[2]), [])
            proposal = blocks.encode_proposal_block(when, m.last_block_id, m.height + 1, reward_tx.tx_bytes)
            commit = blocks.encode_commit_block(when, blocks.block_id(proposal), m.height + 2)
            self._reward(st.stakers[nxt[2]], reward_tx.tx_id)
            self._accept([(proposal, [reward_tx]), (commit, [])])
        except BaseException:
            st.w = None
            self._reload_state()
            raise

    # ----------------------------------------------------------------------------- rewards

    def _staker_tx(self, tx_id: bytes) -> Any:
        rec = self.state.get_tx(tx_id)
        return t.parse_tx(rec[0]).unsigned

    def _reward(self, s: Staker, reward_tx_id: bytes) -> None:
        """RewardValidatorTx (commit path: uptime is always 100%)."""
        st = self.state
        tx = self._staker_tx(s.tx_id)
        outputs = tx.base.outs
        stake = tx.stake_outs
        asset = stake[0].asset_id
        offset = len(outputs)
        for i, out in enumerate(stake):
            st.add_utxo(UTXO(s.tx_id, offset + i, out.asset_id, out.out))
        index = offset + len(stake)
        made: list[bytes] = []
        if s.priority == PRIO_PRIMARY_VALIDATOR or isinstance(tx, t.VALIDATOR_TX_TYPES):
            paid = 0
            if s.potential_reward > 0:
                u = UTXO(s.tx_id, index, asset, TransferOutput(s.potential_reward, tx.validation_rewards_owner))
                st.add_utxo(u)
                st.put_reward_utxo(s.tx_id, index, u)
                made.append(u.id)
                index += 1
                paid += s.potential_reward
            if s.delegatee_reward > 0:
                u = UTXO(s.tx_id, index, asset, TransferOutput(s.delegatee_reward, tx.delegation_rewards_owner))
                st.add_utxo(u)
                st.put_reward_utxo(s.tx_id, index, u)
                made.append(u.id)
            st.remove_staker(s)
            self._history_end(s, "completed", s.potential_reward, made, s.delegatee_reward, reward_tx_id)
            return
        # delegator
        vdr = st.get_validator(s.subnet_id, s.node_id)
        shares = vdr.delegation_shares if vdr else 0
        delegatee, delegator = rewards.split(s.potential_reward, shares)
        if delegator > 0:
            u = UTXO(s.tx_id, index, asset, TransferOutput(delegator, tx.rewards_owner))
            st.add_utxo(u)
            st.put_reward_utxo(s.tx_id, index, u)
            made.append(u.id)
        if delegatee > 0 and vdr is not None:
            vdr.delegatee_reward += delegatee
            st.update_staker(vdr)
        st.remove_staker(s)
        self._history_end(s, "completed", delegator, made, delegatee, reward_tx_id)

    # ----------------------------------------------------------------------------- history

    def _history_add(self, s: Staker, kind: str) -> None:
        self.state.put_history(s.tx_id, {
            "kind": kind, "status": "active", "nodeID": s.node_id, "subnetID": s.subnet_id, "weight": s.weight,
            "start": s.start, "end": s.end, "potentialReward": s.potential_reward, "delegationFee": s.delegation_shares,
            "rewardAmount": 0, "delegateeReward": 0, "rewardUTXOs": [], "rewardTxID": None, "endHeight": None,
            "startHeight": self.state.meta.height + 1 if self.state.w is not None and self.state.meta.last_block_id
            != bytes(32) else 0,
        })

    def _history_end(self, s: Staker, status: str, amount: int, utxo_ids: list[bytes], delegatee: int = 0,
                     reward_tx_id: bytes | None = None) -> None:
        """The staker's end in its history; endHeight is the block being built (a reward: its proposal block)."""
        self.state.facts.ended.append(s.tx_id)
        rec = self.state.get_history(s.tx_id) or {}
        rec.update({"status": status, "rewardAmount": amount, "delegateeReward": delegatee,
                    "rewardUTXOs": utxo_ids, "rewardTxID": reward_tx_id,
                    "endHeight": self.state.meta.height + 1, "endTime": self.state.meta.timestamp})
        self.state.put_history(s.tx_id, rec)

    # ----------------------------------------------------------------------------- apply

    def _apply(self, stx: SignedTx, eff: Effects) -> None:
        st = self.state
        tx = stx.unsigned
        tx_id = stx.tx_id
        for uid in eff.consumed:
            st.delete_utxo(uid)
        for u in eff.produced:
            st.add_utxo(u)
        if eff.atomic_remove is not None:
            source, items = eff.atomic_remove
            for uid, addrs in items:
                atomic.remove_utxo(st.w, self.chain_id, source, uid, addrs)
        if eff.atomic_put is not None:
            dest, utxos = eff.atomic_put
            from simnode.codec import encode_utxo

            from .state import utxo_owners

            for u in utxos:
                owners = utxo_owners(u.out)
                atomic.put_utxo(st.w, dest, self.chain_id,
                                atomic.AtomicUTXO(u.id, encode_utxo(u, t.P_REGISTRY),
                                                  owners.addresses if owners else ()))
        if eff.new_subnet is not None or eff.subnet_owner is not None:
            sid, owner = eff.subnet_owner
            sub = st.subnets.get(sid) or Subnet(sid, b"")
            sub = replace(sub, owner=t.P_REGISTRY.marshal(owner)[2:])
            st.put_subnet(sub)
        if eff.new_chain is not None:
            c = eff.new_chain
            st.put_chain(ChainRecord(tx_id, c.subnet_id, c.chain_name, c.vm_id, c.genesis_data))
        if eff.staker is not None:
            kind, stx_ = eff.staker
            now = st.meta.timestamp
            v = stx_.validator
            if kind == "subnet":
                s = Staker(tx_id, v.node_id, stx_.subnet_id, PRIO_SUBNET_PERMISSIONED, v.weight, now, v.end, 0,
                           None, 0, 0)
            else:
                supply = st.meta.supply.get(PRIMARY, 0)
                reward = rewards.calculate(self.staking, v.end - now, v.weight, supply)
                st.meta.supply[PRIMARY] = supply + reward
                if kind == "validator":
                    pk = stx_.signer.public_key if isinstance(stx_.signer, t.ProofOfPossession) else None
                    s = Staker(tx_id, v.node_id, PRIMARY, PRIO_PRIMARY_VALIDATOR, v.weight, now, v.end, reward, pk,
                               stx_.delegation_shares, 0)
                else:
                    s = Staker(tx_id, v.node_id, PRIMARY, PRIO_PRIMARY_DELEGATOR, v.weight, now, v.end, reward, None,
                               0, 0)
            st.put_staker(s)
            self._history_add(s, kind)
        if eff.remove_staker is not None:
            s = eff.remove_staker
            st.remove_staker(s)
            self._history_end(s, "removed", 0, [])
        if eff.conversion is not None:
            sid, cid, chain, addr = eff.conversion
            sub = st.subnets[sid]
            st.put_subnet(replace(sub, conversion_id=cid, manager_chain_id=chain, manager_address=addr))
        for v in eff.l1_puts:
            st.put_l1(v)
        for vid, justification in eff.l1_preimages:
            st.put_l1_preimage(vid, justification)
        if eff.expiry is not None:
            st.put_expiry(*eff.expiry)
        if eff.l1_balance is not None:
            vid, amount = eff.l1_balance
            v = st.l1[vid]
            end = v.end_accumulated_fee or st.meta.accrued_fees
            st.put_l1(replace(v, end_accumulated_fee=end + amount))
        if eff.l1_disable is not None:
            v = st.l1[eff.l1_disable]
            if v.end_accumulated_fee != 0:
                remaining = v.end_accumulated_fee - st.meta.accrued_fees
                owner = pchain_owner_from_bytes(v.remaining_balance_owner)
                st.add_refund(UTXO(tx_id, len(tx.base.outs), self.avax_asset_id,
                                  TransferOutput(remaining, owner.as_output_owners())))
                st.put_l1(replace(v, end_accumulated_fee=0))
        if eff.l1_weight is not None:
            v, nonce, weight, refund, n_outs = eff.l1_weight
            if refund:
                owner = pchain_owner_from_bytes(v.remaining_balance_owner)
                st.add_refund(UTXO(tx_id, n_outs, self.avax_asset_id, TransferOutput(refund, owner.as_output_owners())))
            st.put_l1(replace(v, min_nonce=min(nonce + 1, MAX_U64), weight=weight,
                              end_accumulated_fee=0 if weight == 0 else v.end_accumulated_fee))


def l1_balance(vm: PlatformVM, v: L1Validator) -> int:
    return max(0, v.end_accumulated_fee - vm.state.meta.accrued_fees) if v.end_accumulated_fee else 0
