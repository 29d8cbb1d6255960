"""Reading the primary-network index: raw records and keyset pages.

Every list is a range scan of one table, or a merge of the range scans of several keys of one
table (one per address or node asked for), in key order; a cursor is the suffix of the last row
a page returned (a page of a multi-key list has one cursor for all its keys). A filter the table's
order does not serve is applied while scanning; such a page stops after SCAN_BUDGET rows it did
not keep and hands out a cursor there, so it can hold fewer items than asked (as the hosted API's
transaction lists may) but never costs more than a bounded scan. Bounds: `lo` inclusive, `hi`
exclusive, on the key's suffix; times are unix seconds.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ...store import unpack
from ..keys import num, u32, u64
from ..page import CursorError, Page, Readable
from .layout import (ACTIVE, LOCKED, PENDING, UA_ALL, UA_UNSPENT, UL, UO, US, UT_ALL, UT_UNSPENT, Out, Spend,
                     counter, space)

__all__ = ["SCAN_BUDGET", "BlockRow", "CursorError", "Page", "Record", "TxRow", "Utxo", "ValidatorFilter", "asset",
           "block", "block_by_id", "blockchain", "blockchains", "blocks", "delegators", "has_activity",
           "l1_validator", "l1_validators", "last_activity", "locked_utxos", "node_validations", "rewards", "staker",
           "stakers_of", "staking_txs", "status_of", "subnet", "subnet_chains", "subnets", "total", "tx", "tx_at",
           "txs", "uptime_of", "utxo", "utxos", "utxos_at", "validator_at", "validators"]

SCAN_BUDGET = 2000
Row = tuple[bytes, Any]


# ------------------------------------------------------------------------------ scans


def stream(db: Readable, prefix: bytes, cursor: bytes | None = None, reverse: bool = False,
           lo: bytes | None = None, hi: bytes | None = None) -> Iterator[Row]:
    """(suffix, value) of the keys under `prefix`, in order, strictly after `cursor`, in [lo, hi)."""
    n = len(prefix)
    if reverse:
        stop = hi if cursor is None else (cursor if hi is None else min(cursor, hi))
        rows = db.iterate(prefix, prefix + stop, reverse=True) if stop is not None else db.iterate(prefix, reverse=True)
        for k, v in rows:
            s = k[n:]
            if stop is not None and s >= stop:
                continue
            if lo is not None and s < lo:
                return
            yield s, v
        return
    start = cursor if lo is None else (lo if cursor is None else max(cursor, lo))
    rows = db.iterate(prefix, prefix + start) if start is not None else db.iterate(prefix)
    for k, v in rows:
        s = k[n:]
        if cursor is not None and s <= cursor:
            continue
        if hi is not None and s >= hi:
            return
        yield s, v


def merged(streams: list[Iterator[Row]], reverse: bool) -> Iterator[Row]:
    """Several streams of one suffix shape as one, each suffix once."""
    if len(streams) == 1:
        yield from streams[0]
        return
    last = None
    for s, v in heapq.merge(*streams, key=lambda r: r[0], reverse=reverse):
        if s != last:
            last = s
            yield s, v


def collect(rows: Iterable[Row], limit: int, keep: Callable[[bytes, Any], Any] | None = None,
            budget: int = SCAN_BUDGET) -> Page:
    """Up to `limit` items (keep(suffix, value), None to skip) and the next page's cursor."""
    if limit < 1:
        raise ValueError("a page holds at least one row")
    items: list[Any] = []
    last: bytes | None = None
    skipped = 0
    for s, v in rows:
        item = v if keep is None else keep(s, v)
        if item is None:
            skipped += 1
            if skipped >= budget:
                return Page(tuple(items), s)
            continue
        if len(items) == limit:
            return Page(tuple(items), last)
        items.append(item)
        last = s
    return Page(tuple(items), None)


def check(cursor: bytes | None, width: int) -> None:
    if cursor is not None and (not isinstance(cursor, bytes) or len(cursor) != width):
        raise CursorError("page cursor of the wrong shape")


