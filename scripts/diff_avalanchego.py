#!/usr/bin/env python3
"""Differential check: a real AvalancheGo node and simnode, same genesis, same signed txs.

Starts one real local-network node (AVALANCHEGO_PATH, AVALANCHEGO_PLUGIN_DIR; see
simnode/testing/avalanchego.py) and one simnode on the wall clock, or uses running ones (--real,
--sim), then: every read at genesis, the must-reject corpus, the known-answer tx chain with every
read after each tx, EVM txs, and prints the number of comparisons and each divergence.
With --l1 (alone: --sections none --l1), the L1 part too: five real nodes from a `simnode
export-network` folder beside simnode from the same genesis, ConvertSubnetToL1, RegisterL1Validator
and SetL1ValidatorWeight with their Warp messages, and the L1 chain's eth_* reads (simnode/testing/diff_l1.py).

    .venv/bin/python scripts/diff_avalanchego.py [--real URL] [--sim URL] [--sections a,b] [--l1] [--json FILE]

Exit status 1 when anything diverged outside the allowed list.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simnode.testing import avalanchego  # noqa: E402
from simnode.testing.diff_known import classify  # noqa: E402
from simnode.testing.diff_sections import SECTIONS, run_sections  # noqa: E402
from simnode.testing.diff_l1 import run_l1_diff  # noqa: E402
from simnode.testing.differ import Differ, Divergence  # noqa: E402
from simnode.testing.realnet import binaries_from_env  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--real", help="base URL of a running AvalancheGo node (default: start one)")
    ap.add_argument("--sim", help="base URL of a running simnode (default: start one)")
    ap.add_argument("--sections", default=",".join(SECTIONS),
                    help=f"comma-separated, of: {', '.join(SECTIONS)} (none: only --l1)")
    ap.add_argument("--json", type=Path, help="write every divergence as JSON here")
    ap.add_argument("--record", type=Path, help="write every call and the real node's reply here (known answers)")
    ap.add_argument("--l1", action="store_true", help="also the L1 part, on five real nodes (a few minutes)")
    ap.add_argument("--record-l1", type=Path, help="write the L1 part's calls and the real node's replies here")
    args = ap.parse_args()

    sections = [n for n in args.sections.split(",") if n and n != "none"]
    divergences: list[Divergence] = []
    if sections:
        code, divergences = run_single(args, sections)
        if code is None:
            return 0
    if args.l1:
        divergences += run_l1(args.record_l1)
    if args.json:
        args.json.write_text(json.dumps([
            {"label": d.call.label, "path": d.call.path, "body": d.call.body, "where": d.where,
             "real": d.real, "sim": d.sim} for d in divergences], indent=1))
    return 1 if classify(divergences)[1] else 0


def _print_differ(differ: Differ, log: list[str]) -> None:
    for line in log:
        print("  " + line)
    print(differ.report(detail=False))
    counts, new = classify(differ.divergences)
    for k, n in counts.items():
        print(f"  known {k.kind} x{n}: {k.reason}")
    print(f"new (unexplained) divergences: {len(new)}")
    for d in new:
        print("  NEW " + d.line())


def run_single(args: argparse.Namespace, sections: list[str]) -> tuple[int | None, list[Divergence]]:
    """The sections on one real node (started here unless --real) and one simnode."""
    real_node = sim_handle = None
    try:
        if args.real:
            real_url = args.real.rstrip("/")
        else:
            why = avalanchego.missing()
            if why:
                print(f"skipped: {why}")
                return None, []
            t0 = time.monotonic()
            real_node = avalanchego.RealNode.start(chain_configs=avalanchego.DIFF_CHAIN_CONFIGS)
            real_url = real_node.url
            print(f"avalanchego up at {real_url} in {time.monotonic() - t0:.1f}s")
        if args.sim:
            sim_url = args.sim.rstrip("/")
        else:
            from simnode.config import NodeConfig
            from simnode.node import Node
            sim_handle = Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="wall",
                                                         log_level="WARN"))
            sim_url = sim_handle.url
        differ = Differ(real_url, sim_url, recording=[] if args.record else None)
        _print_differ(differ, run_sections(differ, sections))
        if args.record:
            args.record.write_text(json.dumps(differ.recording, indent=1) + "\n")
        return 0, differ.divergences
    finally:
        if sim_handle is not None:
            sim_handle.stop()
        if real_node is not None:
            real_node.stop()


def run_l1(record: Path | None) -> list[Divergence]:
    """The L1 part on five real nodes from an export (every node stopped before it returns)."""
    binaries = binaries_from_env()
    if isinstance(binaries, str):
        print(f"L1 part skipped: {binaries}")
        return []
    work = Path(tempfile.mkdtemp(prefix="simnode-diff-l1-"))
    try:
        run = run_l1_diff(work, binaries, log=lambda s: print(s, flush=True))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"L1 part: 5-node boot {run.boot_seconds:.1f}s, tracking the L1 (restart to healthy) "
          f"{run.track_seconds:.1f}s; subnet {run.subnet}, chain {run.chain}")
    _print_differ(run.differ, run.log)
    if record:
        record.write_text(json.dumps(run.differ.recording, indent=1) + "\n")
    return run.differ.divergences

if __name__ == "__main__":
    sys.exit(main())
