"""Metric rows from hand-made blocks against a brute-force count of the same blocks: UTC buckets,
every chain metric of every bucket of every interval for each chain and for the union of several
chains (whose blocks are indexed in any order of their times), rolling windows, and the split of
L1 validator fees into days."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from simnode.formats.ids import EVM_VM_ID
from simnode.index import Indexer, rebuild
from simnode.index.evm.layout import FRAME_KINDS
from simnode.index.evm.rows import TRANSFER_BATCH_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_TOPIC
from simnode.index.metrics import buckets
from simnode.index.metrics.platform import split_advance
from simnode.index.metrics.query import DAY_ONLY, METRICS, WINDOWS, metric_chains, rolling, series, union_series
from simnode.store import Store
from simnode.vms.evm import rlpcodec
from simnode.vms.evm.headers import Header, HeaderRules
from simnode.vms.platform import fees

ZERO = bytes(20)
POOL = [bytes([i]) * 20 for i in range(1, 9)] + [ZERO]
KINDS = {k: i for i, k in enumerate(FRAME_KINDS)}
START = 1_769_800_000  # 2026-01-30 19:06:40 UTC (a Friday): the blocks cross a week and a month


# ---------------------------------------------------------------------------------------- buckets


def reference_start(interval: int, t: int) -> int:
    d = datetime.fromtimestamp(t, UTC)
    if interval == buckets.HOUR:
        d = d.replace(minute=0, second=0)
    elif interval == buckets.DAY:
        d = d.replace(hour=0, minute=0, second=0)
    elif interval == buckets.WEEK:
        d = (d - timedelta(days=d.weekday())).replace(hour=0, minute=0, second=0)
    else:
        d = d.replace(day=1, hour=0, minute=0, second=0)
    return max(0, int(d.timestamp()))


@given(st.integers(min_value=0, max_value=2**34))
def test_buckets_are_utc_hours_days_monday_weeks_and_months(t):
    assert buckets.starts(t) == tuple(reference_start(iv, t) for iv in buckets.INTERVALS)
    for iv in buckets.INTERVALS:
        start = buckets.bucket_start(iv, t)
        nxt = buckets.next_start(iv, start)
        assert start <= t < nxt and buckets.bucket_start(iv, nxt) == nxt and buckets.bucket_start(iv, nxt - 1) == start


def test_known_bucket_starts():
    t = int(datetime(2026, 2, 1, 13, 30, tzinfo=UTC).timestamp())  # a Sunday
    assert buckets.starts(t) == (int(datetime(2026, 2, 1, 13, tzinfo=UTC).timestamp()),
                                 int(datetime(2026, 2, 1, tzinfo=UTC).timestamp()),
                                 int(datetime(2026, 1, 26, tzinfo=UTC).timestamp()),
                                 int(datetime(2026, 2, 1, tzinfo=UTC).timestamp()))
    assert buckets.next_start(buckets.MONTH, int(datetime(2025, 12, 1, tzinfo=UTC).timestamp())) == \
        int(datetime(2026, 1, 1, tzinfo=UTC).timestamp())


# ---------------------------------------------------------------------------------------- blocks


@dataclass
class Tx:
    sender: bytes
    to: bytes | None
    status: int
    used: int
    price: int
    logs: list[tuple[bytes, bytes, bytes]]  # (topic0, from, to)
    frames: list[list] | None  # [kind, from, to, value, gas, used, depth, failed]

    def creations(self) -> int:
        made = 1 if self.to is None and self.status else 0
        if self.frames and self.status:
            undone: list[bool] = []
            for kind, _, _, _, _, _, depth, failed in self.frames:
                del undone[depth:]
                gone = failed or (bool(undone) and undone[-1])
                undone.append(gone)
                made += depth > 0 and FRAME_KINDS[kind] in ("CREATE", "CREATE2") and not gone
        return made

    def active(self) -> set[bytes]:
        out = {self.sender} | ({self.to} if self.to else set())
        for _, frm, to in self.emitted():
            out |= {frm, to}
        return out - {ZERO}

    def senders(self) -> set[bytes]:
        return ({self.sender} | {frm for _, frm, _ in self.emitted()}) - {ZERO}

    def emitted(self) -> list[tuple[bytes, bytes, bytes]]:
        return self.logs if self.status else []  # a failed tx's receipt has no logs


@dataclass
class Block:
    chain: int
    number: int
    ms: int
    txs: list[Tx]

    @property
    def t(self) -> int:
        return self.ms // 1000


def _int(n: int) -> bytes:
    return n.to_bytes((n.bit_length() + 7) // 8, "big")


def raw_tx(to: bytes | None, nonce: int) -> bytes:
    return b"\x02" + rlpcodec.encode([_int(43112), _int(nonce), _int(1), _int(30), _int(100_000), to or b"", b"",
                                      b"", [], b"", b"\x01" * 32, b"\x01" * 32])


def log_of(topic0: bytes, frm: bytes, to: bytes) -> list:
    word = frm.rjust(32, b"\x00"), to.rjust(32, b"\x00")
    if topic0 == TRANSFER_TOPIC:
        return [b"\x70" * 20, [topic0, *word], (5).to_bytes(32, "big")]
    return [b"\x71" * 20, [topic0, b"\x09" * 32, *word], (1).to_bytes(32, "big") * 2]


def block_row(b: Block) -> dict:
    hdr = Header(b"\x00" * 32, b"\x00" * 32, ZERO, b"\x00" * 32, b"\x00" * 32, b"\x00" * 32, 0, 1, b.number,
                 8_000_000, sum(t.used for t in b.txs), b.t, b"", b"\x00" * 32, b"\x00" * 8, None,
                 base_fee_per_gas=25, block_gas_cost=0).encode()
    receipts = [[t.status, 0, t.used, t.price, (b"\xc0" + bytes([i]) * 19) if t.to is None else None,
                 [log_of(*lg) for lg in t.logs] if t.status else []] for i, t in enumerate(b.txs)]
    row = {"hdr": hdr, "h": b.chain.to_bytes(1, "big") + b.number.to_bytes(31, "big"), "ms": b.ms, "fee": [],
           "txs": [raw_tx(t.to, i) for i, t in enumerate(b.txs)], "from": [t.sender for t in b.txs], "rc": receipts,
           "size": 0}
    if any(t.frames for t in b.txs):
        row["ct"] = [t.frames or [] for t in b.txs]
    return row


@dataclass
class FakeChain:
    chain_id: bytes
    vm_id: bytes = EVM_VM_ID
    header_rules: HeaderRules = HeaderRules(coreth=False, base_fee=0, block_gas_cost=0, durango=0, etna=0, granite=0)
    name: str = "fake"
    rows: list[dict] = field(default_factory=list)

    def static_call(self, row: dict, to: bytes, data: bytes) -> bytes | None:
        return None

    @property
    def head(self):
        return type("Head", (), {"number": len(self.rows) - 1})()

    def block_row(self, number: int) -> dict | None:
        return self.rows[number] if number < len(self.rows) else None


addresses = st.sampled_from(POOL)
frame = st.tuples(st.sampled_from(["CALL", "CREATE", "CREATE2"]), st.integers(1, 3), st.booleans())


@st.composite
def txs(draw) -> Tx:
    creation = draw(st.booleans()) and draw(st.booleans())
    frames = None
    if not creation and draw(st.booleans()):
        raw = draw(st.lists(frame, max_size=4))
        frames = [[KINDS["CALL"], ZERO, POOL[0], b"", 100_000, 5000, 0, draw(st.booleans())]]
        depth = 0
        for kind, want, failed in raw:
            depth = min(want, depth + 1)
            frames.append([KINDS[kind], POOL[1], POOL[2], b"", 50_000, 1000, depth, failed])
    logs = draw(st.lists(st.tuples(st.sampled_from([TRANSFER_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_BATCH_TOPIC]),
                                   addresses, addresses), max_size=2))
    return Tx(draw(addresses.filter(lambda a: a != ZERO)), None if creation else draw(addresses),
              draw(st.sampled_from([0, 1, 1])), draw(st.integers(21_000, 200_000)),
              draw(st.integers(1, 10**12)), logs, frames)


@st.composite
def histories(draw) -> list[Block]:
    """Blocks of 1 to 3 chains, each chain's times non-decreasing (gaps of seconds to days), in an
    order of acceptance that interleaves the chains arbitrarily (so one chain may run ahead in time)."""
    n = draw(st.integers(1, 3))
    per_chain: list[list[Block]] = []
    for c in range(n):
        ms = (START + draw(st.integers(0, 3 * 86_400))) * 1000
        chain = [Block(c, 0, ms, [])]
        for number in range(1, draw(st.integers(1, 8)) + 1):
            ms += draw(st.sampled_from([0, 0, 1, 400, 2000, 61_000, 3_600_000, 86_400_000, 5 * 86_400_000]))
            ms += draw(st.integers(0, 999))
            chain.append(Block(c, number, ms, draw(st.lists(txs(), max_size=4))))
        per_chain.append(chain)
    order = draw(st.permutations([c for c, blocks in enumerate(per_chain) for _ in blocks]))
    cursors = [0] * n
    out = []
    for c in order:
        out.append(per_chain[c][cursors[c]])
        cursors[c] += 1
    return out


def index(blocks: list[Block]) -> tuple[Store, list[FakeChain]]:
    store = Store.memory()
    chains = [FakeChain(bytes([0x10 + c]) * 32) for c in range(max(b.chain for b in blocks) + 1)]
    indexer = Indexer(store)
    for b in blocks:
        row = block_row(b)
        chains[b.chain].rows.append(row)
        batch = store.batch()
        indexer.block_accepted(chains[b.chain], row, batch)
        batch.commit()
    return store, chains


# ---------------------------------------------------------------------------------------- brute force


def _div(a: int, b: int) -> float | int:
    return a / b if b else 0


def chain_expected(blocks: list[Block], metric: str, interval: int) -> dict[int, float | int]:
    """One chain's metric per bucket, from its blocks in order."""
    blocks = sorted(blocks, key=lambda b: b.number)
    by_bucket: dict[int, list[int]] = defaultdict(list)
    for i, b in enumerate(blocks):
        by_bucket[reference_start(interval, b.t)].append(i)
    out = {}
    for start, idx in by_bucket.items():
        end = buckets.next_start(interval, start)
        inside = [blocks[i] for i in idx]
        txs_ = [t for b in inside for t in b.txs]
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
        out[start] = {
            "txCount": len(txs_), "gasUsed": sum(t.used for t in txs_),
            "activeAddresses": len(set().union(*(t.active() for t in txs_))),
            "activeSenders": len(set().union(*(t.senders() for t in txs_))),
            "contracts": sum(t.creations() for t in txs_),
            "deployers": len({t.sender for t in txs_ if t.creations()}),
            "feesPaid": sum(t.used * t.price for t in txs_),
            "avgGasPrice": _div(sum(t.price for t in txs_), len(txs_)),
            "maxGasPrice": max((t.price for t in txs_), default=0),
            "avgTps": _div(len(txs_) * 1000, span) if span > 0 else 0,
            "avgGps": _div(sum(t.used for t in txs_) * 1000, span) if span > 0 else 0,
            "maxTps": max(ratios_t, default=0), "maxGps": max(ratios_g, default=0),
            "cumulativeTxCount": sum(len(b.txs) for b in upto),
            "cumulativeContracts": sum(t.creations() for b in before for t in b.txs),
            "cumulativeAddresses": len(set().union(*(t.active() for b in upto for t in b.txs))),
            "cumulativeDeployers": len({t.sender for b in upto for t in b.txs if t.creations()}),
        }[metric]
    return out


