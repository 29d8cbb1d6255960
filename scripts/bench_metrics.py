#!/usr/bin/env python3
"""Metrics API benchmark, index side: the queries the REST handlers make, timed in-process with the
JSON body they build (no HTTP).

    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/bench_metrics.py [--years 1,3] [--block-minutes 10]
        [--samples 40] [--rounds 5]

For each --years figure, a chain with that much history: synthetic accepted blocks, one every
--block-minutes of time, 5 txs each (native and ERC-20 transfers among 1000 addresses, 1 in 7
failing; scripts/bench_data_api.py's SyntheticChain) go through Indexer.block_accepted — the
EVM tables and the metric rows, one LevelDB batch per block, the path a real block takes — into
one LevelDB per history. Then, on each, p50/p99 (ms) of:

* every one of the 17 chain metrics, daily, over the last 365 days (one page of 365 points);
* the 4 metrics that have hours (txCount, gasUsed, activeAddresses, activeSenders), hourly,
  over the last 90 days (one page of 2160 points, the largest a page can be);

for the chain and for `total` (the union path), timed in interleaved rounds across the
histories (they share whatever else the machine does), and the indexing time per block and tx.
"Flat in the length of history" is the ratio of the p50s on the longest history to the shortest.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_data_api import SyntheticChain  # noqa: E402

from simnode.api.data.metric_common import points_json  # noqa: E402
from simnode.index import Indexer  # noqa: E402
from simnode.index.metrics import buckets  # noqa: E402
from simnode.index.metrics.query import DAY_ONLY, METRICS, metric_chains, series, union_series  # noqa: E402
from simnode.store import Store  # noqa: E402

END = 1_767_225_600  # 2026-01-01 00:00 UTC: every history ends here
DAY = 86_400
HOURLY = tuple(m for m in METRICS if m not in DAY_ONLY)


def log(*a: object) -> None:
    print(*a, file=sys.stderr, flush=True)


def feed(store: Store, years: int, block_minutes: int) -> dict:
    """A history of `years` ending at END through the indexer."""
    chain = SyntheticChain(b"\x43" * 32)  # any blockchain ID: the metrics read the chains the index holds
    indexer = Indexer(store)
    step = block_minutes * 60
    start = END - years * 365 * DAY
    spent = 0.0
    for t in range(start, END, step):
        row = chain.block()
        row["ms"] = t * 1000
        batch = store.batch()
        began = time.perf_counter()
        indexer.block_accepted(chain, row, batch)
        spent += time.perf_counter() - began
        batch.commit()
    txs = chain.number * 5
    return {"years": years, "blocks": chain.number, "txs": txs, "index_us_per_block": round(spent / chain.number * 1e6),
            "index_us_per_tx": round(spent / txs * 1e6, 1)}


def queries(store: Store) -> dict:
    (cid,) = metric_chains(store)
    year = (END - 365 * DAY, END)
    quarter = (END - 90 * DAY, END)

    def one(metric: str, interval: int, bounds: tuple[int, int], together: bool):
        def run() -> bytes:
            if together:
                found = union_series(store, [cid], metric, interval, *bounds, 2160)
            else:
                found = series(store, cid, metric, interval, *bounds, 2160)
            return orjson.dumps({"results": points_json(found.points)})
        return run

    out = {}
    for scope, together in (("chain", False), ("total", True)):
        for metric in METRICS:
            out[f"{scope}/{metric}/day/365d"] = one(metric, buckets.DAY, year, together)
        for metric in HOURLY:
            out[f"{scope}/{metric}/hour/90d"] = one(metric, buckets.HOUR, quarter, together)
    for name, fn in out.items():
        points = len(orjson.loads(fn())["results"])
        expected = 2160 if "/hour/" in name else 365
        assert points == expected, (name, points)
    return out


def p50_p99(samples: list[float]) -> dict:
    s = sorted(samples)
    return {"p50_ms": round(statistics.median(s) * 1000, 3), "p99_ms": round(s[min(len(s) - 1, int(len(s) * 0.99))] * 1000, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--years", default="1,3", help="histories to measure on (years of activity)")
    ap.add_argument("--block-minutes", type=int, default=10, help="time between two blocks")
    ap.add_argument("--samples", type=int, default=40, help="timed runs of each query per history")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds the samples are spread over")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-metrics-")
    histories = [int(y) for y in args.years.split(",")]
    stores = [Store.open(Path(tmp) / f"db{y}") for y in histories]
    try:
        figures, timed = [], []
        for years, store in zip(histories, stores):
            figures.append(feed(store, years, args.block_minutes))
            log(json.dumps(figures[-1]))
            timed.append(queries(store))
        samples: list[dict[str, list[float]]] = [{name: [] for name in fns} for fns in timed]
        for _ in range(args.rounds):
            for fns, got in zip(timed, samples):
                for name, fn in fns.items():
                    fn()  # warm
                    for _ in range(max(1, args.samples // args.rounds)):
                        began = time.perf_counter()
                        fn()
                        got[name].append(time.perf_counter() - began)
        for fig, got in zip(figures, samples):
            fig["queries"] = {name: p50_p99(values) for name, values in got.items()}
            p50s = [v["p50_ms"] for v in fig["queries"].values()]
            fig["worst_p50_ms"] = max(p50s)
            fig["median_p50_ms"] = round(statistics.median(p50s), 3)
        first, last = figures[0]["queries"], figures[-1]["queries"]
        out = {"histories": figures,
               "p50_ratio_longest_to_shortest_history": {
                   "median": round(statistics.median(last[k]["p50_ms"] / first[k]["p50_ms"] for k in first), 2),
                   "max": round(max(last[k]["p50_ms"] / first[k]["p50_ms"] for k in first), 2)}}
        print(json.dumps(out, indent=1))
    finally:
        for store in stores:
            store.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
