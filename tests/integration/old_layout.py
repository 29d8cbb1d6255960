"""A data dir written by the storage layout before trie deltas and pointer index rows, and what
that node answered, for test_old_layout.py.

    .venv/bin/python -m tests.integration.old_layout /path/to/an/old/checkout

makes tests/integration/data/old_layout.tar.gz: it runs the OLD checkout's `simnode run` (its
own .venv) on a fresh data dir, plays index_scenario.py (native transfers, ERC-20/721/1155, a
factory's internal creations and calls, reverted txs) against it, records the answers of
`queries()` (JSON-RPC over every block, tx and account, proofs, traces, and the Data API's block,
tx, address, balance and token routes), stops it and packs the data dir with the answers.
The fixture in the repository was made from main at 087fab7 (schema 3).
"""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from web3 import Web3

from . import index_scenario
from .rpc import call

FIXTURE = Path(__file__).resolve().parent / "data" / "old_layout.tar.gz"
CHAIN = "/v1/chains/43112"
BLACKHOLE = "0x0100000000000000000000000000000000000000"


def _data_api(url: str, path: str) -> Any:
    try:
        with urllib.request.urlopen(url + path, timeout=60) as resp:
            return [resp.status, _without_tokens(json.loads(resp.read()))]
    except urllib.error.HTTPError as err:
        return [err.code, _without_tokens(json.loads(err.read() or b"null"))]


def _without_tokens(body: Any) -> Any:
    """The body without page tokens (random per answer)."""
    if isinstance(body, dict):
        return {k: _without_tokens(v) for k, v in body.items() if k != "nextPageToken"}
    if isinstance(body, list):
        return [_without_tokens(v) for v in body]
    return body


def _rpc(rpc: str, method: str, *params: Any) -> Any:
    try:
        return call(rpc, method, list(params))
    except Exception as exc:  # noqa: BLE001 - the error's text is part of the answer
        return {"error": str(exc)}


def queries(url: str, head: int | None = None) -> dict[str, Any]:
    """Answers by query, over blocks 0..head (default: the chain's head)."""
    rpc = url + "/ext/bc/C/rpc"
    head = int(call(rpc, "eth_blockNumber", []), 16) if head is None else head
    out: dict[str, Any] = {}
    accounts = [index_scenario.EWOQ.address, BLACKHOLE, Web3.to_checksum_address("0x" + "a1" * 20)]
    txs: list[dict] = []
    for n in range(head + 1):
        block = call(rpc, "eth_getBlockByNumber", [hex(n), True])
        out[f"block {n}"] = block
        txs += block["transactions"]
        accounts += [a for tx in block["transactions"] for a in (tx["from"], tx["to"]) if a and a not in accounts]
        out[f"balances {n}"] = [_rpc(rpc, "eth_getBalance", a, hex(n)) for a in accounts]
        out[f"data block {n}"] = _data_api(url, f"{CHAIN}/blocks/{n}")
        out[f"data block {n} by hash"] = _data_api(url, f"{CHAIN}/blocks/{block['hash']}")
        out[f"data block {n} txs"] = _data_api(url, f"{CHAIN}/blocks/{n}/transactions?pageSize=100")
    for tx in txs:
        h = tx["hash"]
        out[f"receipt {h}"] = call(rpc, "eth_getTransactionReceipt", [h])
        out[f"data tx {h}"] = _data_api(url, f"{CHAIN}/transactions/{h}")
        if tx["input"] != "0x":
            out[f"trace {h}"] = _rpc(rpc, "debug_traceTransaction", h, {"tracer": "callTracer"})
        if tx.get("creates") or (out[f"receipt {h}"] or {}).get("contractAddress"):
            accounts.append(out[f"receipt {h}"]["contractAddress"])
    for n in (0, head // 2, head):
        out[f"proofs {n}"] = [_rpc(rpc, "eth_getProof", a, ["0x" + f"{i:064x}" for i in range(3)], hex(n)) for a in accounts]
    out["data blocks"] = _data_api(url, f"{CHAIN}/blocks?pageSize=100")
    out["data txs"] = _data_api(url, f"{CHAIN}/transactions?pageSize=100")
    out["data txs failed"] = _data_api(url, f"{CHAIN}/transactions?pageSize=100&status=failed")
    for a in accounts:
        for route in ("transactions", "transactions:listNative", "transactions:listErc20",
                      "transactions:listErc721", "transactions:listErc1155", "transactions:listInternals",
                      "balances:listErc20", "balances:listErc721", "balances:listErc1155",
                      "balances:listCollectibles"):
            out[f"data {a} {route}"] = _data_api(url, f"{CHAIN}/addresses/{a}/{route}?pageSize=100")
        out[f"data {a}"] = _data_api(url, f"{CHAIN}/addresses/{a}")
        out[f"data {a} token transfers"] = _data_api(url, f"{CHAIN}/tokens/{a}/transfers?pageSize=100")
    return out


def _start(python: str, cwd: Path, data_dir: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([python, "-m", "simnode", "run", "--data-dir", str(data_dir), "--http-port", str(port),
                             "--log-level", "WARN"], cwd=cwd, env=dict(os.environ, ETH_HASH_BACKEND="pysha3"),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()  # type: ignore[union-attr]
    assert "simnode ready" in line, line
    return proc, f"http://127.0.0.1:{port}"


def make(old_checkout: Path) -> None:
    with tempfile.TemporaryDirectory() as work:
        data_dir = Path(work) / "node"
        proc, url = _start(str(old_checkout / ".venv" / "bin" / "python"), old_checkout, data_dir)
        try:
            w3 = Web3(Web3.HTTPProvider(url + "/ext/bc/C/rpc", request_kwargs={"timeout": 60}))
            index_scenario.run(w3, 43112)
            answers = queries(url)
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(60)
        FIXTURE.parent.mkdir(exist_ok=True)
        with tarfile.open(FIXTURE, "w:gz") as tar:
            tar.add(data_dir, arcname="node")
            blob = json.dumps(answers, sort_keys=True).encode()
            info = tarfile.TarInfo("answers.json")
            info.size = len(blob)
            tar.addfile(info, io.BytesIO(blob))


if __name__ == "__main__":
    make(Path(sys.argv[1]).resolve())
