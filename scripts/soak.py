#!/usr/bin/env python3
"""Soak: a mixed load on one simnode for a given time, with the node's memory and disk per window.

    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/soak.py [--minutes 10] [--tps 40] [--window 60]
        [--reads 20] [--data-dir DIR] [--xp-every 5]

Starts `python -m simnode run --data-dir DIR` (a fresh temporary directory unless given) on a free
loopback port, then for `--minutes`:
  - C-Chain: signed EIP-1559 txs at `--tps` from 8 funded senders (each deploys a Token first):
    87.5% transfers, 10% ERC-20 `transfer`s (storage writes) on those Tokens, 2.5% deploys of a
    small contract that writes a slot. At 40 tx/s that is ~0.95M gas a second, under the C-Chain's
    ACP-176 target (1M gas/s), as a devnet's traffic is: above it the base fee grows exponentially
    with the excess (an earlier mix of 5% Token deploys, ~3M gas/s, had it at ~30 nAVAX/gas after
    an hour, and the small atomic txs below could no longer pay). The max fee is twice the latest
    base fee plus the tip, read once a second, as wallets offer; each window prints the base fee;
  - every `--xp-every` seconds one of, in turn: an X-Chain transfer, a P-Chain transfer, an X→C
    export+import, a C→P export+import (the scenario runner's wallets: simnode/scenario/xp.py);
  - `--reads` reads a second (eth_getBalance, eth_getTransactionReceipt, eth_call);
  - the Data and Metrics APIs once a second;
  - a websocket subscription (newHeads + logs) opened every 10 s and kept for 30 s;
  - an eth_newFilter / eth_newBlockFilter every 5 s, never polled (left to expire).
Every window prints one line: elapsed minutes, txs acknowledged, RSS (anon/file split), the data
dir's size, send and read latency p50/p99 in ms, the base fee in wei, errors. At the end every acknowledged tx is looked
up (a C tx's receipt, an X/P/atomic tx's status); lost txs are listed and the exit status is 1 when
any tx was lost or any request failed (the errors are counted by kind). Loopback only; the run stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from pathlib import Path

import aiohttp
from eth_abi import encode
from eth_account import Account as EthAccount
from eth_utils import keccak, to_checksum_address

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simnode.scenario.accounts import derive_key  # noqa: E402
from simnode.scenario.replay import as_scenario  # noqa: E402
from simnode.scenario.runner import Runner  # noqa: E402
from simnode.scenario.schema import v_amount  # noqa: E402
from simnode.scenario.transport import HttpTransport  # noqa: E402

EWOQ = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
SENDERS = 8
C_CHAIN_ID = 43112
GWEI = 10**9
TRANSFER = keccak(b"transfer(address,uint256)")[:4]
BALANCE_OF = keccak(b"balanceOf(address)")[:4]
TOKEN = json.loads((ROOT / "tests" / "contracts" / "Token.json").read_text())
TOKEN_CODE = bytes.fromhex(TOKEN["bytecode"][2:]) + encode(["string", "string", "uint256"], ["Soak", "S", 10**30])
# CALLER PUSH1 0 SSTORE; PUSH1 1 PUSH1 0 RETURN: writes the deployer into slot 0, leaves a 1-byte code
SLOT_WRITER_CODE = bytes.fromhex("33600055" "60016000f3")


def log(*a: object) -> None:
    print(*a, file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kb(pid: int) -> dict[str, int]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return {ln.split(":")[0]: int(ln.split()[1]) for ln in lines if ln.startswith(("VmRSS:", "RssAnon:", "RssFile:"))}


def dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def pct(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(p / 100 * len(s)))]


class Stats:
    def __init__(self) -> None:
        self.send: list[float] = []
        self.read: list[float] = []
        self.errors: list[str] = []
        self.acked = 0

    def reset(self) -> None:
        self.send, self.read = [], []


class Soak:
    def __init__(self, url: str, session: aiohttp.ClientSession, stats: Stats) -> None:
        self.url, self.rpc_url, self.session, self.stats = url, url + "/ext/bc/C/rpc", session, stats
        self.c_hashes: list[str] = []
        self.xp_txs: list[tuple[str, str]] = []  # (chain, tx ID) acknowledged by issueTx
        self.tokens: list[str] = []
        self.keys = [EthAccount.from_key(derive_key(7, f"soak-{i}")) for i in range(SENDERS)]
        self.nonces = [0] * SENDERS
        self.max_fee = 300 * GWEI  # followed by `fees`: the C-Chain's base fee rises under a sustained load
        self.base_fee = 0
        self._id = 0
        self.tracemalloc = False

    async def rpc(self, method: str, params: list | dict, url: str | None = None) -> object:
        self._id += 1
        async with self.session.post(url or self.rpc_url, json={"jsonrpc": "2.0", "id": self._id, "method": method,
                                                                 "params": params}) as r:
            body = await r.json(content_type=None)
        if "error" in body:
            raise RuntimeError(f"{method}: {body['error']}")
        return body["result"]

    def sign(self, i: int, to: str | None, data: bytes, gas: int, value: int = 0) -> str:
        tx = {"chainId": C_CHAIN_ID, "nonce": self.nonces[i], "to": to, "value": value, "data": data, "gas": gas,
              "maxFeePerGas": self.max_fee, "maxPriorityFeePerGas": GWEI, "type": 2}
        if to is None:
            del tx["to"]
        self.nonces[i] += 1
        return "0x" + self.keys[i].sign_transaction(tx).raw_transaction.hex().removeprefix("0x")

    async def send_raw(self, raw: str, sender: int | None = None) -> None:
        t0 = time.perf_counter()
        try:
            h = await self.rpc("eth_sendRawTransaction", [raw])
        except Exception as exc:  # noqa: BLE001 - counted and shown
            self.stats.errors.append(f"send: {exc!r}")
            if sender is not None:  # no nonce gap behind a tx that did not go in: ask the node
                address = self.keys[sender].address
                self.nonces[sender] = int(await self.rpc("eth_getTransactionCount", [address, "pending"]), 16)  # type: ignore[arg-type]
            return
        self.stats.send.append((time.perf_counter() - t0) * 1000)
        self.c_hashes.append(h)  # type: ignore[arg-type]
        self.stats.acked += 1

    async def fund(self) -> None:
        ewoq = EthAccount.from_key(EWOQ)
        nonce = int(await self.rpc("eth_getTransactionCount", [ewoq.address, "latest"]), 16)  # type: ignore[arg-type]
        for i, k in enumerate(self.keys):
            tx = {"chainId": C_CHAIN_ID, "nonce": nonce + i, "to": k.address, "value": 10**24, "gas": 21000,
                  "maxFeePerGas": 300 * GWEI, "maxPriorityFeePerGas": GWEI, "type": 2}
            await self.send_raw("0x" + ewoq.sign_transaction(tx).raw_transaction.hex().removeprefix("0x"))
        for i in range(SENDERS):  # one token per sender to write storage in
            raw = self.sign(i, None, TOKEN_CODE, 1_500_000)
            await self.send_raw(raw)
            self.tokens.append(to_checksum_address(keccak(bytes([0xd6, 0x94]) + bytes.fromhex(self.keys[i].address[2:])
                                                          + bytes([0x80]))[12:]))
        await asyncio.sleep(1)

    async def c_load(self, tps: float, until: float) -> None:
        n = 0
        start = time.monotonic()
        pending: set[asyncio.Task] = set()
        while time.monotonic() < until:
            i = n % SENDERS
            kind = n % 40
            if kind == 0:
                raw = self.sign(i, None, SLOT_WRITER_CODE, 100_000)
            elif kind <= 4:
                dest = self.keys[(i + 1) % SENDERS].address
                raw = self.sign(i, self.tokens[i], TRANSFER + encode(["address", "uint256"], [dest, 1 + n]), 80_000)
            else:
                raw = self.sign(i, to_checksum_address(keccak(n.to_bytes(8, "big"))[12:]), b"", 21_000, value=1)
            task = asyncio.create_task(self.send_raw(raw, i))
            pending.add(task)
            task.add_done_callback(pending.discard)
            n += 1
            delay = start + n / tps - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
        await asyncio.gather(*pending)

    async def fees(self, until: float) -> None:
        """Offer twice the latest base fee plus the tip, as ethers and viem do, once a second."""
        while time.monotonic() < until:
            try:
                block = await self.rpc("eth_getBlockByNumber", ["latest", False])
                self.base_fee = int(block["baseFeePerGas"], 16)  # type: ignore[index]
                self.max_fee = max(300 * GWEI, 2 * self.base_fee + GWEI)
            except Exception as exc:  # noqa: BLE001 - counted and shown
                self.stats.errors.append(f"fees: {exc!r}")
            await asyncio.sleep(1)

    async def timed_read(self, method: str, params: list, url: str | None = None) -> None:
        t0 = time.perf_counter()
        try:
            await self.rpc(method, params, url)
        except Exception as exc:  # noqa: BLE001
            self.stats.errors.append(f"read {method}: {exc}")
            return
        self.stats.read.append((time.perf_counter() - t0) * 1000)

    async def timed_get(self, path: str) -> None:
        t0 = time.perf_counter()
        try:
            async with self.session.get(self.url + path) as r:
                await r.read()
                if r.status != 200:
                    self.stats.errors.append(f"GET {path}: {r.status}")
                    return
        except Exception as exc:  # noqa: BLE001
            self.stats.errors.append(f"GET {path}: {exc}")
            return
        self.stats.read.append((time.perf_counter() - t0) * 1000)

    async def reads(self, per_s: int, until: float) -> None:
        rng = random.Random(1)
        while time.monotonic() < until:
            for _ in range(per_s):
                r = rng.random()
                if r < 0.4 or not self.c_hashes:
                    await self.timed_read("eth_getBalance", [self.keys[rng.randrange(SENDERS)].address, "latest"])
                elif r < 0.7:
                    await self.timed_read("eth_getTransactionReceipt", [rng.choice(self.c_hashes)])
                else:
                    data = "0x" + (BALANCE_OF + encode(["address"], [self.keys[0].address])).hex()
                    await self.timed_read("eth_call", [{"to": rng.choice(self.tokens), "data": data}, "latest"])
            await asyncio.sleep(1)

    async def apis(self, until: float) -> None:
        paths = ["/v1/chains/43112/blocks?pageSize=10", "/v1/chains/43112/transactions?pageSize=10",
                 f"/v1/chains/43112/addresses/{self.keys[0].address}/transactions?pageSize=10",
                 "/v1/networks/fuji/blockchains/11111111111111111111111111111111LpoYY/transactions?pageSize=5",
                 "/v2/chains/43112/metrics/txCount?timeInterval=hour&pageSize=5",
                 "/v2/chains/43112/metrics/activeAddresses?timeInterval=day&pageSize=5"]
        n = 0
        while time.monotonic() < until:
            await self.timed_get(paths[n % len(paths)])
            n += 1
            await asyncio.sleep(1)

    async def websockets(self, until: float) -> None:
        async def one() -> None:
            try:
                async with self.session.ws_connect(self.url.replace("http", "ws") + "/ext/bc/C/ws") as ws:
                    await ws.send_json({"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe", "params": ["newHeads"]})
                    await ws.send_json({"jsonrpc": "2.0", "id": 2, "method": "eth_subscribe",
                                        "params": ["logs", {"topics": [None]}]})
                    end = time.monotonic() + 30
                    while time.monotonic() < min(end, until):
                        try:
                            msg = await ws.receive(timeout=1)
                        except asyncio.TimeoutError:
                            continue
                        if msg.type != aiohttp.WSMsgType.TEXT:
                            break
                        if "error" in msg.json():
                            self.stats.errors.append(f"ws: {msg.data[:200]}")
            except Exception as exc:  # noqa: BLE001
                self.stats.errors.append(f"ws: {exc}")

        tasks = []
        while time.monotonic() < until:
            tasks.append(asyncio.create_task(one()))
            await asyncio.sleep(10)
        await asyncio.gather(*tasks)

    async def filters(self, until: float) -> None:
        n = 0
        while time.monotonic() < until:
            if n % 2:
                await self.timed_read("eth_newBlockFilter", [])
            else:
                await self.timed_read("eth_newFilter", [{"fromBlock": "latest", "topics": [None]}])
            n += 1
            await asyncio.sleep(5)

    async def xp(self, runner: Runner, every: float, until: float) -> None:
        """X/P and atomic txs through the scenario runner's wallets (each waits for acceptance)."""
        xp = runner.xp
        ewoq = runner.accounts["ewoq"]
        ops = ["X", "P", "XC", "CP"]
        n = 0
        while time.monotonic() < until:
            op = ops[n % len(ops)]
            n += 1
            try:
                if op in ("X", "P"):
                    tx = await asyncio.to_thread(xp.transfer, op, ewoq, ewoq.bech32(op), 1000 + n)
                    self.xp_txs.append((op, tx))
                else:
                    src, dst = ("X", "C") if op == "XC" else ("C", "P")
                    got = await asyncio.to_thread(xp.export, {"from_chain": src, "to_chain": dst, "from": "ewoq",
                                                              "amount": v_amount("0.001 AVAX")})
                    self.xp_txs += [("C" if src == "C" else src, got["export"]), (dst, got["import"])]
                self.stats.acked += 1 if op in ("X", "P") else 2
            except Exception as exc:  # noqa: BLE001
                self.stats.errors.append(f"{op}: {exc}")
            await asyncio.sleep(every)

    async def lost(self) -> list[str]:
        missing = []
        for start in range(0, len(self.c_hashes), 500):  # JSON-RPC batches of 500 receipts
            hashes = self.c_hashes[start:start + 500]
            body = [{"jsonrpc": "2.0", "id": i, "method": "eth_getTransactionReceipt", "params": [h]}
                    for i, h in enumerate(hashes)]
            async with self.session.post(self.rpc_url, json=body) as r:
                answers = {a["id"]: a.get("result") for a in await r.json(content_type=None)}
            missing += [f"C {h}" for i, h in enumerate(hashes) if not (answers.get(i) or {}).get("blockNumber")]
        for chain, tx in self.xp_txs:
            endpoint, method, done = {"X": ("/ext/bc/X", "avm.getTxStatus", "Accepted"),
                                      "P": ("/ext/bc/P", "platform.getTxStatus", "Committed"),
                                      "C": ("/ext/bc/C/avax", "avax.getAtomicTxStatus", "Accepted")}[chain]
            res = await self.rpc(method, {"txID": tx}, self.url + endpoint)
            if res["status"] != done:  # type: ignore[index]
                missing.append(f"{chain} {tx} {res['status']}")  # type: ignore[index]
        return missing