def union_expected(blocks: list[Block], n: int, metric: str, interval: int) -> dict[int, float | int]:
    per_chain = [chain_expected([b for b in blocks if b.chain == c], metric, interval) for c in range(n)]
    stamps = {reference_start(interval, b.t) for b in blocks}
    out = {}
    for start in stamps:
        end = buckets.next_start(interval, start)
        inside = [t for b in blocks if reference_start(interval, b.t) == start for t in b.txs]
        upto = [t for b in blocks if b.t < end for t in b.txs]
        if metric == "activeAddresses":
            out[start] = len(set().union(*(t.active() for t in inside)))
        elif metric == "activeSenders":
            out[start] = len(set().union(*(t.senders() for t in inside)))
        elif metric == "deployers":
            out[start] = len({t.sender for t in inside if t.creations()})
        elif metric == "cumulativeAddresses":
            out[start] = len(set().union(*(t.active() for t in upto)))
        elif metric == "cumulativeDeployers":
            out[start] = len({t.sender for t in upto if t.creations()})
        elif metric == "cumulativeTxCount":
            out[start] = len(upto)
        elif metric == "cumulativeContracts":
            out[start] = sum(t.creations() for b in blocks if b.t < start for t in b.txs)
        elif metric == "avgGasPrice":
            out[start] = _div(sum(t.price for t in inside), len(inside))
        elif metric == "maxGasPrice":
            out[start] = max((t.price for t in inside), default=0)
        else:
            out[start] = sum(c.get(start, 0) for c in per_chain)
    return out


