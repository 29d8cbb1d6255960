"""Executing an accepted X-Chain tx (AvalancheGo's txs/executor/executor.go): the UTXOs consumed
and produced, the new asset, the atomic requests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simnode.codec import UTXO, MintOperation, OutputOwners
from simnode.codec.nftfx import NftMintOperation, NftTransferOperation, NftTransferOutput
from simnode.codec.propertyfx import PropertyMintOperation
from simnode.codec.registry import FxOperation, State

from .txs import CreateAssetTx, ExportTx, ImportTx, OperationTx, Tx



@dataclass(slots=True)
class Effects:
    """What accepting a tx changes: UTXOs consumed/produced, a new asset, atomic requests."""

    consumed: list[bytes] = field(default_factory=list)  # UTXO IDs
    produced: list[UTXO] = field(default_factory=list)
    # (source chain, utxo ID) removed from this chain's shared memory
    atomic_removes: list[tuple[bytes, bytes]] = field(default_factory=list)
    # (destination chain, UTXO) put into the destination's shared memory
    atomic_puts: list[tuple[bytes, UTXO]] = field(default_factory=list)
    new_asset: CreateAssetTx | None = None


def execute(tx: Tx) -> Effects:
    u = tx.unsigned
    base = u.base
    tx_id = tx.id
    fx = Effects()
    fx.consumed.extend(i.utxo_id for i in base.ins)
    fx.produced.extend(UTXO(tx_id, i, o.asset_id, o.out) for i, o in enumerate(base.outs))
    index = len(base.outs)
    if isinstance(u, CreateAssetTx):
        fx.new_asset = u
        for state in u.states:
            for out in state.outs:
                fx.produced.append(UTXO(tx_id, index, tx_id, out))
                index += 1
    elif isinstance(u, OperationTx):
        for op in u.ops:
            fx.consumed.extend(op.input_ids())
            for out in operation_outs(op.op):
                fx.produced.append(UTXO(tx_id, index, op.asset_id, out))
                index += 1
    elif isinstance(u, ImportTx):
        fx.atomic_removes.extend((u.source_chain, i.utxo_id) for i in u.imported_ins)
    elif isinstance(u, ExportTx):
        for out in u.exported_outs:
            fx.atomic_puts.append((u.destination_chain, UTXO(tx_id, index, out.asset_id, out.out)))
            index += 1
    return fx


def operation_outs(op: FxOperation) -> list[State]:
    if isinstance(op, MintOperation):
        return [op.mint_output, op.transfer_output]
    if isinstance(op, NftMintOperation):
        return [NftTransferOutput(op.group_id, op.payload, owners) for owners in op.outputs]
    if isinstance(op, NftTransferOperation):
        return [op.output]
    if isinstance(op, PropertyMintOperation):
        return [op.mint_output, op.owned_output]
    return []  # PropertyBurnOperation


def owners_of(out: Any) -> OutputOwners | None:
    owners = getattr(out, "owners", None)
    return owners if isinstance(owners, OutputOwners) else None
