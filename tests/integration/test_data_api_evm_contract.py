"""The Data API's EVM routes against the real OpenAPI document, on one node (C-Chain and an L1) the
tests only read: every route answers per its schema (by each name of a chain, first pages and
next pages), the lists across chains merge both chains, and every bad-parameter class gets its 4xx
with a NestJS body: bad address, tx hash, block, token ID, block range, enum, contract filter,
unknown chain, block or tx, out-of-range pageSize, a bad page token and one from another route or
other filters. A node without an index answers the EVM lists 503."""

from __future__ import annotations

import json

import pytest
from web3 import Web3

from simnode.api.data.routes import HANDLERS
from simnode.config import NodeConfig
from simnode.formats import id_to_str
from simnode.node import Node

from ..openapi_contract import contract, raw_document
from . import evm_data_scenario, index_scenario
from .dataapi import api, request
from .evm_data_scenario import EvmScenario, walk
from .index_scenario import EWOQ
from .test_l1_evm_chain import GENESIS, L1_CHAIN_ID, create_l1, l1_web3

C = "/v1/chains/43112"
EVM_ROUTES = {key for key in HANDLERS if key[1].startswith(("/v1/chains/{chainId}/", "/v2/chains/{chainId}/"))
              and not key[1].endswith("/balances:getNative") and key[1] in raw_document("data")["paths"]} | {
    ("GET", "/v1/blocks"), ("GET", "/v1/transactions"), ("GET", "/v1/address/{address}/chains")}


@pytest.fixture(scope="module")
def h():
    config = NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", log_level="WARN")
    with Node.start_in_thread(config) as handle:
        _, chain_id = create_l1(handle, json.dumps(GENESIS).encode())
        handle.l1_id = id_to_str(chain_id)
        yield handle


@pytest.fixture(scope="module")
def sc(h) -> EvmScenario:
    out = evm_data_scenario.run(Web3(Web3.HTTPProvider(h.url + "/ext/bc/C/rpc", request_kwargs={"timeout": 60})),
                                43112)
    l1 = index_scenario.Scenario(l1_web3(f"{h.url}/ext/bc/{h.l1_id}/rpc"), L1_CHAIN_ID)
    l1.send(EWOQ, {"to": out.s.alice.address, "value": 10**18})
    token = l1.deploy(EWOQ, "Token", "L1 Token", "L1T", 1000)
    l1.transact(EWOQ, token.functions.transfer(out.s.alice.address, 10))
    out.l1_token = token.address  # type: ignore[attr-defined]
    return out


def routes_of(paths: list[tuple[str, str]]) -> set[tuple[str, str]]:
    return {(method, contract().find(method, path)[1]) for method, path in paths}


def route_paths(h, sc: EvmScenario, chain: str) -> list[tuple[str, str]]:
    """A request for every EVM route of one chain (named `chain`)."""
    s, a = sc.s, sc.s.alice.address
    tx = s.factory_receipts[2].transactionHash.to_0x_hex()
    block = s.factory_receipts[2].blockNumber
    c, v2 = f"/v1/chains/{chain}", f"/v2/chains/{chain}"
    return [("GET", p) for p in (
        f"{c}/blocks", f"{c}/blocks/{block}", f"{c}/blocks/{block}/transactions",
        f"{c}/transactions?status=success", f"{c}/transactions/{tx}",
        f"{c}/addresses/{a}/transactions?sortOrder=asc&startBlock=1&endBlock=40",
        f"{v2}/addresses/{a}/transactions?filterSpamTokens=false",
        f"{c}/addresses/{a}/transactions:listNative", f"{c}/addresses/{a}/transactions:listErc20?startBlock=2",
        f"{c}/addresses/{a}/transactions:listErc721", f"{c}/addresses/{a}/transactions:listErc1155",
        f"{c}/addresses/{a}/transactions:listInternals",
        f"{c}/addresses/{a}/balances:listErc20?blockNumber={block}&currency=eur&filterSpamTokens=true",
        f"{c}/addresses/{a}/balances:listErc721", f"{c}/addresses/{a}/balances:listErc1155?blockNumber={block}",
        f"{c}/addresses/{a}/balances:listCollectibles",
        f"{c}/addresses/{s.token.address}", f"{c}/contracts/{s.factory.address}/deployments",
        f"{c}/contracts/{s.made_token}/transactions:getDeployment?currency=usd",
        f"{c}/tokens/{s.multi.address}/transfers", f"{c}/nfts/collections/{sc.art.address}/tokens",
        f"{c}/nfts/collections/{sc.art.address}/tokens/1")] + [
        ("POST", f"{c}/nfts/collections/{sc.art.address}/tokens/2:reindex")]