def served(store: Store, chain_ids: list[bytes] | bytes, metric: str, interval: int) -> dict[int, float | int]:
    if isinstance(chain_ids, bytes):
        found = series(store, chain_ids, metric, interval, None, None, 10_000)
    else:
        found = union_series(store, chain_ids, metric, interval, None, None, 10_000)
    assert found.next is None
    stamps = [p.timestamp for p in found.points]
    assert stamps == sorted(stamps, reverse=True)
    return {p.timestamp: p.value for p in found.points}


@settings(max_examples=60, deadline=None)
@given(histories())
def test_every_metric_of_every_bucket_matches_a_brute_force_count(blocks):
    store, chains = index(blocks)
    ids = [c.chain_id for c in chains]
    assert metric_chains(store) == ids
    for metric in METRICS:
        for interval in ((buckets.DAY,) if metric in DAY_ONLY else buckets.INTERVALS):
            for c, cid in enumerate(ids):
                assert served(store, cid, metric, interval) == chain_expected(
                    [b for b in blocks if b.chain == c], metric, interval), (metric, interval, c)
            assert served(store, ids, metric, interval) == union_expected(blocks, len(ids), metric, interval), (
                metric, interval)


def window_expected(blocks: list[Block], metric: str, since: int | None) -> float | int:
    """One chain's metric over the blocks at or after `since` (ms; None: all)."""
    chain = sorted(blocks, key=lambda b: b.number)
    inside = [b for b in chain if since is None or b.ms >= since]
    txs_ = [t for b in inside for t in b.txs]
    if metric in ("avgTps", "avgGps"):
        before = [b for b in chain if since is not None and b.ms < since]
        ref, counted = (before[-1], inside) if before else (inside[0] if inside else None, inside[1:])
        if ref is None or not inside or inside[-1].ms <= ref.ms:
            return 0
        amount = sum(len(b.txs) if metric == "avgTps" else sum(t.used for t in b.txs) for b in counted)
        return amount * 1000 / (inside[-1].ms - ref.ms)
    if metric in ("maxTps", "maxGps"):
        best = 0
        for b in inside:
            i = chain.index(b)
            if i and b.ms > chain[i - 1].ms:
                amount = len(b.txs) if metric == "maxTps" else sum(t.used for t in b.txs)
                best = max(best, amount * 1000 / (b.ms - chain[i - 1].ms))
        return best
    return {"txCount": len(txs_), "gasUsed": sum(t.used for t in txs_), "feesPaid": sum(t.used * t.price for t in txs_),
            "contracts": sum(t.creations() for t in txs_), "maxGasPrice": max((t.price for t in txs_), default=0),
            "avgGasPrice": _div(sum(t.price for t in txs_), len(txs_)),
            "activeAddresses": len(set().union(*(t.active() for t in txs_))),
            "activeSenders": len(set().union(*(t.senders() for t in txs_))),
            "deployers": len({t.sender for t in txs_ if t.creations()})}[metric]


