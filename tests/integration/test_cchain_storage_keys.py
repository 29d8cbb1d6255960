"""The C-Chain keys storage as coreth does (a slot key's first byte with its lowest bit cleared:
extstate.normalizeStateKey; simnode: vms/evm/rules.CorethAccountDB), against a real node's answers
without AvalancheGo: tests/vectors/avalanchego_cchain_storage_key_writes.json, recorded by
scripts/record_cchain_storage_keys.py on AvalancheGo v1.14.2. The same signed txs on a fresh simnode
give the same receipts (gas: values read through the even twin, warm/cold by the key as written),
the same block state roots (but for the accounts simnode adds in block 1: the ICM messenger,
the relayer's funds), storage reads,
proofs, overridden calls and access lists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from trie import HexaryTrie

from simnode.config import NodeConfig
from simnode.crypto.hashing import keccak256
from simnode.icm.artifacts import MESSENGER_DEPLOYER_ADDRESS
from simnode.icm.messages import MESSENGER_ADDRESS
from simnode.node import Node
from simnode.testing.avalanchego import rpc

REAL = json.loads((Path(__file__).resolve().parents[1] / "vectors" / "avalanchego_cchain_storage_key_writes.json")
                  .read_text())
SLOT = REAL["slots"]


class _Overlay(dict):
    """Trie nodes written here, read through to the chain's database."""

    def __init__(self, db: Any) -> None:
        super().__init__()
        self.db = db

    def __missing__(self, key: bytes) -> bytes:
        return self.db[key]


def _without_simnodes_own(chain: Any, root: bytes) -> str:
    """The state root without the accounts simnode adds in block 1 and AvalancheGo has not: the ICM
    messenger and its deployer (icm/placement.py), the in-process relayer's funds (relayer.py)."""
    t = HexaryTrie(_Overlay(chain.db), root)
    for address in (MESSENGER_ADDRESS, MESSENGER_DEPLOYER_ADDRESS, *(a for a, _ in chain.first_block_credits)):
        del t[keccak256(address)]
    return "0x" + t.root_hash.hex()


@pytest.fixture(scope="module")
def sim():
    handle = Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="WARN"))
    c = handle.url + "/ext/bc/C/rpc"

    def call(method: str, params: list[Any]) -> Any:
        reply = rpc(c, method, params, timeout=30)
        assert "error" not in reply, (method, reply)
        return reply["result"]

    chain = handle.node.chains[handle.node.genesis.c_chain_id]
    receipts = []
    try:
        for tx in REAL["txs"]:
            tx_hash = call("eth_sendRawTransaction", [tx["raw"]])
            receipt = call("eth_getTransactionReceipt", [tx_hash])
            block = call("eth_getBlockByNumber", [receipt["blockNumber"], False])
            receipts.append((receipt, _without_simnodes_own(chain, bytes.fromhex(block["stateRoot"][2:]))))
        yield call, receipts
    finally:
        handle.stop()


def test_receipts_gas_and_logs_are_the_real_nodes(sim):
    _, receipts = sim
    for tx, (receipt, _) in zip(REAL["txs"], receipts, strict=True):
        assert (receipt["transactionHash"], receipt["blockNumber"], receipt["status"], receipt["gasUsed"]) \
            == (tx["hash"], tx["blockNumber"], tx["status"], tx["gasUsed"]), tx["what"]
        assert [lg["data"] for lg in receipt["logs"]] == tx["logs"], tx["what"]
    assert receipts[0][0]["contractAddress"] == REAL["contract"].lower()


def test_block_state_roots_are_the_real_nodes(sim):
    _, receipts = sim
    assert [root for _, root in receipts] == [tx["stateRoot"] for tx in REAL["txs"]]


def test_twin_keys_are_one_slot(sim):
    """SSTORE through one key, SLOAD through its twin (tx 3: D_ODD = 7 then D_EVEN = 8 leave 8, read
    through D_ODD); eth_getStorageAt reads the same slot through either key."""
    call, receipts = sim
    assert receipts[2][0]["logs"][0]["data"] == "0x" + "00" * 31 + "08"
    for name in ("A", "B", "D", "E", "F", "G", "H"):
        odd, even = SLOT[f"{name}_ODD"], SLOT[f"{name}_EVEN"]
        assert call("eth_getStorageAt", [REAL["contract"], odd, "latest"]) \
            == call("eth_getStorageAt", [REAL["contract"], even, "latest"]) == REAL["getStorageAt"][odd]
    for slot, value in REAL["getStorageAt"].items():
        assert call("eth_getStorageAt", [REAL["contract"], slot, "latest"]) == value


def test_get_proof_is_the_real_nodes(sim):
    """The storage root, each key's value (through its even twin) and proof (of the key as written:
    an odd key's proves its absence); the account proof differs by the messenger's accounts."""
    call, _ = sim
    mine = call("eth_getProof", [REAL["contract"], list(REAL["getStorageAt"]), "latest"])
    real = REAL["getProof"]
    assert {k: v for k, v in mine.items() if k != "accountProof"} \
        == {k: v for k, v in real.items() if k != "accountProof"}


def test_overridden_calls_and_access_lists_are_the_real_nodes(sim):
    """`stateDiff` writes through the even twin; `state` keys as written (an odd key there is never
    read: SLOAD reads the even twin)."""
    call, _ = sim
    for c in REAL["calls"]:
        assert call("eth_call", c["params"]) == c["result"], c["what"]
    real = REAL["createAccessList"]
    mine = call("eth_createAccessList", [real["args"], "latest"])
    assert mine["gasUsed"] == real["result"]["gasUsed"]
    # each key as the code used it (the odd one included); geth lists a tuple's keys in map order
    assert [(e["address"], sorted(e["storageKeys"])) for e in mine["accessList"]] \
        == [(e["address"], sorted(e["storageKeys"])) for e in real["result"]["accessList"]]
