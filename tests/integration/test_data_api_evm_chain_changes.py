"""The Data API's EVM routes while the chain changes (each test on its own node): page walks with
pageSize=1 while a block arrives after every page neither repeat nor skip; snapshot -> more
blocks -> revert gives back the answers of before; `:reindex` re-reads a token URI and a revert
below that read drops it; `kill -9` of `simnode run` under load, then a restart: the Data API and
the chain agree."""

from __future__ import annotations

import time

from eth._utils.address import generate_contract_address
from eth_account import Account
from web3 import Web3

from simnode.config import NodeConfig
from simnode.node import Node

from .dataapi import api, request
from .evm_data_scenario import walk
from .index_scenario import EWOQ, GWEI, Scenario, artifact
from .killed_node import kill_9_under_load
from .rpc import call

C = "/v1/chains/43112"
ALICE = Account.from_key(b"\xa1" * 32)


def node(**config: object):
    return Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", log_level="WARN",
                                           **config))


def web3_of(h) -> Web3:
    return Web3(Web3.HTTPProvider(h.url + "/ext/bc/C/rpc", request_kwargs={"timeout": 60}))


def first_page(base: str, path: str) -> dict:
    return api(base, path + ("&" if "?" in path else "?") + "pageSize=1")


def test_page_walks_with_a_new_block_after_every_page():
    with node() as h:
        s = Scenario(web3_of(h), 43112)
        s.send(EWOQ, {"to": ALICE.address, "value": 10**21})
        token = s.deploy(ALICE, "Token", "Walk", "WLK", 10**6)
        s.transact(ALICE, token.functions.transfer(EWOQ.address, 1000))
        for n in range(6):
            s.send(EWOQ, {"to": ALICE.address, "value": n + 1})
            s.transact(ALICE, token.functions.transfer(EWOQ.address, n + 1))
        a = ALICE.address
        keys = {f"{C}/transactions": "transactions", f"{C}/blocks": "blocks", "/v1/blocks": "blocks",
                f"{C}/addresses/{a}/transactions:listNative": "transactions",
                f"{C}/addresses/{a}/transactions:listErc20": "transactions",
                f"{C}/addresses/{a}/transactions?sortOrder=asc": "transactions",
                f"{C}/addresses/{a}/transactions": "transactions"}
        before = {path: walk(h.url, path, key) for path, key in keys.items()}
        walks: dict[str, list] = {path: [] for path in keys}
        tokens: dict[str, str | None] = {path: None for path in keys}
        ascending = f"{C}/addresses/{a}/transactions?sortOrder=asc"
        open_walks = set(keys)
        added = 0
        while open_walks:
            for path in sorted(open_walks):
                sep = "&" if "?" in path else "?"
                page = api(h.url, f"{path}{sep}pageSize=1" + (f"&pageToken={tokens[path]}" if tokens[path] else ""))
                walks[path] += page[keys[path]]
                tokens[path] = page.get("nextPageToken")
                if tokens[path] is None:
                    open_walks.discard(path)
                if not all(walks.values()):
                    continue  # every walk begins with the chain as `before` saw it
                # a new block after every page (a native transfer to alice, then an ERC-20 one), until
                # the newest-first walks are done and the oldest-first one has met three new txs
                if open_walks - {ascending} or len(walks[ascending]) < len(before[ascending]) + 3:
                    if added % 2:
                        s.transact(EWOQ, token.functions.transfer(a, 1))
                    else:
                        s.send(EWOQ, {"to": a, "value": 1})
                    added += 1
        assert added > 40
        ids = {"transactions": lambda x: x.get("txHash") or x["nativeTransaction"]["txHash"],
               "blocks": lambda x: (x["chainId"], x["blockNumber"])}
        for path, key in keys.items():
            got = [ids[key](x) for x in walks[path]]
            assert len(got) == len(set(got)), f"{path}: an item came twice"
            if "sortOrder=asc" in path:
                # oldest first: what was there comes first, in order; the walk then meets the new ones
                assert walks[path][:len(before[path])] == before[path] and len(got) > len(before[path])
            else:
                # newest first: exactly what was there when the walk began
                assert walks[path] == before[path], path


