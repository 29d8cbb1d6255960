"""An independent brute-force count of the Metrics API's chain metrics (issue 11's rules) from plain
block data, for the tests to compare the index with: every metric of every bucket of a chain or
of several chains together, and every rolling window. Nothing here reads simnode's index."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from eth_utils import keccak

ZERO = bytes(20)
TRANSFER = keccak(b"Transfer(address,address,uint256)")
TRANSFER_SINGLE = keccak(b"TransferSingle(address,address,address,uint256,uint256)")
TRANSFER_BATCH = keccak(b"TransferBatch(address,address,address,uint256[],uint256[])")
HOUR, DAY, WEEK, MONTH = "hour", "day", "week", "month"
INTERVALS = (HOUR, DAY, WEEK, MONTH)
DAY_ONLY = {"cumulativeTxCount", "cumulativeAddresses", "cumulativeContracts", "cumulativeDeployers", "contracts",
            "deployers", "avgGps", "maxGps", "avgTps", "maxTps", "avgGasPrice", "maxGasPrice", "feesPaid"}
SHORT_WINDOWS = ("lastHour", "lastDay", "lastWeek")


def bucket_start(interval: str, t: int) -> int:
    d = datetime.fromtimestamp(t, UTC)
    if interval == HOUR:
        d = d.replace(minute=0, second=0)
    elif interval == DAY:
        d = d.replace(hour=0, minute=0, second=0)
    elif interval == WEEK:
        d = (d - timedelta(days=d.weekday())).replace(hour=0, minute=0, second=0)
    else:
        d = d.replace(day=1, hour=0, minute=0, second=0)
    return max(0, int(d.timestamp()))


def bucket_end(interval: str, start: int) -> int:
    d = datetime.fromtimestamp(start, UTC)
    if interval == MONTH:
        return int((d.replace(year=d.year + 1, month=1) if d.month == 12 else d.replace(month=d.month + 1)).timestamp())
    step = {HOUR: timedelta(hours=1), DAY: timedelta(days=1), WEEK: timedelta(days=7)}[interval]
    return bucket_start(interval, int((d + step).timestamp()))


@dataclass
class Tx:
    sender: bytes
    to: bytes | None  # None: a contract creation
    status: int
    used: int  # the receipt's gasUsed
    price: int  # the receipt's effectiveGasPrice
    topics: list[list[bytes]]  # the receipt's logs' topics
    creations: int  # contracts the tx created (the tx itself, and CREATE/CREATE2 frames that stayed)

    def transfers(self) -> list[tuple[bytes, bytes]]:
        out = []
        for topics in self.topics:
            if topics and topics[0] == TRANSFER and len(topics) >= 3:
                out.append((topics[1][12:], topics[2][12:]))
            elif topics and topics[0] in (TRANSFER_SINGLE, TRANSFER_BATCH) and len(topics) >= 4:
                out.append((topics[2][12:], topics[3][12:]))
        return out

    def active(self) -> set[bytes]:
        out = {self.sender} | ({self.to} if self.to else set())
        for frm, to in self.transfers():
            out |= {frm, to}
        return out - {ZERO}

    def senders(self) -> set[bytes]:
        return ({self.sender} | {frm for frm, _ in self.transfers()}) - {ZERO}


@dataclass
class Block:
    chain: int
    number: int
    ms: int
    txs: list[Tx]

    @property
    def t(self) -> int:
        return self.ms // 1000


def frame_creations(frames: list[tuple[str, int, bool]]) -> int:
    """CREATE/CREATE2 frames below the top that stayed: (kind, depth, failed) in pre-order."""
    made = 0
    undone: list[bool] = []
    for kind, depth, failed in frames:
        del undone[depth:]
        gone = failed or (bool(undone) and undone[-1])
        undone.append(gone)
        made += depth > 0 and kind in ("CREATE", "CREATE2") and not gone
    return made


def _div(a: int, b: int) -> float | int:
    return a / b if b else 0


def _union(sets) -> set[bytes]:
    out: set[bytes] = set()
    for s in sets:
        out |= s
    return out


def chain_expected(blocks: list[Block], metric: str, interval: str) -> dict[int, float | int]:
    """One chain's metric per bucket that holds one of its blocks."""
    blocks = sorted(blocks, key=lambda b: b.number)
    by_bucket: dict[int, list[int]] = defaultdict(list)
    for i, b in enumerate(blocks):
        by_bucket[bucket_start(interval, b.t)].append(i)
    out = {}
    for start, idx in by_bucket.items():
        end = bucket_end(interval, start)
        inside = [blocks[i] for i in idx]
        txs = [t for b in inside for t in b.txs]
        before = [b for b in blocks if b.t < start]
        upto = [b for b in blocks if b.t < end]
        prev_ms = blocks[idx[0] - 1].ms if idx[0] > 0 else None
        ratios_t, ratios_g = [], []
        for i in idx:
            if i > 0 and blocks[i].ms > blocks[i - 1].ms:
                delta = blocks[i].ms - blocks[i - 1].ms
                ratios_t.append(len(blocks[i].txs) * 1000 / delta)
                ratios_g.append(sum(t.used for t in blocks[i].txs) * 1000 / delta)
        span = inside[-1].ms - prev_ms if prev_ms is not None else 0
        if metric == "txCount":
            v: float | int = len(txs)
        elif metric == "gasUsed":
            v = sum(t.used for t in txs)
        elif metric == "activeAddresses":
            v = len(_union(t.active() for t in txs))
        elif metric == "activeSenders":
            v = len(_union(t.senders() for t in txs))
        elif metric == "contracts":
            v = sum(t.creations for t in txs)
        elif metric == "deployers":
            v = len({t.sender for t in txs if t.creations})
        elif metric == "feesPaid":
            v = sum(t.used * t.price for t in txs)
        elif metric == "avgGasPrice":
            v = _div(sum(t.price for t in txs), len(txs))
        elif metric == "maxGasPrice":
            v = max((t.price for t in txs), default=0)
        elif metric == "avgTps":
            v = len(txs) * 1000 / span if span > 0 else 0
        elif metric == "avgGps":
            v = sum(t.used for t in txs) * 1000 / span if span > 0 else 0
        elif metric == "maxTps":
            v = max(ratios_t, default=0)
        elif metric == "maxGps":
            v = max(ratios_g, default=0)
        elif metric == "cumulativeTxCount":
            v = sum(len(b.txs) for b in upto)
        elif metric == "cumulativeContracts":
            v = sum(t.creations for b in before for t in b.txs)
        elif metric == "cumulativeAddresses":
            v = len(_union(t.active() for b in upto for t in b.txs))
        elif metric == "cumulativeDeployers":
            v = len({t.sender for b in upto for t in b.txs if t.creations})
        else:
            raise ValueError(metric)
        out[start] = v
    return out


