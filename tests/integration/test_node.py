"""The node over real HTTP: every info method, the admin methods, the envelope rules, restart."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from simnode import compiled
from simnode.config import NodeConfig
from simnode.crypto import bls
from simnode.errors import NodeError
from simnode.node import Node

from .rpc import RPCFailure, call, post

X_ID = "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"
C_ID = "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC"
P_ID = "11111111111111111111111111111111LpoYY"


@pytest.fixture()
def node(tmp_path):
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=tmp_path / "data", api_admin_enabled=True)) as handle:
        yield handle


def info(node, method, params=None):
    return call(node.url + "/ext/info", "info." + method, params)


def admin(node, method, params=None):
    return call(node.url + "/ext/admin", "admin." + method, params)


def test_every_info_method(node):
    assert info(node, "getNetworkID") == {"networkID": "12345"}
    assert info(node, "getNetworkName") == {"networkName": "local"}
    assert info(node, "getBlockchainID", {"alias": "X"}) == {"blockchainID": X_ID}
    assert info(node, "getBlockchainID", {"alias": "C"}) == {"blockchainID": C_ID}
    assert info(node, "getBlockchainID", {"alias": "platform"}) == {"blockchainID": P_ID}
    with pytest.raises(RPCFailure, match="there is no ID with alias: Q"):
        info(node, "getBlockchainID", {"alias": "Q"})
    for chain in ("X", "P", "C", X_ID):
        assert info(node, "isBootstrapped", {"chain": chain}) == {"isBootstrapped": True}
    with pytest.raises(RPCFailure, match="argument 'chain' not given"):
        info(node, "isBootstrapped", {})
    with pytest.raises(RPCFailure, match="there is no chain with alias/ID 'Z'"):
        info(node, "isBootstrapped", {"chain": "Z"})

    version = info(node, "getNodeVersion")
    assert list(version) == ["version", "databaseVersion", "rpcProtocolVersion", "gitCommit", "vmVersions"]
    assert version["version"] == "avalanchego/1.14.2" and version["rpcProtocolVersion"] == "45"

    node_id = info(node, "getNodeID")
    assert node_id["nodeID"] == "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"
    pk = bytes.fromhex(node_id["nodePOP"]["publicKey"][2:])
    pop = bytes.fromhex(node_id["nodePOP"]["proofOfPossession"][2:])
    assert len(pk) == 48 and len(pop) == 96 and bls.verify_possession(pk, pop)

    assert info(node, "getNodeIP")["ip"].startswith("127.0.0.1:")
    vms = info(node, "getVMs")
    assert vms["vms"]["jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq"] == ["avm"]
    assert vms["vms"]["mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6"] == ["evm"]
    assert vms["vms"]["rWhpuQPF1kb72esV2momhMuTYGkEb1oL29pt2EBXWmSy4kxnT"] == ["platform"]
    assert vms["fxs"]["spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ"] == "secp256k1fx"

    peers = info(node, "peers")
    assert peers["numPeers"] == "4" and len(peers["peers"]) == 4
    assert {p["nodeID"] for p in peers["peers"]} == {
        "NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ", "NodeID-NFBbbJ4qCmNaCzeW7sxErhvWqvEQMnYcN",
        "NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu", "NodeID-P7oB2McjBGgW2NXXWVYjV8JEDFoW9xDE5"}
    one = info(node, "peers", {"nodeIDs": ["NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ"]})
    assert one["numPeers"] == "1"

    assert info(node, "uptime") == {"rewardingStakePercentage": "100.0000", "weightedAveragePercentage": "100.0000"}
    assert info(node, "acps") == {"acps": {}}
    upgrades = info(node, "upgrades")
    assert upgrades["durangoTime"] == "2020-12-05T05:00:00Z" and upgrades["heliconTime"] == "9999-12-01T00:00:00Z"
    assert upgrades["apricotPhase4MinPChainHeight"] == 0 and upgrades["graniteEpochDuration"] == 30000000000
    assert list(upgrades)[0] == "apricotPhase1Time" and list(upgrades)[-1] == "heliconTime"
    fee = info(node, "getTxFee")
    assert fee["txFee"] == "1000000" and fee["createSubnetTxFee"] == "100000000"
    assert fee["addPrimaryNetworkValidatorFee"] == "0"


def test_envelope_rules_over_http(node):
    url = node.url + "/ext/info"
    status, body, headers = post(url, '[{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}]')
    assert status == 200 and json.loads(body)["error"]["code"] == -32700
    assert headers["node-id"] == "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"
    status, body, _ = post(url, '{"jsonrpc":"2.0","method":"info.getNetworkID"}')
    assert (status, body) == (200, b"")
    status, body, _ = post(url, '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}', content_type="text/plain")
    assert (status, body) == (415, b"rpc: unrecognized Content-Type: text/plain")
    status, body, _ = post(url, "", method="GET")
    assert status == 405
    status, body, _ = post(url, '{"jsonrpc":"2.0","id":"a","method":"info.GetNetworkID"}')
    assert json.loads(body) == {"jsonrpc": "2.0", "error": {"code": -32000, "message":
                                "method must start with a non-uppercase letter", "data": None}, "id": "a"}
    status, body, _ = post(url, '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}')
    assert body == b'{"jsonrpc":"2.0","result":{"networkID":"12345"},"id":1}\n'
    status, body, _ = post(node.url + "/ext/nothing", "{}")
    assert (status, body) == (404, b"404 page not found\n")


def test_chain_routes_exist_by_alias_and_id(node):
    for path in ("/ext/bc/X", "/ext/X", "/ext/avm", "/ext/bc/avm", f"/ext/bc/{X_ID}",
                 "/ext/bc/P", "/ext/P", "/ext/platform", f"/ext/bc/{P_ID}"):
        status, body, _ = post(node.url + path, '{"jsonrpc":"2.0","id":1,"method":"nosuch.method"}')
        assert status == 200, path
        assert json.loads(body)["error"]["message"] == 'rpc: can\'t find service "nosuch.Method"'
    status, body, _ = post(node.url + "/ext/bc/C/rpc", '{"jsonrpc":"2.0","id":1,"method":"nosuch_method","params":[]}')
    assert json.loads(body)["error"]["code"] == -32601


def test_health(node):
    status, body, _ = post(node.url + "/ext/health", "", method="GET")
    assert status == 200 and json.loads(body)["healthy"] is True
    assert call(node.url + "/ext/health", "health.health")["healthy"] is True


def test_admin_methods(node):
    url = node.url
    assert admin(node, "getChainAliases", {"chain": X_ID}) == {"aliases": ["X", "avm", X_ID]}
    assert admin(node, "aliasChain", {"chain": "X", "alias": "myX"}) == {}
    assert info(node, "getBlockchainID", {"alias": "myX"}) == {"blockchainID": X_ID}
    assert "myX" in admin(node, "getChainAliases", {"chain": X_ID})["aliases"]
    status, _, _ = post(url + "/ext/bc/myX", '{"jsonrpc":"2.0","id":1,"method":"a.b"}')
    assert status == 200
    assert admin(node, "alias", {"endpoint": "/ext/info", "alias": "myinfo"}) == {}
    assert call(url + "/ext/myinfo", "info.getNetworkID") == {"networkID": "12345"}
    with pytest.raises(RPCFailure, match="alias length is too long"):
        admin(node, "alias", {"endpoint": "/ext/info", "alias": "a" * 513})

    levels = admin(node, "getLoggerLevel", {})["loggerLevels"]
    assert levels["main"] == {"logLevel": "INFO", "displayLevel": "INFO"}
    assert admin(node, "setLoggerLevel", {"loggerName": "main", "logLevel": "debug"})["loggerLevels"]["main"]["logLevel"] == "DEBUG"
    with pytest.raises(RPCFailure, match="need to specify either displayLevel or logLevel"):
        admin(node, "setLoggerLevel", {"loggerName": "main"})
    with pytest.raises(RPCFailure, match="unknown log level"):
        admin(node, "setLoggerLevel", {"logLevel": "LOUD"})
    admin(node, "setLoggerLevel", {"loggerName": "main", "logLevel": "INFO"})

    assert admin(node, "loadVMs") == {"newVMs": {}}
    assert admin(node, "startCPUProfiler") == {}
    with pytest.raises(RPCFailure, match="cpu profiler already running"):
        admin(node, "startCPUProfiler")
    assert admin(node, "stopCPUProfiler") == {}
    with pytest.raises(RPCFailure, match="cpu profiler doesn't exist"):
        admin(node, "stopCPUProfiler")
    assert admin(node, "memoryProfile") == {}
    assert admin(node, "lockProfile") == {}
    profiles = node.node.data_dir / "profiles"
    for name in ("cpu.profile", "mem.profile", "lock.profile"):
        assert (profiles / name).stat().st_size > 0


def test_admin_disabled_by_default(tmp_path):
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as n:
        status, body, _ = post(n.url + "/ext/admin", '{"jsonrpc":"2.0","id":1,"method":"admin.loadVMs"}')
        assert status == 404 and b"--api-admin-enabled" in body


def test_restart_on_same_data_dir_keeps_state(tmp_path):
    config = NodeConfig(http_port=0, data_dir=tmp_path / "d")
    with Node.start_in_thread(config) as n:
        first = n.node.genesis_time
        seq = n.node.store.seq
        chains = sorted(n.node.chains)
    with Node.start_in_thread(config) as n:
        assert n.node.genesis_time == first
        assert n.node.store.seq == seq
        assert sorted(n.node.chains) == chains
        assert call(n.url + "/ext/info", "info.getBlockchainID", {"alias": "X"}) == {"blockchainID": X_ID}


def test_second_node_on_a_held_data_dir_fails_clearly(tmp_path):
    config = NodeConfig(http_port=0, data_dir=tmp_path / "d")
    with Node.start_in_thread(config):
        with pytest.raises(NodeError, match="cannot open the database"):
            Node.start_in_thread(config)


def test_ephemeral_dir_removed_on_exit():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as n:
        path = n.node.data_dir
        assert path.exists()
    assert not path.exists()


def test_cli_prints_ready_line_and_stops_on_sigterm(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "simnode", "run", "--http-port", "0", "--ephemeral",
                             "--log-level", "ERROR"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[2])
    try:
        line = proc.stdout.readline()
        assert line.startswith("simnode ready: network local (12345) at http://127.0.0.1:")
        url = line.split(" at ", 1)[1].split(" ", 1)[0]
        assert call(url + "/ext/info", "info.getNetworkID") == {"networkID": "12345"}
        # a new user learns of the explorer and the docs page from the ready line itself, and
        # which core runs (compiled.py)
        assert line.rstrip().endswith(f", explorer {url}/explorer/, docs {url}/docs (core: {compiled.core()})"), line
        for page in (f"{url}/explorer/", f"{url}/docs"):
            with urllib.request.urlopen(page, timeout=10) as resp:
                assert resp.status == 200 and resp.headers["content-type"].startswith("text/html"), page
    finally:
        proc.terminate()
        deadline = time.time() + 10
        while proc.poll() is None and time.time() < deadline:
            time.sleep(0.05)
    assert proc.returncode == 0


def test_whole_node_time_and_snapshots():
    config = NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", start_time_ms=1_800_000_000_000)
    with Node.start_in_thread(config) as n:
        url = n.url + "/ext/simnode"
        assert call(url, "simnode.getTime")["timestamp"] == "1800000000"
        assert call(url, "simnode.advanceTime", {"seconds": "90"})["timestamp"] == "1800000090"
        assert call(url, "simnode.setTime", {"timestamp": 1800003600})["time"] == "2027-01-15T09:00:00Z"
        with pytest.raises(RPCFailure, match="cannot move time backwards"):
            call(url, "simnode.setTime", {"timestamp": 1800000000})
        store = n.node.store
        first = call(url, "simnode.snapshot")["id"]

        def write(value):
            b = store.batch()
            b.put_obj(b"X/probe", value)
            b.commit()

        n.call(write, 1)
        second = call(url, "simnode.snapshot")["id"]
        n.call(write, 2)
        assert call(url, "simnode.revert", {"id": second}) == {"reverted": True}
        assert store.get_obj(b"X/probe") == 1
        assert call(url, "simnode.revert", {"id": first}) == {"reverted": True}
        assert store.get_obj(b"X/probe") is None
        with pytest.raises(RPCFailure, match="unknown snapshot"):
            call(url, "simnode.revert", {"id": second})
        assert "blocks" in call(url, "simnode.mine", {"blocks": 2})


def test_cli_reports_a_missing_genesis_clearly():
    proc = subprocess.run([sys.executable, "-m", "simnode", "run", "--network-id", "1", "--ephemeral"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.strip() == "simnode: no mainnet genesis file is shipped with simnode"


def test_fuji_network_ids():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, network_id=5)) as n:
        assert call(n.url + "/ext/info", "info.getNetworkName") == {"networkName": "fuji"}
        assert call(n.url + "/ext/info", "info.getBlockchainID", {"alias": "X"}) == {
            "blockchainID": "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm"}
        assert call(n.url + "/ext/info", "info.getTxFee")["createAssetTxFee"] == "10000000"
        config = call(n.url + "/ext/bc/C/rpc", "eth_getChainConfig", [])
        assert config["chainId"] == 43113 and (config["berlinBlock"], config["londonBlock"]) == (184985, 805078)
        assert config["durangoBlockTimestamp"] == config["shanghaiTime"] == 1707840000  # 2024-02-13T16:00Z


def test_evm_revert_restores_every_chain():
    """evm_snapshot/evm_revert share the node-wide registry: X and P come back too."""
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as n:
        rpc = n.url + "/ext/bc/C/rpc"
        sid = call(rpc, "evm_snapshot", [])
        store = n.node.store

        def write():
            b = store.batch()
            b.put_obj(b"X/probe", 1)
            b.commit()

        n.call(write)
        call(rpc, "evm_mine", [])
        assert call(rpc, "eth_blockNumber", []) == "0x1"
        assert call(rpc, "evm_revert", [sid]) is True
        assert call(rpc, "eth_blockNumber", []) == "0x0"
        assert store.get_obj(b"X/probe") is None
        assert call(rpc, "evm_revert", [sid]) is False
        # the same IDs are valid at /ext/simnode
        sid2 = call(rpc, "evm_snapshot", [])
        assert call(n.url + "/ext/simnode", "simnode.revert", {"id": int(sid2, 16)}) == {"reverted": True}
