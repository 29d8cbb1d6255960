"""Rows every primary-network family writes: UTXOs created and spent, blocks and txs, totals.

`BlockRows` stages one accepted block's rows in its batch. A UTXO's OUT record is written by the
chain that made it, its SPEND record by the chain that spent it; the rows that need both (the
spent forms of the address lists, the consumption's activity row) are written by whichever of
the two runs second, from OUT + SPEND alone, so they come out the same in either order (a live
node indexes an export before its import; `simnode reindex` may index the importing chain
first). Reads go through the batch, which sees its own pending writes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...codec import UTXO
from ...codec.nftfx import NftMintOutput, NftTransferOutput
from ...codec.secp256k1fx import MintOutput, OutputOwners, TransferOutput
from ...codec.stakeable import StakeableLockIn, StakeableLockOut
from ...store import Batch, pack, unpack
from ..keys import big, num, u64
from .layout import (LOCKED, MINT, STAKEABLE, TRANSFER, UA_ALL, UA_UNSPENT, UL, UO, US, UT_ALL, UT_UNSPENT, Out,
                     Spend, counter, space)


def owners_of(out: Any) -> OutputOwners | None:
    inner = out.out if isinstance(out, StakeableLockOut) else out
    owners = getattr(inner, "owners", None)
    return owners if isinstance(owners, OutputOwners) else None


def output_amount(out: Any) -> int:
    inner = out.out if isinstance(out, StakeableLockOut) else out
    return inner.amount if isinstance(inner, TransferOutput) else 0


def input_amount(in_: Any) -> int:
    """The amount a TransferableInput's input spends (0 for inputs without one)."""
    inner = in_.in_.in_ if isinstance(in_.in_, StakeableLockIn) else in_.in_
    return getattr(inner, "amount", 0)


def make_out(utxo: UTXO, raw: bytes, created_on: bytes, home: bytes, height: int, time: int, tx_hash: bytes,
             stake: tuple[int, int] | None = None, reward: str | None = None) -> Out:
    out = utxo.out
    owners = owners_of(out)
    if isinstance(out, StakeableLockOut):
        kind, stakeable = STAKEABLE, out.locktime
    else:
        kind = MINT if isinstance(out, (MintOutput, NftMintOutput)) else TRANSFER
        stakeable = 0
    group = getattr(out, "group_id", None) if isinstance(out, (NftMintOutput, NftTransferOutput)) else None
    payload = out.payload if isinstance(out, NftTransferOutput) else None
    return Out(utxo.id, created_on, home, utxo.tx_id, utxo.output_index, height, time, utxo.asset_id,
               output_amount(out), owners.addresses if owners else (), owners.threshold if owners else 0,
               owners.locktime if owners else 0, stakeable, kind, stake, reward, raw, group, payload, tx_hash)


class BlockRows:
    """One accepted block of a P, X or C-Chain (its atomic txs) being indexed."""

    __slots__ = ("batch", "ch", "chain_id", "height", "time", "sp", "h8")

    def __init__(self, batch: Batch, chain_id: bytes, height: int, time: int) -> None:
        self.batch = batch
        self.ch = batch.changes
        self.chain_id = chain_id
        self.height = height
        self.time = time
        self.sp = space(chain_id)
        self.h8 = u64(height)

    # ------------------------------------------------------------------ UTXOs

    def create(self, out: Out) -> None:
        ch, uid = self.ch, out.uid
        ch[UO + uid] = pack(out.record())
        raw = self.batch.get(US + uid)
        spend = Spend.from_record(unpack(raw)) if raw is not None else None
        t8 = u64(out.time)
        for a in sorted(set(out.addresses)):
            by_time = out.home + a + t8 + uid
            by_amount = out.home + a + u64(out.amount) + uid
            ch[UT_ALL + by_time] = u64(spend.time) if spend else b""
            ch[UA_ALL + by_amount] = b""
            ch[UL + out.created_on + a + t8 + uid + b"\0"] = pack([out.tx_hash, out.height])
            if spend is None:
                ch[UT_UNSPENT + by_time] = b""
                ch[UA_UNSPENT + by_amount] = b""
            else:
                ch[UL + spend.chain + a + u64(spend.time) + uid + b"\1"] = pack([spend.tx, spend.height])
        lock = max(out.locktime, out.stakeable)
        if lock > out.time:
            ch[LOCKED + u64(lock) + uid] = b""

    def spend(self, uid: bytes, tx_id: bytes) -> Out | None:
        """Record that tx `tx_id` of this block spent `uid`; the UTXO as made, when indexed already."""
        ch = self.ch
        ch[US + uid] = pack(Spend(self.chain_id, tx_id, self.height, self.time).record())
        raw = self.batch.get(UO + uid)
        if raw is None:
            return None
        out = Out.from_record(uid, unpack(raw))
        t8, s8 = u64(out.time), u64(self.time)
        for a in sorted(set(out.addresses)):
            by_time = out.home + a + t8 + uid
            ch[UT_UNSPENT + by_time] = None
            ch[UA_UNSPENT + out.home + a + u64(out.amount) + uid] = None
            ch[UT_ALL + by_time] = s8
            ch[UL + self.chain_id + a + s8 + uid + b"\1"] = pack([tx_id, self.height])
        return out

    # ------------------------------------------------------------------ blocks and txs

    def block(self, block_id: bytes, parent_id: bytes, block_type: str, tx_ids: list[bytes], size: int) -> None:
        sp, ch = self.sp, self.ch
        ch[sp.tb + self.h8] = pack([block_id, parent_id, self.time, block_type, tx_ids, size])
        ch[sp.th + block_id] = self.h8
        ch[sp.tm + u64(self.time) + self.h8] = b""

    def tx(self, index: int, tx_id: bytes, tx_type: str, consumed: list[bytes], emitted: list[bytes],
           addresses: Iterable[bytes], block_id: bytes, extra: dict[str, Any] | None = None) -> bytes:
        """The TX record and its lookups; returns the tx's position key (h i)."""
        sp, ch = self.sp, self.ch
        pos = self.h8 + index.to_bytes(2, "big")
        rec = {"id": tx_id, "type": tx_type, "t": self.time, "blk": block_id, "in": consumed, "out": emitted}
        if extra:
            rec.update(extra)
        ch[sp.tx + pos] = pack(rec)
        ch[sp.ti + tx_id] = pos
        t8 = u64(self.time)
        for a in sorted(set(addresses)):
            ch[sp.ta + a + t8 + pos] = b""
        return pos

    def add(self, name: str, delta: int) -> None:
        """Add to a running total (Zc)."""
        if delta:
            key = counter(name)
            raw = self.batch.get(key)
            self.ch[key] = big((num(raw) if raw else 0) + delta)


def burned(ins: Iterable[Any], outs: Iterable[Any], asset: bytes, extra_out: int = 0) -> int:
    """What a tx burned of `asset`: its inputs less its outputs (TransferableInput/Output) and
    `extra_out` (AVAX that went elsewhere: L1 validator balances)."""
    spent = sum(input_amount(i) for i in ins if i.asset_id == asset)
    made = sum(output_amount(o.out) for o in outs if o.asset_id == asset)
    return spent - made - extra_out
