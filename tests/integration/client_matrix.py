"""The real-client matrix: one node per mode (automine, and `--block-time 1`) runs a client's script
(tests/js/ethers_matrix.mjs or viem_matrix.mjs) once; these functions assert what each of its checks
saw, the same way for both clients (each script reports receipts with numeric status and type).
Values the scripts print as decimal strings, hex quantities or numbers all go through `num`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from simnode.config import NodeConfig
from simnode.crypto.hashing import keccak256
from simnode.node import Node

from .js import JS_DIR, require_js, run_js
from .rpc import call

MODES = {"automine": 0.0, "interval": 1.0}
ARTIFACTS = Path(__file__).resolve().parents[1] / "foundry" / "artifacts"
VAULT = json.loads((ARTIFACTS / "Vault.json").read_text())
NODE_ACCOUNT = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
EMPTY_ROOT = "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"
EMPTY_CODE_HASH = "0x" + keccak256(b"").hex()
# Gas of the Vault's operations under the C-Chain's rules (Anvil 1.7.1 charges the same)
DEPLOY_GAS = 250_315        # new Vault(42)
SET_GAS = 30_405            # set(), a warm non-zero slot rewritten, one event
DEPOSIT_GAS = 44_932        # first deposit(): a zero slot made non-zero, one event
REVERT_GAS = 23_764         # set() by a stranger, reverted with NotOwner
TRANSFER_GAS = 21_000


def num(value: Any) -> int:
    if isinstance(value, str):
        return int(value, 16) if value.startswith("0x") else int(value)
    return int(value)


def same_address(a: str, b: str) -> bool:
    return a.lower() == b.lower()


@dataclass
class MatrixRun:
    mode: str
    url: str
    out: dict

    @property
    def rpc(self) -> str:
        return self.url + "/ext/bc/C/rpc"

    def value(self, check: str) -> Any:
        """The values a check recorded; a check that threw fails here with the client's error."""
        got = self.out["results"].get(check)
        assert got is not None, f"{check} did not run (the script stopped early): {sorted(self.out['results'])}"
        assert "error" not in got, f"{check} failed in the client ({self.mode}): {json.dumps(got['error'], indent=1)}"
        return got["value"]


def matrix_run(mode: str, script: str, package: str) -> Iterator[MatrixRun]:
    """Start a node in `mode` and run the client's script against it once; the node stays up for the
    module's cross-checks over plain HTTP."""
    require_js(f"the {package} tests")
    if not (JS_DIR / "node_modules" / package).is_dir():
        pytest.skip(f"tests/js/node_modules has no {package}: run `cd tests/js && npm ci` (./simnode.sh test does it)")
    config = NodeConfig(http_port=0, ephemeral=True, block_time=MODES[mode], log_level="WARN")
    with Node.start_in_thread(config) as node:
        ws = node.url.replace("http://", "ws://") + "/ext/bc/C/ws"
        out = run_js(script, node.url + "/ext/bc/C/rpc", ws, mode, timeout=240)
        assert out["chainId"] in (43112, "43112")
        yield MatrixRun(mode, node.url, out)


def receipt_ok(r: dict, gas: int) -> None:
    assert r["status"] == 1, r
    assert num(r["gasUsed"]) == gas, r


def check_deploy_read_write(run: MatrixRun) -> None:
    v = run.value("deployReadWrite")
    owner = run.out["accounts"]["owner"]
    assert same_address(v["address"], v["expectedAddress"]) and same_address(v["deploy"]["contractAddress"], v["address"])
    receipt_ok(v["deploy"], DEPLOY_GAS)
    assert num(v["initial"]) == 42 and same_address(v["owner"], owner)
    receipt_ok(v["set"], SET_GAS)
    assert num(v["valueAfter"]) == 77 and num(v["slot0"]) == 77
    assert v["code"].lower() == VAULT["deployedBytecode"].lower()
    # the node's own record of the deploy, over plain HTTP
    got = call(run.rpc, "eth_getTransactionReceipt", [v["deploy"]["hash"]])
    assert num(got["gasUsed"]) == DEPLOY_GAS and same_address(got["contractAddress"], v["address"])


