"""`simnode export-network DIR`: a stopped node's network (X/P/C balances, contracts with storage, an
L1 with a contract) exported for real nodes. The genesis re-read by simnode gives the same balances
and contracts; the nodes' keys are read as AvalancheGo reads them; the L1 steps recreate the L1
with `replay --target` on the exported network."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography import x509

from simnode.config import NodeConfig
from simnode.crypto import bls
from simnode.formats.address import format_address, parse_address
from simnode.formats.ids import node_id_to_str
from simnode.node import Node
from simnode.scenario import run_on
from simnode.scenario.export import node_id_of_certificate
from simnode.scenario.target import run_on_target
from simnode.scenario.transport import HttpTransport

ROOT = Path(__file__).resolve().parents[2]
TOKEN = str(ROOT / "scenarios" / "contracts" / "ScenarioToken.json")
STEPS = [
    {"kind": "deploy", "from": "alice", "artifact": TOKEN, "args": ["Export", "EXP", "1000 ether"], "save": "token"},
    {"kind": "transact", "contract": "token", "function": "transfer", "from": "alice", "args": ["bob", "7 ether"]},
    {"kind": "transfer", "chain": "C", "from": "alice", "to": "bob", "amount": "3 AVAX"},
    {"kind": "transact", "contract": "token", "function": "approve", "from": "bob", "args": ["alice", "2 ether"]},
    {"kind": "transfer", "chain": "X", "from": "alice", "to": "bob", "amount": "4 AVAX"},
    {"kind": "transfer", "chain": "P", "from": "alice", "to": "bob", "amount": "5 AVAX"},
    {"kind": "export", "from_chain": "X", "to_chain": "C", "from": "alice", "to": "bob", "amount": "6 AVAX"},
    {"kind": "create_subnet", "from": "ewoq", "save": "subnet"},
    {"kind": "create_chain", "from": "ewoq", "subnet": "subnet", "name": "exportl1", "save": "l1"},
    {"kind": "convert_to_l1", "from": "ewoq", "subnet": "subnet", "chain": "l1",
     "validators": [{"node_id": "v1", "weight": 100, "balance": "1 AVAX"}]},
    {"kind": "deploy", "from": "ewoq", "artifact": TOKEN, "args": ["L1 Token", "LT", "5 ether"], "evm_chain": "l1",
     "save": "l1token"},
    {"kind": "transact", "contract": "l1token", "function": "transfer", "from": "ewoq", "args": ["bob", "1 ether"],
     "evm_chain": "l1"},
]
ENV = dict(os.environ, ETH_HASH_BACKEND="pysha3")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("export")
    data = tmp / "data"
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=data, log_level="WARN", clock_mode="virtual")) as h:
        result = run_on(h, {"network": {"seed": 4}, "accounts": {
            "alice": {"fund": {"C": "100 AVAX", "X": "100 AVAX", "P": "100 AVAX"}}, "bob": {}}, "steps": STEPS})
    out = tmp / "net"
    run = subprocess.run([sys.executable, "-m", "simnode", "export-network", str(out), "--data-dir", str(data),
                          "--nodes", "3"], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    return {"dir": out, "data": data, "stdout": run.stdout, "l1": result.saved["l1"]}


def _balances(t: HttpTransport, hrp: str, l1: str | None, addresses: dict) -> dict:
    """The X/P balances of `addresses["avax"]`, and each EVM account's balance, nonce, storage root
    and code hash on the C-Chain (`addresses["c"]`) and the L1 (`addresses["l1"]`)."""
    out: dict = {}
    for raw in addresses["avax"]:
        out[("X", raw)] = t.call("X", "avm.getBalance", {"address": format_address("X", hrp, raw),
                                                         "assetID": "AVAX"})["balance"]
        b = t.call("P", "platform.getBalance", {"addresses": [format_address("P", hrp, raw)]})
        out[("P", raw)] = (b["balance"], b["unlocked"], b["lockedStakeable"], b["lockedNotStakeable"])
    for chain, endpoint in (("c", "C"), ("l1", f"/ext/bc/{l1}/rpc")):
        for a in addresses.get(chain, []):
            proof = t.call(endpoint, "eth_getProof", ["0x" + a, [], "latest"])
            out[(chain, a)] = (proof["balance"], proof["nonce"], proof["storageHash"], proof["codeHash"])
    return out


def test_the_export_holds_the_network_and_keys_avalanchego_reads(exported, tmp_path):
    out = exported["dir"]
    genesis = json.loads((out / "genesis.json").read_text())
    assert genesis["networkID"] == 1337
    stakers = genesis["initialStakers"]
    assert len(stakers) == 3
    for k, staker in enumerate(stakers, start=1):
        d = out / "nodes" / f"node-{k}"
        cert = (d / "staker.crt").read_bytes()
        x509.load_pem_x509_certificate(cert)
        assert node_id_to_str(node_id_of_certificate(cert)) == staker["nodeID"]
        assert f"node-{k}: {staker['nodeID']}" in exported["stdout"]
        assert (d / "staker.key").read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
        assert oct((d / "staker.key").stat().st_mode & 0o777) == "0o600"
        signer = bls.secret_key_from_bytes((d / "signer.key").read_bytes())
        assert "0x" + bls.public_key(signer).hex() == staker["signer"]["publicKey"]
        assert bls.verify_possession(bls.public_key(signer), bytes.fromhex(staker["signer"]["proofOfPossession"][2:]))
    readme = (out / "README.md").read_text()
    for staker in stakers:
        assert staker["nodeID"] in readme
    assert "--staking-signer-key-file=" in readme and "--genesis-file=" in readme and "--network-id=1337" in readme
    assert f"--data-dir={out.resolve()}/nodes/node-2 " in readme
    # what AvalancheGo v1.14.2 needed beyond the flags, found by running the export on it
    assert "add `--fd-limit=N`" in readme  # it refuses to start where the hard open-files limit is under 32768
    assert "`srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy`, in their plugin dir" in readme
    assert "X-Chain UTXO(s) of assets other than AVAX" not in readme  # none made here
    assert (out / "l1s" / "exportl1" / "genesis.json").is_file() and (out / "l1s" / "exportl1" / "config.json").is_file()
    assert "kind = 'convert_to_l1'" in (out / "recreate-l1s.toml").read_text()
    # the L1's state of now carries the network's genesis time (at time 0 subnet-EVM would run its code
    # under the rules before Durango: no PUSH0, found on AvalancheGo v1.14.2's subnet-EVM)
    l1_genesis = json.loads((out / "l1s" / "exportl1" / "genesis.json").read_text())
    assert l1_genesis["timestamp"] == hex(json.loads((out / "genesis.json").read_text())["startTime"])


def test_simnode_on_the_exported_genesis_has_the_same_balances_and_contracts(exported):
    out = exported["dir"]
    genesis = json.loads((out / "genesis.json").read_text())
    c_alloc = json.loads(genesis["cChainGenesis"])["alloc"]
    l1_alloc = json.loads((out / "l1s" / "exportl1" / "genesis.json").read_text())["alloc"]
    addresses = {"avax": [parse_address(a["avaxAddr"])[2] for a in genesis["allocations"]], "c": list(c_alloc),
                 "l1": list(l1_alloc)}
    assert any("storage" in a for a in c_alloc.values()) and any("code" in a for a in l1_alloc.values())
    # C-Chain slots are exported as the storage trie keys them (coreth's rule: the first byte's lowest bit clear)
    assert all(not int(k[2:4], 16) & 1 for a in c_alloc.values() for k in a.get("storage", {}))
    # the source, stopped: its data dir read again
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=exported["data"], log_level="WARN",
                                         clock_mode="virtual")) as h:
        before = _balances(HttpTransport(h.url), "local", exported["l1"], addresses)
        assert len(_trie_keys(h, "C")) == len(c_alloc)  # every account of the C-Chain's state is in the alloc
        assert len(_trie_keys(h, exported["l1"])) == len(l1_alloc)
    assert sum(int(v[0], 16) for k, v in before.items() if k[0] == "c") > 0
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="ERROR", network_id=1337,
                                         genesis_file=out / "genesis.json")) as h:
        t = HttpTransport(h.url)
        after = _balances(t, "custom", None, {**addresses, "l1": []})
        assert after == {k: v for k, v in before.items() if k[0] != "l1"}
        # the L1 again, from the exported steps, validated by the exported nodes
        result = run_on_target(out / "recreate-l1s.toml", h.url)
        again = _balances(t, "custom", result.saved["chain_exportl1"], {"avax": [], "c": [], "l1": list(l1_alloc)})
        vdrs = t.call("P", "platform.getCurrentValidators", {"subnetID": result.saved["subnet_exportl1"]})["validators"]
        block0 = t.call(f"/ext/bc/{result.saved['chain_exportl1']}/rpc", "eth_getBlockByNumber", ["0x0", False])
    assert block0["timestamp"] == hex(genesis["startTime"])
    assert sorted(v["nodeID"] for v in vdrs) == sorted(s["nodeID"] for s in genesis["initialStakers"])
    assert again == {k: v for k, v in before.items() if k[0] == "l1"}


def _trie_keys(h, alias: str) -> list:
    from trie import HexaryTrie
    from trie.iter import NodeIterator

    chain = h.node.chain_by_alias(alias)
    return h.call(lambda: list(NodeIterator(HexaryTrie(chain.db, chain.state_root)).keys()))


def test_the_relayer_account_is_named_by_the_seed_the_node_ran_with(tmp_path):
    """simnode credits its in-process relayer's account (derived from the node's seed) in block 1 of
    every EVM chain; no tx names it, so the export finds it only with the seed the node ran with."""
    from simnode.scenario.export import export_network

    data = tmp_path / "data"
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=data, log_level="WARN", clock_mode="virtual",
                                         seed=25)) as h:
        run_on(h, {"network": {"seed": 25}, "accounts": {"alice": {"fund": {"C": "1 AVAX"}}}, "steps": []})
    right = export_network(tmp_path / "right", data_dir=data, source_seed=25, nodes=1)
    assert not [w for w in right.left_out if "C-Chain account" in w]
    from simnode.icm.relayer_account import RELAYER_FUNDS, relayer_address
    alloc = json.loads(right.genesis["cChainGenesis"])["alloc"]
    assert int(alloc[relayer_address(25).hex()]["balance"], 16) == RELAYER_FUNDS
    wrong = export_network(tmp_path / "wrong", data_dir=data, nodes=1)
    assert [w for w in wrong.left_out if w.startswith(f"1 C-Chain account(s) holding {RELAYER_FUNDS} wei")]


def test_utxos_waiting_in_shared_memory_are_listed_as_not_carried(tmp_path):
    from simnode.scenario.export import export_network

    data = tmp_path / "data"
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=data, log_level="WARN", clock_mode="virtual")) as h:
        run_on(h, {"accounts": {"alice": {"fund": {"X": "10 AVAX"}}}, "steps": [
            {"kind": "export", "from_chain": "X", "to_chain": "P", "from": "alice", "amount": "2 AVAX",
             "import": False}]})
    result = export_network(tmp_path / "out", data_dir=data, nodes=1)
    assert "1 UTXO(s) exported from one chain and not yet imported on the other (shared memory: a genesis has none; " \
           "import them before the export)" in result.left_out
    assert "not yet imported" in (tmp_path / "out" / "README.md").read_text()