def test_snapshot_more_blocks_revert_gives_the_answers_of_before():
    with node() as h:
        w3 = web3_of(h)
        rpc = h.url + "/ext/bc/C/rpc"
        s = Scenario(w3, 43112)
        s.send(EWOQ, {"to": ALICE.address, "value": 10**21})
        token = s.deploy(ALICE, "Token", "Kept", "KEPT", 1000)
        s.transact(ALICE, token.functions.transfer(EWOQ.address, 10))
        a, e = ALICE.address, EWOQ.address
        paths = [f"{C}/blocks", "/v1/blocks", f"{C}/transactions", "/v1/transactions",
                 f"{C}/transactions?status=failed", f"{C}/addresses/{a}/transactions",
                 f"{C}/addresses/{a}/transactions:listNative", f"{C}/addresses/{a}/transactions:listErc20",
                 f"{C}/addresses/{a}/transactions:listErc721", f"{C}/addresses/{a}/transactions:listInternals",
                 f"{C}/addresses/{e}/balances:listErc20", f"{C}/addresses/{a}/balances:listErc20",
                 f"{C}/addresses/{a}/balances:listErc721", f"{C}/addresses/{a}/balances:listCollectibles",
                 f"{C}/addresses/{token.address}", f"{C}/contracts/{a}/deployments",
                 f"{C}/tokens/{token.address}/transfers",
                 f"/v1/address/{a}/chains"]
        before = {p: api(h.url, p) for p in paths}
        head = w3.eth.block_number
        snap = call(rpc, "evm_snapshot")
        gone = s.deploy(ALICE, "Token", "Gone", "GONE", 500)
        moved = s.transact(ALICE, token.functions.transfer(e, 7))
        cats = s.deploy(ALICE, "Collectible", "Gone Cats", "GCAT")
        s.transact(ALICE, cats.functions.mint(a, 1))
        s.reverted.append(s.transact(ALICE, token.functions.fail(1), gas=100_000))
        call(rpc, "anvil_mine", ["0x3"])
        after = {p: api(h.url, p) for p in paths}
        assert all(after[p] != before[p] for p in paths if "chains" not in p and "Internals" not in p), [
            p for p in paths if after[p] == before[p]]
        assert api(h.url, f"{C}/addresses/{gone.address}")["symbol"] == "GONE"
        assert call(rpc, "evm_revert", [snap]) is True
        assert w3.eth.block_number == head
        for p in paths:
            assert api(h.url, p) == before[p], p
        hashes = (moved.transactionHash.to_0x_hex(), s.reverted[-1].transactionHash.to_0x_hex())
        for tx_hash in hashes:
            assert api(h.url, f"{C}/transactions/{tx_hash}", 404)["statusCode"] == 404
        assert api(h.url, f"{C}/addresses/{gone.address}", 404)["statusCode"] == 404
        assert api(h.url, f"{C}/nfts/collections/{cats.address}/tokens") == {"tokens": []}
        assert api(h.url, f"{C}/blocks/{head + 1}", 404)["statusCode"] == 404
        # the chain goes on from there, and so does the Data API
        again = s.send(EWOQ, {"to": a, "value": 3})
        latest = api(h.url, f"{C}/blocks?pageSize=1")["blocks"][0]
        assert (latest["blockNumber"], latest["blockHash"]) == (str(head + 1), again.blockHash.to_0x_hex())
        assert api(h.url, f"{C}/addresses/{a}/transactions:listNative?pageSize=1")["transactions"][0]["txHash"] == \
            again.transactionHash.to_0x_hex()


def test_reindex_rereads_the_token_uri_and_a_revert_below_it_drops_the_read():
    with node() as h:
        w3 = web3_of(h)
        rpc = h.url + "/ext/bc/C/rpc"
        s = Scenario(w3, 43112)
        art = s.deploy(EWOQ, "Artwork", "Reindexed", "RIX")
        first = 'data:application/json,{"name":"first"}'
        s.transact(EWOQ, art.functions.mint(EWOQ.address, 1, first))
        token_path = f"{C}/nfts/collections/{art.address}/tokens/1"
        lists = [(f"{C}/nfts/collections/{art.address}/tokens", "tokens"),
                 (f"{C}/addresses/{EWOQ.address}/balances:listErc721", "erc721TokenBalances"),
                 (f"{C}/addresses/{EWOQ.address}/balances:listCollectibles", "collectibleBalances"),
                 (f"{C}/addresses/{EWOQ.address}/transactions:listErc721", "transactions"),
                 (f"{C}/tokens/{art.address}/transfers", "transfers")]

        def seen() -> list[dict]:
            """The token as its own route and every list that shows it tell it."""
            out = [api(h.url, token_path)]
            for path, key in lists:
                item = api(h.url, path)[key][0]
                out.append(item.get("erc721Token", item))
            return [{k: t[k] for k in ("tokenUri", "metadata")} for t in out]

        assert seen() == [{"tokenUri": first, "metadata": {"indexStatus": "INDEXED", "name": "first"}}] * 6
        snap = call(rpc, "evm_snapshot")
        second = "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/1"
        s.transact(EWOQ, art.functions.setTokenURI(1, second))
        assert seen()[0]["tokenUri"] == first  # the index keeps the URI read when the ID appeared
        status, headers, raw = request(h.url, "POST", f"{token_path}:reindex")
        assert (status, raw) == (201, b"")
        now = h.node.clock.now_ms() // 1000
        assert seen() == [{"tokenUri": second, "metadata": {"indexStatus": "UNREACHABLE_TOKEN_URI",
                                                            "metadataLastUpdatedTimestamp": now}}] * 6
        # the read was made at a block a revert takes away: the indexed URI is back, also once the
        # chain has a new block at that height
        assert call(rpc, "evm_revert", [snap]) is True
        assert seen()[0]["tokenUri"] == first
        s.send(EWOQ, {"to": ALICE.address, "value": 1})
        assert seen() == [{"tokenUri": first, "metadata": {"indexStatus": "INDEXED", "name": "first"}}] * 6


