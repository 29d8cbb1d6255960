#!/usr/bin/env python3
"""C-Chain benchmark: works against any Ethereum JSON-RPC URL (simnode, Anvil, ...).

    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/bench_evm.py [URL] [--keys 0xK1,0xK2]
        [--spawn] [--pid PID] [--transfers 2000] [--erc20 1000] [--senders 50] [-c 50]
        [--read-seconds 5] [--rss-transfers 10000] [--interval-ms 1000] [--seq-txs 100]
        [--contract-steps 200] [--skip s,e,a,b,c,d] [--only s,e]

Phases (one JSON line with every figure on stdout; progress on stderr):
  s) sequential send -> receipt: one transfer at a time, each polled for its receipt (1 ms
     between polls, as bench_rpc.py) before the next is sent: the test-suite pattern;
  e) contract-heavy sequence: deploy tests/contracts/Token.json, then `--contract-steps` times
     eth_call(balanceOf), eth_estimateGas(transfer), eth_sendRawTransaction(transfer) and its
     receipt polled as in s): wall time and each step's p50. The transfers are signed before
     the clock starts (gas 80,000; each estimate is checked to fit), so the figure is the
     node's time plus the client's requests, not the client's signing;
  a) signed EIP-1559 transfers: tx/s until all mined, with automine and with interval mining
     (interval mining is switched on with evm_setIntervalMining when the node has it; in
     seconds for Anvil, in milliseconds for simnode and Hardhat);
  b) ERC-20 `transfer` throughput (tests/contracts/Token.json);
  c) eth_blockNumber / eth_getBalance req/s with C concurrent keep-alive clients;
  d) RSS of the node (--pid, or the node --spawn started) after N more transfers.
s and e run first, on a chain with nothing else in flight.
With --spawn the script starts `python -m simnode run --ephemeral` on a free port and uses its
C-Chain URL. Without keys it uses the ewoq key (prefunded on simnode's local network).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import statistics
import time
from pathlib import Path

import aiohttp
from eth_account import Account
from eth_utils import keccak, to_checksum_address
from rlp import encode as rlp_encode

EWOQ = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
DEAD = "0x000000000000000000000000000000000000dEaD"
ROOT = Path(__file__).resolve().parents[1]


def log(*a: object) -> None:
    print(*a, file=sys.stderr, flush=True)


class RPC:
    def __init__(self, url: str, session: aiohttp.ClientSession) -> None:
        self.url, self.session, self._id = url, session, 0

    async def __call__(self, method: str, *params: object) -> object:
        self._id += 1
        async with self.session.post(self.url, json={"jsonrpc": "2.0", "id": self._id, "method": method,
                                                     "params": list(params)}) as r:
            body = await r.json(content_type=None)
        if "error" in body:
            raise RuntimeError(f"{method}: {body['error']}")
        return body["result"]


def rss_parts_kb(pid: int | None) -> dict[str, int]:
    """VmRSS and its split: RssAnon (the process's own heap) and RssFile (file pages it has
    mapped; for simnode that is LevelDB's memory-mapped table files, i.e. the OS page cache)."""
    if not pid:
        return {}
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return {line.split(":")[0]: int(line.split()[1]) for line in lines
            if line.startswith(("VmRSS:", "RssAnon:", "RssFile:"))}


def rss_kb(pid: int | None) -> int | None:
    return rss_parts_kb(pid).get("VmRSS")


async def fees(rpc: RPC) -> tuple[int, int]:
    blk = await rpc("eth_getBlockByNumber", "latest", False)
    base = int(blk.get("baseFeePerGas", "0x0"), 16)
    try:
        base = max(base, int(await rpc("eth_baseFee"), 16))
    except RuntimeError:
        pass
    tip = 1
    # Headroom for long runs: sustained load raises an ACP-176/EIP-1559 base fee well above its
    # resting value, and a tx signed with a tight cap would then be refused mid-run.
    return max(2 * base + 10**9, 100 * 10**9) + tip, tip


async def wait_mined(rpc: RPC, start_block: int, count: int, timeout: float = 600) -> tuple[int, int]:
    """Walk new blocks until `count` txs are included; returns (txs seen, blocks used)."""
    seen, blocks, n = 0, 0, start_block + 1
    deadline = time.monotonic() + timeout
    while seen < count and time.monotonic() < deadline:
        head = int(await rpc("eth_blockNumber"), 16)
        while n <= head:
            cnt = int(await rpc("eth_getBlockTransactionCountByNumber", hex(n)), 16)
            seen += cnt
            blocks += 1 if cnt else 0
            n += 1
        if seen < count:
            await asyncio.sleep(0.02)
    return seen, blocks


async def fund_senders(rpc: RPC, chain_id: int, funder: Account, n: int, amount: int) -> list:
    accts = [Account.from_key((0xBE4C0000 + i).to_bytes(32, "big")) for i in range(n)]
    nonce = int(await rpc("eth_getTransactionCount", funder.address, "pending"), 16)
    max_fee, tip = await fees(rpc)
    start = int(await rpc("eth_blockNumber"), 16)
    for i, a in enumerate(accts):
        tx = {"chainId": chain_id, "nonce": nonce + i, "to": a.address, "value": amount, "gas": 21000,
              "maxFeePerGas": max_fee, "maxPriorityFeePerGas": tip}
        await rpc("eth_sendRawTransaction", funder.sign_transaction(tx).raw_transaction.to_0x_hex())
    await wait_mined(rpc, start, n)
    return accts


async def run_txs(rpc: RPC, raws_by_sender: list[list[str]], concurrency: int) -> dict:
    """Submit per sender in nonce order (one in flight per sender); time until all are mined."""
    total = sum(map(len, raws_by_sender))
    start_block = int(await rpc("eth_blockNumber"), 16)
    t0 = time.monotonic()
    sem = asyncio.Semaphore(concurrency)

    async def worker(raws: list[str]) -> None:
        for raw in raws:
            async with sem:
                await rpc("eth_sendRawTransaction", raw)

    await asyncio.gather(*(worker(r) for r in raws_by_sender))
    t_submit = time.monotonic() - t0
    seen, blocks = await wait_mined(rpc, start_block, total)
    elapsed = time.monotonic() - t0
    return {"txs": total, "mined": seen, "submit_tx_s": round(total / t_submit, 1),
            "mined_tx_s": round(seen / elapsed, 1), "seconds": round(elapsed, 2), "blocks": blocks,
            "tx_per_block": round(seen / blocks, 1) if blocks else 0}


async def sign_transfers(rpc: RPC, chain_id: int, senders: list, n: int, to: str | None = None,
                         data: bytes = b"", gas: int = 21000) -> list[list[str]]:
    max_fee, tip = await fees(rpc)
    per = [[] for _ in senders]
    nonces = [int(await rpc("eth_getTransactionCount", a.address, "pending"), 16) for a in senders]
    for i in range(n):
        k = i % len(senders)
        a = senders[k]
        tx = {"chainId": chain_id, "nonce": nonces[k], "to": to or a.address, "value": 0 if data else 1,
              "gas": gas, "maxFeePerGas": max_fee, "maxPriorityFeePerGas": tip, "data": data}
        nonces[k] += 1
        per[k].append(a.sign_transaction(tx).raw_transaction.to_0x_hex())
    return per


async def reads(url: str, method: str, params: list, seconds: float, concurrency: int) -> dict:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    count, errors = 0, 0
    lat: list[float] = []
    stop = time.monotonic() + seconds
    conn = aiohttp.TCPConnector(limit=concurrency, force_close=False)
    async with aiohttp.ClientSession(connector=conn) as s:
        async def worker() -> None:
            nonlocal count, errors
            while time.monotonic() < stop:
                t = time.perf_counter()
                async with s.post(url, data=body, headers={"Content-Type": "application/json"}) as r:
                    out = await r.read()
                lat.append(time.perf_counter() - t)
                if r.status != 200 or b'"error"' in out:
                    errors += 1
                count += 1
        t0 = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        el = time.monotonic() - t0
    lat.sort()
    return {"req_s": round(count / el), "p50_ms": round(lat[len(lat) // 2] * 1000, 2),
            "p99_ms": round(lat[int(len(lat) * 0.99)] * 1000, 2), "errors": errors}


def spawn() -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, ETH_HASH_BACKEND="pysha3")
    proc = subprocess.Popen([sys.executable, "-m", "simnode", "run", "--ephemeral", "--http-port", str(port),
                             "--log-level", "WARN"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    return proc, f"http://127.0.0.1:{port}/ext/bc/C/rpc"


async def wait_up(url: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as s:
        rpc = RPC(url, s)
        while time.monotonic() < deadline:
            try:
                await rpc("eth_blockNumber")
                return
            except Exception:  # noqa: BLE001
                await asyncio.sleep(0.1)
    raise SystemExit(f"node at {url} did not answer")


async def wait_receipt(rpc: RPC, tx_hash: str, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        rc = await rpc("eth_getTransactionReceipt", tx_hash)
        if rc is not None:
            return rc
        if time.monotonic() > deadline:
            raise RuntimeError(f"no receipt for {tx_hash} within {timeout} s")
        await asyncio.sleep(0.001)


def ms_stats(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {"n": len(ordered), "ms_p50": round(statistics.median(ordered) * 1000, 3),
            "ms_p99": round(ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))] * 1000, 3)}


async def sequential(rpc: RPC, chain_id: int, sender: Account, n: int) -> dict:
    """Phase s: send one transfer, poll its receipt, repeat."""
    max_fee, tip = await fees(rpc)
    nonce = int(await rpc("eth_getTransactionCount", sender.address, "pending"), 16)
    raws = []
    for i in range(n):
        signed = sender.sign_transaction({"chainId": chain_id, "nonce": nonce + i, "to": DEAD, "value": 1,
                                          "gas": 21000, "maxFeePerGas": max_fee, "maxPriorityFeePerGas": tip})
        raws.append((signed.raw_transaction.to_0x_hex(), signed.hash.to_0x_hex()))
    lat = []
    for raw, h in raws:
        t = time.perf_counter()
        await rpc("eth_sendRawTransaction", raw)
        await wait_receipt(rpc, h)
        lat.append(time.perf_counter() - t)
    return {**ms_stats(lat), "tx_s": round(n / sum(lat), 1)}


async def contract_heavy(rpc: RPC, chain_id: int, sender: Account, steps: int) -> dict:
    """Phase e: deploy Token, then `steps` x (eth_call, eth_estimateGas, send, receipt)."""
    from eth_abi import encode
    art = json.loads((ROOT / "tests" / "contracts" / "Token.json").read_text())
    max_fee, tip = await fees(rpc)
    nonce = int(await rpc("eth_getTransactionCount", sender.address, "pending"), 16)
    ctor = bytes.fromhex(art["bytecode"][2:]) + encode(["string", "string", "uint256"], ["Bench", "B", 10**30])
    deploy = sender.sign_transaction({"chainId": chain_id, "nonce": nonce, "data": ctor, "gas": 3_000_000,
                                      "value": 0, "maxFeePerGas": max_fee, "maxPriorityFeePerGas": tip})
    token = to_checksum_address(keccak(rlp_encode([bytes.fromhex(sender.address[2:]), nonce]))[12:])
    txs = []
    for i in range(steps):
        to = to_checksum_address((0xB0B0000 + i).to_bytes(20, "big"))
        data = "0xa9059cbb" + encode(["address", "uint256"], [to, 1000 + i]).hex()
        signed = sender.sign_transaction({"chainId": chain_id, "nonce": nonce + 1 + i, "to": token, "data": data,
                                          "gas": 80_000, "value": 0, "maxFeePerGas": max_fee,
                                          "maxPriorityFeePerGas": tip})
        txs.append((to, data, signed.raw_transaction.to_0x_hex(), signed.hash.to_0x_hex()))
    call_s, estimate_s, send_s, receipt_s = [], [], [], []
    t0 = time.perf_counter()
    await rpc("eth_sendRawTransaction", deploy.raw_transaction.to_0x_hex())
    rc = await wait_receipt(rpc, deploy.hash.to_0x_hex())
    if rc["status"] != "0x1" or rc["contractAddress"].lower() != token.lower():
        raise RuntimeError(f"deploy failed: {rc}")
    deploy_s = time.perf_counter() - t0
    for to, data, raw, h in txs:
        t = time.perf_counter()
        await rpc("eth_call", {"to": token, "data": "0x70a08231" + encode(["address"], [to]).hex()}, "latest")
        t1 = time.perf_counter()
        gas = int(await rpc("eth_estimateGas", {"from": sender.address, "to": token, "data": data}), 16)
        t2 = time.perf_counter()
        if gas > 80_000:
            raise RuntimeError(f"estimate {gas} exceeds the signed gas")
        await rpc("eth_sendRawTransaction", raw)
        t3 = time.perf_counter()
        rc = await wait_receipt(rpc, h)
        t4 = time.perf_counter()
        if rc["status"] != "0x1":
            raise RuntimeError(f"transfer failed: {rc}")
        call_s.append(t1 - t), estimate_s.append(t2 - t1), send_s.append(t3 - t2), receipt_s.append(t4 - t3)
    wall = time.perf_counter() - t0
    return {"steps": steps, "wall_s": round(wall, 3), "deploy_ms": round(deploy_s * 1000, 2),
            "eth_call": ms_stats(call_s), "eth_estimateGas": ms_stats(estimate_s),
            "eth_sendRawTransaction": ms_stats(send_s), "receipt_wait": ms_stats(receipt_s)}


async def main_async(args: argparse.Namespace, url: str, pid: int | None) -> dict:
    skip = set(filter(None, args.skip.split(",")))
    if args.only:
        skip = set("seabcd") - set(args.only.split(","))
    out: dict = {"url": url, "label": args.label}
    keys = [k for k in args.keys.split(",") if k] if args.keys else [EWOQ]
    funder = Account.from_key(keys[0])
    conn = aiohttp.TCPConnector(limit=args.concurrency + 10)
    async with aiohttp.ClientSession(connector=conn) as s:
        rpc = RPC(url, s)
        chain_id = int(await rpc("eth_chainId"), 16)
        out["rss_start_kb"] = rss_kb(pid)
        if "s" not in skip:
            log(f"s) {args.seq_txs} sequential send -> receipt")
            out["sequential"] = await sequential(rpc, chain_id, funder, args.seq_txs)
            log(out["sequential"])
        if "e" not in skip:
            log(f"e) contract-heavy: deploy + {args.contract_steps} x (call, estimateGas, send, receipt)")
            out["contract_heavy"] = await contract_heavy(rpc, chain_id, funder, args.contract_steps)
            log(out["contract_heavy"])
        if skip >= set("abcd"):
            out["rss_end_kb"] = rss_kb(pid)
            return out
        senders = await fund_senders(rpc, chain_id, funder, args.senders, 10**20)
        if "a" not in skip:
            log(f"a) {args.transfers} transfers, automine")
            out["transfers_automine"] = await run_txs(
                rpc, await sign_transfers(rpc, chain_id, senders, args.transfers), args.concurrency)
            log(out["transfers_automine"])
            try:
                # Hardhat and simnode take milliseconds here, Anvil takes seconds.
                client = str(await rpc("web3_clientVersion")).lower()
                unit_ms = 1000 if client.startswith("anvil") else 1
                await rpc("evm_setIntervalMining", max(1, args.interval_ms // unit_ms))
                log(f"a) {args.transfers} transfers, interval {args.interval_ms} ms")
                out["transfers_interval"] = await run_txs(
                    rpc, await sign_transfers(rpc, chain_id, senders, args.transfers), args.concurrency)
                out["transfers_interval"]["interval_ms"] = args.interval_ms
                log(out["transfers_interval"])
            except RuntimeError as exc:
                out["transfers_interval"] = {"skipped": str(exc)}
            finally:
                try:
                    await rpc("evm_setAutomine", True)
                except RuntimeError:
                    pass
        if "b" not in skip:
            art = json.loads((ROOT / "tests" / "contracts" / "Token.json").read_text())
            max_fee, tip = await fees(rpc)
            nonce = int(await rpc("eth_getTransactionCount", funder.address, "pending"), 16)
            from eth_abi import encode
            ctor = bytes.fromhex(art["bytecode"][2:]) + encode(["string", "string", "uint256"], ["B", "B", 10**30])
            tx = {"chainId": chain_id, "nonce": nonce, "data": ctor, "gas": 3_000_000, "value": 0,
                  "maxFeePerGas": max_fee, "maxPriorityFeePerGas": tip}
            h = await rpc("eth_sendRawTransaction", funder.sign_transaction(tx).raw_transaction.to_0x_hex())
            rc = None
            while rc is None:
                rc = await rpc("eth_getTransactionReceipt", h)
                await asyncio.sleep(0.01)
            token = to_checksum_address(rc["contractAddress"])
            # give every sender tokens, then each sends transfers
            calls = []
            for i, a in enumerate(senders):
                data = bytes.fromhex("a9059cbb") + encode(["address", "uint256"], [a.address, 10**24])
                calls.append(funder.sign_transaction({
                    "chainId": chain_id, "nonce": nonce + 1 + i, "to": token, "data": data, "gas": 80_000, "value": 0,
                    "maxFeePerGas": max_fee, "maxPriorityFeePerGas": tip}).raw_transaction.to_0x_hex())
            await run_txs(rpc, [calls], 1)
            data = bytes.fromhex("a9059cbb") + encode(["address", "uint256"], [funder.address, 1])
            log(f"b) {args.erc20} ERC-20 transfers")
            out["erc20"] = await run_txs(rpc, await sign_transfers(rpc, chain_id, senders, args.erc20, token, data,
                                                                   80_000), args.concurrency)
            log(out["erc20"])
    if "c" not in skip:
        for method, params in (("eth_blockNumber", []), ("eth_getBalance", [funder.address, "latest"])):
            log(f"c) {method} x {args.read_seconds}s, {args.concurrency} clients")
            out[method] = await reads(url, method, params, args.read_seconds, args.concurrency)
            log(out[method])
    if "d" not in skip and args.rss_transfers:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=args.concurrency + 10)) as s:
            rpc = RPC(url, s)
            chain_id = int(await rpc("eth_chainId"), 16)
            senders = [Account.from_key((0xBE4C0000 + i).to_bytes(32, "big")) for i in range(args.senders)]
            done = 0
            t0 = time.monotonic()
            series = []
            while done < args.rss_transfers:
                n = min(5000, args.rss_transfers - done)
                await run_txs(rpc, await sign_transfers(rpc, chain_id, senders, n), args.concurrency)
                done += n
                parts = rss_parts_kb(pid)
                series.append({"transfers": done, **parts})
                log(f"d) {done} transfers, rss {parts} kB")
            out["rss_after"] = {"transfers": done, "rss_kb": rss_kb(pid), "seconds": round(time.monotonic() - t0, 1),
                                "series_kb": series}
    out["rss_end_kb"] = rss_kb(pid)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("url", nargs="?", default=None)
    ap.add_argument("--keys", default="", help="comma-separated prefunded private keys (first one funds senders)")
    ap.add_argument("--spawn", action="store_true", help="start a simnode (ephemeral) and bench it")
    ap.add_argument("--pid", type=int, default=None, help="node PID for RSS figures")
    ap.add_argument("--transfers", type=int, default=2000)
    ap.add_argument("--erc20", type=int, default=1000)
    ap.add_argument("--senders", type=int, default=50)
    ap.add_argument("-c", "--concurrency", type=int, default=50)
    ap.add_argument("--read-seconds", type=float, default=5)
    ap.add_argument("--rss-transfers", type=int, default=10000, help="N for phase d (100000 for the full run)")
    ap.add_argument("--interval-ms", type=int, default=1000)
    ap.add_argument("--seq-txs", type=int, default=100, help="transfers in phase s")
    ap.add_argument("--contract-steps", type=int, default=200, help="call/estimate/send/receipt rounds in phase e")
    ap.add_argument("--skip", default="", help="phases to skip, e.g. c,d")
    ap.add_argument("--only", default="", help="run only these phases, e.g. s,e")
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    proc = None
    url, pid = args.url, args.pid
    if args.spawn:
        proc, url = spawn()
        pid = proc.pid
    if not url:
        ap.error("give a URL or --spawn")
    try:
        asyncio.run(wait_up(url))
        print(json.dumps(asyncio.run(main_async(args, url, pid))))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
