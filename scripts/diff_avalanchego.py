#!/usr/bin/env python3
"""Differential check: a real AvalancheGo node and simnode, same genesis, same signed txs.

Starts one real local-network node (AVALANCHEGO_PATH, AVALANCHEGO_PLUGIN_DIR; see
simnode/testing/avalanchego.py) and one simnode on the wall clock, or uses running ones (--real,
--sim), then: every read at genesis, the must-reject corpus, the known-answer tx chain with every
read after each tx, EVM txs, and prints the number of comparisons and each divergence.

    .venv/bin/python scripts/diff_avalanchego.py [--real URL] [--sim URL] [--sections a,b] [--json FILE]

Exit status 1 when anything diverged outside the allowed list.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simnode.testing import avalanchego  # noqa: E402
from simnode.testing.diff_known import classify  # noqa: E402
from simnode.testing.diff_sections import SECTIONS, run_sections  # noqa: E402
from simnode.testing.differ import Differ  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--real", help="base URL of a running AvalancheGo node (default: start one)")
    ap.add_argument("--sim", help="base URL of a running simnode (default: start one)")
    ap.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated, of: {', '.join(SECTIONS)}")
    ap.add_argument("--json", type=Path, help="write every divergence as JSON here")
    ap.add_argument("--record", type=Path, help="write every call and the real node's reply here (known answers)")
    args = ap.parse_args()

    real_node = sim_handle = None
    try:
        if args.real:
            real_url = args.real.rstrip("/")
        else:
            why = avalanchego.missing()
            if why:
                print(f"skipped: {why}")
                return 0
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
        log = run_sections(differ, args.sections.split(","))
        for line in log:
            print("  " + line)
        print(differ.report(detail=False))
        counts, new = classify(differ.divergences)
        for k, n in counts.items():
            print(f"  known {k.kind} x{n}: {k.reason}")
        print(f"new (unexplained) divergences: {len(new)}")
        for d in new:
            print("  NEW " + d.line())
        if args.record:
            args.record.write_text(json.dumps(differ.recording, indent=1) + "\n")
        if args.json:
            args.json.write_text(json.dumps([
                {"label": d.call.label, "path": d.call.path, "body": d.call.body, "where": d.where,
                 "real": d.real, "sim": d.sim} for d in differ.divergences], indent=1))
        return 1 if new else 0
    finally:
        if sim_handle is not None:
            sim_handle.stop()
        if real_node is not None:
            real_node.stop()


if __name__ == "__main__":
    sys.exit(main())
