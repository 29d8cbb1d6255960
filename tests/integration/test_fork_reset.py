"""anvil_reset / hardhat_reset on a fork, with a real simnode upstream: back to the fork's first
state, a re-fork at another block, leaving the fork for the node's own genesis and forking again;
a fork that cannot be opened is refused and changes nothing."""

from __future__ import annotations

import pytest
from eth_account import Account

from simnode.config import NodeConfig
from simnode.node import Node

from .rpc import RPCFailure, call

EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
TO = "0x" + "11" * 20


def _pay(rpc: str, nonce: int, value: int) -> None:
    tx = {"chainId": 43112, "nonce": nonce, "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 10**9, "gas": 21000,
          "to": TO, "value": value}
    call(rpc, "eth_sendRawTransaction", ["0x" + EWOQ.sign_transaction(tx).raw_transaction.hex()])


@pytest.fixture(scope="module")
def upstream():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", log_level="WARN")) as h:
        for nonce in range(3):
            _pay(h.url + "/ext/bc/C/rpc", nonce, 1000 + nonce)  # blocks 1..3
        yield h


def test_reset_refork_leave_and_fork_again(upstream):
    u = upstream.url + "/ext/bc/C/rpc"
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", fork_url=upstream.url,
                                         fork_retries=1, log_level="WARN")) as fork:
        f = fork.url + "/ext/bc/C/rpc"
        assert call(f, "eth_blockNumber") == "0x3"
        _pay(f, 3, 5)
        assert call(f, "eth_blockNumber") == "0x4" and call(f, "eth_getBalance", [TO, "latest"]) == hex(3003 + 5)

        # anvil_reset without forking: the fork's first state again
        assert call(f, "anvil_reset", []) is None
        assert call(f, "eth_blockNumber") == "0x3"
        assert call(f, "eth_getBalance", [TO, "latest"]) == call(u, "eth_getBalance", [TO, "latest"]) == hex(3003)

        # a re-fork at an earlier block: the upstream's state there
        call(f, "anvil_reset", [{"forking": {"jsonRpcUrl": u, "blockNumber": 1}}])
        assert call(f, "eth_blockNumber") == "0x1"
        assert call(f, "eth_getBalance", [TO, "latest"]) == hex(1000)
        assert call(f, "eth_getTransactionCount", [EWOQ.address, "latest"]) == "0x1"
        _pay(f, 1, 7)
        block = call(f, "eth_getBlockByNumber", ["0x2", False])
        assert block["parentHash"] == call(u, "eth_getBlockByNumber", ["0x1", False])["hash"]
        assert block["hash"] != call(u, "eth_getBlockByNumber", ["0x2", False])["hash"]

        # a fork that cannot be opened is refused, and the node stays as it was
        with pytest.raises(RPCFailure, match=r"fork upstream http://127.0.0.1:9/ext/info: .*cannot reach it"):
            call(f, "anvil_reset", [{"forking": {"jsonRpcUrl": "http://127.0.0.1:9/ext/bc/C/rpc"}}])
        assert call(f, "eth_blockNumber") == "0x2"

        # hardhat_reset without forking leaves the fork: the node's own genesis
        assert call(f, "hardhat_reset", []) is True
        assert call(f, "eth_blockNumber") == "0x0"
        assert call(f, "eth_getBalance", [TO, "latest"]) == "0x0"
        assert fork.node.fork is None
        assert call(fork.url + "/ext/bc/P", "platform.getHeight")["height"] == "0"

        # and forks again
        assert call(f, "hardhat_reset", [{"forking": {"jsonRpcUrl": upstream.url}}]) is True
        assert call(f, "eth_blockNumber") == "0x3"
        assert call(f, "eth_getBalance", [TO, "latest"]) == hex(3003)
        assert call(fork.url + "/ext/bc/P", "platform.getHeight") == call(upstream.url + "/ext/bc/P",
                                                                          "platform.getHeight")
