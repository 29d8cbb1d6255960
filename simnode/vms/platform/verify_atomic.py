"""Verification of the P-Chain's atomic txs: ImportTx (UTXOs another chain exported to the P-Chain,
read from shared memory) and ExportTx (outputs put into shared memory for another chain)."""

from __future__ import annotations

from simnode.codec import UTXO, decode_utxo, inputs_sorted_unique, outputs_sorted
from simnode.codec.stakeable import StakeableLockOut
from simnode.formats import id_to_str
from simnode.vms import atomic

from . import txs as t
from .effects import Effects
from .state import utxo_owners
from .verifier import TxError, Verifier, tx_errors


def _same_subnet(v: Verifier, chain_id: bytes) -> None:
    if chain_id == v.vm.chain_id:
        raise TxError("same chain")
    if chain_id not in (v.vm.x_chain_id, v.vm.c_chain_id):
        rec = v.state.chains.get(chain_id)
        if rec is None:
            raise TxError(f"failed to get subnet of {id_to_str(chain_id)}: not found")
        raise TxError("mismatched subnets")


def import_tx(v: Verifier, tx: t.ImportTx) -> Effects:
    if not tx.imported_inputs:
        raise TxError("tx has no imported inputs")
    v.syntactic_base()
    for in_ in tx.imported_inputs:
        with tx_errors("input failed verification: "):
            in_.verify()
    if not inputs_sorted_unique(tx.imported_inputs):
        raise TxError("inputs not sorted and unique")
    v.memo_empty()
    _same_subnet(v, tx.source_chain)
    atomic_utxos = []
    removes = []
    reader = v.state.reader
    for in_ in tx.imported_inputs:
        raw = atomic.get_utxo(reader, v.vm.chain_id, tx.source_chain, in_.utxo_id)
        if raw is None:
            raise TxError("failed to get shared memory: not found")
        u = decode_utxo(raw, t.P_REGISTRY)
        atomic_utxos.append(u)
        owners = utxo_owners(u.out)
        removes.append((in_.utxo_id, owners.addresses if owners else ()))
    v.flow(v.creds, extra_ins=tx.imported_inputs, extra_utxos=atomic_utxos)
    eff = v.base_effects()
    eff.atomic_remove = (tx.source_chain, removes)
    return eff


def export_tx(v: Verifier, tx: t.ExportTx) -> Effects:
    if not tx.exported_outputs:
        raise TxError("no export outputs")
    v.syntactic_base()
    for out in tx.exported_outputs:
        with tx_errors("output failed verification: "):
            out.verify()
        if isinstance(out.out, StakeableLockOut):
            raise TxError("wrong locktime reported")
    if not outputs_sorted(tx.exported_outputs, t.P_REGISTRY):
        raise TxError("outputs not sorted")
    v.memo_empty()
    _same_subnet(v, tx.destination_chain)
    v.flow(v.creds, wrap="failed verifySpend")
    eff = v.base_effects()
    tx_id = v.stx.tx_id
    n = len(tx.base.outs)
    eff.atomic_put = (tx.destination_chain,
                      [UTXO(tx_id, n + i, o.asset_id, o.out) for i, o in enumerate(tx.exported_outputs)])
    return eff
