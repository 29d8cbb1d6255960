"""Feeding the same signed txs to a real AvalancheGo node and to simnode, then comparing every read.

The txs come from real clients: the known-answer chain of tests/vectors/tx-vectors.json (signed by
avalanchejs 5.2.0 from the local genesis: X transfer, asset creation, X→P and X→C exports, P
import, P transfer, subnet, chain, validator, delegator, ConvertSubnetToL1, P→X export and X
import, C import and export) and EVM txs signed by eth-account. Each is issued on both nodes
(the issue replies are compared too), followed to acceptance on both, then read back with every
read method that can take what it produced.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import diff_reads as R
from .avalanchego import rpc
from .differ import Call, Differ, send

VECTORS_DIR = Path(__file__).resolve().parents[2] / "tests" / "vectors"
ISSUE = {"X": (R.X, "avm.issueTx"), "P": (R.P, "platform.issueTx"), "C": (R.AVAX, "avax.issueTx")}
STATUS = {"X": (R.X, "avm.getTxStatus", "Accepted"), "P": (R.P, "platform.getTxStatus", "Committed"),
          "C": (R.AVAX, "avax.getAtomicTxStatus", "Accepted")}
K1_X = "X-local1j0mxmzwuvx2vfvuw5mlgckuwmjj58wpvvkc8da"
K1_P = "P-local1j0mxmzwuvx2vfvuw5mlgckuwmjj58wpvvkc8da"
K1_C = "C-local1j0mxmzwuvx2vfvuw5mlgckuwmjj58wpvvkc8da"
K1_EVM = "0x7d51bb9cf51b1c5ce414d1debcc5d413161fe5a6"


def load_vectors(name: str = "tx-vectors.json") -> list[dict[str, Any]]:
    return json.loads((VECTORS_DIR / name).read_text())


def with_checksum(raw_hex: str) -> str:
    raw = bytes.fromhex(raw_hex.removeprefix("0x"))
    return "0x" + (raw + hashlib.sha256(raw).digest()[-4:]).hex()


@dataclass
class Harness:
    """Both nodes behind one Differ, and what the txs produced so far."""

    differ: Differ
    subnets: list[str] = field(default_factory=list)
    chains: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)

    def compare_all(self, calls: list[Call]) -> None:
        for c in calls:
            self.differ.compare(c)

    def wait_both(self, chain: str, tx_id: str, timeout: float = 30.0) -> dict[str, str]:
        """Poll the tx status on each node until it is final there; the last statuses."""
        path, method, done = STATUS[chain]
        statuses: dict[str, str] = {}
        for side, base in (("real", self.differ.real_url), ("sim", self.differ.sim_url)):
            deadline = time.monotonic() + timeout
            while True:
                reply = rpc(base + path, method, {"txID": tx_id})
                status = (reply.get("result") or {}).get("status", json.dumps(reply.get("error")))
                statuses[side] = status
                if status == done or status in ("Aborted", "Dropped") or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
        return statuses

    def issue(self, chain: str, tx_hex: str, label: str) -> tuple[Any, Any]:
        """Issue the same bytes on both nodes; compare the replies; wait for both to finish it."""
        path, method = ISSUE[chain]
        real, sim = self.differ.compare(Call(path, R.req(method, {"tx": tx_hex, "encoding": "hex"}), label=label))
        tx_id = ((real or {}).get("result") or {}).get("txID") or ((sim or {}).get("result") or {}).get("txID")
        if tx_id:
            statuses = self.wait_both(chain, tx_id)
            self.log.append(f"{label}: {tx_id} real={statuses['real']} sim={statuses['sim']}")
        else:
            self.log.append(f"{label}: rejected by both? real={json.dumps(real)[:200]} sim={json.dumps(sim)[:200]}")
        return real, sim

    def reads_after(self, chain: str, tx_id: str) -> None:
        calls = {"X": R.x_tx_reads, "P": R.p_tx_reads, "C": R.atomic_tx_reads}[chain](tx_id)
        calls += R.address_reads(x_addrs=(R.EWOQ_X, K1_X), p_addrs=(R.EWOQ_P, K1_P), c_bech=(R.EWOQ_C_BECH, K1_C),
                                 evm=(R.EWOQ_EVM, K1_EVM))
        calls += R.x_reads() + R.platform_reads(tuple(self.subnets), tuple(self.chains))
        calls += [R.call(R.C, "eth_blockNumber", []), R.call(R.C, "eth_getBlockByNumber", ["latest", False])]
        self.compare_all(calls)


def run_vector_chain(h: Harness, before: Callable[[dict[str, Any]], None] | None = None) -> None:
    """The 15 known-answer txs in order, each read back on both; the must-reject variants of a
    vector (and `before(vector)`) come just before it, while the UTXOs it spends are unspent."""
    negatives = load_vectors("negative-vectors.json")
    for v in load_vectors():
        if before is not None:
            before(v)
        for neg in negatives:
            if neg["baseVector"] == v["name"]:
                h.issue(v["chain"], with_checksum(neg["signedTxHex"]), f"reject {neg['name']}")
        h.issue(v["chain"], v["signedTxIssueHex"], v["name"])
        details = v.get("details") or {}
        if v["txType"]["name"] == "CreateSubnetTx":
            h.subnets.append(v["txID"])
        if v["txType"]["name"] == "CreateChainTx":
            h.chains.append(v["txID"])
        h.reads_after(v["chain"], v["txID"])
        if v["txType"]["name"] == "ConvertSubnetToL1Tx":
            for vid in details.get("validationIDs", []):
                h.compare_all([R.call(R.P, "platform.getL1Validator", {"validationID": vid})])
        # the same bytes again: both must refuse a tx they already hold
        h.issue(v["chain"], v["signedTxIssueHex"], f"reissue {v['name']}")


def replay_recording(recording: list[dict[str, Any]], sim_url: str) -> Differ:
    """Send a recorded session to simnode alone and compare with the real node's recorded replies:
    the differential check where AvalancheGo is absent. Issued txs are followed to acceptance."""
    from .differ import call_of
    differ = Differ("recorded", sim_url)
    chain_of = {path: chain for chain, (path, _) in ISSUE.items()}
    for rec in recording:
        call, real = call_of(rec)
        sim = send(sim_url, call, call.sim_body if call.sim_body is not None else call.body)
        differ.compare_replies(call, real, sim)
        method, reply = call.method, sim.json()
        result = reply.get("result") if isinstance(reply, dict) else None
        tx_id = result.get("txID") if isinstance(result, dict) else None
        if method.endswith("issueTx") and tx_id and call.path in chain_of:
            path, status_method, done = STATUS[chain_of[call.path]]
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                got = (rpc(sim_url + path, status_method, {"txID": tx_id}).get("result") or {}).get("status")
                if got in (done, "Aborted", "Dropped"):
                    break
                time.sleep(0.05)
        elif method == "eth_sendRawTransaction" and isinstance(result, str):
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not rpc(sim_url + R.C, "eth_getTransactionReceipt",
                                                          [result]).get("result"):
                time.sleep(0.05)
    return differ
