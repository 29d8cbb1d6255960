"""Metric rows of one accepted EVM block (the C-Chain or an L1), staged in the block's own batch.

The driver runs this family after the EVM tables (simnode.index.evm) on the same block row. What a
block adds, by the rules of the Metrics API (issue 11):

* every tx: txCount; its receipt's gasUsed; effectiveGasPrice into the price sum and maximum;
  gasUsed x effectiveGasPrice into feesPaid (failed txs included);
* active addresses: tx `from`, tx `to` when not null, the from/to of transfer logs (ERC-20/721
  `Transfer`: topics 1 and 2; ERC-1155 `TransferSingle`/`TransferBatch`: topics 2 and 3), the
  zero address excluded; senders: the from side only;
* contracts: a successful creation tx, plus every CREATE/CREATE2 frame below the tx that took
  effect (neither it nor a frame around it failed); deployers: the `from` of the txs that
  created at least one;
* throughput: the block's txs and gas over the time since the previous block (ms; pairs with no
  time between them skipped) for the maxima; the bucket keeps the time of the last block before
  it and of its own last block for the averages.

Buckets of all four intervals get the same figures (only the day's are served for the day-only
metrics); distinct counts are exact (a marker row per address and bucket), per chain and, for
`total`, over the union of the chains (an address's flags in a union bucket are those of its
markers on every chain together). Reads go through the batch, which sees its own writes (a
reindex batch holds many blocks).
"""

from __future__ import annotations

import weakref
from typing import Any

from ...store import Batch, Store, pack, unpack
from ...vms.evm.headers import header_number
from ...vms.evm.receipts import ReceiptRow
from ..evm.layout import F_CREATE, F_CREATE2
from ..evm.query import indexed_chains
from ..evm.rows import TRANSFER_BATCH_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_TOPIC, tx_to
from ..keys import big, num, u8, u64
from . import buckets
from .layout import (ACTIVE, B_ACTIVE, B_CONTRACTS, B_CUM_ADDRESSES, B_CUM_CONTRACTS, B_CUM_DEPLOYERS, B_CUM_TXS,
                     B_DEPLOYERS, B_FEES, B_GAS, B_GPS_DEN, B_GPS_NUM, B_LAST_MS, B_MAX_PRICE, B_PRICE_SUM,
                     B_SENDERS, B_TPS_DEN, B_TPS_NUM, B_TXS, SENDER, T_ADDRESSES, T_CONTRACTS, T_DEPLOYERS, T_FEES,
                     T_GAS, T_LAST_MS, T_PRICE_SUM, T_TXS, U_ACTIVE, U_CONTRACTS, U_CUM_ADDRESSES, U_CUM_DEPLOYERS,
                     U_DEPLOYERS, U_FEES, U_GAS, U_MAX_PRICE, U_PRICE_SUM, U_SENDERS, U_TXS, UNION, MetricSpace,
                     chain_metrics)

ZERO_ADDRESS = bytes(20)
_CREATES = (F_CREATE, F_CREATE2)
_TWO_SIDED = (TRANSFER_SINGLE_TOPIC, TRANSFER_BATCH_TOPIC)
# Per store, the IDs of every chain that may have metric rows: the chains with index rows when
# first asked (indexed_chains: a seek per chain, which a block with a new address paid each
# time), then every chain whose rows index_block stages, before its rows are read. A chain whose
# rows are gone again (a revert, a rebuild) stays: _Union._other_chains keeps those with totals.
_METRIC_CHAINS: weakref.WeakKeyDictionary[Store, set[bytes]] = weakref.WeakKeyDictionary()


def _metric_chains(store: Store) -> set[bytes]:
    known = _METRIC_CHAINS.get(store)
    if known is None:
        known = _METRIC_CHAINS[store] = set(indexed_chains(store))
    return known


def new_bucket(prev_ms: int | None) -> list:
    return [0, 0, 0, 0, 0, b"", b"", b"", 0, 0, 0, 0, prev_ms, 0, 0, 0, 0, 0, 0]


def new_totals() -> list:
    return [None, 0, 0, b"", 0, b"", 0, 0]


def transfer_sides(topics: list[bytes]) -> tuple[bytes, bytes] | None:
    """(from, to) of a transfer log by its topics, as the metric rules read them; None for others."""
    if not topics:
        return None
    t0 = topics[0]
    if t0 == TRANSFER_TOPIC and len(topics) >= 3:
        return topics[1][12:], topics[2][12:]
    if t0 in _TWO_SIDED and len(topics) >= 4:
        return topics[2][12:], topics[3][12:]
    return None


