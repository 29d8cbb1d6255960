"""The Data API through the real @avalanche-sdk/chainkit (zod-validated requests and responses):
what it parses equals what the node answers, and its typed errors come back for a 404 and a 400."""

from __future__ import annotations

import pytest
from eth_account import Account

from simnode.config import NodeConfig
from simnode.node import Node

from .dataapi import api
from .js import JS_DIR, require_js, run_js
from .rpc import call

EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")


def test_chainkit_reads_the_data_api():
    require_js()
    if not (JS_DIR / "node_modules" / "@avalanche-sdk" / "chainkit").is_dir():
        pytest.skip("tests/js/node_modules has no @avalanche-sdk/chainkit: run `cd tests/js && npm ci`")
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="WARN")) as h:
        rpc = h.url + "/ext/bc/C/rpc"
        call(h.url + "/ext/simnode", "simnode.mine", {"blocks": "1"})
        at_genesis = str(int(call(rpc, "eth_getBalance", [EWOQ.address, "0x0"]), 16))
        call(rpc, "anvil_setBalance", [EWOQ.address, hex(123)])  # the latest state differs from block 0's
        out = run_js("chainkit_data_api.mjs", h.url, EWOQ.address)
        c_chain = api(h.url, "/v1/chains/43112")
        assert out["chains"] == out["nftChains"] == {"chains": [c_chain]}
        # block 1 placed the ICM messenger on the C-Chain
        assert out["teleporterChains"] == {"chains": [c_chain]} and "teleporter" in c_chain["enabledFeatures"]
        assert out["chain"] == c_chain
        assert out["native"]["nativeTokenBalance"]["balance"] == "123"
        assert out["nativeAtGenesis"]["nativeTokenBalance"]["balance"] == at_genesis != "123"
        assert out["health"]["status"] == out["live"]["status"] == "ok"
        assert out["unknownChain"] == "NotFoundError: chain 1234 is not an EVM chain of this node (its EVM chains: 43112)"
        assert out["badAddress"].startswith("BadRequestError: ")
        assert "address must be an Ethereum address" in out["badAddress"]
