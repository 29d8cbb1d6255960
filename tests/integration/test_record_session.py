"""`simnode run --record-scenario FILE`: a wall-clock session driven by real clients (web3.py on the
C-Chain with dev methods, X- and P-Chain wallets over HTTP, /ext/simnode) is recorded, and
`simnode replay FILE` reproduces its chains: the golden trace of the live node and of the replay
are equal. The file holds no secret; SIGTERM flushes it; after a kill -9 it still replays, short
of at most the last 10 blocks."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from eth_account import Account
from web3 import Web3

from simnode.scenario import load_scenario, replay
from simnode.scenario.recorder import FLUSH_BLOCKS
from simnode.scenario.replay import session_trace
from simnode.scenario.target import run_on_target
from simnode.scenario.golden_trace import compare
from simnode.scenario.transport import HttpTransport

from .rpc import call

ROOT = Path(__file__).resolve().parents[2]
EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
TOKEN = json.loads((ROOT / "scenarios" / "contracts" / "ScenarioToken.json").read_text())
# the X/P part of the session: quickstart's transfers, exports and asset, as a wallet sends them
XP_STEPS = [
    {"kind": "transfer", "chain": "X", "from": "alice", "to": "bob", "amount": "2 AVAX"},
    {"kind": "transfer", "chain": "P", "from": "alice", "to": "bob", "amount": "3 AVAX"},
    {"kind": "export", "from_chain": "X", "to_chain": "P", "from": "alice", "to": "bob", "amount": "10 AVAX"},
    {"kind": "export", "from_chain": "P", "to_chain": "C", "from": "bob", "amount": "5 AVAX"},
    {"kind": "create_asset", "from": "alice", "name": "Rec Coin", "symbol": "REC", "supply": 1000},
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_recording(path: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = dict(os.environ, ETH_HASH_BACKEND="pysha3")
    proc = subprocess.Popen([sys.executable, "-m", "simnode", "run", "--ephemeral", "--http-port", str(port),
                             "--log-level", "WARN", "--record-scenario", str(path), *extra],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    while not lines or "simnode ready" not in lines[-1]:  # a preloaded scenario prints its lines first
        lines.append(proc.stdout.readline())
        if not lines[-1]:
            proc.kill()
            raise AssertionError("".join(lines) + proc.stderr.read())
    assert any(f"recording the session into {path}" in line for line in lines)
    return proc, f"http://127.0.0.1:{port}"


def _send(w3: Web3, account, to: str, value: int, nonce: int | None = None, data: bytes = b"", gas: int = 21000) -> str:
    tx = account.sign_transaction({
        "to": to, "value": value, "gas": gas, "maxFeePerGas": 200 * 10**9, "maxPriorityFeePerGas": 10**9,
        "nonce": w3.eth.get_transaction_count(account.address, "pending") if nonce is None else nonce,
        "chainId": w3.eth.chain_id, "type": 2, "data": data})
    return "0x" + w3.eth.send_raw_transaction(tx.raw_transaction).hex().removeprefix("0x")


def deploy_token(w3: Web3, name: str, symbol: str):
    """ScenarioToken deployed by ewoq (signed here); its receipt."""
    token = w3.eth.contract(abi=TOKEN["abi"], bytecode=TOKEN["bytecode"])
    deploy = token.constructor(name, symbol, 10**24).build_transaction({
        "from": EWOQ.address, "nonce": w3.eth.get_transaction_count(EWOQ.address), "gas": 2_000_000,
        "maxFeePerGas": 200 * 10**9, "maxPriorityFeePerGas": 10**9})
    return w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(EWOQ.sign_transaction(deploy).raw_transaction))


def drive_session(url: str) -> dict:
    """A session as clients make it; returns what the test checks afterwards."""
    w3 = Web3(Web3.HTTPProvider(f"{url}/ext/bc/C/rpc"))
    dev = w3.provider.make_request
    bob = Account.from_key(b"\x11" * 32)
    for _ in range(3):
        w3.eth.wait_for_transaction_receipt(_send(w3, EWOQ, bob.address, 10**18))
    receipt = deploy_token(w3, "Recorded", "REC")
    deployed = w3.eth.contract(address=receipt.contractAddress, abi=TOKEN["abi"])
    transfer = deployed.functions.transfer(bob.address, 5 * 10**18).build_transaction({
        "from": EWOQ.address, "nonce": w3.eth.get_transaction_count(EWOQ.address), "gas": 100_000,
        "maxFeePerGas": 200 * 10**9, "maxPriorityFeePerGas": 10**9})
    w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(EWOQ.sign_transaction(transfer).raw_transaction))
    # two txs in one block, mined by hand
    assert dev("evm_setAutomine", [False])["result"] is None
    nonce = w3.eth.get_transaction_count(EWOQ.address)
    _send(w3, EWOQ, bob.address, 1, nonce)
    _send(w3, EWOQ, bob.address, 2, nonce + 1)
    dev("evm_mine", [])
    dev("evm_setAutomine", [True])
    assert len(w3.eth.get_block("latest").transactions) == 2
    # time travel, a snapshot taken and reverted, state edits, impersonation, a node-held key
    dev("evm_increaseTime", [3600])
    dev("evm_mine", [])
    snap = dev("evm_snapshot", [])["result"]
    w3.eth.wait_for_transaction_receipt(_send(w3, EWOQ, bob.address, 7))
    assert dev("evm_revert", [snap])["result"] is True
    dev("anvil_setBalance", [bob.address, hex(50 * 10**18)])
    dev("anvil_impersonateAccount", [bob.address])
    sent = dev("eth_sendTransaction", [{"from": bob.address, "to": EWOQ.address, "value": hex(10**17)}])["result"]
    w3.eth.wait_for_transaction_receipt(sent)
    dev("anvil_stopImpersonatingAccount", [bob.address])
    node_held = w3.eth.accounts[1]
    dev("anvil_setBalance", [node_held, hex(10**18)])
    w3.eth.wait_for_transaction_receipt(dev("eth_sendTransaction", [{"from": node_held, "to": bob.address,
                                                                     "value": hex(10**16)}])["result"])
    call(f"{url}/ext/simnode", "simnode.advanceTime", {"seconds": "60"})
    call(f"{url}/ext/simnode", "simnode.mine", {"blocks": "2"})
    # X and P: wallets built here from the public API, signed, sent with avm/platform/avax.issueTx
    xp = run_on_target({"network": {"seed": 7}, "accounts": {"alice": {"fund": {"X": "100 AVAX", "P": "100 AVAX"}},
                                                             "bob": {}},
                        "steps": XP_STEPS}, url)
    assert xp.stats.txs == len(XP_STEPS) + 4  # two funding txs, and each export's import
    return {"keys": [EWOQ.key.hex(), bob.key.hex(), *(a.key_hex for a in xp.accounts.values())]}


def _stop(proc: subprocess.Popen, sig: int) -> None:
    proc.send_signal(sig)
    proc.wait(30)


def test_a_recorded_session_replays_to_the_same_golden_trace(tmp_path):
    path = tmp_path / "session.toml"
    proc, url = start_recording(path)
    try:
        seen = drive_session(url)
        time.sleep(1.3)  # the recorder writes at least once a second
        live = session_trace(HttpTransport(url), load_scenario(path))
        # one more block, then SIGTERM at once: what the recorder held goes to the file on the way out
        w3 = Web3(Web3.HTTPProvider(f"{url}/ext/bc/C/rpc"))
        last = w3.eth.wait_for_transaction_receipt(_send(w3, EWOQ, EWOQ.address, 1))
        _stop(proc, signal.SIGTERM)
        assert proc.returncode == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    text = path.read_text()
    for key in seen["keys"]:  # no secret lands in the file
        assert key.removeprefix("0x") not in text.lower()
    scenario = load_scenario(path)
    methods = {s.raw["method"] for s in scenario.steps if s.kind == "request"}
    assert {"eth_sendRawTransaction", "eth_sendTransaction", "evm_mine", "evm_setAutomine", "evm_increaseTime",
            "evm_snapshot", "evm_revert", "anvil_setBalance", "anvil_impersonateAccount", "simnode.advanceTime",
            "simnode.mine", "avm.issueTx", "platform.issueTx", "avax.issueTx"} <= methods
    assert not {m for m in methods if m.startswith(("eth_get", "eth_call", "eth_estimate", "avm.get", "platform.get"))}
    assert scenario.network["recorded_by"] == "node" and scenario.network["clock"] == "wall"

    result = replay(path, with_trace=True, progress=False)
    got = result.trace
    assert got is not None
    # everything the live node had when its trace was taken, then the block SIGTERM flushed
    last_height = last.blockNumber
    assert got["chains"]["C"]["blocks"][last_height][1] == "0x" + last.blockHash.hex().removeprefix("0x")
    assert got["txs"][-1][2] == "0x" + last.transactionHash.hex().removeprefix("0x")
    got["chains"]["C"]["blocks"] = got["chains"]["C"]["blocks"][:last_height]
    got["chains"]["C"]["height"] = last_height - 1
    got["txs"] = got["txs"][:-1]
    got["time"] = live["time"]
    assert compare(got, live) is None
    assert got == live
    for chain in ("P", "X", "C"):
        assert live["chains"][chain]["height"] > 0


@pytest.mark.parametrize(("clock", "block_time"), [("wall", "0"), ("virtual", "0"), ("wall", "0.3")])
def test_replay_of_the_recording_matches_on_the_http_transport_and_a_check(tmp_path, clock, block_time):
    """A short recording, on either clock, with automine or interval blocks: the replay's own golden
    trace, written and checked again."""
    path = tmp_path / "short.toml"
    proc, url = start_recording(path, "--clock", clock, "--block-time", block_time)
    try:
        w3 = Web3(Web3.HTTPProvider(f"{url}/ext/bc/C/rpc"))
        for i in range(4):
            w3.eth.wait_for_transaction_receipt(_send(w3, EWOQ, EWOQ.address, i))
            call(f"{url}/ext/simnode", "simnode.advanceTime", {"seconds": "5"})
        time.sleep(1.2)
        live = session_trace(HttpTransport(url), load_scenario(path))
    finally:
        _stop(proc, signal.SIGINT)
    golden = tmp_path / "golden.json"
    first = replay(path, record=golden, progress=False, transport="http")
    assert first.trace is not None and compare(first.trace, live) is None
    again = replay(path, check=golden, progress=False)
    assert again.stats.blocks["C"] == 4


def test_a_preloaded_scenario_with_an_l1_and_the_icm_relayer_replays_exactly(tmp_path):
    """`run --scenario icm_pingpong.toml --record-scenario F`: the preloaded steps, an L1, Warp messages
    and the in-process relayer's deliveries, recorded on the wall clock and rebuilt the same."""
    path = tmp_path / "icm.toml"
    proc, url = start_recording(path, "--scenario", str(ROOT / "scenarios" / "icm_pingpong.toml"))
    try:
        time.sleep(1.2)
        live = session_trace(HttpTransport(url), load_scenario(path))
    finally:
        _stop(proc, signal.SIGTERM)
    l1s = [c for c in live["chains"] if c not in ("P", "X", "C")]
    assert len(l1s) == 1 and live["chains"][l1s[0]]["height"] >= 5
    result = replay(path, with_trace=True, progress=False)
    assert result.trace is not None and compare(result.trace, live) is None


