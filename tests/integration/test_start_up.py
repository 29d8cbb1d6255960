"""Start-up semantics: a chain that is still loading answers as AvalancheGo's do while they
bootstrap (503 "not done bootstrapping", `isBootstrapped: false`, `/ext/health` unhealthy), and
`simnode run` prints its ready line only once every chain is bootstrapped and the node healthy."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import websockets

import simnode.node
from simnode.config import NodeConfig
from simnode.node import Node, NodeThread
from simnode.vms.primary import DeferredChain, build_primary_chains

from .rpc import call

ROOT = Path(__file__).resolve().parents[2]
NOT_BOOTSTRAPPED = "API call rejected because chain is not done bootstrapping\n"
# a real node's answers while it starts (scripts/record_avalanchego_start.py)
REAL_START = json.loads((ROOT / "tests" / "vectors" / "avalanchego_bootstrap_health.json").read_text())["answers"]


def real_answer(path: str, method: str, test: object = lambda body: True) -> dict:
    return next(a for a in REAL_START if a["path"] == path and a["http_method"] == method and test(a["reply"]))


def http(method: str, url: str, body: dict | None = None) -> tuple[int, str]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def rpc_body(method: str, params: object) -> dict:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


@pytest.fixture()
def held_c_chain(monkeypatch):
    """A node whose C-Chain load waits until the test releases it (its VM is "slow to import")."""
    loading, release = threading.Event(), threading.Event()

    def held(load):
        def wait_then_load():
            loading.set()
            if not release.wait(60):
                raise TimeoutError("the test never released the C-Chain")
            return load()
        return wait_then_load

    def primary_chains(context):
        return [dataclasses.replace(c, load=held(c.load)) if isinstance(c, DeferredChain) else c
                for c in build_primary_chains(context)]

    monkeypatch.setattr(simnode.node, "build_primary_chains", primary_chains)
    handle = NodeThread(Node(NodeConfig(http_port=0, ephemeral=True)))
    starting = threading.Thread(target=handle.start)
    starting.start()
    try:
        assert loading.wait(60), "the node never began loading the C-Chain"
        yield handle, release, starting
    finally:
        release.set()
        starting.join(60)
        handle.stop()


def test_a_loading_chain_answers_503_and_the_node_is_unhealthy_until_it_is_up(held_c_chain):
    handle, release, starting = held_c_chain
    url = handle.node.url
    # the port answers: X and P are up, C is loading
    for chain, up in (("X", True), ("P", True), ("C", False)):
        assert call(url + "/ext/info", "info.isBootstrapped", {"chain": chain}) == {"isBootstrapped": up}
    for path in ("/ext/bc/C/rpc", "/ext/bc/C/avax", "/ext/bc/C/ws"):
        assert http("POST", url + path, rpc_body("eth_chainId", [])) == (503, NOT_BOOTSTRAPPED)
    # as a real node answers while it starts: every chain's check and `bootstrapped` not yet run
    real = real_answer("/ext/health", "GET", lambda reply: all(f'"{c}":{{"error"' in reply for c in "CPX"))
    real_report = json.loads(real["reply"])
    status, body = http("GET", url + "/ext/health")
    report = json.loads(body)
    assert status == real["status"] == 503 and report["healthy"] is real_report["healthy"] is False
    assert sorted(report["checks"]) == sorted(real_report["checks"])
    for name in ("C", "P", "X", "bootstrapped"):
        assert report["checks"][name] == real_report["checks"][name] == {
            "error": "not yet run", "timestamp": "0001-01-01T00:00:00Z", "duration": 0}
    readiness = real_answer("/ext/health/readiness", "GET", lambda reply: "not yet run" in reply)
    assert http("GET", url + "/ext/health/readiness") == (readiness["status"], readiness["reply"])
    assert http("GET", url + "/ext/health/liveness") == (200, real_answer("/ext/health/liveness", "GET")["reply"])
    assert call(url + "/ext/health", "health.health")["healthy"] is False
    assert http("POST", url + "/ext/bc/X", rpc_body("avm.getHeight", {}))[0] == 200

    release.set()
    starting.join(60)  # Node.start returns once every chain is up
    assert call(url + "/ext/info", "info.isBootstrapped", {"chain": "C"}) == {"isBootstrapped": True}
    status, body = http("GET", url + "/ext/health")
    assert status == 200 and json.loads(body)["healthy"] is True
    assert json.loads(http("POST", url + "/ext/bc/C/rpc", rpc_body("eth_chainId", []))[1])["result"] == "0xa868"


def test_the_ready_line_comes_once_every_chain_is_bootstrapped_and_the_node_healthy():
    """Also the one test of a node as `simnode run` serves it, with aiohttp's client not loaded
    (lazy_package): the C-Chain over HTTP and its websocket answer."""
    proc = subprocess.Popen([sys.executable, "-m", "simnode", "run", "--http-port", "0", "--ephemeral",
                             "--log-level", "ERROR"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                            env={**os.environ, "ETH_HASH_BACKEND": "pysha3"})
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode()
        assert line.startswith("simnode ready: network local (12345) at http://127.0.0.1:"), line
        base = line.split(" at ")[1].split(" ")[0]
        status, body = http("GET", base + "/ext/health")
        assert status == 200 and json.loads(body)["healthy"] is True
        for chain in ("X", "P", "C"):
            assert call(base + "/ext/info", "info.isBootstrapped", {"chain": chain}) == {"isBootstrapped": True}
        assert json.loads(http("POST", base + "/ext/bc/C/rpc", rpc_body("eth_blockNumber", []))[1])["result"] == "0x0"

        async def over_websocket() -> dict:
            async with websockets.connect(base.replace("http://", "ws://") + "/ext/bc/C/ws") as ws:
                await ws.send(json.dumps(rpc_body("eth_chainId", [])))
                return json.loads(await ws.recv())

        assert asyncio.run(over_websocket())["result"] == "0xa868"
    finally:
        proc.terminate()
        assert proc.wait(20) == 0
