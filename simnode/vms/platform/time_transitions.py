"""What the passing of chain time does to the P-Chain's state (AvalancheGo's AdvanceTimeTo and the
RewardValidatorTx's commit): fee states, L1 validators' fees and deactivations, expiries, the end
of permissioned subnet validators, and the reward of a staker whose period ended. vm.py decides
when, and in which blocks, these happen."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from simnode.codec import UTXO, TransferOutput

from . import fees, rewards
from . import txs as t
from .context import PlatformContext
from .staker_history import history_end
from .state import PRIO_PRIMARY_VALIDATOR, Staker

MAX_U64 = (1 << 64) - 1
MAX_L1_LOOKAHEAD = 10 * 365 * 24 * 3600


def next_l1_deactivation(ctx: PlatformContext) -> int | None:
    """When the next L1 validator runs out of balance at the current fee rate (None: none will)."""
    v = ctx.state.next_l1_to_deactivate()
    if v is None:
        return None
    m = ctx.state.meta
    remaining = max(0, v.end_accumulated_fee - m.accrued_fees)
    secs = fees.validator_seconds_remaining(ctx.validator_fee_config, ctx.state.num_active_l1, m.l1_excess,
                                            MAX_L1_LOOKAHEAD, remaining)
    return m.timestamp + secs


def advance_chain_state(ctx: PlatformContext, when: int) -> None:
    """AdvanceTimeTo: fee states, L1 validator fees and deactivations, expiries, timestamp."""
    st = ctx.state
    m = st.meta
    seconds = max(0, when - m.timestamp)
    fs = fees.FeeState(m.fee_capacity, m.fee_excess).advance(ctx.fee_config, seconds)
    m.fee_capacity, m.fee_excess = fs.capacity, fs.excess
    st.remove_stale_expiries(when)
    cfg = ctx.validator_fee_config
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
        history_end(st, s, "completed", 0, [])


def _staker_tx(ctx: PlatformContext, tx_id: bytes) -> Any:
    rec = ctx.state.get_tx(tx_id)
    return t.parse_tx(rec[0]).unsigned


def reward_staker(ctx: PlatformContext, s: Staker, reward_tx_id: bytes) -> None:
    """RewardValidatorTx (commit path: uptime is always 100%): the stake back, the rewards paid as
    new UTXOs after the staker tx's outputs, the staker removed."""
    st = ctx.state
    tx = _staker_tx(ctx, s.tx_id)
    outputs = tx.base.outs
    stake = tx.stake_outs
    asset = stake[0].asset_id
    offset = len(outputs)
    for i, out in enumerate(stake):
        st.add_utxo(UTXO(s.tx_id, offset + i, out.asset_id, out.out))
    index = offset + len(stake)
    made: list[bytes] = []

    def pay(amount: int, owner: Any) -> None:
        u = UTXO(s.tx_id, index, asset, TransferOutput(amount, owner))
        st.add_utxo(u)
        st.put_reward_utxo(s.tx_id, index, u)
        made.append(u.id)

    if s.priority == PRIO_PRIMARY_VALIDATOR or isinstance(tx, t.VALIDATOR_TX_TYPES):
        if s.potential_reward > 0:
            pay(s.potential_reward, tx.validation_rewards_owner)
            index += 1
        if s.delegatee_reward > 0:
            pay(s.delegatee_reward, tx.delegation_rewards_owner)
        st.remove_staker(s)
        history_end(st, s, "completed", s.potential_reward, made, s.delegatee_reward, reward_tx_id)
        return
    # delegator
    vdr = st.get_validator(s.subnet_id, s.node_id)
    shares = vdr.delegation_shares if vdr else 0
    delegatee, delegator = rewards.split(s.potential_reward, shares)
    if delegator > 0:
        pay(delegator, tx.rewards_owner)
    if delegatee > 0 and vdr is not None:
        vdr.delegatee_reward += delegatee
        st.update_staker(vdr)
    st.remove_staker(s)
    history_end(st, s, "completed", delegator, made, delegatee, reward_tx_id)
