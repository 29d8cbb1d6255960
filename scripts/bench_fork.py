#!/usr/bin/env python3
"""Fork benchmark: what a cold fork asks its upstream for, and a warm fork's speed.

    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/bench_fork.py [--senders 20] [--transfers 400] [--rounds 3]

Starts two `simnode run` processes: an upstream (a node that is not forked) holding an ERC-20
(tests/contracts/Token.json) with token and AVAX balances for `--senders` accounts, and a fork of
it (`--fork-url`) behind a counting proxy, so every request the fork makes to its upstream is
counted. Then, as one JSON line on stdout (progress on stderr):

* cold: the first and the second ERC-20 transfer on the cold fork, each as a wallet does it
  (eth_getTransactionCount, eth_sendRawTransaction, the receipt polled): wall time and the
  upstream requests it caused (target: the second causes none);
* warm: ERC-20 transfers among the senders (every account and slot already fetched once),
  `--transfers` per round, on the fork and on the upstream (not forked, same state), in turns,
  `--rounds` times: sequential (send, then poll the receipt, then the next) and pipelined (all
  sent, then the last receipt awaited) transfers per second, medians over the rounds, and the
  fork's as a ratio to the upstream's (target >= 0.8); the upstream requests the warm fork made
  (expected: none).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from eth_abi import encode as abi_encode
from eth_account import Account
from eth_utils import keccak, to_checksum_address
from rlp import encode as rlp_encode

ROOT = Path(__file__).resolve().parents[1]
EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
CHAIN_ID = 43112
GWEI = 10**9


def log(*parts: object) -> None:
    print(*parts, file=sys.stderr, flush=True)


class RPC:
    """A keep-alive JSON-RPC client (one connection)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.path = parts.path or "/"
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        self._id = 0

    def __call__(self, method: str, *params: object) -> object:
        self._id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self._id, "method": method, "params": list(params)})
        self.conn.request("POST", self.path, body, {"Content-Type": "application/json"})
        reply = json.loads(self.conn.getresponse().read())
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def receipt(self, tx_hash: str) -> dict:
        deadline = time.monotonic() + 60
        while True:
            rc = self("eth_getTransactionReceipt", tx_hash)
            if rc is not None:
                return rc  # type: ignore[return-value]
            if time.monotonic() > deadline:
                raise RuntimeError(f"no receipt for {tx_hash}")
            time.sleep(0.001)