# ------------------------------------------------------------------------------ UTXOs


@dataclass(frozen=True, slots=True)
class Utxo:
    out: Out
    spend: Spend | None


def utxo(db: Readable, uid: bytes) -> Utxo | None:
    raw = db.get(UO + uid)
    if raw is None:
        return None
    spent = db.get(US + uid)
    return Utxo(Out.from_record(uid, unpack(raw)), Spend.from_record(unpack(spent)) if spent else None)


def utxos(db: Readable, home: bytes, addresses: list[bytes], limit: int, cursor: bytes | None = None,
          reverse: bool = True, by_amount: bool = False, include_spent: bool = False, asset: bytes | None = None,
          min_amount: int = 0) -> Page:
    """UTXOs spendable on `home` owned (in part) by any of `addresses`, by creation time or amount."""
    check(cursor, 40)
    table = (UA_ALL if include_spent else UA_UNSPENT) if by_amount else (UT_ALL if include_spent else UT_UNSPENT)
    # amounts are u64: a minimum past the last one starts the scan there and `keep` refuses all
    lo = u64(min(min_amount, 2**64 - 1)) if by_amount and min_amount else None
    streams = [stream(db, table + home + a, cursor, reverse, lo) for a in sorted(set(addresses))]

    def keep(s: bytes, _: Any) -> Utxo | None:
        u = utxo(db, s[8:])
        if u is None or (asset is not None and u.out.asset != asset) or u.out.amount < min_amount:
            return None
        return u
    return collect(merged(streams, reverse), limit, keep)


def utxos_at(db: Readable, home: bytes, addresses: list[bytes], time: int | None) -> list[Utxo]:
    """Every UTXO of `addresses` on `home` that existed at `time` (made at or before it, not
    spent at or before it); None: the unspent ones now."""
    if time is None:
        streams = [stream(db, UT_UNSPENT + home + a) for a in sorted(set(addresses))]
        return [u for s, _ in merged(streams, False) if (u := utxo(db, s[8:])) is not None]
    streams = [stream(db, UT_ALL + home + a, hi=u64(time + 1)) for a in sorted(set(addresses))]
    out = []
    for s, spent in merged(streams, False):
        if spent and num(spent) <= time:
            continue
        u = utxo(db, s[8:])
        if u is not None:
            out.append(u)
    return out


def last_activity(db: Readable, chain_id: bytes, addresses: list[bytes]) -> tuple[int, bytes, bool, bytes, int] | None:
    """(time, UTXO ID, consumed?, tx, height) of the latest UTXO made or spent on the chain for any address."""
    best = None
    for a in sorted(set(addresses)):
        for s, v in db.iterate(UL + chain_id + a, reverse=True):
            s = s[len(UL) + 52:]
            tx_id, height = unpack(v)
            found = (num(s[:8]), s[8:40], s[40:] == b"\1", tx_id, height)
            if best is None or found[0] > best[0]:
                best = found
            break
    return best


def has_activity(db: Readable, chain_id: bytes, address: bytes) -> bool:
    for _ in db.iterate(UL + chain_id + address):
        return True
    return False


def locked_utxos(db: Readable, after: int) -> Iterator[Utxo]:
    """Unspent UTXOs whose lock (platform or stakeable) lasts beyond `after`."""
    for s, _ in stream(db, LOCKED, lo=u64(after + 1)):
        u = utxo(db, s[8:])
        if u is not None and u.spend is None:
            yield u


def total(db: Readable, name: str) -> int:
    raw = db.get(counter(name))
    return num(raw) if raw else 0


# ------------------------------------------------------------------------------ blocks and txs


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


# ------------------------------------------------------------------------------ stakers


@dataclass(frozen=True, slots=True)
class Record:
    key: bytes  # bi: where its tx sits
    kind: str  # "v" validator | "d" delegator | "l" L1 validator | "n" subnet | "c" chain
    rec: dict


def status_of(rec: dict, now: int) -> int:
    if rec["st"] == ACTIVE and rec["start"] > now:
        return PENDING
    return rec["st"]


