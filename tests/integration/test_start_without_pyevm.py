"""A node's C-Chain is bootstrapped and answers reads of its head before py-evm is imported: its
genesis, head and endpoints are simnode's own rows, RLP and tries (vms/evm/genesis_state.py).
py-evm (and eth_utils, rlp, py-trie) load on the chain's first execution, or, once the node is up,
in the background (startup.warm_engines), which then builds the chain's engine."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("eth.vm", "eth_utils", "rlp", "trie", "pydantic")

NO_WARMUP = """
import json, sys, urllib.request
import simnode.node
simnode.node.warm_engines = lambda loop, chains: None  # the start alone: no warm-up after it
from simnode.config import NodeConfig
from simnode.node import Node

HEAVY = {heavy!r}

def rpc(url, path, method, *params):
    body = json.dumps({{"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}}).encode()
    req = urllib.request.Request(url + path, body, {{"Content-Type": "application/json"}})
    return json.loads(urllib.request.urlopen(req).read())

with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="ERROR")) as h:
    out = {{"loaded_at_start": [m for m in HEAVY if m in sys.modules]}}
    out["bootstrapped"] = rpc(h.url, "/ext/info", "info.isBootstrapped", {{"chain": "C"}})["result"]
    out["health"] = json.loads(urllib.request.urlopen(h.url + "/ext/health").read())["healthy"]
    out["reads"] = [rpc(h.url, "/ext/bc/C/rpc", m, *p)["result"] for m, p in (
        ("eth_blockNumber", ()), ("eth_chainId", ()), ("net_version", ()),
        ("eth_getBlockByNumber", ("latest", True)), ("eth_getBlockByNumber", ("0x0", False)))]
    out["loaded_after_reads"] = [m for m in HEAVY if m in sys.modules]
    out["balance"] = rpc(h.url, "/ext/bc/C/rpc", "eth_getBalance",
                         "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC", "latest")["result"]
    out["engine_after_a_state_read"] = "eth.vm" in sys.modules and "db" in vars(h.node.chain_by_alias("C"))
print(json.dumps(out))
"""

WARMUP = """
import json, sys, time
from simnode.config import NodeConfig
from simnode.node import Node

with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="ERROR")) as h:
    chain = h.node.chain_by_alias("C")
    deadline = time.monotonic() + 60
    while "evm" not in vars(chain) and time.monotonic() < deadline:
        time.sleep(0.01)
    print(json.dumps({"engine_built": "evm" in vars(chain), "pyevm": "eth.vm" in sys.modules}))
"""


def run(code: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_c_chain_starts_and_answers_its_head_without_py_evm():
    out = run(NO_WARMUP.format(heavy=HEAVY))
    assert out["loaded_at_start"] == [] and out["loaded_after_reads"] == []
    assert out["bootstrapped"] == {"isBootstrapped": True} and out["health"] is True
    number, chain_id, version, latest, genesis = out["reads"]
    assert (number, chain_id, version) == ("0x0", "0xa868", "43112")
    assert latest == {**genesis, "transactions": []} and genesis["number"] == "0x0"
    assert int(out["balance"], 16) > 0 and out["engine_after_a_state_read"] is True


def test_the_engine_is_warmed_once_the_node_is_up():
    assert run(WARMUP) == {"engine_built": True, "pyevm": True}