class CountingProxy:
    """Forwards every request to `target` and counts them."""

    def __init__(self, target: str) -> None:
        self.count = 0
        proxy = self
        host = urlsplit(target)
        local = threading.local()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                proxy.count += 1
                conn = getattr(local, "conn", None)
                if conn is None:
                    conn = local.conn = http.client.HTTPConnection(host.hostname, host.port, timeout=60)
                conn.request("POST", self.path, body, {"Content-Type": "application/json"})
                resp = conn.getresponse()
                data = resp.read()
                self.send_response(resp.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def spawn(*flags: str) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, ETH_HASH_BACKEND="pysha3")
    proc = subprocess.Popen([sys.executable, "-m", "simnode", "run", "--ephemeral", "--http-port", str(port),
                             "--log-level", "WARN", *flags], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()  # the ready line: every chain bootstrapped
    if not line.startswith("simnode ready"):
        proc.kill()
        raise SystemExit(f"simnode {' '.join(flags)} did not start")
    return proc, f"http://127.0.0.1:{port}"


def sign(key: Account, nonce: int, to: str, data: str = "0x", value: int = 0, gas: int = 80_000) -> tuple[str, str]:
    tx = key.sign_transaction({"chainId": CHAIN_ID, "nonce": nonce, "to": to, "data": data, "value": value,
                               "gas": gas, "maxFeePerGas": 500 * GWEI, "maxPriorityFeePerGas": GWEI})
    return tx.raw_transaction.to_0x_hex(), tx.hash.to_0x_hex()


def transfer_data(to: str, amount: int) -> str:
    return "0xa9059cbb" + abi_encode(["address", "uint256"], [to, amount]).hex()


def set_up_upstream(rpc: RPC, senders: list[Account]) -> str:
    """Deploy the token from ewoq and give every sender AVAX and tokens."""
    art = json.loads((ROOT / "tests" / "contracts" / "Token.json").read_text())
    nonce = int(rpc("eth_getTransactionCount", EWOQ.address, "pending"), 16)  # type: ignore[arg-type]
    ctor = art["bytecode"] + abi_encode(["string", "string", "uint256"], ["Bench", "BNCH", 10**30]).hex()
    tx = EWOQ.sign_transaction({"chainId": CHAIN_ID, "nonce": nonce, "data": ctor, "gas": 3_000_000, "value": 0,
                                "maxFeePerGas": 500 * GWEI, "maxPriorityFeePerGas": GWEI})
    rpc("eth_sendRawTransaction", tx.raw_transaction.to_0x_hex())
    assert rpc.receipt(tx.hash.to_0x_hex())["status"] == "0x1"
    token = to_checksum_address(keccak(rlp_encode([bytes.fromhex(EWOQ.address[2:]), nonce]))[12:])
    last = ""
    for i, s in enumerate(senders):
        raw, last = sign(EWOQ, nonce + 1 + 2 * i, s.address, value=10**20, gas=21000)
        rpc("eth_sendRawTransaction", raw)
        raw, last = sign(EWOQ, nonce + 2 + 2 * i, token, transfer_data(s.address, 10**24))
        rpc("eth_sendRawTransaction", raw)
    assert rpc.receipt(last)["status"] == "0x1"
    return token


def wallet_transfer(rpc: RPC, key: Account, token: str, to: str) -> None:
    """What a wallet does for one transfer: the nonce, the signed tx, the receipt."""
    nonce = int(rpc("eth_getTransactionCount", key.address, "pending"), 16)  # type: ignore[arg-type]
    raw, h = sign(key, nonce, token, transfer_data(to, 1))
    rpc("eth_sendRawTransaction", raw)
    assert rpc.receipt(h)["status"] == "0x1"


def signed_round(rpc: RPC, senders: list[Account], token: str, n: int) -> list[tuple[str, str]]:
    nonces = [int(rpc("eth_getTransactionCount", s.address, "pending"), 16) for s in senders]  # type: ignore[arg-type]
    out = []
    for i in range(n):
        k = i % len(senders)
        out.append(sign(senders[k], nonces[k], token, transfer_data(senders[(k + 1) % len(senders)].address, 1)))
        nonces[k] += 1
    return out


def sequential(rpc: RPC, txs: list[tuple[str, str]]) -> float:
    t = time.perf_counter()
    for raw, h in txs:
        rpc("eth_sendRawTransaction", raw)
        rpc.receipt(h)
    return len(txs) / (time.perf_counter() - t)


def pipelined(rpc: RPC, txs: list[tuple[str, str]]) -> float:
    t = time.perf_counter()
    for raw, _ in txs:
        rpc("eth_sendRawTransaction", raw)
    rpc.receipt(txs[-1][1])
    return len(txs) / (time.perf_counter() - t)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--senders", type=int, default=20)
    parser.add_argument("--transfers", type=int, default=400, help="ERC-20 transfers per warm round and node")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    senders = [Account.from_key(keccak(f"bench-fork-{i}".encode())) for i in range(args.senders)]
    up_proc, up_url = spawn()
    proxy = CountingProxy(up_url)
    fork_proc = None
    try:
        up = RPC(up_url + "/ext/bc/C/rpc")
        log("setting up the upstream: token, balances of", args.senders, "senders")
        token = set_up_upstream(up, senders)
        t = time.perf_counter()
        fork_proc, fork_url = spawn("--fork-url", proxy.url + "/ext/bc/C/rpc")
        start = {"wall_s": round(time.perf_counter() - t, 3), "upstream_requests": proxy.count}
        fork = RPC(fork_url + "/ext/bc/C/rpc")
        cold = []
        for _ in range(2):
            before, t = proxy.count, time.perf_counter()
            wallet_transfer(fork, senders[0], token, senders[1].address)
            cold.append({"wall_ms": round((time.perf_counter() - t) * 1000, 2),
                         "upstream_requests": proxy.count - before})
        log("cold fork:", {"start": start, "first": cold[0], "second": cold[1]})
        for s in senders:  # warm every sender and recipient slot
            wallet_transfer(fork, s, token, senders[(senders.index(s) + 1) % len(senders)].address)
        warm_before = proxy.count
        rates: dict[str, dict[str, list[float]]] = {"fork": {"seq": [], "pipe": []},
                                                     "upstream": {"seq": [], "pipe": []}}
        for r in range(args.rounds):
            for name, rpc in (("upstream", up), ("fork", fork)):
                rates[name]["seq"].append(sequential(rpc, signed_round(rpc, senders, token, args.transfers)))
                rates[name]["pipe"].append(pipelined(rpc, signed_round(rpc, senders, token, args.transfers)))
            log(f"round {r + 1}:", {n: {k: round(v[-1], 1) for k, v in d.items()} for n, d in rates.items()})
        med = {n: {k: statistics.median(v) for k, v in d.items()} for n, d in rates.items()}
        out = {
            "cold_fork": {"start": start, "first_erc20_transfer": cold[0], "second_erc20_transfer": cold[1]},
            "warm": {"transfers_per_round": args.transfers, "rounds": args.rounds, "senders": args.senders,
                     "sequential_tx_s": {"fork": round(med["fork"]["seq"], 1),
                                         "not_forked": round(med["upstream"]["seq"], 1),
                                         "ratio": round(med["fork"]["seq"] / med["upstream"]["seq"], 3)},
                     "pipelined_tx_s": {"fork": round(med["fork"]["pipe"], 1),
                                        "not_forked": round(med["upstream"]["pipe"], 1),
                                        "ratio": round(med["fork"]["pipe"] / med["upstream"]["pipe"], 3)},
                     "upstream_requests": proxy.count - warm_before},
        }
        print(json.dumps(out), flush=True)
    finally:
        for proc in (fork_proc, up_proc):
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=30)
        proxy.close()


if __name__ == "__main__":
    main()
