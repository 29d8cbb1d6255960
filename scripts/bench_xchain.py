"""X-Chain benchmark: BaseTx throughput (issued and accepted, over HTTP and in-process) and
avm.getUTXOs latency for an address holding 10,000 UTXOs.

    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/bench_xchain.py [--txs 2000] [--utxos 10000]

Prints figures; asserts nothing about timings.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp  # noqa: E402

from simnode.clock import VirtualClock  # noqa: E402
from simnode.codec import UTXO, TransferableOutput, TransferOutput  # noqa: E402
from simnode.config import NodeConfig  # noqa: E402
from simnode.crypto.secp256k1 import public_key, short_address  # noqa: E402
from simnode.formats.address import format_address  # noqa: E402
from simnode.formats.hexenc import encode_bytes  # noqa: E402
from simnode.formats.ids import id_to_str, private_key_from_str  # noqa: E402
from simnode.genesis import load_network_genesis  # noqa: E402
from simnode.node import Node  # noqa: E402
from simnode.store import Store  # noqa: E402
from simnode.vms.avm.wallet import XContext, XWallet, owner  # noqa: E402
from simnode.vms.avm.txs import Tx  # noqa: E402
from simnode.vms.avm.vm import XChainVM  # noqa: E402
from simnode.vms.chain_context import ChainContext  # noqa: E402

FEE = 1_000_000
EWOQ_KEY = private_key_from_str("PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN")
EWOQ = short_address(public_key(EWOQ_KEY))
G = load_network_genesis(12345)
MAX_OUTS_PER_TX = 750  # keeps a fan-out tx under the 64 KiB tx limit


X_CONTEXT = XContext(G.network_id, G.x_chain_id, G.avax_asset_id, FEE, FEE)


def fan_out(src: UTXO, key: bytes, to: bytes, amounts: list[int]) -> tuple[Tx, list[UTXO], UTXO]:
    """One tx paying `amounts` to `to` out of `src`, change back to the key; returns (tx, new UTXOs, change)."""
    outs = [TransferableOutput(src.asset_id, TransferOutput(a, owner(to))) for a in amounts]
    wallet = XWallet(X_CONTEXT, (key,), (src,))
    tx = wallet.base_tx(outs)
    change_amount = src.out.amount - sum(amounts) - FEE
    made, change = [], None
    for i, o in enumerate(tx.unsigned.base.outs):
        u = UTXO(tx.id, i, o.asset_id, o.out)
        if o.out.amount == change_amount and o.out.owners.addresses == (wallet.address,) and change is None:
            change = u
        else:
            made.append(u)
    assert change is not None
    return tx, made, change


def spend_all(utxos: list[UTXO], key: bytes, to: bytes) -> list[Tx]:
    return [XWallet(X_CONTEXT, (key,), (u,)).base_tx([TransferableOutput(u.asset_id, TransferOutput(
        u.out.amount - FEE, owner(to)))]) for u in utxos]


def genesis_utxo() -> UTXO:
    return next(u for u in G.x_utxos if u.out.owners.addresses == (EWOQ,))


def bench_in_process(n: int) -> None:
    ctx = ChainContext(NodeConfig(), G, Store.memory(), VirtualClock(1_796_083_200_000), G.x_chain_id)
    vm = XChainVM(ctx)
    src = genesis_utxo()
    utxos: list[UTXO] = []
    while len(utxos) < n:
        k = min(MAX_OUTS_PER_TX, n - len(utxos))
        tx, made, src = fan_out(src, EWOQ_KEY, EWOQ, [10**9 + i for i in range(k)])
        vm.issue_tx(tx.bytes)
        vm.build_pending()
        utxos.extend(made)
    txs = spend_all(utxos, EWOQ_KEY, EWOQ)
    t0 = time.perf_counter()
    for tx in txs:
        vm.issue_tx(tx.bytes)
    t1 = time.perf_counter()
    blocks = vm.build_pending()
    t2 = time.perf_counter()
    print(f"in-process: {n} BaseTxs  issue+verify {n / (t1 - t0):,.0f} tx/s  "
          f"build+accept {n / (t2 - t1):,.0f} tx/s  ({len(blocks)} blocks)  "
          f"end to end {n / (t2 - t0):,.0f} tx/s")


async def rpc(session: aiohttp.ClientSession, url: str, method: str, params: dict) -> dict:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    async with session.post(url, data=body, headers={"Content-Type": "application/json"}) as resp:
        reply = json.loads(await resp.read())
    if "error" in reply:
        raise RuntimeError(reply["error"]["message"])
    return reply["result"]


async def wait_accepted(session, url: str, tx_id: str) -> None:
    while (await rpc(session, url, "avm.getTxStatus", {"txID": tx_id}))["status"] != "Accepted":
        await asyncio.sleep(0.002)


async def bench_http(base: str, n: int, n_utxos: int, concurrency: int) -> None:
    url = base + "/ext/bc/X"
    conn = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=conn) as session:
        # --- setup: n spendable UTXOs for ewoq, n_utxos small UTXOs for a target address
        src = genesis_utxo()
        spendable: list[UTXO] = []
        target = short_address(public_key(hashlib.sha256(b"bench-target").digest()))
        t_setup = time.perf_counter()
        while len(spendable) < n:
            k = min(MAX_OUTS_PER_TX, n - len(spendable))
            tx, made, src = fan_out(src, EWOQ_KEY, EWOQ, [10**9 + i for i in range(k)])
            await rpc(session, url, "avm.issueTx", {"tx": encode_bytes(tx.bytes, "hex")})
            await wait_accepted(session, url, id_to_str(tx.id))
            spendable.extend(made)
        made_target = 0
        while made_target < n_utxos:
            k = min(MAX_OUTS_PER_TX, n_utxos - made_target)
            tx, _, src = fan_out(src, EWOQ_KEY, target, [1000 + i for i in range(k)])
            await rpc(session, url, "avm.issueTx", {"tx": encode_bytes(tx.bytes, "hex")})
            await wait_accepted(session, url, id_to_str(tx.id))
            made_target += k
        print(f"setup: {n} spendable + {n_utxos} target UTXOs in {time.perf_counter() - t_setup:.2f} s")

        # --- BaseTx throughput over HTTP
        txs = spend_all(spendable, EWOQ_KEY, EWOQ)
        payloads = [encode_bytes(t.bytes, "hex") for t in txs]
        h0 = int((await rpc(session, url, "avm.getHeight", {}))["height"])
        sem = asyncio.Semaphore(concurrency)

        async def one(p: str) -> None:
            async with sem:
                await rpc(session, url, "avm.issueTx", {"tx": p})

        t0 = time.perf_counter()
        await asyncio.gather(*(one(p) for p in payloads))
        t1 = time.perf_counter()
        for t in txs[-1:]:
            await wait_accepted(session, url, id_to_str(t.id))
        # make sure every tx landed
        statuses = await asyncio.gather(*(rpc(session, url, "avm.getTxStatus", {"txID": id_to_str(t.id)})
                                          for t in txs[:: max(1, n // 50)]))
        t2 = time.perf_counter()
        assert all(s["status"] == "Accepted" for s in statuses)
        h1 = int((await rpc(session, url, "avm.getHeight", {}))["height"])
        print(f"HTTP avm.issueTx ({concurrency} concurrent): {n} BaseTxs issued at {n / (t1 - t0):,.0f} tx/s; "
              f"all accepted after {t2 - t0:.2f} s = {n / (t2 - t0):,.0f} tx/s; {h1 - h0} blocks")

        # --- getUTXOs latency for the address with n_utxos UTXOs
        addr = format_address("X", "local", target)
        lat = []
        start = None
        pages = fetched = 0
        tp = time.perf_counter()
        while True:
            params: dict = {"addresses": [addr], "limit": 1024}
            if start:
                params["startIndex"] = start
            a = time.perf_counter()
            r = await rpc(session, url, "avm.getUTXOs", params)
            lat.append(time.perf_counter() - a)
            if r["numFetched"] == "0":
                break
            pages += 1
            fetched += int(r["numFetched"])
            start = r["endIndex"]
        total = time.perf_counter() - tp
        first = []
        for _ in range(20):
            a = time.perf_counter()
            await rpc(session, url, "avm.getUTXOs", {"addresses": [addr], "limit": 1024})
            first.append(time.perf_counter() - a)
        small = []
        for _ in range(50):
            a = time.perf_counter()
            await rpc(session, url, "avm.getUTXOs", {"addresses": [addr], "limit": 10, "startIndex": start})
            small.append(time.perf_counter() - a)
        print(f"avm.getUTXOs, address with {n_utxos} UTXOs: 1024-UTXO page median {statistics.median(first) * 1e3:.1f} ms; "
              f"paging all {fetched} in {pages} pages {total * 1e3:.0f} ms "
              f"(median page {statistics.median(lat[:-1]) * 1e3:.1f} ms); "
              f"10-UTXO page at the end median {statistics.median(small) * 1e3:.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--txs", type=int, default=2000)
    ap.add_argument("--utxos", type=int, default=10_000)
    ap.add_argument("--concurrency", type=int, default=32)
    args = ap.parse_args()
    bench_in_process(args.txs)
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="WARN")) as node:
        asyncio.run(bench_http(node.url, args.txs, args.utxos, args.concurrency))


if __name__ == "__main__":
    main()
