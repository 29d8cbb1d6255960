"""Reading the EVM metric tables: time series and rolling windows, for one chain or the union of
several (`total`, `mainnet`, `testnet`). Values are ints, or floats where a rule divides.

    series(db, chain_id, metric, interval, start, end, limit, cursor) -> Series
    union_series(db, chain_ids, metric, interval, start, end, limit, cursor) -> Series
    rolling(db, chain_ids, metric, now_ms) -> {window name: value}
    metric_chains(db) -> IDs of the chains with metric rows

A series lists bucket starts in [start, end) newest first, one range scan of the bucket rows
(the union adds, per chain, one scan of the same range and one seek); `cursor` is the start of
the last point of the previous page. Only buckets holding a block are listed (an empty bucket
is absent).

What a bucket's figures give (issue 11): txCount, gasUsed, activeAddresses, activeSenders,
contracts, deployers and feesPaid as counted; avgGasPrice = price sum / txs; maxGasPrice;
avgTps/avgGps = the bucket's txs/gas over the time from the last block before it to its last
block (0 when there is no such time); maxTps/maxGps the greatest per-block ratio;
cumulativeTxCount, cumulativeAddresses, cumulativeDeployers up to the bucket's end;
cumulativeContracts up to its start. Over several chains: sums, except the distinct counts
(over the union), avgGasPrice (the mean over every tx) and maxGasPrice (the greatest); the
throughput figures (avg/max tps/gps) are the sums of the chains' own. The union's records hold
its distinct counts and sums, so only the throughput and cumulative tx/contract counts read
the chains' records too.

Rolling windows end now and start `seconds` earlier (allTime: at genesis); a block belongs to a
window when its time (ms) is at or after the start. Sums are two seeks in the per-block marks,
maxima combine bucket maxima with a scan of at most an hour of marks, distinct counts read the
hour markers (activeAddresses and activeSenders: last hour, day and week only) or the day
deployer markers. avgTps/avgGps divide by the time from the last block before the window (the
window's first block, its own txs left out, when there is none) to the last block.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import islice
from operator import itemgetter
from typing import NamedTuple

import msgpack

from ...store import unpack
from ..evm.query import indexed_chains
from ..keys import num, u8, u64
from ..page import Readable, first
from . import buckets
from .layout import (ACTIVE, B_ACTIVE, B_CONTRACTS, B_CUM_ADDRESSES, B_CUM_CONTRACTS, B_CUM_DEPLOYERS, B_CUM_TXS,
                     B_DEPLOYERS, B_FEES, B_GAS, B_GPS_DEN, B_GPS_NUM, B_LAST_MS, B_MAX_PRICE, B_PREV_MS,
                     B_PRICE_SUM, B_SENDERS, B_TPS_DEN, B_TPS_NUM, B_TXS, K_CUM_CONTRACTS, K_CUM_FEES, K_CUM_GAS,
                     K_CUM_PRICE_SUM, K_CUM_TXS, K_GAS, K_MAX_PRICE, K_PREV_MS, K_TXS, SENDER, T_DEPLOYERS,
                     U_ACTIVE, U_CONTRACTS, U_CUM_ADDRESSES, U_CUM_DEPLOYERS, U_DEPLOYERS, U_FEES, U_GAS,
                     U_MAX_PRICE, U_PRICE_SUM, U_SENDERS, U_TXS, UNION, MetricSpace, chain_metrics)

METRICS = ("activeAddresses", "activeSenders", "cumulativeTxCount", "cumulativeAddresses", "cumulativeContracts",
           "cumulativeDeployers", "contracts", "deployers", "gasUsed", "txCount", "avgGps", "maxGps", "avgTps",
           "maxTps", "avgGasPrice", "maxGasPrice", "feesPaid")
# the metrics served for timeInterval=day only
DAY_ONLY = frozenset([m for m in METRICS if m.startswith(("cumulative", "avg", "max"))]
                     + ["contracts", "deployers", "feesPaid"])
WINDOWS = (("lastHour", 3600), ("lastDay", 86_400), ("lastWeek", 7 * 86_400), ("lastMonth", 30 * 86_400),
           ("last90Days", 90 * 86_400), ("lastYear", 365 * 86_400), ("allTime", None))
SHORT_WINDOWS = ("lastHour", "lastDay", "lastWeek")  # the only ones of activeAddresses, activeSenders

Number = int | float


class Point(NamedTuple):
    timestamp: int  # the bucket's start (s)
    value: Number


@dataclass(frozen=True, slots=True)
class Series:
    points: tuple[Point, ...]
    next: int | None  # the cursor of the next page: the last point's timestamp; None when done


def metric_chains(db: Readable) -> list[bytes]:
    """The chains with EVM metric rows, ascending by ID."""
    return [cid for cid in indexed_chains(db) if db.get(chain_metrics(cid).totals) is not None]


def _ratio(a: int, b: int) -> Number:
    return a / b if b else 0


def _n(b: bytes) -> int:
    return int.from_bytes(b, "big")


def _avg_over_time(amount: int, prev_ms: int | None, last_ms: int) -> Number:
    if prev_ms is None or last_ms <= prev_ms:
        return 0
    return amount * 1000 / (last_ms - prev_ms)


_VALUES: dict[str, Callable[[Sequence], Number]] = {
    "txCount": itemgetter(B_TXS),
    "gasUsed": itemgetter(B_GAS),
    "activeAddresses": itemgetter(B_ACTIVE),
    "activeSenders": itemgetter(B_SENDERS),
    "contracts": itemgetter(B_CONTRACTS),
    "deployers": itemgetter(B_DEPLOYERS),
    "feesPaid": lambda r: _n(r[B_FEES]),
    "avgGasPrice": lambda r: _ratio(_n(r[B_PRICE_SUM]), r[B_TXS]),
    "maxGasPrice": lambda r: _n(r[B_MAX_PRICE]),
    "avgTps": lambda r: _avg_over_time(r[B_TXS], r[B_PREV_MS], r[B_LAST_MS]),
    "avgGps": lambda r: _avg_over_time(r[B_GAS], r[B_PREV_MS], r[B_LAST_MS]),
    "maxTps": lambda r: _ratio(r[B_TPS_NUM], r[B_TPS_DEN]),
    "maxGps": lambda r: _ratio(r[B_GPS_NUM], r[B_GPS_DEN]),
    "cumulativeTxCount": itemgetter(B_CUM_TXS),
    "cumulativeContracts": lambda r: r[B_CUM_CONTRACTS] - r[B_CONTRACTS],
    "cumulativeAddresses": itemgetter(B_CUM_ADDRESSES),
    "cumulativeDeployers": itemgetter(B_CUM_DEPLOYERS),
}


def _record(raw: bytes) -> tuple:
    """A stored record, read only: a tuple is quicker to build than a list."""
    return msgpack.unpackb(raw, use_list=False)


def bucket_value(metric: str, rec: Sequence) -> Number:
    """The metric of one chain's bucket record."""
    return _VALUES[metric](rec)


