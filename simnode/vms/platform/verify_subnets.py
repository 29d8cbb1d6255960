"""Verification of the txs of permissioned subnets and their chains: CreateSubnetTx, CreateChainTx,
AddSubnetValidatorTx, RemoveSubnetValidatorTx, TransferSubnetOwnershipTx."""

from __future__ import annotations

from simnode.codec.sorting import is_sorted_and_unique
from simnode.formats import id_to_str, node_id_to_str

from . import txs as t
from .effects import Effects
from .state import PRIMARY, PRIO_SUBNET_PERMISSIONED
from .verifier import TxError, Verifier, tx_errors


def create_subnet(v: Verifier, tx: t.CreateSubnetTx) -> Effects:
    v.syntactic_base()
    with tx_errors():
        tx.owner.verify()
    v.memo_empty()
    v.flow(v.creds)
    eff = v.base_effects()
    eff.new_subnet = v.stx.tx_id
    eff.subnet_owner = (v.stx.tx_id, tx.owner)
    return eff


def create_chain(v: Verifier, tx: t.CreateChainTx) -> Effects:
    if tx.subnet_id == PRIMARY:
        raise TxError("new blockchain can't be validated by primary network")
    if len(tx.chain_name) > t.MAX_NAME_LEN:
        raise TxError("name too long")
    if tx.vm_id == bytes(32):
        raise TxError("invalid VM ID")
    if not is_sorted_and_unique(tx.fx_ids):
        raise TxError("feature extensions IDs must be sorted and unique")
    if len(tx.genesis_data) > t.MAX_GENESIS_LEN:
        raise TxError("genesis too long")
    for ch in tx.chain_name:
        if ord(ch) > 127 or not (ch.isalnum() or ch == " "):
            raise TxError("illegal name character")
    v.syntactic_base()
    with tx_errors():
        tx.subnet_auth.verify()
    v.memo_empty()
    creds = v.subnet_auth(tx.subnet_id, tx.subnet_auth, poa=True)
    v.flow(creds)
    eff = v.base_effects()
    eff.new_chain = tx
    return eff


def add_subnet_validator(v: Verifier, tx: t.AddSubnetValidatorTx) -> Effects:
    if tx.subnet_id == PRIMARY:
        raise TxError("can't add primary network validator with AddSubnetValidatorTx")
    v.syntactic_base()
    with tx_errors():
        tx.validator.verify()
        tx.subnet_auth.verify()
    v.memo_empty()
    v.stake_duration(tx.validator.end - v.time)
    node = tx.validator.node_id
    if v.state.get_validator(tx.subnet_id, node) is not None:
        raise TxError(f"attempted to issue duplicate validator for {node_id_to_str(node)} on subnet "
                      f"{id_to_str(tx.subnet_id)}")
    primary = v.state.get_validator(PRIMARY, node)
    if primary is None:
        raise TxError(f"{node_id_to_str(node)} isn't a current or pending validator of the primary network")
    if not (primary.start <= v.time and tx.validator.end <= primary.end):
        raise TxError("proposed staking period is not inside dependent staking period")
    creds = v.subnet_auth(tx.subnet_id, tx.subnet_auth, poa=True)
    v.flow(creds, wrap="flow check failed")
    eff = v.base_effects()
    eff.staker = ("subnet", tx)
    return eff


def remove_subnet_validator(v: Verifier, tx: t.RemoveSubnetValidatorTx) -> Effects:
    if tx.subnet_id == PRIMARY:
        raise TxError("can't remove primary network validator with RemoveSubnetValidatorTx")
    v.syntactic_base()
    with tx_errors():
        tx.subnet_auth.verify()
    v.memo_empty()
    vdr = v.state.get_validator(tx.subnet_id, tx.node_id)
    if vdr is None:
        raise TxError(f"{node_id_to_str(tx.node_id)} isn't a current or pending validator of "
                      f"{id_to_str(tx.subnet_id)}: not found")
    if vdr.priority != PRIO_SUBNET_PERMISSIONED:
        raise TxError("attempting to remove permissionless validator")
    creds = v.subnet_auth(tx.subnet_id, tx.subnet_auth, poa=False)
    v.flow(creds, wrap="flow check failed")
    eff = v.base_effects()
    eff.remove_staker = vdr
    return eff


def transfer_subnet_ownership(v: Verifier, tx: t.TransferSubnetOwnershipTx) -> Effects:
    if tx.subnet_id == PRIMARY:
        raise TxError("cannot transfer ownership of a permissionless subnet")
    v.syntactic_base()
    with tx_errors():
        tx.subnet_auth.verify()
        tx.owner.verify()
    v.memo_empty()
    creds = v.subnet_auth(tx.subnet_id, tx.subnet_auth, poa=False)
    v.flow(creds, wrap="flow check failed")
    eff = v.base_effects()
    eff.subnet_owner = (tx.subnet_id, tx.owner)
    return eff