def internal_creations(frames: list[list]) -> int:
    """CREATE/CREATE2 frames below the tx that took effect: neither they nor a frame around them
    failed (frames in pre-order: kind, from, to, value, gas, gas used, depth, failed)."""
    count = 0
    failed_above: list[bool] = []  # by depth: whether the frame at that depth, or one around it, failed
    for kind, _, _, _, _, _, depth, failed in frames:
        del failed_above[depth:]
        reverted = failed or (bool(failed_above) and failed_above[-1])
        failed_above.append(reverted)
        if depth > 0 and kind in _CREATES and not reverted:
            count += 1
    return count


class _Activity:
    """What one block did, before it is spread over the buckets."""

    __slots__ = ("addresses", "deployers", "txs", "gas", "fees", "price_sum", "max_price", "contracts")

    def __init__(self) -> None:
        self.addresses: dict[bytes, int] = {}  # address -> ACTIVE | SENDER flags in this block
        self.deployers: set[bytes] = set()
        self.txs = self.gas = self.fees = self.price_sum = self.max_price = self.contracts = 0

    def saw(self, address: bytes, flags: int) -> None:
        if address != ZERO_ADDRESS:
            self.addresses[address] = self.addresses.get(address, 0) | flags


def block_activity(row: dict) -> _Activity:
    act = _Activity()
    traces = row.get("ct")
    senders = row["from"]
    receipts = [ReceiptRow.decode(rc) for rc in row["rc"]]
    for i, raw in enumerate(row["txs"]):
        to = tx_to(raw)
        status, _, used, price, contract, logs = receipts[i]
        sender = senders[i]
        act.txs += 1
        act.gas += used
        act.fees += used * price
        act.price_sum += price
        if price > act.max_price:
            act.max_price = price
        act.saw(sender, ACTIVE | SENDER)
        if to:
            act.saw(to, ACTIVE)
        for lg in logs:
            sides = transfer_sides(lg.topics)
            if sides is not None:
                act.saw(sides[0], ACTIVE | SENDER)
                act.saw(sides[1], ACTIVE)
        created = 1 if not to and status and contract else 0
        frames = traces[i] if traces else None
        if frames and status:
            created += internal_creations(frames)
        if created:
            act.contracts += created
            act.deployers.add(sender)
    return act


def _num(data: bytes) -> int:
    return int.from_bytes(data, "big")


def _greater(num_a: int, den_a: int, num_b: int, den_b: int) -> bool:
    """num_a/den_a > num_b/den_b for positive denominators (den_b 0: no ratio yet)."""
    return den_b == 0 or num_a * den_b > num_b * den_a