def _newest_first(db: Readable, prefix: bytes, start: int | None, end: int | None, cursor: int | None,
                  limit: int) -> tuple[list[tuple[int, bytes]], int | None]:
    """Up to `limit` (bucket start, record) with start <= t < end and t < cursor, newest first,
    and the next page's cursor: one reverse range scan of at most limit + 1 rows."""
    hi = end if cursor is None else (cursor if end is None else min(end, cursor))
    if hi is not None and hi <= 0:
        return [], None
    rows = list(islice(db.iterate(prefix, None if hi is None else prefix + u64(hi - 1), reverse=True), limit + 1))
    if start is not None:
        floor = prefix + u64(start)
        while rows and rows[-1][0] < floor:
            rows.pop()
    cut = len(prefix)
    out = [(int.from_bytes(key[cut:], "big"), raw) for key, raw in rows[:limit]]
    return out, out[-1][0] if len(rows) > limit else None


def series(db: Readable, chain_id: bytes, metric: str, interval: int, start: int | None, end: int | None,
           limit: int, cursor: int | None = None) -> Series:
    """One chain's points in [start, end), newest first."""
    rows, nxt = _newest_first(db, chain_metrics(chain_id).buckets + u8(interval), start, end, cursor, limit)
    value = _VALUES[metric]
    return Series(tuple(Point(t, value(_record(raw))) for t, raw in rows), nxt)


