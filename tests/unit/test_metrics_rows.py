"""Metric rows from hand-made blocks against a brute-force count of the same blocks
(tests/metrics_reference.py): UTC buckets, every chain metric of every bucket of every interval
for each chain and for the union of several chains (whose blocks are indexed in any order of
their times), rolling windows, rebuild, and the split of L1 validator fees into days."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from simnode.formats.ids import EVM_VM_ID
from simnode.index import Indexer, rebuild
from simnode.index.evm.layout import FRAME_KINDS
from simnode.index.evm.rows import TRANSFER_BATCH_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_TOPIC
from simnode.index.metrics import buckets
from simnode.index.metrics.layout import UNION
from simnode.index.metrics.platform import split_advance
from simnode.index.metrics.query import DAY_ONLY, METRICS, WINDOWS, metric_chains, rolling, series, union_series
from simnode.store import Store
from simnode.vms.evm import rlpcodec
from simnode.vms.evm.headers import Header, HeaderRules
from simnode.vms.platform import fees

from ..metrics_reference import (SHORT_WINDOWS, Block, Tx, bucket_start, chain_expected, frame_creations,
                                 union_expected, union_window_expected, window_expected)

NAMES = {buckets.HOUR: "hour", buckets.DAY: "day", buckets.WEEK: "week", buckets.MONTH: "month"}
ZERO = bytes(20)
POOL = [bytes([i]) * 20 for i in range(1, 9)] + [ZERO]
KINDS = {k: i for i, k in enumerate(FRAME_KINDS)}
START = 1_769_800_000  # 2026-01-30 19:06:40 UTC (a Friday): the blocks cross a week and a month


# ---------------------------------------------------------------------------------------- buckets


@given(st.integers(min_value=0, max_value=2**34))
def test_buckets_are_utc_hours_days_monday_weeks_and_months(t):
    assert buckets.starts(t) == tuple(bucket_start(NAMES[iv], t) for iv in buckets.INTERVALS)
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
class MadeTx(Tx):
    """A reference tx with the call frames its block row carries."""

    frames: list[list] | None = None


def _int(n: int) -> bytes:
    return n.to_bytes((n.bit_length() + 7) // 8, "big")


def raw_tx(to: bytes | None, nonce: int) -> bytes:
    """A type-2 tx as a block row holds it (the index reads its fields, not its signature)."""
    return b"\x02" + rlpcodec.encode([_int(43112), _int(nonce), _int(1), _int(30), _int(100_000), to or b"", b"",
                                      b"", [], b"", b"\x01" * 32, b"\x01" * 32])


def transfer_topics(topic0: bytes, frm: bytes, to: bytes) -> list[bytes]:
    ends = [frm.rjust(32, b"\x00"), to.rjust(32, b"\x00")]
    return [topic0, *ends] if topic0 == TRANSFER_TOPIC else [topic0, b"\x09" * 32, *ends]


def block_row(b: Block) -> dict:
    hdr = Header(b"\x00" * 32, b"\x00" * 32, ZERO, b"\x00" * 32, b"\x00" * 32, b"\x00" * 32, 0, 1, b.number,
                 8_000_000, sum(t.used for t in b.txs), b.t, b"", b"\x00" * 32, b"\x00" * 8, None,
                 base_fee_per_gas=25, block_gas_cost=0).encode()
    receipts = [[t.status, 0, t.used, t.price, (b"\xc0" + bytes([i]) * 19) if t.to is None else None,
                 [[b"\x70" * 20, topics, b"\x05" * (32 if len(topics) == 3 else 64)] for topics in t.topics]]
                for i, t in enumerate(b.txs)]
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
    prefix: bytes = b"F/"  # the EVM index records where the chain's rows are (its tx rows are not read here)
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
def txs(draw) -> MadeTx:
    creation = draw(st.booleans()) and draw(st.booleans())
    status = draw(st.sampled_from([0, 1, 1]))
    frames = None
    made = 1 if creation and status else 0
    if not creation and draw(st.booleans()):
        outline = [("CALL", 0, draw(st.booleans()))]
        depth = 0
        for kind, want, failed in draw(st.lists(frame, max_size=4)):
            depth = min(want, depth + 1)
            outline.append((kind, depth, failed))
        frames = [[KINDS[kind], POOL[1], POOL[2], b"", 50_000, 1000, depth, failed] for kind, depth, failed in outline]
        made += frame_creations(outline) if status else 0  # a failed tx undoes everything
    logs = draw(st.lists(st.tuples(st.sampled_from([TRANSFER_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_BATCH_TOPIC]),
                                   addresses, addresses), max_size=2))
    topics = [transfer_topics(*lg) for lg in logs] if status else []  # a failed tx's receipt has no logs
    return MadeTx(draw(addresses.filter(lambda a: a != ZERO)), None if creation else draw(addresses), status,
                  draw(st.integers(21_000, 200_000)), draw(st.integers(1, 10**12)), topics, made, frames)


@st.composite
def histories(draw) -> list[Block]:
    """Blocks of 1 to 3 chains, each chain's times non-decreasing (gaps of none to days), in an
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
    # the union's distinct counts follow from the chains' own markers and first days: no rows of its own
    assert not [k for t in (UNION.markers, UNION.deployers, UNION.first_active, UNION.first_deployed)
                for k, _ in store.iterate(t)]
    for metric in METRICS:
        for interval in ((buckets.DAY,) if metric in DAY_ONLY else buckets.INTERVALS):
            name = NAMES[interval]
            for c, cid in enumerate(ids):
                assert served(store, cid, metric, interval) == chain_expected(
                    [b for b in blocks if b.chain == c], metric, name), (metric, name, c)
            assert served(store, ids, metric, interval) == union_expected(blocks, metric, name), (metric, name)


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
                if metric in ("activeAddresses", "activeSenders") and name not in SHORT_WINDOWS:
                    assert name not in got
                    continue
                since = None if seconds is None else now - seconds * 1000
                if len(scope) == 1:
                    want = window_expected([b for b in blocks if chains[b.chain].chain_id == scope[0]], metric, since)
                else:
                    want = union_window_expected(blocks, metric, since)
                assert got[name] == want, (metric, name, len(scope))