def test_every_evm_route_of_the_document_is_served():
    chains_routes = {("GET", "/v1/chains"), ("GET", "/v1/chains/{chainId}"),
                     ("GET", "/v1/chains/{chainId}/addresses/{address}/balances:getNative")}
    evm = ("/v1/chains", "/v2/chains", "/v1/address/", "/v1/blocks", "/v1/transactions")
    documented = {(m.upper(), p) for p, item in raw_document("data")["paths"].items() for m in item
                  if p.startswith(evm)}
    assert documented == EVM_ROUTES | chains_routes and EVM_ROUTES <= set(HANDLERS)


def test_every_evm_route_answers_per_the_document(h, sc):
    c_id = id_to_str(h.node.genesis.c_chain_id)
    for chain in ("43112", "C", c_id):
        paths = route_paths(h, sc, chain) + [("GET", "/v1/blocks?network=fuji"), ("GET", "/v1/transactions"),
                                             ("GET", "/v1/transactions?status=failed&network=mainnet"),
                                             ("GET", f"/v1/address/{sc.s.alice.address}/chains")]
        assert routes_of(paths) == EVM_ROUTES
        for method, path in paths:
            status = 201 if method == "POST" else 200
            got, headers, raw = request(h.url, method, path)
            assert got == status, (path, raw[:300])
            body = contract().check(method, path, got, headers, raw)
            if status == 201:
                assert raw == b""
                continue
            assert body, path
            # the next page answers per the document too
            token = body.get("nextPageToken")
            if token is not None:
                sep = "&" if "?" in path else "?"
                assert api(h.url, f"{path}{sep}pageToken={token}")
    # the L1 chain by its EVM chain ID and its blockchain ID
    for chain in (str(L1_CHAIN_ID), h.l1_id):
        blocks = api(h.url, f"/v1/chains/{chain}/blocks")["blocks"]
        assert [b["chainId"] for b in blocks] == [str(L1_CHAIN_ID)] * 4
        balances = api(h.url, f"/v1/chains/{chain}/addresses/{sc.s.alice.address}/balances:listErc20")
        assert [(b["address"], b["balance"], b["chainId"]) for b in balances["erc20TokenBalances"]] == [
            (sc.l1_token, "10", str(L1_CHAIN_ID))]
        assert balances["nativeTokenBalance"]["symbol"] == "MYL1"


def test_lists_across_chains_merge_every_chain_by_time(h, sc):
    blocks = walk(h.url, "/v1/blocks", "blocks", 7)
    by_chain = {cid: sorted(int(b["blockNumber"]) for b in blocks if b["chainId"] == cid)
                for cid in ("43112", str(L1_CHAIN_ID))}
    assert by_chain[str(L1_CHAIN_ID)] == [0, 1, 2, 3]
    assert by_chain["43112"] == list(range(len(walk(h.url, f"{C}/blocks", "blocks"))))
    times = [b["blockTimestampMilliseconds"] if "blockTimestampMilliseconds" in b else b["blockTimestamp"] * 1000
             for b in blocks]
    assert times == sorted(times, reverse=True)
    txs = walk(h.url, "/v1/transactions", "transactions", 9)
    assert len(txs) == sum(int(b["txCount"]) for b in blocks)
    assert {t["chainId"] for t in txs} == {"43112", str(L1_CHAIN_ID)}
    failed = walk(h.url, "/v1/transactions?status=failed", "transactions")
    assert [t["txHash"] for t in failed] == [t["txHash"] for t in txs if t["txStatus"] == "0"] and failed
    chains = api(h.url, f"/v1/address/{sc.s.alice.address}/chains")["indexedChains"]
    assert [c["chainId"] for c in chains] == ["43112", str(L1_CHAIN_ID)]
    assert api(h.url, f"/v1/address/{sc.carol.address}/chains")["indexedChains"] == [api(h.url, C)]


def nest(h, path: str, status: int, method: str = "GET") -> object:
    """The `message` of an error answer, after checking it against the document."""
    body = api(h.url, path, status, method)
    assert body["statusCode"] == status and body["error"] == {400: "Bad Request", 404: "Not Found",
                                                              503: "Service Unavailable"}[status]
    return body["message"]


