"""The X-Chain's index rows, from its accepted block rows ({"n", "id", "b": block bytes}).

Block 0 (the linearization's stop-vertex block) also carries the X genesis: the AVAX
CreateAssetTx and its UTXOs, at the genesis time. A tx's UTXOs are what the VM's `execute` says
it produces (base outputs, minted/created outputs, exports into the destination's shared memory);
it spends its inputs, its operations' UTXOs and its imported UTXOs.
"""

from __future__ import annotations

from typing import Any

from ...codec.nftfx import NftMintOutput
from ...codec.secp256k1fx import MintOutput
from ...store import Batch, pack
from ...vms.avm.blocks import parse_block
from ...vms.avm.execute import execute
from ...vms.avm.txs import CreateAssetTx, ExportTx, ImportTx, OperationTx, Tx, parse_tx, utxo_bytes
from ..keys import u64
from .utxos import BlockRows, burned, make_out

__all__ = ["block_row", "head_number", "index_block"]

STANDARD_BLOCK = "StandardBlock"


def head_number(chain: Any) -> int:
    return chain.height()


def block_row(chain: Any, number: int) -> dict | None:
    return chain.block_row(number)


def tx_type(tx: Tx) -> str:
    return type(tx.unsigned).__name__


def index_block(chain: Any, row: dict, batch: Batch) -> int:
    blk = parse_block(row["b"])
    tx_ids: list[bytes] = []
    if blk.height == 0:
        g = chain.genesis
        rows = BlockRows(batch, chain.chain_id, 0, g.start_time)
        genesis_tx = parse_tx(g.avax_asset_tx_bytes)  # its initial state is the genesis UTXOs
        index_tx(chain, rows, 0, genesis_tx, blk.id, genesis=True)
        tx_ids.append(genesis_tx.id)
        rows = BlockRows(batch, chain.chain_id, 0, blk.time)
    else:
        rows = BlockRows(batch, chain.chain_id, blk.height, blk.time)
    for i, tx in enumerate(blk.txs):
        index_tx(chain, rows, i, tx, blk.id)
        tx_ids.append(tx.id)
    rows.block(blk.id, blk.parent_id, STANDARD_BLOCK, tx_ids, len(row["b"]))
    return blk.height


def index_tx(chain: Any, rows: BlockRows, index: int, tx: Tx, block_id: bytes, genesis: bool = False) -> None:
    u = tx.unsigned
    cid = chain.chain_id
    avax = chain.avax_asset_id
    fx = execute(tx)
    addresses: set[bytes] = set()
    assets: set[bytes] = set()
    consumed: list[bytes] = []
    for uid in fx.consumed:
        out = rows.spend(uid, tx.id)
        consumed.append(uid)
        if out is not None:
            addresses.update(out.addresses)
            assets.add(out.asset)
    for _, uid in fx.atomic_removes:
        rows.spend(uid, tx.id)
        consumed.append(uid)
    made = [(utxo, cid) for utxo in fx.produced] + [(utxo, dest) for dest, utxo in fx.atomic_puts]
    emitted: list[bytes] = []
    for utxo, home in made:
        out = make_out(utxo, utxo_bytes(utxo), cid, home, rows.height, rows.time, tx.id)
        rows.create(out)
        emitted.append(out.uid)
        addresses.update(out.addresses)
        assets.add(out.asset)
    base = u.base
    assets.update(i.asset_id for i in base.ins)
    extra: dict[str, Any] = {"memo": base.memo}
    outs = list(base.outs)
    ins = list(base.ins)
    if isinstance(u, ImportTx):
        extra["src"] = u.source_chain
        ins += list(u.imported_ins)
        assets.update(i.asset_id for i in u.imported_ins)
    elif isinstance(u, ExportTx):
        extra["dst"] = u.destination_chain
        outs += list(u.exported_outs)
    elif isinstance(u, OperationTx):
        assets.update(op.asset_id for op in u.ops)
    elif isinstance(u, CreateAssetTx):
        asset_row(rows, tx.id, u)
        assets.add(tx.id)
    if not genesis:
        rows.add("burn:" + cid.hex(), burned(ins, outs, avax))
    pos = rows.tx(index, tx.id, tx_type(tx), consumed, emitted, addresses, block_id, extra)
    t8 = u64(rows.time)
    for asset in sorted(assets):
        rows.ch[rows.sp.tk + asset + t8 + pos] = b""


def asset_row(rows: BlockRows, asset_id: bytes, tx: CreateAssetTx) -> None:
    outs = [o for s in tx.states for o in s.outs]
    nft = any(isinstance(o, NftMintOutput) for o in outs)
    variable = any(isinstance(o, (MintOutput, NftMintOutput)) for o in outs)
    rows.ch[rows.sp.xa + asset_id] = pack({"name": tx.name, "symbol": tx.symbol, "den": tx.denomination,
                                           "nft": nft, "cap": "variable" if variable else "fixed",
                                           "t": rows.time})
