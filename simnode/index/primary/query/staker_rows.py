"""Stakers in the primary-network index: validators, delegators and their rewards."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ....store import unpack
from ...keys import u32, u64
from ...page import Page, Readable
from ..layout import ACTIVE, PENDING, space
from .scan import Row, check, collect, merged, stream
from .utxo_rows import Utxo, utxo


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
        return not (_outside(self.capacity, lambda: capacity_of(rec))
                    or _outside(self.remaining, lambda: max(0, rec["end"] - self.now) if rec["st"] == ACTIVE else 0)
                    or _outside(self.fee_shares, lambda: rec.get("shares"))
                    or _outside(self.uptime, lambda: uptime_of(rec)))


def _outside(bounds: tuple[float | None, float | None], value_of: Callable[[], float | None]) -> bool:
    """Whether a bounded filter refuses the value (a missing value is refused); the value is only
    read when there is a bound."""
    lo, hi = bounds
    if lo is None and hi is None:
        return False
    value = value_of()
    return value is None or (lo is not None and value < lo) or (hi is not None and value > hi)


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