def union_window_expected(blocks: list[Block], n: int, metric: str, since: int | None) -> float | int:
    txs_ = [t for b in blocks if since is None or b.ms >= since for t in b.txs]
    if metric in ("activeAddresses", "activeSenders", "deployers", "avgGasPrice", "maxGasPrice"):
        return window_expected([Block(0, 0, 0, txs_)], metric, None)
    return sum(window_expected([b for b in blocks if b.chain == c], metric, since) for c in range(n))


ROLLING = ("gasUsed", "txCount", "avgGps", "maxGps", "avgTps", "maxTps", "avgGasPrice", "maxGasPrice", "feesPaid",
           "contracts", "deployers", "activeAddresses", "activeSenders")


@settings(max_examples=40, deadline=None)
@given(histories(), st.integers(0, 12 * 86_400_000))
def test_rolling_windows_match_a_brute_force_count(blocks, later):
    store, chains = index(blocks)
    ids = [c.chain_id for c in chains]
    now = max(b.ms for b in blocks) + later
    for metric in ROLLING:
        for scope in [[cid] for cid in ids] + ([ids] if len(ids) > 1 else []):
            got = rolling(store, scope, metric, now)
            for name, seconds in WINDOWS:
                if metric in ("activeAddresses", "activeSenders") and name not in ("lastHour", "lastDay", "lastWeek"):
                    assert name not in got
                    continue
                since = None if seconds is None else now - seconds * 1000
                if len(scope) == 1:
                    want = window_expected([b for b in blocks if chains[b.chain].chain_id == scope[0]], metric, since)
                else:
                    want = union_window_expected(blocks, len(ids), metric, since)
                assert got[name] == want, (metric, name, len(scope))


