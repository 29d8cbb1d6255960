"""Verification of the primary network's staking txs: AddPermissionlessValidatorTx and
AddPermissionlessDelegatorTx (the pre-Durango AddValidatorTx and AddDelegatorTx are refused)."""

from __future__ import annotations

from typing import Any

from simnode.codec import outputs_sorted
from simnode.formats import id_to_str, node_id_to_str

from . import txs as t
from .effects import Effects
from .state import PRIMARY
from .tx_parts import ProofOfPossession
from .verifier import TxError, Verifier, tx_errors

MAX_VALIDATOR_WEIGHT_FACTOR = 5


def add_validator(v: Verifier, tx: t.AddValidatorTx) -> Effects:
    raise TxError("AddValidatorTx is not permitted post-Durango")


def add_delegator(v: Verifier, tx: t.AddDelegatorTx) -> Effects:
    raise TxError("AddDelegatorTx is not permitted post-Durango")


def _stake_syntax(v: Verifier, tx: Any, what: str) -> None:
    if not tx.stake_outs:
        raise TxError("no stake")
    with tx_errors("failed to verify BaseTx: ", (TxError,)):
        v.syntactic_base()
    for out in tx.stake_outs:
        with tx_errors("failed to verify output: "):
            out.verify()
    asset = tx.stake_outs[0].asset_id
    total = 0
    for out in tx.stake_outs:
        total += out.out.amount
        if out.asset_id != asset:
            raise TxError(f'multiple staked assets: "{id_to_str(asset)}" and "{id_to_str(out.asset_id)}"')
    if not outputs_sorted(tx.stake_outs, t.P_REGISTRY):
        raise TxError("outputs not sorted")
    if total != tx.validator.weight:
        if what == "validator":
            raise TxError(f"validator weight mismatch: weight {tx.validator.weight} != stake {total}")
        raise TxError(f"delegator weight mismatch, delegator weight {tx.validator.weight} "
                      f"total stake weight {total}")


def _period_and_asset(v: Verifier, duration: int, staked_asset: bytes) -> None:
    v.stake_duration(duration)
    if staked_asset != v.vm.avax_asset_id:
        raise TxError(f"incorrect staked assetID: {id_to_str(v.vm.avax_asset_id)} != {id_to_str(staked_asset)}")


def add_permissionless_validator(v: Verifier, tx: t.AddPermissionlessValidatorTx) -> Effects:
    if tx.validator.node_id == bytes(20):
        raise TxError("validator nodeID cannot be empty")
    if not tx.stake_outs:
        raise TxError("no stake")
    if tx.delegation_shares > t.PERCENT_DENOMINATOR:
        raise TxError("a staker can only require at most 100% reward")
    _stake_syntax(v, tx, "validator")
    with tx_errors("failed to verify validator, signer, or rewards owners: "):
        tx.validator.verify()
        if isinstance(tx.signer, ProofOfPossession):
            tx.signer.verify()
        tx.validation_rewards_owner.verify()
        tx.delegation_rewards_owner.verify()
    has_key = isinstance(tx.signer, ProofOfPossession)
    is_primary = tx.subnet_id == PRIMARY
    if has_key != is_primary:
        raise TxError(f"invalid signer: hasKey={str(has_key).lower()} != isPrimaryNetwork={str(is_primary).lower()}")
    v.memo_empty()
    if not is_primary:
        raise TxError("not found")  # no TransformSubnetTx exists post-Etna
    p = v.vm.staking
    if tx.validator.weight < p.min_validator_stake:
        raise TxError("weight of this validator is too low")
    if tx.validator.weight > p.max_validator_stake:
        raise TxError("weight of this validator is too large")
    if tx.delegation_shares < p.min_delegation_fee:
        raise TxError("staker charges an insufficient delegation fee")
    _period_and_asset(v, tx.validator.end - v.time, tx.stake_outs[0].asset_id)
    if v.state.get_validator(tx.subnet_id, tx.validator.node_id) is not None:
        raise TxError(f"duplicate validator: {node_id_to_str(tx.validator.node_id)} on {id_to_str(tx.subnet_id)}")
    v.flow(v.creds, wrap="flow check failed")
    eff = v.base_effects()
    eff.staker = ("validator", tx)
    return eff


def add_permissionless_delegator(v: Verifier, tx: t.AddPermissionlessDelegatorTx) -> Effects:
    if not tx.stake_outs:
        raise TxError("no stake")
    _stake_syntax(v, tx, "delegator")
    with tx_errors("failed to verify validator or rewards owner: "):
        tx.validator.verify()
        tx.rewards_owner.verify()
    v.memo_empty()
    if tx.subnet_id != PRIMARY:
        raise TxError("not found")
    p = v.vm.staking
    start, end = v.time, tx.validator.end
    if tx.validator.weight < p.min_delegator_stake:
        raise TxError("weight of this validator is too low")
    _period_and_asset(v, end - start, tx.stake_outs[0].asset_id)
    vdr = v.state.get_validator(tx.subnet_id, tx.validator.node_id)
    if vdr is None:
        raise TxError(f"failed to fetch the validator for {node_id_to_str(tx.validator.node_id)} on "
                      f"{id_to_str(tx.subnet_id)}: not found")
    max_weight = min(MAX_VALIDATOR_WEIGHT_FACTOR * vdr.weight, p.max_validator_stake)
    if not (vdr.start <= start and end <= vdr.end and start <= end):
        raise TxError("proposed staking period is not inside dependent staking period")
    # GetMaxWeight: the delegators' weight can only fall from now on (every current delegator
    # started already), so the maximum over [start, end] is the current total.
    current = vdr.weight + sum(d.weight for d in v.state.delegators_of(tx.subnet_id, tx.validator.node_id))
    if current + tx.validator.weight > max_weight:
        raise TxError("validator would be over delegated")
    v.flow(v.creds, wrap="flow check failed")
    eff = v.base_effects()
    eff.staker = ("delegator", tx)
    return eff
