"""The C-Chain's atomic txs in the index: an extension of the EVM family (driver.FAMILIES).

From the same block row the EVM family reads: its extra data ("ext", the block's atomic txs),
block hash and time. An ImportTx spends UTXOs from the C-Chain's shared memory; an ExportTx makes
UTXOs in the destination's shared memory (UTXO index = position among the exported outputs, as
coreth numbers them). The txs go to the C-Chain's primary-network tables (Tx, Ti, Ta: by the
owners of what they make and by the EVM addresses they credit or debit); the block itself is the
EVM family's.
"""

from __future__ import annotations

from typing import Any

from ...codec import UTXO
from ...store import Batch
from ...vms.evm.atomic_txs import UnsignedImportTx, decode_block_txs, utxo_bytes
from ...vms.evm.headers import header_number
from .utxos import BlockRows, input_amount, make_out, output_amount

__all__ = ["index_block"]


def index_block(chain: Any, row: dict, batch: Batch) -> int:
    number = header_number(row["hdr"])
    ext = row.get("ext")
    if not ext:
        return number
    cid = chain.chain_id
    rows = BlockRows(batch, cid, number, row["ms"] // 1000)
    for i, tx in enumerate(decode_block_txs(ext)):
        u = tx.unsigned
        consumed: list[bytes] = []
        emitted: list[bytes] = []
        if isinstance(u, UnsignedImportTx):
            addresses = {o.address for o in u.outs}
            for in_ in u.imported_inputs:
                rows.spend(in_.utxo_id, tx.id)
                consumed.append(in_.utxo_id)
            spent = sum(input_amount(in_) for in_ in u.imported_inputs)
            made = sum(o.amount for o in u.outs)
            extra = {"src": u.source_chain, "evm": [[o.address, o.asset_id, o.amount] for o in u.outs]}
        else:
            addresses = {e.address for e in u.ins}
            for n, o in enumerate(u.exported_outputs):
                utxo = UTXO(tx.id, n, o.asset_id, o.out)
                out = make_out(utxo, utxo_bytes(utxo), cid, u.destination_chain, number, rows.time, tx.id)
                rows.create(out)
                emitted.append(out.uid)
                addresses.update(out.addresses)
            spent = sum(e.amount for e in u.ins)
            made = sum(output_amount(o.out) for o in u.exported_outputs)
            extra = {"dst": u.destination_chain, "evm": [[e.address, e.asset_id, e.amount] for e in u.ins],
                     "creds": [list(c.signatures) for c in tx.creds]}
        rows.add("burn:" + cid.hex(), spent - made)
        rows.tx(i, tx.id, "ImportTx" if isinstance(u, UnsignedImportTx) else "ExportTx", consumed, emitted,
                addresses, row["h"], extra)
    return number
