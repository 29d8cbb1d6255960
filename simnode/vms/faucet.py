"""simnode.fundAddress on the X- and P-Chain: AVAX minted into an address as a dev state edit.

A funded amount is one new UTXO (AVAX, the address as its only owner, no locktime) written
straight into the chain's state, as anvil_setBalance writes an account: no tx, no block. Its ID
is made from the chain and a per-chain counter kept in the state (so a revert reuses it and
replays give the same IDs): txID = sha256("simnode-fund" | chain ID | counter), output 0.
On a fork, fund any address: the upstream's own UTXOs of it are still brought in when it is
first touched (vms/fork_utxos.py).
"""

from __future__ import annotations

import hashlib

from ..codec import UTXO, OutputOwners, TransferOutput
from ..store import Batch

PREFIX = b"fund/"


def fund_utxo(batch: Batch, chain_id: bytes, asset_id: bytes, address: bytes, amount: int) -> UTXO:
    """The next funding UTXO of `chain_id` (its counter advanced in `batch`)."""
    key = PREFIX + chain_id
    raw = batch.get(key)
    seq = 0 if raw is None else int.from_bytes(raw, "big")
    batch.put(key, (seq + 1).to_bytes(8, "big"))
    tx_id = hashlib.sha256(b"simnode-fund" + chain_id + seq.to_bytes(8, "big")).digest()
    return UTXO(tx_id, 0, asset_id, TransferOutput(amount, OutputOwners(0, 1, (address,))))
