"""Verification of the L1 txs (ACP-77): ConvertSubnetToL1Tx, and the txs carrying a Warp message of
the L1's validator manager (RegisterL1ValidatorTx, SetL1ValidatorWeightTx), whose signatures
`verify_warp_messages` checks before the tx executes; IncreaseL1ValidatorBalanceTx and
DisableL1ValidatorTx."""

from __future__ import annotations

from typing import Any

from simnode.codec import CodecError, VerifyError
from simnode.codec.sorting import is_sorted_and_unique
from simnode.formats import id_to_str
from simnode.warp import acp77, signatures
from simnode.warp.errors import WarpError
from simnode.warp.justification import SubnetIDIndex, encode_justification
from simnode.warp.message import parse_signed_message
from simnode.warp.payload import AddressedCall, parse_addressed_call

from . import txs as t
from .context import PlatformContext
from .effects import Effects
from .state import PRIMARY, L1Validator
from .tx_parts import ProofOfPossession, pchain_owner_bytes, pchain_owner_from_bytes
from .verifier import TxError, Verifier, tx_errors

MAX_U64 = (1 << 64) - 1
REGISTER_EXPIRY_WINDOW = 24 * 3600
WARP_QUORUM_NUMERATOR = 67  # hard-coded for the L1 messages the P-Chain consumes
WARP_QUORUM_DENOMINATOR = 100


def verify_warp_messages(ctx: PlatformContext, tx: Any) -> None:
    """VerifyWarpMessages, done before a tx executes: a RegisterL1ValidatorTx's or
    SetL1ValidatorWeightTx's message must be signed by at least 67% of the weight of its source
    chain's subnet at the current P-Chain height."""
    if not isinstance(tx, (t.RegisterL1ValidatorTx, t.SetL1ValidatorWeightTx)):
        return
    try:
        msg = parse_signed_message(tx.message)
        source = msg.unsigned.source_chain_id
        subnet = ctx.state.subnet_of_chain(source)
        if subnet is None:
            raise WarpError(f'problem retrieving blockchain "{id_to_str(source)}": not found')
        warp_set = ctx.state.warp_set(subnet, ctx.state.meta.height)
        signatures.verify(msg, ctx.network_id, warp_set, WARP_QUORUM_NUMERATOR, WARP_QUORUM_DENOMINATOR)
    except (CodecError, WarpError) as e:
        raise TxError(f"failed verifying warp messages: {e}") from None


def convert_subnet_to_l1(v: Verifier, tx: t.ConvertSubnetToL1Tx) -> Effects:
    if tx.subnet_id == PRIMARY:
        raise TxError("cannot convert a permissionless subnet")
    if len(tx.address) > t.MAX_SUBNET_ADDRESS_LEN:
        raise TxError("address is too long")
    if not tx.validators:
        raise TxError("conversion must include at least one validator")
    if not is_sorted_and_unique([vdr.node_id for vdr in tx.validators]):
        raise TxError("conversion validators must be sorted and unique")
    v.syntactic_base()
    for vdr in tx.validators:
        with tx_errors():
            vdr.verify()
    with tx_errors():
        tx.subnet_auth.verify()
    v.memo_empty()
    creds = v.subnet_auth(tx.subnet_id, tx.subnet_auth, poa=True)
    accrued = v.state.meta.accrued_fees
    active = v.state.num_active_l1
    puts = []
    for i, vdr in enumerate(tx.validators):
        end_fee = 0
        if vdr.balance != 0:
            if active >= v.vm.validator_fee_config.capacity:
                raise TxError("already at the max number of active validators")
            active += 1
            end_fee = vdr.balance + accrued
            if end_fee > MAX_U64:
                raise TxError("overflow")
        puts.append(L1Validator(
            acp77.subnet_validation_id(tx.subnet_id, i), tx.subnet_id, vdr.node_id, vdr.signer.public_key,
            pchain_owner_bytes(vdr.remaining_balance_owner), pchain_owner_bytes(vdr.deactivation_owner),
            v.time, vdr.weight, 0, end_fee))
    v.flow(creds, extra_produced=sum(vdr.balance for vdr in tx.validators))
    eff = v.base_effects()
    eff.l1_puts = puts
    eff.l1_preimages = [(p.validation_id, encode_justification(SubnetIDIndex(tx.subnet_id, i)))
                        for i, p in enumerate(puts)]
    data = acp77.SubnetToL1ConversionData(tx.subnet_id, tx.chain_id, tx.address, tuple(
        acp77.ConversionValidator(vdr.node_id, vdr.signer.public_key, vdr.weight) for vdr in tx.validators))
    eff.conversion = (tx.subnet_id, data.conversion_id, tx.chain_id, tx.address)
    return eff


def _warp_call(message: bytes) -> tuple[bytes, AddressedCall]:
    """The source chain and AddressedCall of a tx's Warp message (its signature was verified
    before the tx executes, see verify_warp_messages)."""
    with tx_errors(catch=(CodecError,)):
        msg = parse_signed_message(message)
        return msg.unsigned.source_chain_id, parse_addressed_call(msg.unsigned.payload)