def _balances_move(v: dict, egp: int) -> None:
    value = num(v["value"])
    assert num(v["before"]["from"]) - num(v["after"]["from"]) == value + TRANSFER_GAS * egp
    assert num(v["after"]["to"]) - num(v["before"]["to"]) == value


def check_eip1559(run: MatrixRun) -> None:
    v = run.value("eip1559")
    assert v["tx"]["type"] == 2 and v["receipt"]["type"] == 2
    receipt_ok(v["receipt"], TRANSFER_GAS)
    base, tip, cap = num(v["baseFee"]), num(v["tx"]["maxPriorityFeePerGas"]), num(v["tx"]["maxFeePerGas"])
    assert tip == 3 and num(v["receipt"]["effectiveGasPrice"]) == min(cap, base + tip)
    _balances_move(v, min(cap, base + tip))


def check_legacy(run: MatrixRun) -> None:
    v = run.value("legacy")
    assert v["tx"]["type"] == 0 and v["receipt"]["type"] == 0
    receipt_ok(v["receipt"], TRANSFER_GAS)
    price = num(v["feeDataGasPrice"])
    assert num(v["tx"]["gasPrice"]) == price == num(v["receipt"]["effectiveGasPrice"])
    assert price >= num(v["baseFee"])
    _balances_move(v, price)


def check_explicit_nonce(run: MatrixRun) -> None:
    """A tx with nonce n+1 sent first (it waits for the gap), then nonce n: both are mined, in order."""
    v = run.value("explicitNonce")
    n = num(v["n"])
    assert [num(x) for x in v["nonces"]] == [n, n + 1]
    assert num(v["pendingWithGap"]) == n  # a queued tx does not move the pending nonce (geth's txpool)
    first, later = v["receipts"]
    receipt_ok(first, TRANSFER_GAS)
    receipt_ok(later, TRANSFER_GAS)
    assert (num(later["blockNumber"]), num(later["index"])) > (num(first["blockNumber"]), num(first["index"]))
    assert num(v["final"]) == n + 2 and num(v["received"]) == 3


def check_pending_nonce(run: MatrixRun) -> None:
    """A second send before the first is mined (with --block-time 1) takes the pending nonce."""
    v = run.value("pendingNonce")
    n = num(v["n"])
    assert [num(x) for x in v["nonces"]] == [n, n + 1]
    assert num(v["pendingAfterFirst"]) == n + 1
    for r in v["receipts"]:
        receipt_ok(r, TRANSFER_GAS)
    assert num(v["final"]) == n + 2


def not_owner_data(caller: str, owner: str) -> str:
    selector = keccak256(b"NotOwner(address,address)")[:4].hex()
    return "0x" + selector + caller[2:].lower().rjust(64, "0") + owner[2:].lower().rjust(64, "0")