def staker(db: Readable, pid: bytes, tx_id: bytes) -> Record | None:
    sp = space(pid)
    found = db.get(sp.sx + tx_id)
    if found is None:
        return None
    kind, key = found[:1].decode(), found[1:]
    raw = db.get((sp.sv if kind == "v" else sp.sd) + key)
    return None if raw is None else Record(key, kind, unpack(raw))


def validator_at(db: Readable, pid: bytes, key: bytes) -> dict | None:
    """The VALIDATOR record at `key` (bi)."""
    raw = db.get(space(pid).sv + key)
    return None if raw is None else unpack(raw)


def _validator(db: Readable, pid: bytes, key: bytes) -> Record | None:
    raw = db.get(space(pid).sv + key)
    return None if raw is None else Record(key, "v", unpack(raw))


@dataclass(frozen=True, slots=True)
class ValidatorFilter:
    now: int
    node_texts: tuple[str, ...] = ()  # substrings of "NodeID-..." (any may match)
    status: int | None = None
    subnet: bytes | None = None
    capacity: tuple[int | None, int | None] = (None, None)
    remaining: tuple[int | None, int | None] = (None, None)  # seconds
    fee_shares: tuple[int | None, int | None] = (None, None)  # ppm
    uptime: tuple[float | None, float | None] = (None, None)
    node_name: Callable[[bytes], str] = str

    def accepts(self, rec: dict, capacity_of: Callable[[dict], int | None]) -> bool:
        if self.node_texts and not any(t in self.node_name(rec["node"]) for t in self.node_texts):
            return False
        if self.status is not None and status_of(rec, self.now) != self.status:
            return False
        if self.subnet is not None and rec["subnet"] != self.subnet:
            return False
        lo, hi = self.capacity
        if lo is not None or hi is not None:
            cap = capacity_of(rec)
            if cap is None or (lo is not None and cap < lo) or (hi is not None and cap > hi):
                return False
        lo, hi = self.remaining
        if lo is not None or hi is not None:
            left = max(0, rec["end"] - self.now) if rec["st"] == ACTIVE else 0
            if (lo is not None and left < lo) or (hi is not None and left > hi):
                return False
        lo, hi = self.fee_shares
        if lo is not None or hi is not None:
            shares = rec.get("shares")
            if shares is None or (lo is not None and shares < lo) or (hi is not None and shares > hi):
                return False
        lo, hi = self.uptime
        if lo is not None or hi is not None:
            up = uptime_of(rec)
            if up is None or (lo is not None and up < lo) or (hi is not None and up > hi):
                return False
        return True


def uptime_of(rec: dict) -> float | None:
    """The uptime this node observed: a single node is always up, so 100 for a current validation."""
    return 100.0 if rec["st"] == ACTIVE else None


def validators(db: Readable, pid: bytes, limit: int, cursor: bytes | None, reverse: bool, sort: str,
               f: ValidatorFilter, exact_nodes: list[bytes] | None, capacity_of: Callable[[dict], int | None]) -> Page:
    """Validations (primary and permissioned subnet ones), by `sort`: blockIndex (and
    uptimePerformance, the same for every validator here), timeRemaining (end time),
    delegationFee, delegationCapacity (current primary validators only)."""
    sp = space(pid)
    if sort == "timeRemaining":
        check(cursor, 18)
        lo_s, hi_s = f.remaining
        lo = u64(f.now + lo_s) if lo_s is not None else None
        hi = u64(f.now + hi_s + 1) if hi_s is not None else None
        rows: Iterator[Row] = stream(db, sp.ve, cursor, reverse, lo, hi)
        cut = 8
    elif sort == "delegationFee":
        check(cursor, 14)
        lo_f, hi_f = f.fee_shares
        rows = stream(db, sp.vf, cursor, reverse, u32(lo_f) if lo_f is not None else None,
                      u32(hi_f + 1) if hi_f is not None else None)
        cut = 4
    elif sort == "delegationCapacity":
        check(cursor, 18)
        lo_c, hi_c = f.capacity
        rows = stream(db, sp.vc, cursor, reverse, u64(lo_c) if lo_c is not None else None,
                      u64(hi_c + 1) if hi_c is not None and hi_c + 1 < 1 << 64 else None)
        cut = 8
    else:
        check(cursor, 10)
        cut = 0
        if exact_nodes:
            rows = merged([stream(db, sp.vn + n, cursor, reverse) for n in sorted(set(exact_nodes))], reverse)
        elif f.status is not None:
            table = sp.vs + bytes([ACTIVE if f.status == PENDING else f.status])
            rows = stream(db, table, cursor, reverse)
        elif f.subnet is not None:
            rows = stream(db, sp.vS + f.subnet, cursor, reverse)
        else:
            rows = stream(db, sp.sv, cursor, reverse)
            return collect(rows, limit, lambda s, v: _keep_validator(Record(s, "v", unpack(v)), f, capacity_of))

    def keep(s: bytes, _: Any) -> Record | None:
        found = _validator(db, pid, s[cut:])
        return None if found is None else _keep_validator(found, f, capacity_of)
    return collect(rows, limit, keep)


