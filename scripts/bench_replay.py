"""Replay speed: wall time and blocks/s for the load scenario and the staking month, and the cost
of advancing a virtual clock 30 days with nothing due. Prints figures; asserts nothing.

    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/bench_replay.py [--transfers N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from simnode.config import NodeConfig
from simnode.node import Node
from simnode.scenario import replay
from simnode.scenario.transport import InProcessTransport

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def bench_scenario(name: str, vars: dict | None = None) -> None:
    started = time.perf_counter()
    result = replay(SCENARIOS / f"{name}.toml", vars=vars, progress=False)
    wall = time.perf_counter() - started
    blocks = sum(result.stats.blocks.values())
    print(f"{name:<14} {wall:8.2f}s wall (run {result.stats.wall_s:.2f}s)  {result.stats.txs:6d} txs  "
          f"{blocks:6d} blocks ({', '.join(f'{c} {n}' for c, n in result.stats.blocks.items())})  "
          f"{blocks / result.stats.wall_s:8.1f} blocks/s  {result.stats.txs / result.stats.wall_s:8.1f} txs/s")


def bench_idle_month() -> None:
    config = NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", log_level="WARN")
    with Node.start_in_thread(config) as handle:
        t = InProcessTransport(handle.node, handle.loop)
        started = time.perf_counter()
        t.call("simnode", "simnode.advanceTime", {"seconds": str(30 * 86400)})
        one = time.perf_counter() - started
        started = time.perf_counter()
        for _ in range(30):
            t.call("simnode", "simnode.advanceTime", {"seconds": "86400"})
        daily = time.perf_counter() - started
    print(f"idle 30 days   {one * 1000:8.2f} ms in one advance; {daily * 1000:.2f} ms in 30 daily advances")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--transfers", type=int, default=10_000, help="load scenario size (default 10000)")
    args = ap.parse_args()
    bench_idle_month()
    bench_scenario("staking_month")
    bench_scenario("load", {"transfers": args.transfers})


if __name__ == "__main__":
    main()
