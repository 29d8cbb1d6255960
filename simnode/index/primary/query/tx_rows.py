"""P- and X-Chain blocks, txs and X assets in the primary-network index."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ....store import unpack
from ...keys import num, u64
from ...page import Page, Readable
from ..layout import ACTIVE, space
from .scan import check, collect, merged, stream
from .staker_rows import staker, status_of


@dataclass(frozen=True, slots=True)
class BlockRow:
    chain_id: bytes
    height: int
    id: bytes
    parent: bytes
    time: int
    type: str
    tx_ids: tuple[bytes, ...]
    size: int


@dataclass(frozen=True, slots=True)
class TxRow:
    chain_id: bytes
    height: int
    index: int
    rec: dict

    @property
    def id(self) -> bytes:
        return self.rec["id"]

    @property
    def type(self) -> str:
        return self.rec["type"]

    @property
    def time(self) -> int:
        return self.rec["t"]


def _block(cid: bytes, height: int, raw: bytes) -> BlockRow:
    block_id, parent, time, kind, tx_ids, size = unpack(raw)
    return BlockRow(cid, height, block_id, parent, time, kind, tuple(tx_ids), size)


def block(db: Readable, cid: bytes, height: int) -> BlockRow | None:
    raw = db.get(space(cid).tb + u64(height))
    return None if raw is None else _block(cid, height, raw)


def block_by_id(db: Readable, cid: bytes, block_id: bytes) -> BlockRow | None:
    h = db.get(space(cid).th + block_id)
    return None if h is None else block(db, cid, num(h))


def blocks(db: Readable, cid: bytes, limit: int, cursor: bytes | None = None, reverse: bool = True,
           start: int | None = None, end: int | None = None) -> Page:
    """Blocks, newest first unless not `reverse`; `start`/`end` bound their time (both inclusive)."""
    sp = space(cid)
    check(cursor, 16)
    lo = u64(start) if start is not None else None
    hi = u64(end + 1) if end is not None else None
    return collect(stream(db, sp.tm, cursor, reverse, lo, hi), limit,
                   lambda s, _: block(db, cid, num(s[8:])))


def tx_at(db: Readable, cid: bytes, pos: bytes) -> TxRow | None:
    raw = db.get(space(cid).tx + pos)
    return None if raw is None else TxRow(cid, num(pos[:8]), num(pos[8:]), unpack(raw))


def tx(db: Readable, cid: bytes, tx_id: bytes) -> TxRow | None:
    pos = db.get(space(cid).ti + tx_id)
    return None if pos is None else tx_at(db, cid, pos)


def txs(db: Readable, cid: bytes, limit: int, cursor: bytes | None = None, reverse: bool = True,
        addresses: list[bytes] | None = None, types: set[str] | None = None, start: int | None = None,
        end: int | None = None, asset: bytes | None = None, validation_id: bytes | None = None) -> Page:
    """Txs of a chain, newest first unless not `reverse`: all of them, or those of `addresses`,
    of an X asset or of an L1 validation; `types` and the time bounds (inclusive) filter them."""
    sp = space(cid)
    lo = u64(start) if start is not None else None
    hi = u64(end + 1) if end is not None else None
    if validation_id is not None or asset is not None or addresses:
        check(cursor, 18)
        if validation_id is not None:
            prefixes = [sp.tl + validation_id]
        elif asset is not None:
            prefixes = [sp.tk + asset]
        else:
            prefixes = [sp.ta + a for a in sorted(set(addresses or ()))]
        rows = merged([stream(db, p, cursor, reverse, lo, hi) for p in prefixes], reverse)
        cut = 8
    else:
        check(cursor, 10)
        rows = stream(db, sp.tx, cursor, reverse)
        cut = 0

    def keep(s: bytes, v: Any) -> TxRow | None:
        row = tx_at(db, cid, s[cut:]) if cut else TxRow(cid, num(s[:8]), num(s[8:]), unpack(v))
        if row is None or (types and row.type not in types):
            return None
        if not cut and ((start is not None and row.time < start) or (end is not None and row.time > end)):
            return None
        return row
    return collect(rows, limit, keep)


def staking_txs(db: Readable, pid: bytes, addresses: list[bytes], limit: int, cursor: bytes | None, reverse: bool,
                now: int, types: set[str] | None = None, start: int | None = None, end: int | None = None) -> Page:
    """The staking txs of stakers still staking at `now`, by stake and reward owner."""
    sp = space(pid)
    check(cursor, 18)
    lo = u64(start) if start is not None else None
    hi = u64(end + 1) if end is not None else None
    rows = merged([stream(db, sp.ts + a, cursor, reverse, lo, hi) for a in sorted(set(addresses))], reverse)

    def keep(s: bytes, _: Any) -> TxRow | None:
        row = tx_at(db, pid, s[8:])
        if row is None or (types and row.type not in types):
            return None
        found = staker(db, pid, row.id)
        return row if found is not None and status_of(found.rec, now) == ACTIVE else None
    return collect(rows, limit, keep)


def asset(db: Readable, xid: bytes, asset_id: bytes) -> dict | None:
    raw = db.get(space(xid).xa + asset_id)
    return None if raw is None else unpack(raw)

