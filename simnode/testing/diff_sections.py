"""The sections of the differential check, in the order they run (each leaves the network in a state
the next one builds on): genesis reads, the JSON-RPC and bad-argument corpus, the known-answer tx
chain with its mutants, EVM txs signed by eth-account, and a Warp message from the C-Chain."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from . import diff_reads as R
from ..formats.ids import id_to_str
from .avalanchego import rpc
from .diff_fresh import fresh
from .diff_order import order
from .diff_corpus import bad_argument_calls, issue_arg_calls, malformed_jsonrpc_calls, mutation_calls
from .diff_txs import Harness, load_vectors, run_vector_chain
from .differ import Call, Differ

EWOQ_KEY = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
K1_KEY = "0x0b235c319f9f1d3e67abdee7be95e9130dd1a8ceaf099a3bb17c336f55aea0be"
K2_KEY = "0x6c8e946f12a23814b8a189a5dadfd1ed210be7b2f1b5b50f670a2b60c71f1d78"
WARP_PRECOMPILE = "0x0200000000000000000000000000000000000005"
GWEI = 10**9
K1_EVM = "0x7D51Bb9Cf51b1c5CE414D1deBCC5D413161Fe5a6"


def genesis(h: Harness) -> None:
    h.compare_all(R.node_reads() + R.platform_reads() + R.x_reads() + R.address_reads() + R.evm_reads())


def corpus(h: Harness) -> None:
    h.compare_all(malformed_jsonrpc_calls() + bad_argument_calls())
    for v in load_vectors()[:1] + [v for v in load_vectors() if v["chain"] in ("P", "C")][:1]:
        h.compare_all(issue_arg_calls(v))


def vectors(h: Harness) -> None:
    def before(v: dict[str, Any]) -> None:
        h.compare_all(mutation_calls(v))
    run_vector_chain(h, before=before)


def _evm_wait(h: Harness, tx_hash: str, timeout: float = 30.0) -> None:
    for base in (h.differ.real_url, h.differ.sim_url):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if rpc(base + R.C, "eth_getTransactionReceipt", [tx_hash]).get("result"):
                break
            time.sleep(0.2)


class EvmSender:
    """Signs with eth-account against the real node's nonce and chain ID; sends to both."""

    def __init__(self, h: Harness) -> None:
        from eth_account import Account
        self.h = h
        self.Account = Account
        self.chain_id = int(str(rpc(h.differ.real_url + R.C, "eth_chainId", [])["result"]), 16)

    def nonce(self, addr: str) -> int:
        return int(rpc(self.h.differ.real_url + R.C, "eth_getTransactionCount", [addr, "pending"])["result"], 16)

    def sign(self, key: str, **tx: Any) -> str:
        acct = self.Account.from_key(key)
        tx.setdefault("chainId", self.chain_id)
        tx.setdefault("nonce", self.nonce(acct.address))
        if "gasPrice" not in tx:
            tx.setdefault("maxFeePerGas", 100 * GWEI)
            tx.setdefault("maxPriorityFeePerGas", GWEI)
        tx.setdefault("gas", 21000)
        tx.setdefault("value", 0)
        return "0x" + acct.sign_transaction(tx).raw_transaction.hex().removeprefix("0x")

    def send(self, raw: str, label: str, wait: bool = True) -> str | None:
        real, sim = self.h.differ.compare(Call(R.C, R.req("eth_sendRawTransaction", [raw]), label=label))
        tx_hash = (real or {}).get("result") or (sim or {}).get("result")
        if tx_hash and wait:
            _evm_wait(self.h, tx_hash)
        self.h.log.append(f"{label}: real={str(real)[:160]} sim={str(sim)[:160]}")
        return tx_hash


def _token_artifacts() -> tuple[list[Any], str]:
    import json
    from pathlib import Path
    art = json.loads((Path(__file__).resolve().parents[2] / "tests" / "contracts" / "Token.json").read_text())
    return art["abi"], art["bytecode"]