def _keep_validator(r: Record, f: ValidatorFilter, capacity_of: Callable[[dict], int | None]) -> Record | None:
    return r if f.accepts(r.rec, capacity_of) else None


def node_validations(db: Readable, pid: bytes, node: bytes, limit: int, cursor: bytes | None, reverse: bool,
                     status: int | None, now: int) -> Page:
    """Every validation of one node (any subnet), by blockIndex."""
    check(cursor, 10)
    sp = space(pid)

    def keep(s: bytes, _: Any) -> Record | None:
        r = _validator(db, pid, s)
        return r if r is not None and (status is None or status_of(r.rec, now) == status) else None
    return collect(stream(db, sp.vn + node, cursor, reverse), limit, keep)


def delegators(db: Readable, pid: bytes, limit: int, cursor: bytes | None, reverse: bool, now: int,
               nodes: list[bytes] | None = None, reward_addresses: list[bytes] | None = None,
               status: int | None = None) -> Page:
    check(cursor, 10)
    sp = space(pid)
    if nodes:
        rows = merged([stream(db, sp.dn + n, cursor, reverse) for n in sorted(set(nodes))], reverse)
    elif reward_addresses:
        rows = merged([stream(db, sp.dr + a, cursor, reverse) for a in sorted(set(reward_addresses))], reverse)
    elif status is not None:
        rows = stream(db, sp.ds + bytes([ACTIVE if status == PENDING else status]), cursor, reverse)
    else:
        rows = stream(db, sp.sd, cursor, reverse)
    node_set = set(nodes or ())
    owner_set = set(reward_addresses or ())

    def keep(s: bytes, _: Any) -> Record | None:
        raw = db.get(sp.sd + s)
        if raw is None:
            return None
        rec = unpack(raw)
        if node_set and rec["node"] not in node_set:
            return None
        if owner_set and not owner_set.intersection(rec["ro"][1]):
            return None
        if status is not None and status_of(rec, now) != status:
            return None
        return Record(s, "d", rec)
    return collect(rows, limit, keep)


def stakers_of(db: Readable, pid: bytes, limit: int, cursor: bytes | None, reverse: bool, now: int,
               addresses: list[bytes], nodes: list[bytes]) -> Page:
    """Current validators and delegators (primary network) whose reward owners include one of
    `addresses` or whose node is one of `nodes`, by blockIndex."""
    check(cursor, 10)
    sp = space(pid)
    streams = [stream(db, sp.vr + a, cursor, reverse) for a in sorted(set(addresses))]
    streams += [stream(db, sp.dr + a, cursor, reverse) for a in sorted(set(addresses))]
    streams += [stream(db, sp.vn + n, cursor, reverse) for n in sorted(set(nodes))]
    streams += [stream(db, sp.dn + n, cursor, reverse) for n in sorted(set(nodes))]

    def keep(s: bytes, _: Any) -> Record | None:
        raw = db.get(sp.sv + s)
        kind = "v"
        if raw is None:
            raw, kind = db.get(sp.sd + s), "d"
        if raw is None:
            return None
        rec = unpack(raw)
        if rec["subnet"] != bytes(32) or status_of(rec, now) not in (ACTIVE, PENDING):
            return None
        return Record(s, kind, rec)
    return collect(merged(streams, reverse), limit, keep)


