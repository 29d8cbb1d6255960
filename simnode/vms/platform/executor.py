"""Tx verification (AvalancheGo's standardTxExecutor): `verify(ctx, stx, time, price)` reads state
and returns an `Effects` record of what the tx would change, or raises `TxError` with AvalancheGo's
text; `effects.apply` writes an `Effects`. Verification never writes, so a rejected tx leaves the
state exactly as it was.

The checks every tx shares are in verifier.py; each tx family's rules in its own module:
verify_staking.py, verify_subnets.py, verify_l1.py, verify_atomic.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simnode.codec import CodecError, SignedTx
from simnode.formats import id_to_str

from . import txs as t
from . import verify_atomic, verify_l1, verify_staking, verify_subnets
from .context import PlatformContext
from .effects import Effects
from .verifier import TxError, Verifier, tx_errors


def _base_tx(v: Verifier, tx: t.BaseTx) -> Effects:
    v.syntactic_base()
    v.memo_empty()
    v.flow(v.creds)
    return v.base_effects()


RULES: dict[type, Callable[[Verifier, Any], Effects]] = {
    t.BaseTx: _base_tx,
    t.AddValidatorTx: verify_staking.add_validator,
    t.AddDelegatorTx: verify_staking.add_delegator,
    t.AddPermissionlessValidatorTx: verify_staking.add_permissionless_validator,
    t.AddPermissionlessDelegatorTx: verify_staking.add_permissionless_delegator,
    t.CreateSubnetTx: verify_subnets.create_subnet,
    t.CreateChainTx: verify_subnets.create_chain,
    t.AddSubnetValidatorTx: verify_subnets.add_subnet_validator,
    t.RemoveSubnetValidatorTx: verify_subnets.remove_subnet_validator,
    t.TransferSubnetOwnershipTx: verify_subnets.transfer_subnet_ownership,
    t.ImportTx: verify_atomic.import_tx,
    t.ExportTx: verify_atomic.export_tx,
    t.ConvertSubnetToL1Tx: verify_l1.convert_subnet_to_l1,
    t.RegisterL1ValidatorTx: verify_l1.register_l1_validator,
    t.SetL1ValidatorWeightTx: verify_l1.set_l1_validator_weight,
    t.IncreaseL1ValidatorBalanceTx: verify_l1.increase_l1_validator_balance,
    t.DisableL1ValidatorTx: verify_l1.disable_l1_validator,
}


def _run(ctx: PlatformContext, stx: SignedTx, when: int, price: int) -> Effects:
    rule = RULES.get(type(stx.unsigned))
    if rule is None:  # a RewardValidatorTx is never issued, only built into a proposal block
        raise TxError("wrong tx type")
    return rule(Verifier(ctx, stx, when, price), stx.unsigned)


def verify(ctx: PlatformContext, stx: SignedTx, when: int, price: int,
           pending: list[SignedTx] | None = None) -> Effects:
    """The tx's effects at block time `when` and gas `price`; `pending`: mempool txs whose inputs
    count as spent already."""
    try:
        if pending:
            spent = {i.utxo_id for m in pending for i in m.unsigned.all_inputs()}
            for i in getattr(stx.unsigned, "all_inputs", lambda: ())():
                if i.utxo_id in spent:
                    raise TxError(f"failed to read consumed UTXO {id_to_str(i.tx_id)}:{i.output_index} "
                                  "due to: not found")
        with tx_errors(catch=(CodecError,)):
            return _run(ctx, stx, when, price)
    except TxError as e:
        raise TxError(f"failed execution: standard tx {id_to_str(stx.tx_id)} failed execution: {e}") from None