async def python_heap(soak: Soak, data_dir: Path, n: int) -> int | None:
    """The node's traced Python heap (bytes) from admin.memoryProfile (a tracemalloc snapshot,
    kept as mem-N.profile beside the data dir's profiles); None unless run with --tracemalloc."""
    if not soak.tracemalloc:
        return None
    body = {"jsonrpc": "2.0", "id": 1, "method": "admin.memoryProfile", "params": {}}
    # a snapshot of every traced block takes minutes under load
    async with soak.session.post(soak.url + "/ext/admin", json=body, timeout=aiohttp.ClientTimeout(total=900)) as r:
        await r.read()
    src = data_dir / "profiles" / "mem.profile"
    dst = data_dir / "profiles" / f"mem-{n}.profile"
    src.replace(dst)
    snap = await asyncio.to_thread(tracemalloc.Snapshot.load, str(dst))
    return sum(t.size for t in snap.traces)


def heap_growth(data_dir: Path, first: int, last: int, top: int = 15) -> None:
    """The lines whose traced Python heap grew most between two windows' snapshots."""
    a = tracemalloc.Snapshot.load(str(data_dir / "profiles" / f"mem-{first}.profile"))
    b = tracemalloc.Snapshot.load(str(data_dir / "profiles" / f"mem-{last}.profile"))
    for stat in b.compare_to(a, "lineno")[:top]:
        log("heap growth:", stat)