class _Writer:
    """Stages one block's metric rows for one chain and the union."""

    def __init__(self, batch: Batch, chain_id: bytes, ms: int) -> None:
        self.batch = batch
        self.chain_id = chain_id
        self.ch = batch.changes
        self.sp = chain_metrics(chain_id)
        self.ms = ms
        self.t = ms // 1000
        self.starts = buckets.starts(self.t)
        self.day = self.starts[buckets.DAY]

    def _get(self, key: bytes) -> Any:
        raw = self.batch.get(key)
        return None if raw is None else unpack(raw)

    # -------------------------------------------------------------- the chain

    def chain_rows(self, number: int, act: _Activity) -> None:
        sp, ch, ms = self.sp, self.ch, self.ms
        totals = self._get(sp.totals) or new_totals()
        prev_ms = totals[T_LAST_MS]
        totals[T_LAST_MS] = ms
        totals[T_TXS] += act.txs
        totals[T_GAS] += act.gas
        totals[T_FEES] = big(_num(totals[T_FEES]) + act.fees)
        totals[T_CONTRACTS] += act.contracts
        totals[T_PRICE_SUM] = big(_num(totals[T_PRICE_SUM]) + act.price_sum)
        delta = ms - prev_ms if prev_ms is not None else 0
        keys = [sp.buckets + u8(iv) + u64(start) for iv, start in zip(buckets.INTERVALS, self.starts)]
        recs = []
        for key in keys:
            rec = self._get(key) or new_bucket(prev_ms)
            rec[B_TXS] += act.txs
            rec[B_GAS] += act.gas
            rec[B_CONTRACTS] += act.contracts
            rec[B_FEES] = big(_num(rec[B_FEES]) + act.fees)
            rec[B_PRICE_SUM] = big(_num(rec[B_PRICE_SUM]) + act.price_sum)
            if act.max_price > _num(rec[B_MAX_PRICE]):
                rec[B_MAX_PRICE] = big(act.max_price)
            if delta > 0:
                if _greater(act.txs * 1000, delta, rec[B_TPS_NUM], rec[B_TPS_DEN]):
                    rec[B_TPS_NUM], rec[B_TPS_DEN] = act.txs * 1000, delta
                if _greater(act.gas * 1000, delta, rec[B_GPS_NUM], rec[B_GPS_DEN]):
                    rec[B_GPS_NUM], rec[B_GPS_DEN] = act.gas * 1000, delta
            rec[B_LAST_MS] = ms
            recs.append(rec)
        union = _Union(self)
        totals[T_ADDRESSES] += self._markers(act, recs, union)
        totals[T_DEPLOYERS] += self._deployer_markers(act, recs[buckets.DAY], union)
        for key, rec in zip(keys, recs):
            rec[B_CUM_TXS] = totals[T_TXS]
            rec[B_CUM_CONTRACTS] = totals[T_CONTRACTS]
            rec[B_CUM_ADDRESSES] = totals[T_ADDRESSES]
            rec[B_CUM_DEPLOYERS] = totals[T_DEPLOYERS]
            ch[key] = pack(rec)
        union.finish(act)
        ch[sp.marks + u64(ms) + u64(number)] = pack([
            act.txs, act.gas, big(act.max_price), prev_ms, totals[T_TXS], totals[T_GAS], totals[T_FEES],
            totals[T_CONTRACTS], totals[T_PRICE_SUM]])
        ch[sp.totals] = pack(totals)

    def _markers(self, act: _Activity, recs: list[list], union: _Union) -> int:
        """Mark the block's addresses in its four buckets, smallest first: a bucket that knew an
        address (with those flags) already means the larger ones holding it did too (an hour lies
        in its day, a day in its week and its month). Returns how many were never seen before."""
        sp, batch, ch = self.sp, self.batch, self.ch
        prefixes = [sp.markers + u8(iv) + u64(start) for iv, start in zip(buckets.INTERVALS, self.starts)]
        ms8 = u64(self.ms)
        first = 0
        for address, flags in act.addresses.items():
            for iv in buckets.INTERVALS:
                key = prefixes[iv] + address
                old = batch.get(key)
                had = old[0] if old is not None else 0
                now = had | flags
                rec = recs[iv]
                if not had & ACTIVE:
                    rec[B_ACTIVE] += 1
                if now & SENDER and not had & SENDER:
                    rec[B_SENDERS] += 1
                if iv == buckets.HOUR:
                    sent = ms8 if flags & SENDER else (old[9:17] if old is not None else u64(0))
                    ch[key] = u8(now) + ms8 + sent
                elif now != had:
                    ch[key] = u8(now)
                if now != had:
                    union.marker(iv, self.starts[iv], address, had, now)
                elif iv in (buckets.HOUR, buckets.DAY):
                    break
                if iv == buckets.DAY and not had and batch.get(sp.first_active + address) is None:
                    ch[sp.first_active + address] = u64(self.day)
                    union.first_active(address)
                    first += 1
        return first

    def _deployer_markers(self, act: _Activity, rec: list, union: _Union) -> int:
        """Mark the block's deployers in its day; returns how many never deployed before."""
        sp, batch, ch = self.sp, self.batch, self.ch
        prefix = sp.deployers + u64(self.day)
        first = 0
        for address in act.deployers:
            key = prefix + address
            if batch.get(key) is None:
                rec[B_DEPLOYERS] += 1
                union.deployer(address)
                if batch.get(sp.first_deployed + address) is None:
                    ch[sp.first_deployed + address] = u64(self.day)
                    union.first_deployed(address)
                    first += 1
            ch[key] = u64(self.ms)
        return first


