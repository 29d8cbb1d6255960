#!/usr/bin/env python3
"""kill -9 trials of a node running an L1 EVM chain and the ICM relayer with messages in flight.

    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/crash_trials.py [--trials 100] [--seed 1] [--data-dir DIR]

Makes the L1 and the two PingPongReceivers once, then runs `--trials` trials one after another on the
same data dir (tests/integration/crash_l1.py says what a trial does and checks). Prints one line per
trial and a summary; exits 1 when any trial lost an acknowledged tx, delivered a message other than
exactly once, or left the Data API disagreeing with a chain.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.integration.crash_l1 import prepare, trial  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data-dir", type=Path, help="kept after the run (default: a temporary directory, removed)")
    args = ap.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="simnode-crash-"))
    rng = random.Random(args.seed)
    t0 = time.monotonic()
    totals = {"trials": 0, "failed": 0, "acked": 0, "lost": 0, "messages": 0, "not_once": 0,
              "index_disagrees": 0, "pending_at_kill": 0}
    try:
        setup = prepare(data_dir)
        for i in range(args.trials):
            out = trial(data_dir, setup, rng, relayer_off=i % 2 == 1)
            totals["trials"] += 1
            totals["failed"] += not out.ok
            totals["acked"] += out.acked
            totals["lost"] += len(out.lost)
            totals["messages"] = out.messages
            totals["not_once"] += len(out.not_once)
            totals["index_disagrees"] += len(out.index_disagrees)
            totals["pending_at_kill"] += out.pending_at_kill
            print(f"trial {i + 1:3d}: acked {out.acked:4d}, messages so far {out.messages:4d}, pending at kill "
                  f"{out.pending_at_kill:2d}, lost {len(out.lost)}, not exactly once {len(out.not_once)}, "
                  f"index disagrees {len(out.index_disagrees)}", flush=True)
            for line in out.lost + out.not_once + out.index_disagrees:
                print("   ", line, flush=True)
    finally:
        if args.data_dir is None:
            shutil.rmtree(data_dir, ignore_errors=True)
    totals["seconds"] = round(time.monotonic() - t0)
    print(json.dumps(totals), flush=True)
    return 1 if totals["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