def union_expected(blocks: list[Block], metric: str, interval: str) -> dict[int, float | int]:
    """Several chains' metric per bucket: distinct counts over the union of their addresses, the
    mean and maximum gas price over all their txs, every other figure summed over the chains."""
    chains = sorted({b.chain for b in blocks})
    per_chain = [chain_expected([b for b in blocks if b.chain == c], metric, interval) for c in chains]
    out = {}
    for start in {bucket_start(interval, b.t) for b in blocks}:
        end = bucket_end(interval, start)
        inside = [t for b in blocks if bucket_start(interval, b.t) == start for t in b.txs]
        upto = [t for b in blocks if b.t < end for t in b.txs]
        if metric == "activeAddresses":
            out[start] = len(_union(t.active() for t in inside))
        elif metric == "activeSenders":
            out[start] = len(_union(t.senders() for t in inside))
        elif metric == "deployers":
            out[start] = len({t.sender for t in inside if t.creations})
        elif metric == "cumulativeAddresses":
            out[start] = len(_union(t.active() for t in upto))
        elif metric == "cumulativeDeployers":
            out[start] = len({t.sender for t in upto if t.creations})
        elif metric == "cumulativeTxCount":
            out[start] = len(upto)
        elif metric == "cumulativeContracts":
            out[start] = sum(t.creations for b in blocks if b.t < start for t in b.txs)
        elif metric == "avgGasPrice":
            out[start] = _div(sum(t.price for t in inside), len(inside))
        elif metric == "maxGasPrice":
            out[start] = max((t.price for t in inside), default=0)
        else:
            out[start] = sum(c.get(start, 0) for c in per_chain)
    return out


def window_expected(blocks: list[Block], metric: str, since: int | None) -> float | int:
    """One chain's metric over its blocks at or after `since` (ms; None: every block)."""
    chain = sorted(blocks, key=lambda b: b.number)
    inside = [b for b in chain if since is None or b.ms >= since]
    txs = [t for b in inside for t in b.txs]
    if metric in ("avgTps", "avgGps"):
        before = [b for b in chain if since is not None and b.ms < since]
        if before:
            ref, counted = before[-1], inside
        elif inside:
            ref, counted = inside[0], inside[1:]
        else:
            return 0
        if not inside or inside[-1].ms <= ref.ms:
            return 0
        amount = sum(len(b.txs) if metric == "avgTps" else sum(t.used for t in b.txs) for b in counted)
        return amount * 1000 / (inside[-1].ms - ref.ms)
    if metric in ("maxTps", "maxGps"):
        best: float | int = 0
        for b in inside:
            i = chain.index(b)
            if i and b.ms > chain[i - 1].ms:
                amount = len(b.txs) if metric == "maxTps" else sum(t.used for t in b.txs)
                best = max(best, amount * 1000 / (b.ms - chain[i - 1].ms))
        return best
    if metric == "txCount":
        return len(txs)
    if metric == "gasUsed":
        return sum(t.used for t in txs)
    if metric == "feesPaid":
        return sum(t.used * t.price for t in txs)
    if metric == "contracts":
        return sum(t.creations for t in txs)
    if metric == "maxGasPrice":
        return max((t.price for t in txs), default=0)
    if metric == "avgGasPrice":
        return _div(sum(t.price for t in txs), len(txs))
    if metric == "activeAddresses":
        return len(_union(t.active() for t in txs))
    if metric == "activeSenders":
        return len(_union(t.senders() for t in txs))
    if metric == "deployers":
        return len({t.sender for t in txs if t.creations})
    raise ValueError(metric)


def union_window_expected(blocks: list[Block], metric: str, since: int | None) -> float | int:
    if metric in ("activeAddresses", "activeSenders", "deployers", "avgGasPrice", "maxGasPrice"):
        txs = [t for b in blocks if since is None or b.ms >= since for t in b.txs]
        return window_expected([Block(0, 0, 0, txs)], metric, None)
    return sum(window_expected([b for b in blocks if b.chain == c], metric, since) for c in {b.chain for b in blocks})