async def monitor(soak: Soak, pid: int, data_dir: Path, stats: Stats, window: float, until: float,
                  t0: float) -> list[dict]:
    rows = []
    log("min   acked  rss_MB anon_MB file_MB  disk_MB  send_p50 send_p99 read_p50 read_p99  basefee_wei errors")
    while time.monotonic() < until:
        await asyncio.sleep(min(window, until - time.monotonic()))
        mem = rss_kb(pid)
        row = {"minute": round((time.monotonic() - t0) / 60, 2), "acked": stats.acked,
               "rss_mb": round(mem["VmRSS"] / 1024, 1), "anon_mb": round(mem["RssAnon"] / 1024, 1),
               "file_mb": round(mem["RssFile"] / 1024, 1), "disk_mb": round(dir_bytes(data_dir) / 2**20, 1),
               "send_p50": round(pct(stats.send, 50), 2), "send_p99": round(pct(stats.send, 99), 2),
               "read_p50": round(pct(stats.read, 50), 2), "read_p99": round(pct(stats.read, 99), 2),
               "base_fee_wei": soak.base_fee, "errors": len(stats.errors)}
        heap = await python_heap(soak, data_dir, len(rows))
        if heap is not None:
            row["py_heap_mb"] = round(heap / 2**20, 1)
        rows.append(row)
        print(json.dumps(row), flush=True)
        log(f"{row['minute']:5.1f} {row['acked']:7d} {row['rss_mb']:7.1f} {row['anon_mb']:7.1f} {row['file_mb']:7.1f}"
            f" {row['disk_mb']:8.1f} {row['send_p50']:8.2f} {row['send_p99']:8.2f} {row['read_p50']:8.2f}"
            f" {row['read_p99']:8.2f} {row['base_fee_wei']:12d} {row['errors']:6d}" + (f" py_heap {row['py_heap_mb']}" if heap is not None else ""))
        stats.reset()
    return rows


