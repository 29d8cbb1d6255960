#!/usr/bin/env python3
"""Record how the real C-Chain keys storage: a contract writing and reading slots whose first byte
is odd (coreth clears that bit: extstate.normalizeStateKey), as known answers for
tests/integration/test_cchain_storage_keys.py.

Starts one real local-network node (AVALANCHEGO_PATH, AVALANCHEGO_PLUGIN_DIR; see
simnode/testing/avalanchego.py), sends ewoq's signed txs one block each (legacy, one gas price, so
the fees do not depend on the base fee), then records each receipt and block's stateRoot, and at
the last block eth_getStorageAt of every slot named, eth_getProof, eth_call with `state` and
`stateDiff` overrides and eth_createAccessList.

    AVALANCHEGO_PATH=... AVALANCHEGO_PLUGIN_DIR=... .venv/bin/python scripts/record_cchain_storage_keys.py OUT.json
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simnode.testing import avalanchego  # noqa: E402

EWOQ_KEY = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
GAS_PRICE = 100 * 10**9
LOAD = (1 << 256) - 1  # an op's value that means "SLOAD the key, log and return what it read"

# Runtime: calldata is (key, value) pairs of words; each pair SSTOREs value at key, or, when the
# value is all ones, SLOADs key, logs the word read (LOG0) and keeps it as the return value.
# Tokens: hex bytes, "label:" (a JUMPDEST there) or "@label" (PUSH2 of its offset); "#" comments.
RUNTIME_ASM = """
    6000 loop: 368110 15 @end 57        # i = 0; while i < CALLDATASIZE:
    8035 8160200135 801915 @load 57     # key, value; value all ones: load
    9055 @next 56                       # SSTORE(key, value)
    load: 5054 8060005260206000a0 50    # SLOAD(key), MSTORE it at 0, LOG0 it
    next: 604001 @loop 56               # i += 64
    end: 60206000f3                     # RETURN the last word read
