#!/usr/bin/env python3
"""Webhooks benchmark: delivery latency, a sustained load, and what matching costs block building.

    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/bench_webhooks.py [--txs 200] [--interval 0.25]
        [--rate 100] [--seconds 20] [--skip-latency] [--skip-load] [--skip-callgrind]

1) Latency, block accepted -> delivery received, on loopback: a node (start_in_thread, automine)
   and a receiver in a separate process (aiohttp, answers 200, notes the wall time each body
   arrived). The C-Chain's block listener notes the wall time each block was accepted (after
   its batch is written). `--txs` transfers, one block each, one block every `--interval` s, to
   an address watched by 1 webhook, then by 100 webhooks (each of the 100 gets every block's
   message, so 100 deliveries per block): p50/p99/max in ms over every delivery. With blocks back
   to back (`--interval 0`) the figure measures the backlog of a saturated node instead.
2) Sustained load: one webhook watching 1,000 addresses; signed transfers to them from 10
   senders (a thread each, paced) at `--rate` tx/s in all for `--seconds` (each tx one
   delivery). Sampled each second: the messages waiting for delivery (the worker's queues).
   Printed: tx/s achieved, the queue's samples, its maximum, whether it grows while sending (the
   last third's mean against the first third's), and how long after the last tx the last
   delivery arrived.
3) Block building with 100 webhooks against none (callgrind instruction counts of the main
   thread, which other load on the machine does not change): an EVM chain on LevelDB builds blocks of 20 transfers through
   EVMChain.build_block with the index on (scripts/bench_data_api.py's workload), its accepted
   blocks going (a) to the index alone, (b) through the webhooks' BlockFeed with 100 active
   webhooks of 10 addresses each that no tx touches, (c) the same with one of the 100 watching
   every sender (a message staged per tx). Instructions per transfer from the difference of a
   short and a long run (start-up cancels out); the goal for (b) and (c) is <= +5 %.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from eth_account import Account  # noqa: E402

from simnode.store import Store  # noqa: E402

EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
RECEIVER = r"""
import asyncio, sys, time
from aiohttp import web
seen = []
async def hook(request):
    body = await request.read()
    seen.append((time.time(), body))
    return web.Response(text="ok")
async def dump(request):
    import json
    out = [[t, b.decode()] for t, b in seen]
    seen.clear()
    return web.json_response(out)
app = web.Application()
app.router.add_post("/hook", hook)
app.router.add_get("/dump", dump)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=lambda *a: print("ready", flush=True),
            access_log=None)