def test_bad_addresses_hashes_blocks_and_ids(h, sc):
    a = sc.s.alice.address
    bad_address = ["address must be an Ethereum address"]
    for path in ("/addresses/0x12/transactions", "/addresses/0x12/transactions:listNative",
                 "/addresses/0x12/transactions:listErc20", "/addresses/0x12/transactions:listErc721",
                 "/addresses/0x12/transactions:listErc1155", "/addresses/0x12/transactions:listInternals",
                 "/addresses/0x12/balances:listErc20", "/addresses/0x12/balances:listErc721",
                 "/addresses/0x12/balances:listErc1155", "/addresses/0x12/balances:listCollectibles",
                 f"/addresses/{a[:-1]}g", "/contracts/nope/deployments", "/contracts/0x12/transactions:getDeployment",
                 "/tokens/0x12/transfers", "/nfts/collections/0x12/tokens", "/nfts/collections/0x12/tokens/1"):
        assert nest(h, C + path, 400) == bad_address, path
    assert nest(h, f"/v2/chains/43112/addresses/{a}0/transactions", 400) == bad_address
    assert nest(h, "/v1/address/X-local1abc/chains", 400) == bad_address
    assert nest(h, f"{C}/nfts/collections/0x12/tokens/1:reindex", 400, "POST") == bad_address
    # tx hashes
    assert nest(h, f"{C}/transactions/0x1234", 400) == ["txHash must be a transaction hash (0x and 64 hex digits)"]
    unknown = "0x" + "ab" * 32
    assert nest(h, f"{C}/transactions/{unknown}", 404) == f"transaction {unknown} not found on chain 43112"
    # blocks
    head = int(api(h.url, f"{C}/blocks?pageSize=1")["blocks"][0]["blockNumber"])
    for block in ("latest", "-1", "0x10", "1.5"):
        assert nest(h, f"{C}/blocks/{block}", 400) == [
            "blockId must be a block number or a block hash (0x and 64 hex digits)"]
    for block in (str(head + 1), unknown, "99999999999999999999999"):
        assert nest(h, f"{C}/blocks/{block}", 404) == f"block {block} not found on chain 43112 (the latest is {head})"
        assert nest(h, f"{C}/blocks/{block}/transactions", 404).startswith(f"block {block} not found")
    for route in ("listErc20", "listErc1155"):
        assert nest(h, f"{C}/addresses/{a}/balances:{route}?blockNumber={head + 1}", 404) == (
            f"block {head + 1} not found on chain 43112 (the latest is {head})")
        assert nest(h, f"{C}/addresses/{a}/balances:{route}?blockNumber=latest", 400) == [
            "blockNumber must be a block number (a non-negative integer)"]
    # token IDs
    art = sc.art.address
    for token_id in ("-1", "0x1", str(2**256), "one"):
        assert nest(h, f"{C}/nfts/collections/{art}/tokens/{token_id}", 400) == [
            "tokenId must be a token ID (a non-negative integer below 2^256)"]
    assert nest(h, f"{C}/nfts/collections/{art}/tokens/99", 404).startswith(f"token 99 of {art} not found")
    assert nest(h, f"{C}/nfts/collections/{art}/tokens/99:reindex", 404, "POST").startswith("token 99 of")
    # block ranges
    for param, value in (("startBlock", "-1"), ("endBlock", "2.5"), ("startBlock", "x")):
        message = nest(h, f"{C}/addresses/{a}/transactions:listErc20?{param}={value}", 400)
        assert message == ([f"{param} must be a number conforming to the specified constraints"] if value == "x"
                           else [f"{param} must be a block number (a non-negative integer)"])
    assert nest(h, f"{C}/tokens/{art}/transfers?endBlock=-5", 400) == [
        "endBlock must be a block number (a non-negative integer)"]
    # contract filters
    assert nest(h, f"{C}/addresses/{a}/balances:listErc20?contractAddresses=0x12,{art}", 400) == [
        "contractAddresses must be a comma separated list of Ethereum addresses"]
    for route in ("listErc721", "listErc1155", "listCollectibles"):
        assert nest(h, f"{C}/addresses/{a}/balances:{route}?contractAddress=nope", 400) == [
            "contractAddress must be an Ethereum address"]
    # not a contract, no deployment
    assert nest(h, f"{C}/addresses/{sc.carol.address}", 404) == f"{sc.carol.address} is not a contract on chain 43112"
    assert nest(h, f"{C}/contracts/{a}/transactions:getDeployment", 404).startswith(f"no deployment of {a}")


