"""eth_maxPriorityFeePerGas and eth_gasPrice answer as coreth's gas price oracle (eth/gasprice,
default config): the 40th percentile of the effective tips in the last 40 blocks that are at
most 80 s older than the node's clock, block 0 never counted, clamped to [1 wei, 150 gwei]; with
no recent tips, the previous answer."""

from __future__ import annotations

from web3 import Web3

from simnode.config import NodeConfig
from simnode.node import Node

from .rpc import call
from .test_cchain_web3 import EWOQ, GWEI, send


def tip(rpc: str) -> int:
    return int(call(rpc, "eth_maxPriorityFeePerGas"), 16)


def test_the_oracle_follows_coreth():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as h:
        rpc = h.url + "/ext/bc/C/rpc"
        w3 = Web3(Web3.HTTPProvider(rpc))
        assert tip(rpc) == 1  # only block 0: the minimum price
        for gwei in (5, 1, 4, 2, 3):  # one block each
            send(w3, EWOQ, {"to": "0x" + "11" * 20, "value": 1, "maxFeePerGas": 300 * GWEI,
                            "maxPriorityFeePerGas": gwei * GWEI})
        assert tip(rpc) == 2 * GWEI  # sorted tips [1..5] gwei, index (5 - 1) * 40 // 100 = 1
        base = int(call(rpc, "eth_baseFee"), 16)
        price = int(call(rpc, "eth_gasPrice"), 16)
        if int(call(rpc, "eth_baseFee"), 16) == base:
            assert price == base + 2 * GWEI
        # 81 s later an empty block: nothing recent to sample, so the previous answer stays
        call(rpc, "evm_increaseTime", [81])
        call(rpc, "evm_mine")
        assert tip(rpc) == 2 * GWEI
        # the next tx is the only recent tip
        send(w3, EWOQ, {"to": "0x" + "11" * 20, "value": 1, "maxFeePerGas": 300 * GWEI,
                        "maxPriorityFeePerGas": 7 * GWEI})
        assert tip(rpc) == 7 * GWEI
        # a tip above the maximum price is clamped to 150 gwei
        call(rpc, "evm_increaseTime", [81])
        send(w3, EWOQ, {"to": "0x" + "11" * 20, "value": 1, "maxFeePerGas": 400 * GWEI,
                        "maxPriorityFeePerGas": 200 * GWEI})
        assert tip(rpc) == 150 * GWEI