def evm(h: Harness) -> None:
    from web3 import Web3
    s = EvmSender(h)
    ewoq = s.Account.from_key(EWOQ_KEY).address
    abi, bytecode = _token_artifacts()
    token = Web3().eth.contract(abi=abi, bytecode=bytecode)
    steps: list[tuple[str, dict[str, Any]]] = [
        ("C transfer dynamic-fee", {"to": K1_EVM, "value": 10**18}),
        ("C transfer legacy", {"to": K1_EVM, "value": 2 * 10**18, "gasPrice": 50 * GWEI}),
        ("C transfer access-list", {"to": K1_EVM, "value": 1, "gas": 30000, "accessList": [
            {"address": K1_EVM, "storageKeys": ["0x" + "00" * 32]}]}),
    ]
    for label, tx in steps:
        tx_hash = s.send(s.sign(EWOQ_KEY, **tx), label)
        if tx_hash:
            h.compare_all(R.evm_tx_reads(tx_hash) + R.address_reads(evm=(ewoq, K1_EVM)))
    deploy = token.constructor("Diff", "DIF", 10**24).build_transaction(
        {"from": ewoq, "gas": 1_500_000, "nonce": s.nonce(ewoq), "chainId": s.chain_id,
         "maxFeePerGas": 100 * GWEI, "maxPriorityFeePerGas": GWEI})
    tx_hash = s.send(s.sign(EWOQ_KEY, **{k: v for k, v in deploy.items() if k != "from"}), "C deploy Token")
    if tx_hash is None:
        h.log.append("C deploy Token: refused by the real node; calls skipped")
        return
    receipt = rpc(h.differ.real_url + R.C, "eth_getTransactionReceipt", [tx_hash]).get("result") or {}
    address = Web3.to_checksum_address(receipt["contractAddress"]) if receipt.get("contractAddress") else None
    if not address:
        h.log.append("C deploy Token: no contract address on the real node; calls skipped")
        return
    c = Web3().eth.contract(address=Web3.to_checksum_address(address), abi=abi)
    transfer = c.encode_abi("transfer", [K1_EVM, 5 * 10**18])
    h.compare_all(R.evm_tx_reads(tx_hash, address, c.encode_abi("balanceOf", [ewoq])))
    tx_hash = s.send(s.sign(EWOQ_KEY, to=address, data=transfer, gas=100_000), "C call Token.transfer")
    if tx_hash is None:
        h.log.append("C call Token.transfer: refused by the real node; reads skipped")
        return
    h.compare_all(R.evm_tx_reads(tx_hash, address, c.encode_abi("balanceOf", [K1_EVM])))
    reads = [R.call(R.C, "eth_call", [{"to": address, "data": c.encode_abi("fail", [n])}, "latest"],
                    label=f"eth_call revert {n}") for n in range(4)]
    reads += [R.call(R.C, "eth_estimateGas", [{"from": ewoq, "to": address, "data": c.encode_abi("fail", [n])}],
                     label=f"eth_estimateGas revert {n}") for n in range(4)]
    reads += [R.call(R.C, "eth_call", [{"to": address, "data": c.encode_abi(f, [])}, "latest"], label=f"eth_call {f}")
              for f in ("name", "symbol", "decimals", "totalSupply")]
    reads += [R.call(R.C, "eth_call", [{"from": K1_EVM, "to": address, "data": transfer}, "latest"],
                     label="eth_call transfer more than held")]
    reads += [R.call(R.C, "eth_callDetailed", [{"to": address, "data": c.encode_abi("fail", [1])}, "latest"])]
    reads += [R.call(R.C, "eth_createAccessList", [{"from": ewoq, "to": address, "data": transfer}, "latest"])]
    h.compare_all(reads)
    _evm_rejects(h, s, ewoq, address)


