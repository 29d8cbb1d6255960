"""`simnode proxy --upstream URL --record-scenario FILE` in front of a second simnode: every request
and websocket message passes unchanged, the session's state-changing requests (web3.py over HTTP
and over the websocket, dev methods, X- and P-Chain wallets) and the upstream's block boundaries are
recorded, and the file replayed on simnode gives the same txs in the same blocks and the same
balances."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import websockets
from eth_account import Account
from web3 import Web3

from simnode.config import NodeConfig
from simnode.node import Node
from simnode.scenario import load_scenario, replay
from simnode.scenario.target import run_on_target
from simnode.scenario.transport import HttpTransport

from .rpc import post
from .test_record_session import EWOQ, XP_STEPS, _send, deploy_token

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, ETH_HASH_BACKEND="pysha3")


def _start_proxy(upstream: str, path: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "simnode", "proxy", "--upstream", upstream, "--record-scenario",
                             str(path), "--http-port", "0"], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert "simnode proxy ready at " in line, line + proc.stderr.read()
    return proc, line.split("ready at ", 1)[1].split(",", 1)[0]


async def _over_websocket(ws_url: str, raw: str) -> tuple[str, dict]:
    """Send a signed tx over the websocket with a newHeads subscription open; (tx hash, the head)."""
    async with websockets.connect(ws_url) as ws:
        await ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe", "params": ["newHeads"]}))
        sub = json.loads(await ws.recv())["result"]
        await ws.send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "eth_sendRawTransaction", "params": [raw]}))
        tx_hash, head = None, None
        while tx_hash is None or head is None:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if msg.get("id") == 2:
                tx_hash = msg["result"]
            elif msg.get("params", {}).get("subscription") == sub:
                head = msg["params"]["result"]
        return tx_hash, head


def _balances(t: HttpTransport, c: list[str], xp: list[tuple[str, str]]) -> dict:
    out = {a: t.call("C", "eth_getBalance", [a, "latest"]) for a in c}
    for chain, addr in xp:
        if chain == "X":
            out[addr] = t.call("X", "avm.getBalance", {"address": addr, "assetID": "AVAX"})["balance"]
        else:
            out[addr] = t.call("P", "platform.getBalance", {"addresses": [addr]})["balance"]
    return out


def test_a_proxied_session_replays_to_the_same_txs_and_balances(tmp_path):
    path = tmp_path / "proxied.toml"
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="WARN", clock_mode="wall")) as up:
        proc, url = _start_proxy(up.url, path)
        try:
            # reads pass unchanged: the same bytes as from the upstream itself
            body = '{"jsonrpc":"2.0","id":7,"method":"eth_getBlockByNumber","params":["0x0",true]}'
            direct, proxied = post(f"{up.url}/ext/bc/C/rpc", body), post(f"{url}/ext/bc/C/rpc", body)
            assert proxied[:2] == direct[:2] and proxied[2]["Content-Type"] == direct[2]["Content-Type"]
            assert post(f"{url}/ext/bc/Q/rpc", body)[0] == 404  # and so do the upstream's errors
            w3 = Web3(Web3.HTTPProvider(f"{url}/ext/bc/C/rpc"))
            bob = Account.from_key(b"\x22" * 32)
            for _ in range(2):
                w3.eth.wait_for_transaction_receipt(_send(w3, EWOQ, bob.address, 10**18))
            assert deploy_token(w3, "Proxied", "PRX").status == 1
            signed = EWOQ.sign_transaction({"to": bob.address, "value": 5, "gas": 21000, "maxFeePerGas": 200 * 10**9,
                                            "maxPriorityFeePerGas": 10**9, "type": 2, "chainId": w3.eth.chain_id,
                                            "nonce": w3.eth.get_transaction_count(EWOQ.address)})
            ws_hash, head = asyncio.run(_over_websocket(url.replace("http", "ws") + "/ext/bc/C/ws",
                                                        "0x" + signed.raw_transaction.hex().removeprefix("0x")))
            assert w3.eth.wait_for_transaction_receipt(ws_hash).status == 1 and int(head["number"], 16) > 0
            w3.provider.make_request("evm_mine", [])
            xp = run_on_target({"network": {"seed": 9}, "accounts": {
                "alice": {"fund": {"X": "100 AVAX", "P": "100 AVAX"}}, "bob": {}}, "steps": XP_STEPS}, url)
            c_addresses = [EWOQ.address, bob.address, xp.accounts["bob"].c_address]
            xp_addresses = [(chain, a.address(chain)) for a in xp.accounts.values() for chain in ("X", "P")]
            upstream = _balances(HttpTransport(up.url), c_addresses, xp_addresses)
            heights = {c: v for c, v in xp.runner.heights().items()}
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)
        assert proc.returncode == 0, proc.stderr.read()

    scenario = load_scenario(path)
    assert scenario.network["recorded_by"] == "proxy" and scenario.network["network_id"] == 12345
    requests = [s for s in scenario.steps if s.kind == "request"]
    blocks = [s for s in scenario.steps if s.kind == "block"]
    methods = {s.raw["method"] for s in requests}
    assert {"eth_sendRawTransaction", "evm_mine", "avm.issueTx", "platform.issueTx", "avax.issueTx"} <= methods
    assert ws_hash in [json.loads(s.raw["result"]) for s in requests if "result" in s.raw]  # the websocket's tx too
    assert not {m for m in methods if m.startswith(("eth_get", "eth_subscribe"))}
    assert {c: max(b.raw["height"] for b in blocks if b.raw["chain"] == c) for c in ("P", "X", "C")} == heights

    replayed: dict = {}

    def read(handle) -> None:
        replayed.update(_balances(HttpTransport(handle.url), c_addresses, xp_addresses))
    result = replay(path, progress=False, serve=read)
    assert replayed == upstream
    assert result.stats.blocks == {c: h for c, h in heights.items()}
    summary = result.stats.summary()
    assert "blocks have other IDs" not in summary or "same txs" in summary


def test_the_avalanchejs_flow_through_the_proxy_replays(tmp_path):
    """avalanchejs' X↔P round trip (crosschain_xp.mjs) through the proxy: recorded and replayed to the
    same txs and balances."""
    from .js import require_js, run_js

    require_js()
    path = tmp_path / "js.toml"
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="WARN", clock_mode="wall")) as up:
        proc, url = _start_proxy(up.url, path)
        try:
            out = run_js("crosschain_xp.mjs", url, timeout=120)
            addresses = [("X", a) for a in (out["addresses"]["ewoqX"], out["addresses"]["kX"])] + \
                [("P", a) for a in (out["addresses"]["ewoqP"], out["addresses"]["kP"])]
            upstream = _balances(HttpTransport(up.url), [], addresses)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)
    methods = [s.raw["method"] for s in load_scenario(path).steps if s.kind == "request"]
    assert methods.count("avm.issueTx") == 3 and methods.count("platform.issueTx") == 2
    replayed: dict = {}
    replay(path, progress=False, serve=lambda h: replayed.update(_balances(HttpTransport(h.url), [], addresses)))
    assert replayed == upstream