def error_string_data(message: str) -> str:
    raw = message.encode()
    return ("0x08c379a0" + (32).to_bytes(32, "big").hex() + len(raw).to_bytes(32, "big").hex()
            + raw.hex().ljust(64 * ((len(raw) + 31) // 32), "0"))


def check_mined_revert_receipt(run: MatrixRun) -> dict:
    v = run.value("minedRevert")
    r = v["receipt"]
    assert r["status"] == 0 and num(r["gasUsed"]) == REVERT_GAS, r
    got = call(run.rpc, "eth_getTransactionReceipt", [r["hash"]])
    assert got["status"] == "0x0" and num(got["gasUsed"]) == REVERT_GAS
    return v


def check_logs_and_filters(run: MatrixRun) -> None:
    v = run.value("logsAndFilters")
    owner = run.out["accounts"]["owner"]
    deployed = run.value("deployReadWrite")
    b1, b2 = (num(b) for b in v["blocks"])
    first = ("ValueSet", [owner, "42", "77"], num(deployed["set"]["blockNumber"]))
    later = [("ValueSet", [owner, "77", "100"], b1), ("ValueSet", [owner, "100", "200"], b2)]

    def rows(logs: list[dict]) -> list[tuple]:
        return [(lg.get("name", "ValueSet"), [a.lower() if a.startswith("0x") else a for a in lg["args"]], num(lg["blockNumber"]))
                for lg in logs]

    def want(items: list[tuple]) -> list[tuple]:
        return [(n, [a.lower() if a.startswith("0x") else a for a in args], b) for n, args, b in items]

    assert rows(v["heard"]) == want(later)           # the client's own listener (eth_newFilter + polling)
    assert rows(v["changes"]) == want(later)         # eth_getFilterChanges: what came since the filter was made
    assert v["again"] == 0                           # ... and nothing twice
    assert rows(v["filterLogs"]) == want([first, *later])  # eth_getFilterLogs: the filter's whole range
    assert v["uninstalled"] is True
    assert rows(v["queried"]) == want([first, *later])     # eth_getLogs by the indexed `by`
    assert rows(v["byPrevious"]) == want(later[1:])        # ... and by the indexed `previous`


def check_websocket(run: MatrixRun) -> None:
    v = run.value("websocket")
    receipt_ok(v["receipt"], DEPOSIT_GAS)
    d = v["deposit"]
    assert same_address(d["from"], v["depositor"]) and num(d["amount"]) == 4242
    assert num(d["blockNumber"]) == num(v["receipt"]["blockNumber"]) and d["tx"] == v["receipt"]["hash"]
    assert v["blockHeard"] is True       # newHeads carried the block that holds the tx
    assert v["pendingHeard"] is True     # newPendingTransactions carried its hash


def check_eip712(run: MatrixRun) -> None:
    v = run.value("eip712")
    assert sorted(v) == ["arrays", "nested", "permit"]
    for name, doc in v.items():
        # the node's signature is the one the key gives (RFC 6979), and it recovers to the node's account
        assert doc["signature"] == doc["local"], name
        assert same_address(doc["recovered"], NODE_ACCOUNT) and doc["verified"] is True, name
        assert len(doc["signature"]) == 132 and doc["signature"][-2:] in ("1b", "1c"), name


def check_rapid20(run: MatrixRun) -> None:
    v = run.value("rapid20")
    n = num(v["n"])
    assert [num(x) for x in v["nonces"]] == list(range(n, n + 20))
    for r in v["receipts"]:
        receipt_ok(r, TRANSFER_GAS)
    order = [(num(r["blockNumber"]), num(r["index"])) for r in v["receipts"]]
    assert order == sorted(order)
    assert num(v["received"]) == sum(range(1, 21)) and num(v["final"]) == n + 20


def check_concurrent10(run: MatrixRun) -> None:
    v = run.value("concurrent10")
    assert len({s["address"].lower() for s in v}) == 10
    for s in v:
        receipt_ok(s["receipt"], DEPOSIT_GAS)
        assert num(s["nonce"]) == 0 and num(s["deposit"]) == num(s["value"])
        spent = num(s["value"]) + DEPOSIT_GAS * num(s["receipt"]["effectiveGasPrice"])
        assert num(s["before"]) - num(s["after"]) == spent, s


def _fee_history_rewards(block: dict, percentiles: list[float]) -> list[int]:
    """coreth's eth/gasprice/feehistory.go: effective tips sorted (stable), weighted by gas used."""
    base = num(block["baseFeePerGas"])
    txs = []
    for t in block["txs"]:
        if t["maxFeePerGas"] is not None:
            tip = min(num(t["maxPriorityFeePerGas"]), num(t["maxFeePerGas"]) - base)
        else:
            tip = num(t["gasPrice"]) - base
        txs.append((tip, num(t["gasUsed"])))
    if not txs:
        return [0] * len(percentiles)
    txs.sort(key=lambda x: x[0])
    used = num(block["gasUsed"])
    out, index, total = [], 0, txs[0][1]
    for p in percentiles:
        threshold = int(float(used) * p / 100)
        while total < threshold and index < len(txs) - 1:
            index += 1
            total += txs[index][1]
        out.append(txs[index][0])
    return out


def check_fee_history(run: MatrixRun) -> None:
    v = run.value("feeHistory")
    h, blocks = v["history"], v["blocks"]
    oldest = num(h["oldestBlock"])
    assert [num(b["number"]) for b in blocks] == list(range(oldest, oldest + 5))
    assert oldest + 4 <= num(v["latest"])
    # coreth: one base fee per block of the range (geth adds the next block's)
    assert [num(x) for x in h["baseFeePerGas"]] == [num(b["baseFeePerGas"]) for b in blocks]
    assert h["gasUsedRatio"] == [num(b["gasUsed"]) / num(b["gasLimit"]) for b in blocks]
    assert [[num(x) for x in row] for row in h["reward"]] == [_fee_history_rewards(b, [10, 50, 90]) for b in blocks]
    assert any(b["txs"] for b in blocks)


def check_get_proof(run: MatrixRun) -> None:
    """eth_getProof walked from the block's state root (by the client's own keccak and RLP): the
    account leaf and the storage leaves hold what eth_getBalance/Code/StorageAt give at that block."""
    v = run.value("getProof")
    block = call(run.rpc, "eth_getBlockByNumber", [hex(num(v["block"])), False])
    assert block["stateRoot"] == v["stateRoot"]
    for who in ("vault", "owner"):
        a = v[who]
        walked, reported, direct = a["walked"], a["reported"], a["direct"]
        assert walked is not None, who
        for field in ("nonce", "balance"):
            assert num(walked[field]) == num(reported[field]) == num(direct[field]), (who, field)
        assert walked["codeHash"] == reported["codeHash"] == direct["codeHash"], who
        assert walked["storageHash"] == reported["storageHash"], who
        assert a["nodes"] >= 1
    vault = v["vault"]
    assert vault["walked"]["codeHash"] == "0x" + keccak256(bytes.fromhex(VAULT["deployedBytecode"][2:])).hex()
    assert num(vault["walked"]["nonce"]) == 1
    deposits = sum(1000 * (i + 1) for i in range(10)) + 4242
    assert num(vault["walked"]["balance"]) == num(v["vaultBalance"]) == deposits
    stored = [(num(s["walked"]), num(s["reported"])) for s in vault["storage"]]
    owner = num(run.out["accounts"]["owner"])
    values = [200, owner, 4000, 0]  # value, owner, deposits[crowd 3], unused
    # as coreth: the proof is of the key as written, the value read with the key's first byte's lowest
    # bit cleared (the C-Chain's storage key), so a key with an odd first byte is proven absent
    odd = [num(s["key"]) >> 248 & 1 for s in vault["storage"]]
    assert stored == [(0 if o else x, x) for o, x in zip(odd, values, strict=True)]
    assert [num(x) for x in vault["direct"]["storage"]] == [200, owner, 4000, 0]
    assert v["owner"]["walked"]["storageHash"] == EMPTY_ROOT and v["owner"]["walked"]["codeHash"] == EMPTY_CODE_HASH
    absent = v["absent"]
    assert absent["walked"] is None  # the proof shows the account absent from the trie
    assert num(absent["reported"]["balance"]) == 0 and num(absent["reported"]["nonce"]) == 0
    assert absent["reported"]["codeHash"] == EMPTY_CODE_HASH and absent["reported"]["storageHash"] == EMPTY_ROOT
