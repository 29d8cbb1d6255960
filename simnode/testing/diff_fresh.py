"""Txs built fresh by avalanchejs (tests/js/build_tx.mjs) from the real node's state, then sent to
both nodes: the P-Chain's subnet, chain, staking and L1 life cycle and the atomic transfers in
every direction. Used where a known-answer vector cannot be replayed (it was built for another
chain time or fee state)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from . import diff_reads as R
from .diff_txs import Harness
from ..formats.ids import id_from_str, id_to_str

JS_DIR = Path(__file__).resolve().parents[2] / "tests" / "js"
MANAGER = "0x0feedc0de0000000000000000000000000000000"
L1_GENESIS = {
    "config": {
        "chainId": 99997, "homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0, "eip158Block": 0,
        "byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0,
        "muirGlacierBlock": 0, "feeConfig": {
            "gasLimit": 12000000, "targetBlockRate": 2, "minBaseFee": 25000000000, "targetGas": 60000000,
            "baseFeeChangeDenominator": 36, "minBlockGasCost": 0, "maxBlockGasCost": 1000000,
            "blockGasCostStep": 200000},
        "warpConfig": {"blockTimestamp": 0, "quorumNumerator": 67},
    },
    "alloc": {"8db97c7cece249c2b98bdc0226cc4c2a57bf52fc": {"balance": "0x52b7d2dcc80cd2e4000000"}},
    "nonce": "0x0", "timestamp": "0x0", "extraData": "0x", "gasLimit": "0xb71b00", "difficulty": "0x0",
    "mixHash": "0x" + "00" * 32, "coinbase": "0x" + "00" * 20, "number": "0x0", "gasUsed": "0x0",
    "parentHash": "0x" + "00" * 32,
}


def js_missing() -> str | None:
    if shutil.which("node") is None:
        return "Node.js (node) is not installed"
    if not (JS_DIR / "node_modules" / "@avalabs" / "avalanchejs").is_dir():
        return "tests/js/node_modules is missing (cd tests/js && npm ci)"
    return None


def build(base_url: str, kind: str, **args: Any) -> dict[str, Any]:
    proc = subprocess.run(["node", "build_tx.mjs", base_url, kind, json.dumps(args)], cwd=JS_DIR,
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"build_tx.mjs {kind} failed: {proc.stderr.strip()[-800:]}")
    return json.loads([ln for ln in proc.stdout.splitlines() if ln.startswith("{")][-1])


def validation_id(subnet_id: str, index: int) -> str:
    return id_to_str(hashlib.sha256(id_from_str(subnet_id) + index.to_bytes(4, "big")).digest())


def step(h: Harness, kind: str, **args: Any) -> dict[str, Any]:
    """Build on the real node, issue on both, read everything back on both."""
    built = build(h.differ.real_url, kind, **args)
    h.issue(built["chain"], built["tx"], f"{kind} {json.dumps(args)[:80]}")
    h.reads_after(built["chain"], built["txID"])
    return built


def fresh(h: Harness) -> None:
    why = js_missing()
    if why:
        h.log.append(f"section fresh skipped: {why}")
        return
    step(h, "p-base", amount=10**9)
    subnet = step(h, "p-subnet")["txID"]
    h.subnets.append(subnet)
    chain = step(h, "p-chain", subnetID=subnet, genesis=L1_GENESIS)["txID"]
    h.chains.append(chain)
    validator = step(h, "p-validator", nodeSeed="diff-node-1", blsSeed="diff-bls-1")
    h.compare_all([R.call(R.P, "platform.getCurrentValidators", {"nodeIDs": [validator["nodeID"]]}),
                   R.call(R.P, "platform.getCurrentValidators",
                          {"nodeIDs": [validator["nodeID"]], "subnetID": R.PRIMARY})])
    step(h, "p-delegator", nodeSeed="diff-node-1")
    h.compare_all([R.call(R.P, "platform.getCurrentValidators", {"nodeIDs": [validator["nodeID"]]})])
    step(h, "p-convert", subnetID=subnet, chainID=chain, manager=MANAGER, nodeSeed="diff-node-2", blsSeed="diff-bls-2")
    vid = validation_id(subnet, 0)
    l1_reads = [R.call(R.P, "platform.getL1Validator", {"validationID": vid}),
                R.call(R.P, "platform.getCurrentValidators", {"subnetID": subnet}),
                R.call(R.P, "platform.getValidatorsAt", {"height": "proposed", "subnetID": subnet}),
                R.call(R.P, "platform.getSubnet", {"subnetID": subnet})]
    h.compare_all(l1_reads)
    step(h, "p-increase-balance", validationID=vid, amount=2 * 10**9)
    h.compare_all(l1_reads)
    step(h, "p-disable", validationID=vid)
    h.compare_all(l1_reads)
    # atomic transfers in every direction (K1 receives and moves on)
    step(h, "p-export", to="X", amount=5 * 10**9)
    step(h, "x-import", **{"from": "P"})
    step(h, "p-export", to="C", amount=7 * 10**9)
    step(h, "c-import", **{"from": "P"})
    step(h, "x-export", to="C", amount=11 * 10**9)
    step(h, "c-import", **{"from": "X"})
    step(h, "c-export", to="P", amount=3 * 10**9)
    step(h, "p-import", **{"from": "C"})
    step(h, "c-export", to="X", amount=2 * 10**9)
    step(h, "x-import", **{"from": "C"})
    step(h, "x-export", to="P", amount=4 * 10**9)
    step(h, "p-import", **{"from": "X"})
    step(h, "x-send", amount=10**9)
