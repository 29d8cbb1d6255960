#!/usr/bin/env python3
"""Bytes on disk per one-tx C-Chain block, and what they are.

    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/bytes_per_block.py [--blocks 2000] [--snapshot]
    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/bytes_per_block.py --data-dir DIR   (a stopped node's)
    AVALANCHEGO_PATH=... AVALANCHEGO_PLUGIN_DIR=... .venv/bin/python scripts/bytes_per_block.py --avalanchego --blocks 100

Without --data-dir: starts `simnode run` on a fresh data directory, stops it (the genesis-only
baseline), starts it again and sends `--blocks` EIP-1559 transfers one at a time, each to a new
address, each waited for (automine: one tx per block), then stops it. With --snapshot an
evm_snapshot is taken first, so the node writes undo records the whole time (as a test suite
that snapshots and reverts does).

Prints, per kind of row (block rows, hash and tx lookups, receipts inside the block row, index
rows, undo records, trie nodes, py-evm lookups, ...), the rows, key and value bytes added per
block, and what that kind's rows take alone in a LevelDB after its compaction (Snappy-compressed
blocks, keys sharing prefixes), the fields of a block row, and the data directory's size per block after LevelDB's own
compaction (what the disk really holds: LevelDB compresses blocks of rows with Snappy). Both compactions
build their tables with the node's options (simnode/store/kv.py TABLE_OPTIONS: block size, Bloom filters).

With --avalanchego the same transfers go to a real AvalancheGo (simnode/testing/avalanchego.py, its
LevelDB on disk, default pruning: tries committed every 4,096 blocks), and the script prints the
growth of its database directory per block after it stopped (no census: its keys are its own).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import msgpack
import plyvel
from eth_account import Account
from eth_utils import keccak, to_checksum_address

ROOT = Path(__file__).resolve().parents[1]
EWOQ = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
sys.path.insert(0, str(ROOT))

from simnode.store.kv import TABLE_OPTIONS  # noqa: E402
from tests.integration.rpc import call  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(data_dir: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "simnode", "run", "--data-dir", str(data_dir), "--http-port",
                             str(port), "--log-level", "WARN"], cwd=ROOT, env=dict(os.environ, ETH_HASH_BACKEND="pysha3"),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert "simnode ready" in proc.stdout.readline()  # type: ignore[union-attr]
    return proc, f"http://127.0.0.1:{port}"


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def kind_of(key: bytes) -> str:
    """The kind of row a key is (its namespace and table)."""
    if key.startswith(b"ix/c/"):
        return "index " + key[5 + 33:5 + 35].decode(errors="replace")
    if key.startswith(b"ix/g/"):
        return "index g/" + key[5:7].decode(errors="replace")
    head, _, rest = key.partition(b"/")
    if head in (b"undo", b"meta"):
        return head.decode()
    if head == b"C" or len(head) <= 2:
        table, _, tail = rest.partition(b"/")
        if table == b"s":
            return f"{head.decode()}/s trie node or code" if len(tail) == 32 else f"{head.decode()}/s py-evm lookup"
        return f"{head.decode()}/{table.decode(errors='replace')}"
    return head.decode(errors="replace")[:20]


def census(data_dir: Path) -> tuple[dict[str, list[int]], dict[str, int]]:
    """Per kind [rows, key bytes, value bytes, bytes in a LevelDB of that kind's rows alone after
    compaction (Snappy-compressed blocks, keys prefix-shared)]; bytes by field of the C-Chain block rows."""
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    fields: dict[str, int] = defaultdict(int)
    db = plyvel.DB(str(data_dir / "db"))
    scratch = Path(tempfile.mkdtemp(prefix="bpb-kinds-"))
    alone: dict[str, plyvel.DB] = {}
    try:
        for k, v in db.iterator():
            kind = kind_of(k)
            kinds[kind][0] += 1
            kinds[kind][1] += len(k)
            kinds[kind][2] += len(v)
            if kind not in alone:
                alone[kind] = plyvel.DB(str(scratch / str(len(alone))), create_if_missing=True, **TABLE_OPTIONS)
            alone[kind].put(k, v)
            if k.startswith(b"C/b/"):
                for name, value in msgpack.unpackb(v, raw=False).items():
                    fields[name] += len(msgpack.packb(value, use_bin_type=True)) + len(name) + 1
        for kind, kdb in alone.items():
            kdb.compact_range()
            kdb.close()
            path = scratch / str(list(alone).index(kind))
            kinds[kind][3] = sum(f.stat().st_size for f in path.iterdir() if f.suffix in (".ldb", ".sst"))
    finally:
        db.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return kinds, fields


def compacted_size(data_dir: Path) -> int:
    db = plyvel.DB(str(data_dir / "db"), **TABLE_OPTIONS)  # the tables it rewrites built as the node builds them
    try:
        # bounds named: plyvel 1.5's compact_range() without them left the tables as they were
        # (level-0 tables, overwritten rows and all)
        db.compact_range(start=b"\x00", stop=b"\xff" * 64)
    finally:
        db.close()
    return sum(f.stat().st_size for f in (data_dir / "db").iterdir() if f.suffix in (".ldb", ".sst", ".log"))


def send_transfers(rpc: str, blocks: int, snapshot: bool) -> None:
    if snapshot:
        call(rpc, "evm_snapshot", [])
    key = Account.from_key(EWOQ)
    nonce = int(call(rpc, "eth_getTransactionCount", [key.address, "latest"]), 16)
    for i in range(blocks):
        to = to_checksum_address(keccak(b"bytes-per-block" + i.to_bytes(4, "big"))[12:])
        tx = key.sign_transaction({"chainId": 43112, "nonce": nonce + i, "to": to, "value": 1, "gas": 21000,
                                   "maxFeePerGas": 300 * 10**9, "maxPriorityFeePerGas": 10**9, "type": 2})
        h = call(rpc, "eth_sendRawTransaction", ["0x" + tx.raw_transaction.hex().removeprefix("0x")])
        while call(rpc, "eth_getTransactionReceipt", [h]) is None:
            time.sleep(0.002)
        if i and i % 500 == 0:
            print(f"  {i} blocks", file=sys.stderr, flush=True)


def avalanchego(blocks: int) -> int:
    """A real AvalancheGo's database growth per one-tx C-Chain block."""
    from simnode.testing.avalanchego import RealNode

    work = Path(tempfile.mkdtemp(prefix="avago-bpb-"))
    flags = {"db-type": "leveldb", "index-enabled": "false"}
    try:
        node = RealNode.start(work, flags=flags, chain_configs={"C": {}})
        node.stop()
        db = work / "data"
        base = sum(f.stat().st_size for f in db.rglob("*") if f.is_file())
        node = RealNode.start(work, flags=flags, chain_configs={"C": {}})
        try:
            rpc = node.url + "/ext/bc/C/rpc"
            first = int(call(rpc, "eth_blockNumber", []), 16)
            send_transfers(rpc, blocks, False)
            made = int(call(rpc, "eth_blockNumber", []), 16) - first
        finally:
            node.stop()
        size = sum(f.stat().st_size for f in db.rglob("*") if f.is_file())
        per_block = (size - base) / max(made, 1)
        print(f"AvalancheGo: {per_block:.0f} bytes per one-tx block ({made} blocks; its data dir grew "
              f"{(size - base) / 1024:.0f} KiB, logs and write-ahead files included)")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def fill(data_dir: Path, blocks: int, snapshot: bool) -> None:
    proc, url = start(data_dir)
    rpc = url + "/ext/bc/C/rpc"
    try:
        send_transfers(rpc, blocks, snapshot)
    finally:
        stop(proc)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--blocks", type=int, default=2000)
    ap.add_argument("--snapshot", action="store_true", help="take an evm_snapshot first (undo records are kept)")
    ap.add_argument("--data-dir", type=Path, help="census of an existing (stopped) node's data dir instead")
    ap.add_argument("--avalanchego", action="store_true", help="measure a real AvalancheGo instead")
    args = ap.parse_args()
    if args.avalanchego:
        return avalanchego(args.blocks)
    if args.data_dir:
        kinds, fields = census(args.data_dir)
        db = plyvel.DB(str(args.data_dir / "db"))
        head = db.get(b"C/head")
        db.close()
        blocks, base_kinds = int.from_bytes(head, "big"), {}
        size, base_size = compacted_size(args.data_dir), 0
    else:
        work = Path(tempfile.mkdtemp(prefix="simnode-bpb-"))
        try:
            data_dir = work / "node"
            stop(start(data_dir)[0])
            base_kinds, _ = census(data_dir)
            base_size = compacted_size(data_dir)
            fill(data_dir, args.blocks, args.snapshot)
            kinds, fields = census(data_dir)
            size = compacted_size(data_dir)
            blocks = args.blocks
        finally:
            shutil.rmtree(work, ignore_errors=True)
    rows = []
    totals = [0, 0, 0, 0]
    zero = [0, 0, 0, 0]
    for kind in sorted(kinds, key=lambda k: -(sum(kinds[k][1:3]) - sum(base_kinds.get(k, zero)[1:3]))):
        n, kb, vb, packed = (kinds[kind][i] - base_kinds.get(kind, zero)[i] for i in range(4))
        if n == 0 and kb == 0 and vb == 0:
            continue
        for i, x in enumerate((n, kb, vb, packed)):
            totals[i] += x
        rows.append({"kind": kind, "rows_per_block": round(n / blocks, 2), "key_bytes": round(kb / blocks, 1),
                     "value_bytes": round(vb / blocks, 1), "bytes_per_block": round((kb + vb) / blocks, 1),
                     "compressed": round(packed / blocks, 1)})
    print(f"{'kind':34} {'rows/block':>10} {'key B':>8} {'value B':>8} {'key+value':>9} {'alone, compacted':>16}")
    for r in rows:
        print(f"{r['kind']:34} {r['rows_per_block']:10.2f} {r['key_bytes']:8.1f} {r['value_bytes']:8.1f} "
              f"{r['bytes_per_block']:9.1f} {r['compressed']:16.1f}")
    print(f"{'total':34} {totals[0] / blocks:10.2f} {totals[1] / blocks:8.1f} {totals[2] / blocks:8.1f} "
          f"{(totals[1] + totals[2]) / blocks:9.1f} {totals[3] / blocks:16.1f}")
    print("C-Chain block row fields (bytes per block):",
          ", ".join(f"{k} {v / blocks:.0f}" for k, v in sorted(fields.items(), key=lambda kv: -kv[1])))
    per_block = (size - base_size) / blocks
    print(f"on disk after compaction: {per_block:.0f} bytes per one-tx block ({blocks} blocks, "
          f"{size / 2**20:.1f} MiB data dir)")
    print(json.dumps({"blocks": blocks, "disk_bytes_per_block": round(per_block), "kinds": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