"""


def assemble(asm: str) -> bytes:
    tokens = [t for line in asm.splitlines() for t in line.split("#")[0].split()]
    labels, size = {}, 0
    for t in tokens:
        if t.endswith(":"):
            labels[t[:-1]] = size
        size += 1 if t.endswith(":") else 3 if t.startswith("@") else len(t) // 2
    code = b""
    for t in tokens:
        if t.endswith(":"):
            code += b"\x5b"
        elif t.startswith("@"):
            code += b"\x61" + labels[t[1:]].to_bytes(2, "big")
        else:
            code += bytes.fromhex(t)
    return code


def key(first: int, last: int) -> int:
    return first << 248 | last


def initcode(runtime: bytes, writes: list[tuple[int, int]]) -> bytes:
    """A constructor SSTOREing `writes`, then returning `runtime`."""
    ctor = b"".join(b"\x7f" + v.to_bytes(32, "big") + b"\x7f" + k.to_bytes(32, "big") + b"\x55" for k, v in writes)
    tail_len = 2 * 3 + 2 + 1 + 3 + 2 + 1  # PUSH2 len PUSH2 off PUSH1 0 CODECOPY PUSH2 len PUSH1 0 RETURN
    offset = len(ctor) + tail_len
    n = len(runtime)
    tail = (b"\x61" + n.to_bytes(2, "big") + b"\x61" + offset.to_bytes(2, "big") + b"\x60\x00\x39"
            + b"\x61" + n.to_bytes(2, "big") + b"\x60\x00\xf3")
    assert len(tail) == tail_len
    return ctor + tail + runtime


def ops(*pairs: tuple[int, int]) -> str:
    return "0x" + b"".join(k.to_bytes(32, "big") + v.to_bytes(32, "big") for k, v in pairs).hex()


# slots named: twins differ only in the lowest bit of the first byte
A_ODD, A_EVEN = key(0x01, 0xFF), key(0x00, 0xFF)
B_ODD, B_EVEN = key(0x03, 0x01), key(0x02, 0x01)
C_EVEN = key(0x02, 0x02)
D_ODD, D_EVEN = key(0x05, 0x09), key(0x04, 0x09)
E_ODD, E_EVEN = key(0x07, 0x03), key(0x06, 0x03)
F_ODD, F_EVEN = key(0x0B, 0x05), key(0x0A, 0x05)
G_ODD, G_EVEN = key(0x0D, 0x01), key(0x0C, 0x01)
H_ODD, H_EVEN = key(0xFF, 0x0F), key(0xFE, 0x0F)
SLOTS = [A_ODD, A_EVEN, B_ODD, B_EVEN, C_EVEN, D_ODD, D_EVEN, E_ODD, E_EVEN, F_ODD, F_EVEN, G_ODD, G_EVEN,
         H_ODD, H_EVEN]

# (what, tx fields besides nonce/chain/gas price); "to" None: the contract
TXS: list[tuple[str, dict[str, Any]]] = [
    ("deploy: the constructor writes A_ODD = 0x2a", {"to": "", "gas": 300_000}),
    ("write B_ODD and C_EVEN, read B_EVEN (cold: its own key), B_ODD (warm), A_EVEN, A_ODD",
     {"data": ops((B_ODD, 0x11), (C_EVEN, 0x22), (B_EVEN, LOAD), (B_ODD, LOAD), (A_EVEN, LOAD), (A_ODD, LOAD))}),
    ("the twins D_ODD = 7 then D_EVEN = 8 in one tx: one slot; read D_ODD",
     {"data": ops((D_ODD, 7), (D_EVEN, 8), (D_ODD, LOAD))}),
    ("clear A through A_EVEN; E_EVEN = 5; F_EVEN = 1",
     {"data": ops((A_EVEN, 0), (E_EVEN, 5), (F_EVEN, 1))}),
    ("an access list naming E_ODD: read E_EVEN (cold), clear E through E_ODD (warm)",
     {"data": ops((E_EVEN, LOAD), (E_ODD, 0)), "accessList": "E_ODD"}),
    ("F_ODD = 1 (no change), F_ODD = 2 (original 1: a reset), F_EVEN = 1 (back to the original)",
     {"data": ops((F_ODD, 1), (F_ODD, 2), (F_EVEN, 1))}),
    ("H_ODD = 0xfe0f, then read H_EVEN",
     {"data": ops((H_ODD, 0xFE0F), (H_EVEN, LOAD))}),
]


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    why = avalanchego.missing()
    if why or out is None:
        print(f"skipped: {why or 'no output file given'}")
        return 0 if why else 2
    from eth_account import Account
    from eth_utils import to_checksum_address

    runtime = assemble(RUNTIME_ASM)
    acct = Account.from_key(EWOQ_KEY)
    node = avalanchego.RealNode.start(chain_configs={"C": {"eth-apis": [
        "eth", "eth-filter", "net", "web3", "internal-eth", "internal-blockchain", "internal-transaction",
        "debug-tracer"]}})
    try:
        c = node.url + "/ext/bc/C/rpc"

        def call(method: str, params: list[Any]) -> Any:
            reply = avalanchego.rpc(c, method, params, timeout=30)
            if "error" in reply:
                raise RuntimeError(f"{method}: {reply['error']}")
            return reply["result"]

        chain_id = int(call("eth_chainId", []), 16)
        version = avalanchego.rpc(node.url + "/ext/info", "info.getNodeVersion", {})["result"]
        contract = None
        txs = []
        for nonce, (what, fields) in enumerate(TXS):
            tx: dict[str, Any] = {"nonce": nonce, "chainId": chain_id, "gasPrice": GAS_PRICE, "value": 0,
                                  "gas": fields.get("gas", 200_000)}
            if fields.get("to") == "":
                tx["data"] = "0x" + initcode(runtime, [(A_ODD, 0x2A)]).hex()
            else:
                tx["to"], tx["data"] = contract, fields["data"]
            if fields.get("accessList") == "E_ODD":
                tx["accessList"] = [{"address": contract, "storageKeys": ["0x%064x" % E_ODD]}]
            raw = "0x" + acct.sign_transaction(tx).raw_transaction.hex().removeprefix("0x")
            tx_hash = call("eth_sendRawTransaction", [raw])
            receipt = None
            for _ in range(300):
                receipt = call("eth_getTransactionReceipt", [tx_hash])
                if receipt:
                    break
                time.sleep(0.1)
            assert receipt, f"{what}: no receipt"
            if contract is None:
                contract = to_checksum_address(receipt["contractAddress"])
            block = call("eth_getBlockByNumber", [receipt["blockNumber"], False])
            txs.append({"what": what, "raw": raw, "hash": tx_hash, "blockNumber": receipt["blockNumber"],
                        "status": receipt["status"], "gasUsed": receipt["gasUsed"],
                        "logs": [lg["data"] for lg in receipt["logs"]], "stateRoot": block["stateRoot"]})
            print(f"{what}: status {receipt['status']} gas {int(receipt['gasUsed'], 16)}")
        slots = ["0x%064x" % s for s in SLOTS]
        storage_at = {s: call("eth_getStorageAt", [contract, s, "latest"]) for s in slots}
        proof = call("eth_getProof", [contract, slots, "latest"])
        calls = []
        for what, data, overrides in (
                ("read G_EVEN, G_ODD with a stateDiff writing G_ODD", ops((G_EVEN, LOAD), (G_ODD, LOAD)),
                 {contract: {"stateDiff": {"0x%064x" % G_ODD: "0x%064x" % 0x99}}}),
                ("read G_ODD with a state holding G_ODD only (SetStorage keys as written)", ops((G_ODD, LOAD)),
                 {contract: {"state": {"0x%064x" % G_ODD: "0x%064x" % 0x99}}}),
                ("read G_EVEN with a state holding G_ODD only", ops((G_EVEN, LOAD)),
                 {contract: {"state": {"0x%064x" % G_ODD: "0x%064x" % 0x99}}}),
                ("read G_ODD with a state holding G_EVEN", ops((G_ODD, LOAD)),
                 {contract: {"state": {"0x%064x" % G_EVEN: "0x%064x" % 0x77}}}),
                ("read B_ODD, B_EVEN, H_EVEN, D_ODD", ops((B_ODD, LOAD), (B_EVEN, LOAD), (H_EVEN, LOAD), (D_ODD, LOAD)),
                 None)):
            params: list[Any] = [{"from": acct.address, "to": contract, "data": data, "gas": "0x30d40"}, "latest"]
            if overrides:
                params.append(overrides)
            calls.append({"what": what, "params": params, "result": call("eth_call", params)})
        access_list_args = {"from": acct.address, "to": contract, "gasPrice": hex(GAS_PRICE),
                            "data": ops((G_ODD, LOAD), (G_EVEN, 5))}
        access_list = call("eth_createAccessList", [access_list_args, "latest"])
        # coreth's tracers, for the record (simnode's struct logger has no `storage`, no prestateTracer):
        # keys as the code used them, values as the StateDB reads them (normalized)
        twins = txs[2]["hash"]
        struct = call("debug_traceTransaction", [twins, {}])
        traces = {"tx": twins, "structLogs storage": [
            {"op": e["op"], "storage": e.get("storage")} for e in struct["structLogs"] if e["op"] in ("SLOAD", "SSTORE")],
            "prestateTracer": call("debug_traceTransaction", [twins, {"tracer": "prestateTracer"}]),
            "prestateTracer diffMode": call("debug_traceTransaction", [
                twins, {"tracer": "prestateTracer", "tracerConfig": {"diffMode": True}}])}
        record = {
            "about": "A contract writing and reading C-Chain storage slots whose key's first byte is odd, on a real "
                     f"AvalancheGo {version['version']} (commit {version['gitCommit']}) node of the local network "
                     "(scripts/record_cchain_storage_keys.py): coreth keys such a slot with that bit cleared "
                     "(extstate.normalizeStateKey). ewoq's legacy txs from nonce 0, one per block.",
            "contract": contract, "runtime": "0x" + runtime.hex(),
            "slots": {name: "0x%064x" % v for name, v in globals().items()
                      if name[:2] in {f"{x}_" for x in "ABCDEFGH"} and isinstance(v, int)},
            "txs": txs, "getStorageAt": storage_at, "getProof": proof, "calls": calls,
            "createAccessList": {"args": access_list_args, "result": access_list},
            "traces (not compared)": traces,
        }
        out.write_text(json.dumps(record, indent=1) + "\n")
        print(f"wrote {out}")
    finally:
        node.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