def _evm_rejects(h: Harness, s: EvmSender, ewoq: str, token: str) -> None:
    """EVM txs both nodes must refuse (or hold back) with the same error."""
    n = s.nonce(ewoq)
    k2 = s.Account.from_key(K2_KEY).address
    bad: list[tuple[str, str]] = [
        ("nonce too low", s.sign(EWOQ_KEY, to=K1_EVM, nonce=max(n - 1, 0))),
        ("max fee below base fee", s.sign(EWOQ_KEY, to=K1_EVM, maxFeePerGas=0, maxPriorityFeePerGas=0)),
        ("tip above max fee", s.sign(EWOQ_KEY, to=K1_EVM, maxFeePerGas=GWEI, maxPriorityFeePerGas=2 * GWEI)),
        ("wrong chain id", s.sign(EWOQ_KEY, to=K1_EVM, chainId=1)),
        ("insufficient funds", s.sign(K2_KEY, to=K1_EVM, value=10**18, nonce=0)),
        ("intrinsic gas too low", s.sign(EWOQ_KEY, to=K1_EVM, gas=20000)),
        ("gas above block limit", s.sign(EWOQ_KEY, to=K1_EVM, gas=100_000_000)),
        ("fee cap above 100 AVAX", s.sign(EWOQ_KEY, to=K1_EVM, gasPrice=10**16, gas=21000)),
        ("legacy zero gas price", s.sign(EWOQ_KEY, to=K1_EVM, gasPrice=0)),
        ("huge data", s.sign(EWOQ_KEY, to=token, data="0x" + "00" * 140_000, gas=15_000_000)),
    ]
    pre155 = s.Account.from_key(EWOQ_KEY).sign_transaction(
        {"to": K1_EVM, "value": 0, "gas": 21000, "gasPrice": 50 * GWEI, "nonce": n})
    bad.append(("not replay-protected", "0x" + pre155.raw_transaction.hex().removeprefix("0x")))
    good = s.sign(EWOQ_KEY, to=K1_EVM, value=1)
    bad.append(("typed tx with a flipped byte", good[:-4] + ("00" if good[-4:-2] != "00" else "11") + good[-2:]))
    for label, raw in bad:
        s.send(raw, f"reject {label}", wait=False)
    h.compare_all([R.call(R.C, "eth_getBalance", [k2, "latest"]),
                   R.call(R.C, "eth_getTransactionCount", [ewoq, "pending"])])
    tx_hash = s.send(good, "C transfer after the rejects")
    if tx_hash:
        s.send(good, "reject already known", wait=False)


def warp(h: Harness) -> None:
    """sendWarpMessage from the C-Chain, then the message and the node's own signature on it."""
    s = EvmSender(h)
    payload = b"simnode differential warp".ljust(32, b"\0")
    data = "0xee5b48eb" + (32).to_bytes(32, "big").hex() + len(payload).to_bytes(32, "big").hex() + payload.hex()
    tx_hash = s.send(s.sign(EWOQ_KEY, to=WARP_PRECOMPILE, data=data, gas=200_000), "C sendWarpMessage")
    if not tx_hash:
        return
    h.compare_all(R.evm_tx_reads(tx_hash))
    receipt = rpc(h.differ.real_url + R.C, "eth_getTransactionReceipt", [tx_hash]).get("result") or {}
    logs = [lg for lg in receipt.get("logs", []) if lg["address"].lower() == WARP_PRECOMPILE]
    if not logs:
        h.log.append("C sendWarpMessage: no warp log on the real node")
        return
    # the warp API names a message by its ID in cb58 (a hex ID is refused)
    message_id = id_to_str(bytes.fromhex(logs[0]["topics"][2][2:]))
    h.compare_all([R.call(R.C, "warp_getMessage", [message_id]),
                   R.call(R.C, "warp_getMessageSignature", [message_id]),
                   R.call(R.C, "warp_getMessage", [logs[0]["topics"][2]]),
                   R.call(R.C, "warp_getMessage", [id_to_str(b"\x11" * 32)])])


SECTIONS: dict[str, Callable[[Harness], None]] = {
    "genesis": genesis, "corpus": corpus, "vectors": vectors, "fresh": fresh, "evm": evm, "warp": warp,
    "order": order,
}


def run_sections(differ: Differ, names: list[str]) -> list[str]:
    h = Harness(differ)
    for name in names:
        before = len(differ.divergences)
        t0 = time.monotonic()
        try:
            SECTIONS[name](h)
        except Exception as err:  # a section that breaks is reported, the next still runs
            h.log.append(f"section {name} stopped: {type(err).__name__}: {err}")
        h.log.append(f"section {name}: {len(differ.divergences) - before} divergences, "
                     f"{time.monotonic() - t0:.1f}s")
    return h.log