async def run(args: argparse.Namespace, url: str, pid: int, data_dir: Path) -> int:
    stats = Stats()
    conn = aiohttp.TCPConnector(limit=64)
    async with aiohttp.ClientSession(connector=conn, timeout=aiohttp.ClientTimeout(total=300)) as session:
        soak = Soak(url, session, stats)
        soak.tracemalloc = args.tracemalloc
        await soak.fund()
        runner = Runner(as_scenario([]), HttpTransport(url), network_id=12345, virtual=False)
        runner.target = True
        t0 = time.monotonic()
        until = t0 + args.minutes * 60
        tasks = [soak.fees(until), soak.c_load(args.tps, until), soak.reads(args.reads, until), soak.apis(until),
                 soak.websockets(until), soak.filters(until), soak.xp(runner, args.xp_every, until)]
        *_, rows = await asyncio.gather(*tasks, monitor(soak, pid, data_dir, stats, args.window, until, t0))
        await asyncio.sleep(2)
        missing = await soak.lost()
    if args.tracemalloc and len(rows) > 2:
        heap_growth(data_dir, 1, len(rows) - 1)
    blocks = len(soak.c_hashes)
    total = blocks + len(soak.xp_txs)
    by_kind = Counter(e.split(":", 1)[0] for e in stats.errors)
    final = {"acknowledged": total, "c_txs": blocks, "xp_txs": len(soak.xp_txs), "lost": len(missing),
             "errors": len(stats.errors), "errors_by_kind": dict(sorted(by_kind.items())),
             "base_fee_wei": soak.base_fee, "disk_mb": round(dir_bytes(data_dir) / 2**20, 1)}
    if rows:
        at = {int(r["minute"] + 0.5): r["rss_mb"] for r in rows}
        final["rss_mb_by_minute"] = at
    print(json.dumps({"summary": final}), flush=True)
    for line in missing[:20]:
        log("lost:", line)
    for kind in sorted(by_kind):  # the first 5 of each kind
        for line in [e for e in stats.errors if e.split(":", 1)[0] == kind][:5]:
            log("error:", line)
    return 1 if missing or stats.errors else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--tps", type=float, default=40)
    ap.add_argument("--reads", type=int, default=20, help="reads a second")
    ap.add_argument("--window", type=float, default=60, help="seconds per printed window")
    ap.add_argument("--xp-every", type=float, default=5, help="seconds between X/P/atomic operations")
    ap.add_argument("--tracemalloc", action="store_true",
                    help="trace the node's Python heap (PYTHONTRACEMALLOC; slower): its size per window, top growth")
    ap.add_argument("--data-dir", type=Path, help="kept after the run (default: a temporary directory, removed)")
    args = ap.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="simnode-soak-"))
    port = free_port()
    env = dict(os.environ, ETH_HASH_BACKEND="pysha3")
    flags = []
    if args.tracemalloc:
        env["PYTHONTRACEMALLOC"] = "1"
        flags.append("--api-admin-enabled")
    proc = subprocess.Popen([sys.executable, "-m", "simnode", "run", "--data-dir", str(data_dir), "--http-port",
                             str(port), "--log-level", "WARN", *flags], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        if "simnode ready" not in line:
            log("the node did not start:", line)
            return 2
        log(f"node pid {proc.pid} on 127.0.0.1:{port}, data dir {data_dir}, load {os.getloadavg()}")
        return asyncio.run(run(args, f"http://127.0.0.1:{port}", proc.pid, data_dir))
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        if args.data_dir is None:
            shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