def test_a_kill_9_loses_at_most_the_last_blocks_and_the_file_still_replays(tmp_path):
    path = tmp_path / "killed.toml"
    proc, url = start_recording(path)
    try:
        w3 = Web3(Web3.HTTPProvider(f"{url}/ext/bc/C/rpc"))
        nonce = w3.eth.get_transaction_count(EWOQ.address)
        for i in range(45):  # one block each (automine), as fast as the node takes them
            _send(w3, EWOQ, EWOQ.address, i, nonce + i)
        deadline = time.monotonic() + 10
        while w3.eth.block_number < 45 and time.monotonic() < deadline:
            time.sleep(0.005)
        live = [w3.eth.get_block(n).hash.hex().removeprefix("0x") for n in range(w3.eth.block_number + 1)]
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    scenario = load_scenario(path)  # whole step tables only: it loads
    result = replay(scenario, with_trace=True, progress=False)
    assert result.trace is not None
    replayed = [b[1].removeprefix("0x") for b in result.trace["chains"]["C"]["blocks"]]
    assert replayed == live[:len(replayed)]
    assert len(live) - len(replayed) <= FLUSH_BLOCKS


def test_recording_refuses_a_data_dir_with_chains(tmp_path):
    env = dict(os.environ, ETH_HASH_BACKEND="pysha3")
    (tmp_path / "data" / "db").mkdir(parents=True)
    out = subprocess.run([sys.executable, "-m", "simnode", "run", "--data-dir", str(tmp_path / "data"),
                          "--http-port", "0", "--record-scenario", str(tmp_path / "x.toml")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert "--record-scenario needs a fresh data dir" in out.stderr
    assert not (tmp_path / "x.toml").exists()


@pytest.mark.parametrize("where", ["C", "X"])
def test_recorded_methods_cover_every_state_changing_method(where):
    """Every dev method an EVM chain registers is either recorded or a read (a new one must be
    classified), and the gorilla writes exist where the recorder looks for them."""
    from simnode.config import NodeConfig
    from simnode.node import Node
    from simnode.scenario.recorder import ETH_WRITES, GORILLA_WRITES

    reads = {"anvil_getAutomine", "hardhat_getAutomine", "anvil_getIntervalMining", "anvil_nodeInfo",
             "anvil_metadata", "hardhat_metadata", "anvil_dumpState", "hardhat_dumpState"}
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="WARN")) as h:
        chain = h.node.chain_by_alias(where)
        endpoints = h.call(h.node.chain_endpoints, chain)
        if where == "C":
            names = set(endpoints["/rpc"].method_names())
            dev = {n for n in names if n.startswith(("evm_", "anvil_", "hardhat_", "tenderly_"))}
            assert dev - reads == dev & ETH_WRITES
            assert ETH_WRITES <= names
            assert "avax.issueTx" in endpoints["/avax"].method_names()
        else:
            assert "avm.issueTx" in endpoints[""].method_names()
            assert "wallet.issueTx" in endpoints["/wallet"].method_names()
        assert {m for m in GORILLA_WRITES if m.startswith("simnode.")} <= set(h.node.node_endpoints["simnode"].method_names())


def test_avalanchejs_flows_recorded_and_replayed(tmp_path):
    """The avalanchejs tests' X↔P round trip (crosschain_xp.mjs), as a wallet sends it, recorded and replayed."""
    from .js import require_js, run_js

    require_js()
    path = tmp_path / "js.toml"
    proc, url = start_recording(path)
    try:
        assert run_js("crosschain_xp.mjs", url, timeout=120)
        time.sleep(1.2)
        live = session_trace(HttpTransport(url), load_scenario(path))
    finally:
        _stop(proc, signal.SIGTERM)
    methods = {s.raw["method"] for s in load_scenario(path).steps if s.kind == "request"}
    assert {"avm.issueTx", "platform.issueTx"} <= methods
    result = replay(path, with_trace=True, progress=False)
    assert result.trace is not None and compare(result.trace, live) is None
    assert live["chains"]["P"]["height"] >= 2 and live["chains"]["X"]["height"] >= 3