def test_bad_enums_page_sizes_and_unknown_chains(h, sc):
    a = sc.s.alice.address
    assert nest(h, f"{C}/transactions?status=reverted", 400) == [
        "status must be one of the following values: failed, success"]
    assert nest(h, "/v1/transactions?status=ok", 400) == ["status must be one of the following values: failed, success"]
    assert nest(h, f"{C}/addresses/{a}/transactions?sortOrder=newest", 400) == [
        "sortOrder must be one of the following values: asc, desc"]
    assert nest(h, "/v1/blocks?network=local", 400) == [
        "network must be one of the following values: mainnet, fuji, testnet"]
    assert nest(h, f"/v2/chains/43112/addresses/{a}/transactions?filterSpamTokens=no", 400) == [
        "filterSpamTokens must be a boolean value"]
    assert nest(h, f"{C}/addresses/{a}/balances:listErc20?currency=btc", 400)[0].startswith(
        "currency must be one of the following values: usd, eur")
    for path, top in ((f"{C}/blocks", 100), ("/v1/blocks", 100), ("/v1/transactions", 100),
                      (f"{C}/addresses/{a}/transactions:listInternals", 100),
                      (f"{C}/addresses/{a}/balances:listErc20", 500),
                      (f"{C}/addresses/{a}/balances:listCollectibles", 500),
                      (f"{C}/nfts/collections/{a}/tokens", 100), (f"{C}/contracts/{a}/deployments", 100)):
        assert nest(h, f"{path}?pageSize={top + 1}", 400) == [f"pageSize must not be greater than {top}"]
        assert nest(h, f"{path}?pageSize=0", 400) == ["pageSize must not be less than 1"]
        assert api(h.url, f"{path}?pageSize={top}")
    assert nest(h, f"{C}/blocks/1/transactions?pageSize=-1", 400) == ["pageSize must not be less than 0"]
    known = "(its EVM chains: 43112, 99999)"
    for method, path in route_paths(h, sc, "1234"):
        assert nest(h, path, 404, method) == f"chain 1234 is not an EVM chain of this node {known}", path
    assert nest(h, "/v1/chains/X/blocks", 404) == f"chain X is not an EVM chain of this node {known}"


def test_page_tokens_belong_to_their_route_and_filters(h, sc):
    a = sc.s.alice.address
    invalid = ["pageToken is not a page token of this node: start again from the first page (without a pageToken)"]
    foreign = ["pageToken belongs to another request: pass it with the route and filters that returned it, or "
               "start again from the first page (without a pageToken)"]
    blocks = api(h.url, f"{C}/blocks?pageSize=2")["nextPageToken"]
    failed = api(h.url, f"{C}/transactions?status=failed&pageSize=1")["nextPageToken"]
    alice = api(h.url, f"{C}/addresses/{a}/transactions:listErc20?pageSize=1")["nextPageToken"]
    for path in (f"{C}/blocks?pageToken=garbage", f"{C}/transactions?pageToken={blocks[:-2]}",
                 f"{C}/addresses/{a}/transactions?pageToken=%FF"):
        assert nest(h, path, 400) == invalid, path
    for path in (f"{C}/transactions?pageToken={blocks}",  # another route
                 f"/v1/blocks?pageToken={blocks}",
                 f"{C}/transactions?status=success&pageToken={failed}",  # other filters
                 f"{C}/transactions?pageToken={failed}",
                 f"{C}/addresses/{sc.s.bob.address}/transactions:listErc20?pageToken={alice}",
                 f"{C}/addresses/{a}/transactions:listErc20?startBlock=3&pageToken={alice}",
                 f"{C}/addresses/{a}/transactions:listErc721?pageToken={alice}",
                 f"/v1/chains/{L1_CHAIN_ID}/blocks?pageToken={blocks}"):
        assert nest(h, path, 400) == foreign, path
    # the same request may change its page size mid-walk
    assert api(h.url, f"{C}/blocks?pageSize=5&pageToken={blocks}")["blocks"]


def test_a_node_without_the_index_answers_the_evm_lists_503():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="WARN", index=False)) as h:
        message = ("this node keeps no Data API index (it was started with --no-index): start it without "
                   "--no-index to serve the EVM lists")
        for path in (f"{C}/blocks", "/v1/blocks", f"{C}/transactions/0x{'00' * 32}",
                     f"/v1/address/{EWOQ.address}/chains", f"{C}/addresses/{EWOQ.address}/balances:listErc20"):
            assert nest(h, path, 503) == message, path
        assert api(h.url, f"{C}/addresses/{EWOQ.address}/balances:getNative")["nativeTokenBalance"]["balance"] != "0"
