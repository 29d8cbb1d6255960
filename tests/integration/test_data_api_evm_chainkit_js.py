"""The Data API's EVM routes through the real @avalanche-sdk/chainkit (zod-validated requests and
responses, its own page iterator): what it parses equals what the node answers over plain HTTP,
and its page walks with pageSize 1 give every block and every tx of an address once."""

from __future__ import annotations

import json

import pytest
from web3 import Web3

from simnode.config import NodeConfig
from simnode.node import Node

from . import index_scenario
from .dataapi import api
from .evm_data_scenario import walk
from .js import JS_DIR, require_js, run_js

C = "/v1/chains/43112"


def test_chainkit_reads_the_evm_routes():
    require_js()
    if not (JS_DIR / "node_modules" / "@avalanche-sdk" / "chainkit").is_dir():
        pytest.skip("tests/js/node_modules has no @avalanche-sdk/chainkit: run `cd tests/js && npm ci`")
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", log_level="WARN")) as h:
        s = index_scenario.run(Web3(Web3.HTTPProvider(h.url + "/ext/bc/C/rpc", request_kwargs={"timeout": 60})), 43112)
        a, token, nft = s.alice.address, s.token.address, s.nft.address
        tx = s.factory_receipts[2].transactionHash.to_0x_hex()
        plain = {
            "blocks": f"{C}/blocks?pageSize=3", "block": f"{C}/blocks/1", "blockTxs": f"{C}/blocks/1/transactions",
            "latestTxs": f"{C}/transactions?pageSize=4", "failedTxs": f"{C}/transactions?status=failed",
            "tx": f"{C}/transactions/{tx}", "txs": f"{C}/addresses/{a}/transactions?pageSize=3&sortOrder=asc",
            "native": f"{C}/addresses/{a}/transactions:listNative?pageSize=3",
            "erc20": f"{C}/addresses/{a}/transactions:listErc20?startBlock=1",
            "erc721": f"{C}/addresses/{a}/transactions:listErc721",
            "erc1155": f"{C}/addresses/{a}/transactions:listErc1155",
            "internals": f"{C}/addresses/{a}/transactions:listInternals",
            "erc20Balances": f"{C}/addresses/{a}/balances:listErc20",
            "erc1155Balances": f"{C}/addresses/{a}/balances:listErc1155",
            "collectibles": f"{C}/addresses/{a}/balances:listCollectibles",
            "chains": f"/v1/address/{a}/chains", "contract": f"{C}/addresses/{token}",
            "deployment": f"{C}/contracts/{token}/transactions:getDeployment",
            "transfers": f"{C}/tokens/{token}/transfers", "nftTokens": f"{C}/nfts/collections/{nft}/tokens",
            "nft": f"{C}/nfts/collections/{nft}/tokens/1", "allBlocks": "/v1/blocks?pageSize=2",
            "allTxs": "/v1/transactions?pageSize=2&network=testnet"}
        want = {key: api(h.url, path) for key, path in plain.items()}  # before the SDK's :reindex
        blocks = walk(h.url, f"{C}/blocks", "blocks")
        native = walk(h.url, f"{C}/addresses/{a}/transactions:listNative", "transactions")
        out = run_js("chainkit_evm_routes.mjs", h.url, json.dumps({"address": a, "token": token, "nft": nft,
                                                                    "txHash": tx}))
        for key in plain:
            assert out[key] == want[key], key
        assert out["erc20Balances"]["erc20TokenBalances"][0]["tokenReputation"] is None
        assert out["blockWalk"] == {"items": blocks, "pages": len(blocks)}
        assert out["nativeWalk"] == {"items": native, "pages": len(native)}
        # the SDK's :reindex read the token's URI again
        assert out["reindex"] == "done"
        assert "metadataLastUpdatedTimestamp" in api(h.url, plain["nft"])["metadata"]