def _verify_l1_conversion(v: Verifier, subnet_id: bytes, chain_id: bytes, address: bytes) -> None:
    sub = v.state.subnets.get(subnet_id)
    conversion = None if sub is None else sub.conversion()
    if conversion is None:
        raise TxError(f"could not load subnet conversion for {id_to_str(subnet_id)} with: not found")
    _, manager_chain_id, manager_address = conversion
    if chain_id != manager_chain_id:
        raise TxError(f"wrong warp message source chain ID expected {id_to_str(manager_chain_id)} but had "
                      f"{id_to_str(chain_id)}")
    if address != manager_address:
        raise TxError(f"wrong warp message source address expected 0x{manager_address.hex()} but got "
                      f"0x{address.hex()}")


def register_l1_validator(v: Verifier, tx: t.RegisterL1ValidatorTx) -> Effects:
    v.syntactic_base()
    v.memo_empty()
    v.flow(v.creds, extra_produced=tx.balance)
    source_chain, call = _warp_call(tx.message)
    with tx_errors(catch=(CodecError, VerifyError)):
        reg = acp77.parse_register_l1_validator(call.payload)
        reg.verify()
    _verify_l1_conversion(v, reg.subnet_id, source_chain, call.source_address)
    now = v.time
    if reg.expiry <= now:
        raise TxError(f"warp message expired at {reg.expiry} and it is currently {now}")
    if reg.expiry - now > REGISTER_EXPIRY_WINDOW:
        raise TxError(f"warp message not yet allowed because time is {reg.expiry - now} seconds in the future "
                      f"but the limit is {REGISTER_EXPIRY_WINDOW}")
    vid = reg.validation_id
    if v.state.has_expiry(reg.expiry, vid):
        raise TxError(f"warp message already issued for validationID {id_to_str(vid)}")
    with tx_errors():
        ProofOfPossession(reg.bls_public_key, tx.proof_of_possession).verify()
    if (reg.subnet_id, reg.node_id) in v.state.l1_by_node:
        raise TxError("L1 validator already exists for this nodeID")
    end_fee = 0
    if tx.balance != 0:
        if v.state.num_active_l1 >= v.vm.validator_fee_config.capacity:
            raise TxError("already at the max number of active validators")
        end_fee = tx.balance + v.state.meta.accrued_fees
    eff = v.base_effects()
    eff.l1_puts = [L1Validator(vid, reg.subnet_id, reg.node_id, reg.bls_public_key,
                               pchain_owner_bytes(reg.remaining_balance_owner),
                               pchain_owner_bytes(reg.disable_owner), now, reg.weight, 0, end_fee)]
    eff.expiry = (reg.expiry, vid)
    eff.l1_preimages = [(vid, encode_justification(call.payload))]
    return eff


def set_l1_validator_weight(v: Verifier, tx: t.SetL1ValidatorWeightTx) -> Effects:
    v.syntactic_base()
    v.memo_empty()
    v.flow(v.creds)
    source_chain, call = _warp_call(tx.message)
    with tx_errors(catch=(CodecError, VerifyError)):
        m = acp77.parse_l1_validator_weight(call.payload)
        m.verify()
    vdr = v.state.l1.get(m.validation_id)
    if vdr is None:
        raise TxError("could not load L1 validator: not found")
    if m.nonce < vdr.min_nonce:
        raise TxError(f"warp message contains stale nonce {m.nonce} must be at least {vdr.min_nonce}")
    _verify_l1_conversion(v, vdr.subnet_id, source_chain, call.source_address)
    eff = v.base_effects()
    refund = None
    if m.weight == 0:
        if v.state.l1_weight(vdr.subnet_id) == vdr.weight:
            raise TxError("attempting to remove the last L1 validator from a converted subnet")
        if vdr.end_accumulated_fee != 0:
            accrued = v.state.meta.accrued_fees
            if vdr.end_accumulated_fee <= accrued:
                raise TxError("state corruption: validator should have already been disabled")
            refund = vdr.end_accumulated_fee - accrued
    eff.l1_weight = (vdr, m.nonce, m.weight, refund, len(tx.base.outs))
    return eff


def increase_l1_validator_balance(v: Verifier, tx: t.IncreaseL1ValidatorBalanceTx) -> Effects:
    if tx.balance == 0:
        raise TxError("balance must be greater than 0")
    v.syntactic_base()
    v.memo_empty()
    v.flow(v.creds, extra_produced=tx.balance)
    vdr = v.state.l1.get(tx.validation_id)
    if vdr is None:
        raise TxError("not found")
    if vdr.end_accumulated_fee == 0 and v.state.num_active_l1 >= v.vm.validator_fee_config.capacity:
        raise TxError("already at the max number of active validators")
    eff = v.base_effects()
    eff.l1_balance = (tx.validation_id, tx.balance)
    return eff


def disable_l1_validator(v: Verifier, tx: t.DisableL1ValidatorTx) -> Effects:
    v.syntactic_base()
    with tx_errors():
        tx.disable_auth.verify()
    v.memo_empty()
    vdr = v.state.l1.get(tx.validation_id)
    if vdr is None:
        raise TxError("could not load L1 validator: not found")
    owner = pchain_owner_from_bytes(vdr.deactivation_owner).as_output_owners()
    creds = v.verify_authorization(owner, tx.disable_auth)
    v.flow(creds)
    eff = v.base_effects()
    eff.l1_disable = tx.validation_id
    return eff