@settings(max_examples=20, deadline=None)
@given(histories())
def test_rebuild_derives_the_same_rows_in_any_order_of_chains(blocks):
    store, chains = index(blocks)
    rows = dict(store.iterate(b"ix/"))
    rebuild(store, chains)  # chain after chain, not in the order the blocks came
    rebuilt = dict(store.iterate(b"ix/"))
    assert rebuilt == rows


# ---------------------------------------------------------------------------------------- L1 fees


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10 * 86_400), st.integers(1, 5 * 86_400), st.integers(0, 30), st.integers(0, 10**7),
       st.lists(st.integers(0, 10**6), min_size=1, max_size=3))
def test_fee_split_into_days_adds_up_to_the_p_chains_charge(offset, seconds, active, excess, balances):
    config = fees.ValidatorFeeConfig(capacity=40, target=20, min_price=3, excess_conversion_constant=5_000)
    start = START + offset
    cost = fees.validator_cost_of(config, active, excess, seconds)
    payers = [[bytes([i]) * 32, b"s" * 32, b"n" * 20, min(cost, b)] for i, b in enumerate(balances)]
    days = split_advance(config, start, seconds, active, excess, payers)
    for payer in payers:
        assert sum(amount for _, paid in days for p, amount in paid if p is payer) == payer[3]
    assert all(day == buckets.bucket_start(buckets.DAY, day) and start - 86_400 < day < start + seconds
               for day, _ in days)