RECIPIENTS = [Web3.to_checksum_address(bytes([k + 1]) * 20) for k in range(5)]
TOKEN = Web3.to_checksum_address(generate_contract_address(bytes.fromhex(EWOQ.address[2:]), 0))  # EWOQ's first create


def _token_load(rpc: str) -> list[str]:
    """Deploy a Token (waiting for its receipt), then 499 signed txs alternating native and
    ERC-20 transfers to RECIPIENTS."""
    fee = {"chainId": 43112, "maxFeePerGas": 100 * GWEI, "maxPriorityFeePerGas": 1}
    w3 = Web3()
    deploy = w3.eth.contract(abi=artifact("Token")["abi"], bytecode=artifact("Token")["bytecode"]).constructor(
        "Load", "LD", 10**9)
    deployed = call(rpc, "eth_sendRawTransaction", [EWOQ.sign_transaction(
        {**fee, "nonce": 0, "data": deploy.data_in_transaction, "gas": 2_000_000}).raw_transaction.to_0x_hex()])
    for _ in range(200):
        receipt = call(rpc, "eth_getTransactionReceipt", [deployed])
        if receipt is not None:
            break
        time.sleep(0.02)
    assert Web3.to_checksum_address(receipt["contractAddress"]) == TOKEN
    token = w3.eth.contract(address=TOKEN, abi=artifact("Token")["abi"])
    raws = []
    for n in range(1, 500):
        to = RECIPIENTS[n % len(RECIPIENTS)]
        tx = ({"to": to, "value": n, "gas": 21000} if n % 2 else
              {"to": token.address, "gas": 100_000, "data": token.functions.transfer(to, n)._encode_transaction_data()})
        raws.append(EWOQ.sign_transaction({**fee, "nonce": n, **tx}).raw_transaction.to_0x_hex())
    return raws


def test_kill_9_under_load_then_a_restart_the_data_api_and_the_chain_agree(tmp_path):
    data = tmp_path / "data"
    kill_9_under_load(data, _token_load)
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=data, log_level="WARN")) as h:
        rpc = h.url + "/ext/bc/C/rpc"
        head = int(call(rpc, "eth_blockNumber"), 16)
        assert head >= 30
        blocks = walk(h.url, f"{C}/blocks", "blocks")
        assert [int(b["blockNumber"]) for b in blocks] == list(range(head, -1, -1))
        total = 0
        for b in reversed(blocks):
            block = call(rpc, "eth_getBlockByNumber", [hex(int(b["blockNumber"])), False])
            total += len(block["transactions"])
            assert (b["blockHash"], b["txCount"], b["cumulativeTransactions"]) == (
                block["hash"], len(block["transactions"]), str(total))
        sent = int(call(rpc, "eth_getTransactionCount", [EWOQ.address, "latest"]), 16)
        assert total == sent
        mine = walk(h.url, f"{C}/addresses/{EWOQ.address}/transactions:listNative", "transactions")
        assert [int(t["nonce"]) for t in mine] == list(range(sent - 1, -1, -1))
        for t in api(h.url, f"{C}/transactions?pageSize=20")["transactions"]:
            receipt = call(rpc, "eth_getTransactionReceipt", [t["txHash"]])
            assert (t["txStatus"], t["gasUsed"], t["gasPrice"], t["blockHash"]) == (
                str(int(receipt["status"], 16)), str(int(receipt["gasUsed"], 16)),
                str(int(receipt["effectiveGasPrice"], 16)), receipt["blockHash"])
        selector = Web3.keccak(text="balanceOf(address)")[:4].hex()
        for to in RECIPIENTS:
            got = api(h.url, f"{C}/addresses/{to}/balances:listErc20")
            want = int(call(rpc, "eth_call", [{"to": TOKEN, "data": "0x" + selector + "00" * 12 + to[2:]},
                                              "latest"]), 16)
            assert [b["balance"] for b in got["erc20TokenBalances"]] == ([str(want)] if want else [])
            assert got["nativeTokenBalance"]["balance"] == str(int(call(rpc, "eth_getBalance", [to, "latest"]), 16))
        # and the chain goes on, the Data API with it
        raw = EWOQ.sign_transaction({"chainId": 43112, "nonce": sent, "to": RECIPIENTS[0], "value": 1, "gas": 21000,
                                     "maxFeePerGas": 100 * GWEI, "maxPriorityFeePerGas": 1}).raw_transaction
        tx_hash = call(rpc, "eth_sendRawTransaction", [raw.to_0x_hex()])
        for _ in range(200):
            if call(rpc, "eth_getTransactionReceipt", [tx_hash]) is not None:
                break
            time.sleep(0.02)
        assert api(h.url, f"{C}/transactions?pageSize=1")["transactions"][0]["txHash"] == tx_hash