def rewards(db: Readable, pid: bytes, limit: int, cursor: bytes | None, reverse: bool, addresses: list[bytes],
            nodes: list[bytes]) -> Page:
    """Reward UTXOs paid to `addresses` or for the stakes of `nodes`, by time: (Utxo, Record)."""
    check(cursor, 40)
    sp = space(pid)
    streams = [stream(db, sp.rw + a, cursor, reverse) for a in sorted(set(addresses))]
    streams += [stream(db, sp.rn + n, cursor, reverse) for n in sorted(set(nodes))]

    def keep(s: bytes, v: Any) -> tuple[Utxo, Record] | None:
        key, kind = unpack(v)
        u = utxo(db, s[8:])
        raw = db.get((sp.sv if kind == b"v" else sp.sd) + key)
        if u is None or raw is None:
            return None
        return u, Record(key, kind.decode(), unpack(raw))
    return collect(merged(streams, reverse), limit, keep)


# ------------------------------------------------------------------------------ L1 validators


def l1_validator(db: Readable, pid: bytes, vid: bytes) -> Record | None:
    raw = db.get(space(pid).lv + vid)
    if raw is None:
        return None
    rec = unpack(raw)
    return Record(vid, "l", rec)


def l1_validators(db: Readable, pid: bytes, limit: int, cursor: bytes | None, reverse: bool,
                  include_inactive: bool, node: bytes | None = None, subnet: bytes | None = None) -> Page:
    """L1 validators by creation; only the active ones (weight and balance left) unless asked."""
    check(cursor, 12)
    sp = space(pid)
    if node is not None:
        rows = stream(db, sp.lN + node, cursor, reverse)
    elif subnet is not None:
        rows = stream(db, sp.lS + subnet, cursor, reverse)
    else:
        rows = stream(db, sp.lb if include_inactive else sp.la, cursor, reverse)

    def keep(_: bytes, vid: Any) -> Record | None:
        r = l1_validator(db, pid, vid)
        if r is None:
            return None
        if subnet is not None and r.rec["subnet"] != subnet:
            return None
        if not include_inactive and not (r.rec["w"] > 0 and r.rec["end"] != 0):
            return None
        return r
    return collect(rows, limit, keep)


# ------------------------------------------------------------------------------ subnets and chains


def subnets(db: Readable, pid: bytes, limit: int, cursor: bytes | None, reverse: bool) -> Page:
    check(cursor, 10)
    return collect(stream(db, space(pid).nb, cursor, reverse), limit, lambda s, v: Record(s, "n", unpack(v)))


def subnet(db: Readable, pid: bytes, subnet_id: bytes) -> Record | None:
    sp = space(pid)
    key = db.get(sp.ni + subnet_id)
    raw = None if key is None else db.get(sp.nb + key)
    return None if raw is None else Record(key, "n", unpack(raw))


def blockchains(db: Readable, pid: bytes, limit: int, cursor: bytes | None, reverse: bool) -> Page:
    check(cursor, 10)
    return collect(stream(db, space(pid).cb, cursor, reverse), limit, lambda s, v: Record(s, "c", unpack(v)))


def blockchain(db: Readable, pid: bytes, chain_id: bytes) -> Record | None:
    sp = space(pid)
    key = db.get(sp.ci + chain_id)
    raw = None if key is None else db.get(sp.cb + key)
    return None if raw is None else Record(key, "c", unpack(raw))


def subnet_chains(db: Readable, pid: bytes, subnet_id: bytes) -> list[Record]:
    out = []
    for _, chain_id in stream(db, space(pid).cs + subnet_id):
        r = blockchain(db, pid, chain_id)
        if r is not None:
            out.append(r)
    return out