# ---------------------------------------------------------------------- over several chains

_SUMMED = ("avgTps", "avgGps", "maxTps", "maxGps")  # each chain's own figure, added up
_CARRIED = ("cumulativeTxCount", "cumulativeContracts")
# the union's own record holds these
_UNION_VALUES: dict[str, Callable[[Sequence], Number]] = {
    "activeAddresses": itemgetter(U_ACTIVE), "activeSenders": itemgetter(U_SENDERS),
    "deployers": itemgetter(U_DEPLOYERS), "cumulativeAddresses": itemgetter(U_CUM_ADDRESSES),
    "cumulativeDeployers": itemgetter(U_CUM_DEPLOYERS), "txCount": itemgetter(U_TXS), "gasUsed": itemgetter(U_GAS),
    "contracts": itemgetter(U_CONTRACTS), "feesPaid": lambda r: _n(r[U_FEES]),
    "avgGasPrice": lambda r: _ratio(_n(r[U_PRICE_SUM]), r[U_TXS]), "maxGasPrice": lambda r: _n(r[U_MAX_PRICE]),
}


def _chain_records(db: Readable, sp: MetricSpace, interval: int, oldest: int, newest: int,
                   carry: bool) -> list[tuple[int, tuple]]:
    """A chain's bucket records in [oldest, newest], and (carry) the last one before `oldest`,
    newest first."""
    prefix = sp.buckets + u8(interval)
    cut = len(prefix)
    out = []
    for key, raw in db.iterate(prefix, prefix + u64(newest), reverse=True):
        t = int.from_bytes(key[cut:], "big")
        out.append((t, _record(raw)))
        if t < oldest or (t == oldest and not carry):
            break
    if out and out[-1][0] < oldest and not carry:
        out.pop()
    return out


def _carried(metric: str, at: int, found: tuple[int, tuple] | None) -> int:
    """cumulativeTxCount/cumulativeContracts of one chain at bucket `at`, from its last record at or
    before it (0 before its first)."""
    if found is None:
        return 0
    t, rec = found
    if metric == "cumulativeTxCount":
        return rec[B_CUM_TXS]
    return rec[B_CUM_CONTRACTS] - (rec[B_CONTRACTS] if t == at else 0)


def union_series(db: Readable, chain_ids: Iterable[bytes], metric: str, interval: int, start: int | None,
                 end: int | None, limit: int, cursor: int | None = None) -> Series:
    """The points of several chains together, newest first (every bucket holding a block of one
    of them)."""
    rows, nxt = _newest_first(db, UNION.buckets + u8(interval), start, end, cursor, limit)
    if not rows:
        return Series((), None)
    if metric in _UNION_VALUES:
        of_record = _UNION_VALUES[metric]
        return Series(tuple(Point(t, of_record(_record(raw))) for t, raw in rows), nxt)
    stamps = [t for t, _ in rows]
    carry = metric in _CARRIED
    per_chain = [_chain_records(db, chain_metrics(cid), interval, stamps[-1], stamps[0], carry) for cid in chain_ids]
    positions = [0] * len(per_chain)
    points = []
    for t in stamps:  # newest first: each chain's records are walked once, in step
        at: list[tuple[int, tuple] | None] = []
        for i, recs in enumerate(per_chain):
            j = positions[i]
            while j < len(recs) and recs[j][0] > t:
                j += 1
            positions[i] = j
            at.append(recs[j] if j < len(recs) else None)
        if carry:
            value: Number = sum(_carried(metric, t, found) for found in at)
        else:
            value = sum(bucket_value(metric, found[1]) for found in at if found is not None and found[0] == t)
        points.append(Point(t, value))
    return Series(tuple(points), nxt)


# ---------------------------------------------------------------------- rolling windows


@dataclass(frozen=True, slots=True)
class _Mark:
    ms: int
    rec: list


