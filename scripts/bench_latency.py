#!/usr/bin/env python3
"""Single-request latency of an Ethereum JSON-RPC node (simnode, Anvil, ...), one request at a
time on one keep-alive connection, with the server's CPU time per request when its pid is given.

    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/bench_latency.py URL [--pid PID]
        [--keys 0xK] [-n 1000] [--label NAME] [--only PHASES] [--old FILE]

The client is a plain blocking socket (no event loop), so its own share of each figure is small
and the same for every server. Phases, each `-n` requests after 50 unmeasured ones:
  blockNumber, getBalance: the reads wrk measures, one at a time;
  call: eth_call balanceOf on tests/contracts/Token.json (deployed first);
  estimate: eth_estimateGas of a token transfer;
  send_receipt: eth_sendRawTransaction of a pre-signed token transfer, then its receipt
  polled at once (no sleep) until it is there; also the polls it took;
  with --old FILE (lines "0xTXHASH 0xADDRESS", at least n + 50, in the order to read them):
  receipt_old: eth_getTransactionReceipt of each listed tx, balance_old: eth_getBalance at
  latest of each listed address, each read once (old rows, mostly outside LevelDB's block cache
  when the database is larger than it: the cost of reading LevelDB's blocks, simnode/store/kv.py).
One JSON line on stdout: per phase p50/p90 in ms and, with --pid, the server's user+system CPU
microseconds per request (per send+receipt round for send_receipt).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

from eth_abi import encode
from eth_account import Account
from eth_utils import keccak, to_checksum_address
from rlp import encode as rlp_encode

EWOQ = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


class Conn:
    """One keep-alive HTTP/1.1 connection sending JSON-RPC POSTs."""

    def __init__(self, url: str) -> None:
        u = urlparse(url)
        self.path = u.path or "/"
        self.host = f"{u.hostname}:{u.port}"
        self.sock = socket.create_connection((u.hostname, u.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.id = 0

    def __call__(self, method: str, *params: object) -> object:
        self.id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method, "params": list(params)}).encode()
        self.sock.sendall(b"POST " + self.path.encode() + b" HTTP/1.1\r\nHost: " + self.host.encode()
                          + b"\r\nContent-Type: application/json\r\nContent-Length: "
                          + str(len(body)).encode() + b"\r\n\r\n" + body)
        while b"\r\n\r\n" not in self.buf:
            self.buf += self._recv()
        head, _, rest = self.buf.partition(b"\r\n\r\n")
        clen = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:"))
        while len(rest) < clen:
            rest += self._recv()
        self.buf = rest[clen:]
        reply = json.loads(rest[:clen])
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def _recv(self) -> bytes:
        data = self.sock.recv(65536)
        if not data:
            raise RuntimeError("connection closed")
        return data


def cpu_ticks(pid: int | None) -> int | None:
    if pid is None:
        return None
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime (all threads)


def measure(pid: int | None, n: int, step) -> dict:  # type: ignore[no-untyped-def]
    for i in range(50):
        step(i)
    lat = []
    c0 = cpu_ticks(pid)
    for i in range(50, 50 + n):
        t = time.perf_counter()
        step(i)
        lat.append(time.perf_counter() - t)
    c1 = cpu_ticks(pid)
    lat.sort()
    out = {"ms_p50": round(statistics.median(lat) * 1000, 3), "ms_p90": round(lat[int(0.9 * (n - 1))] * 1000, 3)}
    if c0 is not None and c1 is not None:
        out["server_cpu_us"] = round((c1 - c0) / TICK / n * 1e6, 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--pid", type=int)
    ap.add_argument("--keys", default=EWOQ)
    ap.add_argument("-n", type=int, default=1000)
    ap.add_argument("--label", default="")
    ap.add_argument("--only", default="blockNumber,getBalance,call,estimate,send_receipt",
                    help="phases to run, comma separated (receipt_old, balance_old: with --old)")
    ap.add_argument("--old", type=Path, help='lines "0xTXHASH 0xADDRESS" for receipt_old and balance_old')
    args = ap.parse_args()
    old = [line.split() for line in args.old.read_text().splitlines()] if args.old else []
    rpc = Conn(args.url)
    sender = Account.from_key(args.keys.split(",")[0])
    chain_id = int(rpc("eth_chainId"), 16)  # type: ignore[arg-type]
    blk = rpc("eth_getBlockByNumber", "latest", False)
    max_fee = max(2 * int(blk.get("baseFeePerGas", "0x0"), 16) + 10**9, 100 * 10**9) + 1  # type: ignore[union-attr]
    nonce = int(rpc("eth_getTransactionCount", sender.address, "pending"), 16)  # type: ignore[arg-type]
    art = json.loads((ROOT / "tests" / "contracts" / "Token.json").read_text())
    ctor = bytes.fromhex(art["bytecode"][2:]) + encode(["string", "string", "uint256"], ["Bench", "B", 10**30])
    deploy = sender.sign_transaction({"chainId": chain_id, "nonce": nonce, "data": ctor, "gas": 3_000_000,
                                      "value": 0, "maxFeePerGas": max_fee, "maxPriorityFeePerGas": 1})
    token = to_checksum_address(keccak(rlp_encode([bytes.fromhex(sender.address[2:]), nonce]))[12:])
    rpc("eth_sendRawTransaction", deploy.raw_transaction.to_0x_hex())
    while rpc("eth_getTransactionReceipt", deploy.hash.to_0x_hex()) is None:
        pass

    def to(i: int) -> str:
        return to_checksum_address((0xB0B0000 + i).to_bytes(20, "big"))

    def transfer(i: int) -> str:
        return "0xa9059cbb" + encode(["address", "uint256"], [to(i), 1000 + i]).hex()

    total = args.n + 50
    signed = [sender.sign_transaction({"chainId": chain_id, "nonce": nonce + 1 + i, "to": token, "data": transfer(i),
                                       "gas": 80_000, "value": 0, "maxFeePerGas": max_fee,
                                       "maxPriorityFeePerGas": 1}) for i in range(total)]
    raws = [(s.raw_transaction.to_0x_hex(), s.hash.to_0x_hex()) for s in signed]
    polls = [0]

    def send_receipt(i: int) -> None:
        raw, h = raws[i]
        rpc("eth_sendRawTransaction", raw)
        while True:
            polls[0] += 1
            rc = rpc("eth_getTransactionReceipt", h)
            if rc is not None:
                break

    phases = {
        "blockNumber": lambda i: rpc("eth_blockNumber"),
        "getBalance": lambda i: rpc("eth_getBalance", sender.address, "latest"),
        "call": lambda i: rpc("eth_call", {"to": token, "data": "0x70a08231" + encode(["address"], [to(i)]).hex()},
                              "latest"),
        "estimate": lambda i: rpc("eth_estimateGas", {"from": sender.address, "to": token, "data": transfer(i)}),
        "send_receipt": send_receipt,
        "receipt_old": lambda i: rpc("eth_getTransactionReceipt", old[i][0]),
        "balance_old": lambda i: rpc("eth_getBalance", old[i][1], "latest"),
    }
    out: dict = {"url": args.url, "label": args.label}
    for name in args.only.split(","):
        out[name] = measure(args.pid, args.n, phases[name])
    if "send_receipt" in out:
        out["send_receipt"]["polls"] = round(polls[0] / total, 2)
    print(json.dumps(out))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
