"""The ICM messenger at 0x253b…5fcf on every EVM chain from block 1 (simnode/icm/placement.py): the
C-Chain's and an L1's block 0 stay as their genesis says, block 1 has the messenger's runtime code,
nonce 1, both reentrancy guards at 1 and its deployer at nonce 1, as after the real deployment, and
its code answers calls; an L1 whose genesis already has code
there keeps it; empty blocks mined in bulk place it too."""

from __future__ import annotations

import copy
import json

from web3 import Web3

from simnode.config import NodeConfig
from simnode.formats import id_to_str
from simnode.icm.artifacts import MESSENGER_DEPLOYER_ADDRESS, load_artifact
from simnode.icm.messages import MESSENGER_ADDRESS, message_id, selector
from simnode.node import Node

from .rpc import call
from .test_l1_evm_chain import GENESIS, create_l1, send

MESSENGER = "0x" + MESSENGER_ADDRESS.hex()
DEPLOYER = "0x" + MESSENGER_DEPLOYER_ADDRESS.hex()
RUNTIME = "0x" + load_artifact("TeleporterMessenger").runtime_code.hex()
ONE = "0x" + "00" * 31 + "01"
ZERO = "0x" + "00" * 32


def assert_absent(rpc: str, block: str) -> None:
    assert call(rpc, "eth_getCode", [MESSENGER, block]) == "0x"
    assert call(rpc, "eth_getTransactionCount", [MESSENGER, block]) == "0x0"
    assert call(rpc, "eth_getTransactionCount", [DEPLOYER, block]) == "0x0"
    assert call(rpc, "eth_getStorageAt", [MESSENGER, "0x0", block]) == ZERO


def assert_placed(rpc: str, block: str) -> None:
    assert call(rpc, "eth_getCode", [MESSENGER, block]) == RUNTIME
    assert call(rpc, "eth_getTransactionCount", [MESSENGER, block]) == "0x1"
    assert call(rpc, "eth_getTransactionCount", [DEPLOYER, block]) == "0x1"
    assert call(rpc, "eth_getStorageAt", [MESSENGER, "0x0", block]) == ONE
    assert call(rpc, "eth_getStorageAt", [MESSENGER, "0x1", block]) == ONE
    assert call(rpc, "eth_getStorageAt", [MESSENGER, "0x2", block]) == ZERO


def assert_runs(rpc: str) -> None:
    """The placed code answers: WARP_MESSENGER() and calculateMessageID as the ICM codec computes it."""
    warp = call(rpc, "eth_call", [{"to": MESSENGER, "data": "0x" + selector("WARP_MESSENGER()").hex()}, "latest"])
    assert warp == "0x" + "00" * 12 + "0200000000000000000000000000000000000005"
    source, dest = b"\x01" * 32, b"\x02" * 32
    data = selector("calculateMessageID(bytes32,bytes32,uint256)") + source + dest + (7).to_bytes(32, "big")
    answer = call(rpc, "eth_call", [{"to": MESSENGER, "data": "0x" + data.hex()}, "latest"])
    assert answer == "0x" + message_id(source, dest, 7).hex()


def test_messenger_placed_at_block_one_on_c_chain_and_l1():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual")) as h:
        c_rpc = h.url + "/ext/bc/C/rpc"
        genesis_hash = call(c_rpc, "eth_getBlockByNumber", ["0x0", False])["hash"]
        assert_absent(c_rpc, "latest")
        w3 = Web3(Web3.HTTPProvider(c_rpc))
        receipt = send(w3, {"chainId": 43112, "to": "0x" + "77" * 20, "value": 1})
        assert receipt.status == 1 and receipt.blockNumber == 1
        assert_absent(c_rpc, "0x0")
        assert_placed(c_rpc, "0x1")
        assert_runs(c_rpc)
        assert call(c_rpc, "eth_getBlockByNumber", ["0x0", False])["hash"] == genesis_hash

        _, chain_id = create_l1(h, json.dumps(GENESIS).encode())
        l1_rpc = h.url + f"/ext/bc/{id_to_str(chain_id)}/rpc"
        assert_absent(l1_rpc, "latest")
        h.call(h.node.chains[chain_id].mine_empty, 3)
        assert call(l1_rpc, "eth_blockNumber") == "0x3"
        assert_absent(l1_rpc, "0x0")
        assert_placed(l1_rpc, "0x1")
        assert_placed(l1_rpc, "latest")
        assert_runs(l1_rpc)


def test_genesis_code_at_messenger_address_is_kept():
    genesis = copy.deepcopy(GENESIS)
    genesis["alloc"][MESSENGER[2:]] = {"balance": "0x0", "code": "0x600160005260206000f3", "nonce": "0x1"}
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual")) as h:
        _, chain_id = create_l1(h, json.dumps(genesis).encode())
        rpc = h.url + f"/ext/bc/{id_to_str(chain_id)}/rpc"
        h.call(h.node.chains[chain_id].mine_empty, 2)
        for block in ("0x0", "0x1", "latest"):
            assert call(rpc, "eth_getCode", [MESSENGER, block]) == "0x600160005260206000f3"
            assert call(rpc, "eth_getStorageAt", [MESSENGER, "0x0", block]) == ZERO
            assert call(rpc, "eth_getTransactionCount", [DEPLOYER, block]) == "0x0"
