"""`Effects`: what a verified P-Chain tx changes (the verifiers build it, reading state only), and
`apply`, which writes it into the state of the block being built."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from simnode.codec import UTXO, OutputOwners, SignedTx, TransferOutput, encode_utxo
from simnode.vms import atomic

from . import rewards
from . import txs as t
from .context import PlatformContext
from .state import (
    PRIMARY,
    PRIO_PRIMARY_DELEGATOR,
    PRIO_PRIMARY_VALIDATOR,
    PRIO_SUBNET_PERMISSIONED,
    ChainRecord,
    L1Validator,
    Staker,
    Subnet,
    utxo_owners,
)
from .staker_history import history_add, history_end
from .tx_parts import ProofOfPossession, pchain_owner_from_bytes

MAX_U64 = (1 << 64) - 1


@dataclass(slots=True)
class Effects:
    consumed: list[bytes] = field(default_factory=list)
    produced: list[UTXO] = field(default_factory=list)
    atomic_remove: tuple[bytes, list[tuple[bytes, tuple[bytes, ...]]]] | None = None
    atomic_put: tuple[bytes, list[UTXO]] | None = None
    staker: Any = None  # ("validator"|"delegator"|"subnet", tx)
    remove_staker: Any = None
    subnet_owner: tuple[bytes, OutputOwners] | None = None
    new_subnet: bytes | None = None
    new_chain: t.CreateChainTx | None = None
    conversion: tuple | None = None
    l1_puts: list[L1Validator] = field(default_factory=list)
    l1_preimages: list[tuple[bytes, bytes]] = field(default_factory=list)  # (validationID, justification)
    expiry: tuple[int, bytes] | None = None
    l1_balance: tuple[bytes, int] | None = None  # IncreaseL1ValidatorBalance
    l1_disable: bytes | None = None
    l1_weight: tuple | None = None
    gas: int = 0


def apply(ctx: PlatformContext, stx: SignedTx, eff: Effects) -> None:
    st = ctx.state
    tx = stx.unsigned
    tx_id = stx.tx_id
    for uid in eff.consumed:
        st.delete_utxo(uid)
    for u in eff.produced:
        st.add_utxo(u)
    if eff.atomic_remove is not None:
        source, items = eff.atomic_remove
        for uid, addrs in items:
            atomic.remove_utxo(st.w, ctx.chain_id, source, uid, addrs)
    if eff.atomic_put is not None:
        dest, utxos = eff.atomic_put
        for u in utxos:
            owners = utxo_owners(u.out)
            atomic.put_utxo(st.w, dest, ctx.chain_id,
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
            reward = rewards.calculate(ctx.staking, v.end - now, v.weight, supply)
            st.meta.supply[PRIMARY] = supply + reward
            if kind == "validator":
                pk = stx_.signer.public_key if isinstance(stx_.signer, ProofOfPossession) else None
                s = Staker(tx_id, v.node_id, PRIMARY, PRIO_PRIMARY_VALIDATOR, v.weight, now, v.end, reward, pk,
                           stx_.delegation_shares, 0)
            else:
                s = Staker(tx_id, v.node_id, PRIMARY, PRIO_PRIMARY_DELEGATOR, v.weight, now, v.end, reward, None,
                           0, 0)
        st.put_staker(s)
        history_add(st, s, kind)
    if eff.remove_staker is not None:
        s = eff.remove_staker
        st.remove_staker(s)
        history_end(st, s, "removed", 0, [])
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
            st.add_refund(UTXO(tx_id, len(tx.base.outs), ctx.avax_asset_id,
                              TransferOutput(remaining, owner.as_output_owners())))
            st.put_l1(replace(v, end_accumulated_fee=0))
    if eff.l1_weight is not None:
        v, nonce, weight, refund, n_outs = eff.l1_weight
        if refund:
            owner = pchain_owner_from_bytes(v.remaining_balance_owner)
            st.add_refund(UTXO(tx_id, n_outs, ctx.avax_asset_id, TransferOutput(refund, owner.as_output_owners())))
        st.put_l1(replace(v, min_nonce=min(nonce + 1, MAX_U64), weight=weight,
                          end_accumulated_fee=0 if weight == 0 else v.end_accumulated_fee))