"""


def log(*a: object) -> None:
    print(*a, file=sys.stderr, flush=True)


def pct(samples: list[float]) -> dict:
    s = sorted(samples)
    return {"n": len(s), "p50_ms": round(statistics.median(s), 2), "p99_ms": round(s[int(0.99 * (len(s) - 1))], 2),
            "max_ms": round(s[-1], 2)}


class ReceiverProcess:
    def __init__(self) -> None:
        from tests.integration.webhook_receiver import free_port
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.proc = subprocess.Popen([sys.executable, "-c", RECEIVER, str(self.port)], stdout=subprocess.PIPE,
                                     text=True)
        assert "ready" in self.proc.stdout.readline()  # type: ignore[union-attr]

    def dump(self) -> list[tuple[float, dict]]:
        import urllib.request
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/dump", timeout=30) as resp:
            return [(t, json.loads(b)) for t, b in json.loads(resp.read())]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def start_node():
    from simnode.config import NodeConfig
    from simnode.node import Node
    return Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="ERROR"))


def create(h, url: str, addresses: list[str]) -> None:
    from tests.integration.dataapi import api
    api(h.url, "/v1/webhooks", 201, "POST", {"eventType": "address_activity", "url": url, "chainId": "43112",
                                             "metadata": {"addresses": addresses}})


def signed_transfers(targets: list[str], n: int, start_nonce: int = 0) -> list[str]:
    fee = {"gas": 21000, "maxFeePerGas": 10**12, "maxPriorityFeePerGas": 1, "chainId": 43112, "value": 1, "type": 2}
    return [EWOQ.sign_transaction({**fee, "nonce": start_nonce + i, "to": targets[i % len(targets)]})
            .raw_transaction.to_0x_hex() for i in range(n)]


def bench_latency(txs: int, interval: float) -> dict:
    import requests
    out = {}
    target = "0x000000000000000000000000000000000000bEEF"
    nonce = 0
    rx = ReceiverProcess()
    try:
        with start_node() as h:
            chain = h.node.chain_by_alias("C")
            accepted: dict[int, float] = {}
            chain.listeners.append(lambda kind, block: kind == "block" and accepted.setdefault(
                block.number, time.time()))
            session = requests.Session()
            rpc = h.url + "/ext/bc/C/rpc"
            for hooks in (1, 100):
                for _ in range(hooks - sum(1 for _ in h.node.webhooks.engine.webhooks)):
                    create(h, rx.url, [target])
                raws = signed_transfers([target], txs, nonce)
                nonce += txs
                for raw in raws:  # one block each (automine), one every `interval` s
                    due = time.monotonic() + interval
                    tx_hash = session.post(rpc, json={"jsonrpc": "2.0", "id": 1, "method": "eth_sendRawTransaction",
                                                      "params": [raw]}).json()["result"]
                    while session.post(rpc, json={"jsonrpc": "2.0", "id": 1, "method": "eth_getTransactionReceipt",
                                                  "params": [tx_hash]}).json()["result"] is None:
                        time.sleep(0.001)
                    time.sleep(max(0.0, due - time.monotonic()))
                deadline = time.monotonic() + 120
                got: list[tuple[float, dict]] = []
                while len(got) < txs * hooks and time.monotonic() < deadline:
                    time.sleep(0.2)
                    got += rx.dump()
                lat = [(t - accepted[int(m["event"]["transaction"]["blockNumber"])]) * 1000 for t, m in got]
                out[f"{hooks}_webhooks"] = {**pct(lat), "deliveries_expected": txs * hooks,
                                            "block_interval_s": interval}
                log(f"latency, {hooks} webhook(s): {out[f'{hooks}_webhooks']}")
    finally:
        rx.close()
    return out


SENDERS = 10


def bench_load(rate: int, seconds: int) -> dict:
    import requests
    from eth_utils import to_checksum_address
    watched = [to_checksum_address((0xAB0000 + i).to_bytes(20, "big")) for i in range(1000)]
    senders = [Account.from_key((0x5E4D0000 + i).to_bytes(32, "big")) for i in range(SENDERS)]
    per = rate * seconds // SENDERS
    fee = {"gas": 21000, "maxFeePerGas": 10**12, "maxPriorityFeePerGas": 1, "chainId": 43112, "type": 2}
    signed = [[a.sign_transaction({**fee, "nonce": n, "value": 1, "to": watched[(k * per + n) % 1000]})
               .raw_transaction.to_0x_hex() for n in range(per)] for k, a in enumerate(senders)]
    rx = ReceiverProcess()
    try:
        with start_node() as h:
            rpc = h.url + "/ext/bc/C/rpc"
            session = requests.Session()
            for i, a in enumerate(senders):  # funded before the webhook exists
                raw = EWOQ.sign_transaction({**fee, "nonce": i, "value": 10**20, "to": a.address})
                session.post(rpc, json={"jsonrpc": "2.0", "id": 1, "method": "eth_sendRawTransaction",
                                        "params": [raw.raw_transaction.to_0x_hex()]})
            create(h, rx.url, watched)
            delivery = h.node.webhooks.delivery
            samples: list[int] = []
            stop = threading.Event()

            def sample() -> None:
                while not stop.is_set():
                    samples.append(delivery.queued())
                    stop.wait(1.0)

            def send(raws: list[str], started: float) -> None:
                s = requests.Session()
                for i, raw in enumerate(raws):
                    due = started + i * SENDERS / rate
                    now = time.monotonic()
                    if due > now:
                        time.sleep(due - now)
                    s.post(rpc, json={"jsonrpc": "2.0", "id": 1, "method": "eth_sendRawTransaction", "params": [raw]})

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            started = time.monotonic()
            threads = [threading.Thread(target=send, args=(raws, started + k / rate)) for k, raws in enumerate(signed)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            sent_s = time.monotonic() - started
            total = per * SENDERS
            received = 0
            deadline = time.monotonic() + 120
            while received < total and time.monotonic() < deadline:
                time.sleep(0.25)
                received += len(rx.dump())
            done_s = time.monotonic() - started
            stop.set()
            sampler.join()
            sending = samples[:max(3, int(sent_s))]
            third = max(1, len(sending) // 3)
            head, tail = statistics.mean(sending[:third]), statistics.mean(sending[-third:])
            out = {"watched_addresses": 1000, "txs": total, "senders": SENDERS,
                   "tx_per_s_sent": round(total / sent_s, 1), "deliveries": received,
                   "deliveries_per_s_until_all_received": round(received / done_s, 1),
                   "queue_samples_per_s": samples, "queue_max": max(samples),
                   "queue_mean_first_third_of_sending": round(head, 1),
                   "queue_mean_last_third_of_sending": round(tail, 1),
                   "seconds_after_sending_until_all_received": round(done_s - sent_s, 2),
                   "given_up": delivery.given_up}
            log(f"load: {out}")
            return out
    finally:
        rx.close()


# ------------------------------------------------------------------------------ callgrind

def run_workload(path: Path, blocks: int, mode: str) -> None:
    """The measured process: bench_data_api's EVM workload (index on, recorder on) with the
    accepted blocks going to the index alone or through the webhooks' BlockFeed."""
    import bench_data_api
    from simnode.clock import VirtualClock
    from simnode.config import NodeConfig
    from simnode.genesis import load_network_genesis
    from simnode.index import Indexer
    from simnode.vms.chain_context import ChainContext
    from simnode.vms.evm.evm_chain import EVMChain
    from simnode.webhooks import records as r
    from simnode.webhooks.engine import BlockFeed, Webhooks
    from simnode.webhooks.service import network_token
    txs = json.loads(path.read_text())[:blocks + 1]
    tmp = tempfile.mkdtemp(prefix="bench-webhooks-")
    store = Store.open(Path(tmp) / "db")
    try:
        genesis = load_network_genesis(12345)
        feed = Indexer(store)
        if mode != "none":
            engine = Webhooks(store, lambda: 0, 12345, genesis.avax_asset_id, network_token)
            for k in range(100):
                addresses = ["0x" + (0xC0000000 + 10 * k + j).to_bytes(20, "big").hex() for j in range(10)]
                if mode == "matching" and k == 0:
                    addresses = [Account.from_key((0xBE4C0000 + i).to_bytes(32, "big")).address
                                 for i in range(bench_data_api.SENDERS)]
                engine.save(r.Webhook(f"bench-{k:03d}", "http://127.0.0.1:9/x", "43112", genesis.c_chain_id,
                                      r.ADDRESS_ACTIVITY, "fuji", {"addresses": addresses}, created_at=k))
            feed = BlockFeed(feed, engine)
        ctx = ChainContext(NodeConfig(), genesis, store, VirtualClock(1_767_225_600_000), genesis.c_chain_id,
                           indexer=feed)
        chain = EVMChain(ctx)
        chain.set_automine(False)
        for block in txs:
            for raw in block:
                chain.submit_raw(bytes.fromhex(raw))
            chain.mine_pending()
        assert chain.head.number == len(txs)
        if mode == "matching":
            assert len(r.outbox(store)) >= blocks * bench_data_api.SENDERS
    finally:
        store.close()
        shutil.rmtree(tmp, ignore_errors=True)


