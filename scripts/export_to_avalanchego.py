"""A simnode network exported to real AvalancheGo nodes: boot time, comparisons, replay.

    AVALANCHEGO_PATH=/path/to/avalanchego AVALANCHEGO_PLUGIN_DIR=/path/to/plugins \
        .venv/bin/python scripts/export_to_avalanchego.py [--nodes 5] [--keep DIR]

Builds the source network (tests/avalanchego/export_source.toml: C-Chain contracts with storage, X
and P balances, an L1 with validators), exports it, starts the nodes on loopback, recreates the L1
on them, compares every carried value with the source, sends new txs, runs scenarios/quickstart.toml
with `replay --target` on them and on simnode from the same export, and prints the figures. Every
node it starts is stopped before it exits.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from simnode.testing.export_trial import REPLAY_SCENARIO, run_trial
from simnode.testing.realnet import binaries_from_env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=5)
    parser.add_argument("--scenario", type=Path, default=REPLAY_SCENARIO)
    parser.add_argument("--keep", type=Path, default=None, help="work here and keep it (default: a temporary dir)")
    args = parser.parse_args()
    binaries = binaries_from_env()
    if isinstance(binaries, str):
        print(f"skipped: {binaries}")
        return 0
    work = args.keep or Path(tempfile.mkdtemp(prefix="simnode-avago-export-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        t = run_trial(work, binaries, nodes=args.nodes, scenario=args.scenario, log=lambda s: print(s, flush=True))
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print(f"\nsource scenario replayed in {t.source_seconds:.1f}s; export-network in {t.export_seconds:.1f}s")
    print(f"{args.nodes}-node boot (start to all healthy, P/X/C bootstrapped): {t.boot_seconds:.1f}s")
    print(f"L1s recreated with replay --target in {t.recreate_seconds:.1f}s; " + (
        f"their chains NOT run: {t.l1_chain_skipped}" if t.l1_chain_skipped else
        f"restart tracking them, to all healthy: {t.restart_seconds:.1f}s"))
    kinds: dict[str, int] = {}
    for c in t.comparisons:
        for kind, n in c.counts.items():
            kinds[kind] = kinds.get(kind, 0) + n
    diffs = sorted({d for c in t.comparisons for d in c.differences})
    print(f"compared with the source on {len(t.comparisons)} node(s): {sum(kinds.values())} values, "
          f"{sum(len(c.differences) for c in t.comparisons)} differ")
    for kind, n in sorted(kinds.items()):
        print(f"  {kind}: {n}")
    for d in diffs[:40]:
        print(f"  DIFF {d}")
    same = t.l1_validators_real == t.l1_validators_exported == t.l1_validators_simnode
    print(f"L1 validators: {len(t.l1_validators_real)} on the real P-Chain (all nodes alike: {t.l1_reads_agree}); "
          f"same as the export's nodes and as simnode on the exported genesis: {same}")
    for name, (was, real) in t.l1_managers.items():
        print(f"L1 {name}: (isPermissioned, managerChainID, managerAddress) real {real}, source {was}: "
              f"{'same' if was == real else 'DIFFERENT'}")
    reads = {repr(v) for v in t.new_txs.values()}
    print(f"new txs read alike on all nodes: {len(reads) == 1}: {next(iter(t.new_txs.values()), {})}")
    print(f"replay --target {args.scenario.name}: exit {t.replay_exit} in {t.replay_seconds:.1f}s")
    print(t.replay_output)
    differ = {k: (t.replay_real.get(k), t.replay_simnode.get(k)) for k in sorted(set(t.replay_real) |
              set(t.replay_simnode)) if t.replay_real.get(k) != t.replay_simnode.get(k)}
    print(f"scenario balances, real vs simnode on the exported genesis: {len(t.replay_real)} compared, "
          f"{len(differ)} differ; all real nodes alike: {t.replay_nodes_agree}")
    for k, (a, b) in differ.items():
        print(f"  {k}: real {a}, simnode {b} (off by {(a or 0) - (b or 0)})")
    managers_same = all(was == real for was, real in t.l1_managers.values())
    ok = not diffs and not differ and t.replay_exit == 0 and same and t.l1_reads_agree and managers_same \
        and len(reads) == 1 and t.replay_nodes_agree
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