class _Union:
    """The union's distinct counts, touched only by what is new on the chain."""

    def __init__(self, w: _Writer) -> None:
        self.w = w
        self.batch = w.batch
        self.ch = w.ch
        self.records: dict[bytes, list] = {}
        self.new_addresses: list[bytes] = []  # first seen on the chain in this block
        self.new_deployers: list[bytes] = []
        self.others: list[MetricSpace] | None = None

    def first_active(self, address: bytes) -> None:
        self.new_addresses.append(address)

    def first_deployed(self, address: bytes) -> None:
        self.new_deployers.append(address)

    def record(self, iv: int, start: int) -> list:
        key = UNION.buckets + u8(iv) + u64(start)
        rec = self.records.get(key)
        if rec is None:
            raw = self.batch.get(key)
            rec = self.records[key] = unpack(raw) if raw is not None else self._new_record(iv, start)
        return rec

    def _new_record(self, iv: int, start: int) -> list:
        rec = [0, 0, 0, 0, 0, 0, 0, 0, b"", b"", b""]
        if iv == buckets.DAY:
            before = self._day_before(start)
            if before is not None:
                rec[U_CUM_ADDRESSES], rec[U_CUM_DEPLOYERS] = before[U_CUM_ADDRESSES], before[U_CUM_DEPLOYERS]
            latest = self.w._get(UNION.totals)
            if latest is None or latest[0] is None or start > latest[0]:
                self.ch[UNION.totals] = pack([start])
        return rec

    def _day_before(self, start: int) -> list | None:
        """The union's last day bucket before `start` (the latest one, unless blocks of another
        chain with later times were indexed first)."""
        latest = self.w._get(UNION.totals)
        if latest is None or latest[0] is None:
            return None
        if latest[0] < start:
            return self.w._get(UNION.buckets + u8(buckets.DAY) + u64(latest[0]))
        prefix = UNION.buckets + u8(buckets.DAY)
        found = None
        for key, raw in self.batch.iterate(prefix):
            if num(key[len(prefix):]) >= start:
                break
            found = raw
        return None if found is None else unpack(found)

    def marker(self, iv: int, start: int, address: bytes, had: int, now: int) -> None:
        """The chain's marker of `address` in a bucket went from flags `had` to `now`: the union's
        flags are those of every chain's marker together (no row of their own)."""
        suffix = u8(iv) + u64(start) + address
        for sp in self._other_chains():
            old = self.batch.get(sp.markers + suffix)
            if old is not None:
                had |= old[0]
        if now | had == had:
            return
        rec = self.record(iv, start)
        if not had & ACTIVE:
            rec[U_ACTIVE] += 1
        if now & SENDER and not had & SENDER:
            rec[U_SENDERS] += 1

    def _other_chains(self) -> list[MetricSpace]:
        """The metric tables of the node's other indexed chains (read once per block). Another chain's
        rows are committed before this chain's batch is built (a reindex indexes chain after chain),
        so the chains are listed from the store (_metric_chains): seeks through a batch of many
        blocks sort it."""
        if self.others is None:
            chains = sorted(_metric_chains(self.batch.store))
            spaces = (chain_metrics(cid) for cid in chains if cid != self.w.chain_id)
            self.others = [sp for sp in spaces if self.batch.get(sp.totals) is not None]
        return self.others

    def deployer(self, address: bytes) -> None:
        """`address` deployed on the chain for the first time today: a union deployer of the day
        unless it deployed on another chain today."""
        suffix = u64(self.w.day) + address
        if all(self.batch.get(sp.deployers + suffix) is None for sp in self._other_chains()):
            self.record(buckets.DAY, self.w.day)[U_DEPLOYERS] += 1

    def finish(self, act: _Activity) -> None:
        """The block's sums, first days over the union, then every record touched is written back."""
        for iv, start in zip(buckets.INTERVALS, self.w.starts):
            rec = self.record(iv, start)  # every bucket with a block of any chain has a union record
            rec[U_TXS] += act.txs
            rec[U_GAS] += act.gas
            rec[U_CONTRACTS] += act.contracts
            rec[U_FEES] = big(_num(rec[U_FEES]) + act.fees)
            rec[U_PRICE_SUM] = big(_num(rec[U_PRICE_SUM]) + act.price_sum)
            if act.max_price > _num(rec[U_MAX_PRICE]):
                rec[U_MAX_PRICE] = big(act.max_price)
        for address in self.new_addresses:
            self._first_day([sp.first_active + address for sp in self._other_chains()], U_CUM_ADDRESSES)
        for address in self.new_deployers:
            self._first_day([sp.first_deployed + address for sp in self._other_chains()], U_CUM_DEPLOYERS)
        for key, rec in self.records.items():
            self.ch[key] = pack(rec)

    def _first_day(self, keys: list[bytes], field: int) -> None:
        """Count an address first seen on its chain today in every union day bucket from its first
        day over the union on (a bucket counts the addresses first seen up to its end). Its first
        day over the union before is the earliest of its first days on the other chains (`keys`)."""
        day = self.w.day
        was = min((num(raw) for raw in map(self.batch.get, keys) if raw is not None), default=None)
        if was is not None and was <= day:
            return
        self.record(buckets.DAY, day)[field] += 1
        latest = self.w._get(UNION.totals)[0]
        if latest <= day:
            return
        # blocks of another chain with later times were indexed first: their buckets count it too
        prefix = UNION.buckets + u8(buckets.DAY)
        for k, _ in list(self.batch.iterate(prefix, prefix + u64(day + 1))):
            start = num(k[len(prefix):])
            if was is not None and start >= was:
                break
            self.record(buckets.DAY, start)[field] += 1


def index_block(source: Any, row: dict, batch: Batch) -> int:
    """Stage the metric rows of EVM block `row` in `batch`; returns the block number."""
    number = header_number(row["hdr"])
    _metric_chains(batch.store).add(source.chain_id)
    _Writer(batch, source.chain_id, row["ms"]).chain_rows(number, block_activity(row))
    return number