def instructions(path: Path, blocks: int, mode: str) -> int:
    """The main thread's instructions (LevelDB's background compaction runs in threads of its own
    when it likes: counting every thread made the figures jump between runs)."""
    env = dict(os.environ, ETH_HASH_BACKEND="pysha3", PYTHONHASHSEED="0")
    out = Path(tempfile.mkdtemp(prefix="bench-webhooks-cg-"))
    try:
        cmd = ["valgrind", "--tool=callgrind", "--separate-threads=yes", f"--callgrind-out-file={out}/cg",
               sys.executable, __file__, "--workload", str(path), "--blocks", str(blocks), "--mode", mode]
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
        main_thread = out / "cg-01"
        if done.returncode == 0 and main_thread.exists():
            for line in main_thread.read_text(errors="replace").splitlines():
                if line.startswith(("totals:", "summary:")):
                    return int(line.split()[1])
        raise RuntimeError(f"no instruction count from callgrind: {done.stderr[-2000:]}")
    finally:
        shutil.rmtree(out, ignore_errors=True)


def bench_instructions(small: int, large: int) -> dict:
    import bench_data_api
    if shutil.which("valgrind") is None:
        return {"skipped": "no valgrind on this machine"}
    tmp = Path(tempfile.mkdtemp(prefix="bench-webhooks-txs-"))
    try:
        path = tmp / "native.json"
        bench_data_api.sign_workload(path, large, erc20=False)
        per = {}
        for mode in ("none", "idle", "matching"):
            counts = {n: instructions(path, n, mode) for n in (small, large)}
            per[mode] = (counts[large] - counts[small]) / ((large - small) * bench_data_api.SENDERS)
            log(f"callgrind {mode}: {counts} -> {per[mode]:.0f} instructions per transfer")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    base = per["none"]
    return {"transfers_per_block": bench_data_api.SENDERS, "blocks": [small, large],
            "instructions_per_transfer_no_webhooks": round(base),
            "instructions_per_transfer_100_webhooks_none_matching": round(per["idle"]),
            "instructions_per_transfer_100_webhooks_every_tx_matched": round(per["matching"]),
            "cost_pct_100_webhooks_none_matching": round((per["idle"] - base) / base * 100, 2),
            "cost_pct_100_webhooks_every_tx_matched": round((per["matching"] - base) / base * 100, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--txs", type=int, default=200, help="transfers per latency run")
    ap.add_argument("--interval", type=float, default=0.25, help="seconds between the latency runs' blocks")
    ap.add_argument("--rate", type=int, default=100, help="tx/s of the sustained load")
    ap.add_argument("--seconds", type=int, default=20, help="length of the sustained load")
    ap.add_argument("--skip-latency", action="store_true")
    ap.add_argument("--skip-load", action="store_true")
    ap.add_argument("--skip-callgrind", action="store_true")
    ap.add_argument("--workload", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--blocks", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--mode", default="none", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.workload is not None:
        run_workload(args.workload, args.blocks, args.mode)
        return
    out: dict = {}
    if not args.skip_latency:
        out["latency"] = bench_latency(args.txs, args.interval)
    if not args.skip_load:
        out["load"] = bench_load(args.rate, args.seconds)
    if not args.skip_callgrind:
        out["block_building"] = bench_instructions(3, 13)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