@settings(max_examples=20, deadline=None)
@given(histories())
def test_rebuild_derives_the_same_rows_in_any_order_of_chains(blocks):
    store, chains = index(blocks)
    rows = dict(store.iterate(b"ix/"))
    rebuild(store, chains)  # chain after chain, not in the order the blocks came
    rebuilt = dict(store.iterate(b"ix/"))
    assert rebuilt == rows
    reopened = Store(store._kv)  # a restarted node's store: the chains with metric rows listed anew
    rebuild(reopened, chains)
    assert dict(reopened.iterate(b"ix/")) == rows


# ---------------------------------------------------------------------------------------- L1 fees


# validator_cost_of walks the advance second by second (as AvalancheGo's CostOf): 40 advances of
# up to 3 days cross day boundaries at every offset without a minute of CPU
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10 * 86_400), st.integers(1, 3 * 86_400), st.integers(0, 30), st.integers(0, 10**7),
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


@given(st.integers(0, 2), st.one_of(st.just(b""), st.binary(min_size=20, max_size=20)), st.integers(0, 2**64),
       st.binary(max_size=300))
def test_tx_to_reads_the_recipient_of_every_tx_type(type_id, to, nonce, data):
    from simnode.index.evm.rows import decode_tx, tx_to
    fields = [_int(nonce), _int(10**9), _int(21_000), to, _int(7), data]
    if type_id == 0:
        raw = rlpcodec.encode([*fields, b"\x1b", b"\x01" * 32, b"\x02" * 32])
    elif type_id == 1:
        raw = b"\x01" + rlpcodec.encode([_int(43112), *fields, [], b"", b"\x01" * 32, b"\x02" * 32])
    else:
        raw = b"\x02" + rlpcodec.encode([_int(43112), _int(nonce), _int(1), _int(10**9), _int(21_000), to, _int(7),
                                         data, [], b"", b"\x01" * 32, b"\x02" * 32])
    assert tx_to(raw) == to == decode_tx(raw)[3]