def _mark(hit: tuple[bytes, bytes] | None) -> _Mark | None:
    return None if hit is None else _Mark(num(hit[0][:8]), unpack(hit[1]))


class _ChainWindow:
    """One chain's figures over the blocks at or after `since_ms` (None: all of them)."""

    def __init__(self, db: Readable, chain_id: bytes, since_ms: int | None) -> None:
        self.db = db
        self.sp = chain_metrics(chain_id)
        self.since = since_ms
        self.last = _mark(first(db, self.sp.marks))
        self.before = None if since_ms is None or since_ms <= 0 else _mark(
            first(db, self.sp.marks, u64(since_ms - 1) + b"\xff" * 8))

    def total(self, field: int, wei: bool = False) -> int:
        if self.last is None:
            return 0
        value = self.last.rec[field]
        if wei:  # a big-endian byte string
            return _n(value) - _n(self.before.rec[field] if self.before is not None else b"")
        return value - (self.before.rec[field] if self.before is not None else 0)

    def per_second(self, field: int) -> Number:
        """The window's txs (K_CUM_TXS) or gas (K_CUM_GAS) per second since the block before it."""
        if self.last is None:
            return 0
        ref = self.before
        if ref is None:
            hit = next(iter(self.db.iterate(self.sp.marks)), None)
            if hit is None:
                return 0
            ref = _Mark(num(hit[0][len(self.sp.marks):len(self.sp.marks) + 8]), unpack(hit[1]))
        return _avg_over_time(self.last.rec[field] - ref.rec[field], ref.ms, self.last.ms)

    def maxima(self) -> tuple[int, tuple[int, int], tuple[int, int]]:
        """(max gas price, max tps and max gps as (numerator, denominator)) over the window."""
        best_price = 0
        best_rates = [(0, 0), (0, 0)]  # tps, gps

        def take(price: int, tps: tuple[int, int], gps: tuple[int, int]) -> None:
            nonlocal best_price
            best_price = max(best_price, price)
            for i, r in ((0, tps), (1, gps)):
                if r[1] and (best_rates[i][1] == 0 or r[0] * best_rates[i][1] > best_rates[i][0] * r[1]):
                    best_rates[i] = r

        def take_buckets(interval: int, lo: int | None, hi: int | None) -> None:
            prefix = self.sp.buckets + u8(interval)
            rows = self.db.iterate(prefix, None if lo is None else prefix + u64(lo))
            for key, raw in rows:
                if hi is not None and num(key[len(prefix):]) >= hi:
                    break
                rec = unpack(raw)
                take(_n(rec[B_MAX_PRICE]), (rec[B_TPS_NUM], rec[B_TPS_DEN]), (rec[B_GPS_NUM], rec[B_GPS_DEN]))

        if self.since is None:
            take_buckets(buckets.MONTH, None, None)
            return best_price, best_rates[0], best_rates[1]
        s0 = -(-self.since // 1000)
        h1 = buckets.bucket_start(buckets.HOUR, s0)
        h1 = h1 if h1 == s0 else buckets.next_start(buckets.HOUR, h1)
        d1 = buckets.bucket_start(buckets.DAY, h1)
        d1 = d1 if d1 == h1 else buckets.next_start(buckets.DAY, d1)
        m1 = buckets.bucket_start(buckets.MONTH, d1)
        m1 = m1 if m1 == d1 else buckets.next_start(buckets.MONTH, m1)
        for key, raw in self.db.iterate(self.sp.marks, self.sp.marks + u64(self.since)):
            ms = num(key[len(self.sp.marks):len(self.sp.marks) + 8])
            if ms >= h1 * 1000:
                break
            rec = unpack(raw)
            prev, delta = rec[K_PREV_MS], 0
            if prev is not None:
                delta = ms - prev
            take(_n(rec[K_MAX_PRICE]), (rec[K_TXS] * 1000, delta) if delta > 0 else (0, 0),
                 (rec[K_GAS] * 1000, delta) if delta > 0 else (0, 0))
        take_buckets(buckets.HOUR, h1, d1)
        take_buckets(buckets.DAY, d1, m1)
        take_buckets(buckets.MONTH, m1, None)
        return best_price, best_rates[0], best_rates[1]

    def distinct(self, role: int) -> set[bytes]:
        """The addresses active (role ACTIVE) or sending (SENDER) in the window (hour markers)."""
        prefix = self.sp.markers + u8(buckets.HOUR)
        assert self.since is not None
        since = self.since
        h0 = buckets.bucket_start(buckets.HOUR, since // 1000)
        out = set()
        cut = len(prefix) + 8
        for key, raw in self.db.iterate(prefix, prefix + u64(h0)):
            last = _n(raw[9:17]) if role == SENDER else _n(raw[1:9])
            if last >= since and (role != SENDER or raw[0] & SENDER):
                out.add(key[cut:])
        return out

    def deployers(self) -> set[bytes]:
        assert self.since is not None
        prefix = self.sp.deployers
        d0 = buckets.bucket_start(buckets.DAY, self.since // 1000)
        return {key[len(prefix) + 8:] for key, raw in self.db.iterate(prefix, prefix + u64(d0))
                if _n(raw) >= self.since}


_SUM_FIELDS = {"txCount": (K_CUM_TXS, False), "gasUsed": (K_CUM_GAS, False), "feesPaid": (K_CUM_FEES, True),
               "contracts": (K_CUM_CONTRACTS, False)}


def _window_value(db: Readable, chain_ids: list[bytes], metric: str, since_ms: int | None) -> Number:
    windows = [_ChainWindow(db, cid, since_ms) for cid in chain_ids]
    if metric in _SUM_FIELDS:
        field, wei = _SUM_FIELDS[metric]
        return sum(w.total(field, wei) for w in windows)
    if metric == "avgTps":
        return sum(w.per_second(K_CUM_TXS) for w in windows)
    if metric == "avgGps":
        return sum(w.per_second(K_CUM_GAS) for w in windows)
    if metric == "avgGasPrice":
        return _ratio(sum(w.total(K_CUM_PRICE_SUM, True) for w in windows), sum(w.total(K_CUM_TXS) for w in windows))
    if metric in ("maxGasPrice", "maxTps", "maxGps"):
        maxima = [w.maxima() for w in windows]
        if metric == "maxGasPrice":
            return max((m[0] for m in maxima), default=0)
        return sum(_ratio(*(m[1] if metric == "maxTps" else m[2])) for m in maxima)
    if metric in ("activeAddresses", "activeSenders"):
        role = SENDER if metric == "activeSenders" else ACTIVE
        found: set[bytes] = set()
        for w in windows:
            found |= w.distinct(role)
        return len(found)
    if metric == "deployers":
        if since_ms is None:
            return _all_time_deployers(db, chain_ids)
        found = set()
        for w in windows:
            found |= w.deployers()
        return len(found)
    raise ValueError(f"{metric} has no rolling window")


def _all_time_deployers(db: Readable, chain_ids: list[bytes]) -> int:
    if len(chain_ids) == 1:
        totals = db.get(chain_metrics(chain_ids[0]).totals)
        return 0 if totals is None else unpack(totals)[T_DEPLOYERS]
    latest = first(db, UNION.buckets + u8(buckets.DAY))
    return 0 if latest is None else unpack(latest[1])[U_CUM_DEPLOYERS]


def rolling(db: Readable, chain_ids: list[bytes], metric: str, now_ms: int) -> dict[str, Number]:
    """The metric over each rolling window ending at `now_ms`, by window name."""
    names = SHORT_WINDOWS if metric in ("activeAddresses", "activeSenders") else tuple(n for n, _ in WINDOWS)
    out: dict[str, Number] = {}
    for name, seconds in WINDOWS:
        if name in names:
            out[name] = _window_value(db, chain_ids, metric, None if seconds is None else now_ms - seconds * 1000)
    return out


def latest_block_ms(db: Readable, chain_ids: list[bytes]) -> int | None:
    """The time of the last block indexed among the chains (None: none yet)."""
    found = [unpack(raw)[0] for raw in (db.get(chain_metrics(cid).totals) for cid in chain_ids) if raw is not None]
    return max(found) if found else None

