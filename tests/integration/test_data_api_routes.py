"""The Data API on a real node over plain HTTP, every answer checked against the real OpenAPI
document: the chains routes (C-Chain and an L1), balances:getNative against eth_getBalance at
several blocks, the health checks, /api-json, and the error answers of every bad-parameter class,
unknown and account-bound routes."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys

import aiohttp
import pytest
from eth_account import Account

from simnode.api.data.routes import HANDLERS
from simnode.config import NodeConfig
from simnode.formats import id_to_str
from simnode.node import Node

from ..openapi_contract import contract, raw_document
from .dataapi import api, request, unknown_route
from .rpc import call
from .test_l1_evm_chain import GENESIS, L1_CHAIN_ID, create_l1

EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
C_ID = 43112
GWEI = 10**9
NATIVE = "/v1/chains/{}/addresses/{}/balances:getNative"


@pytest.fixture(scope="module")
def h():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="WARN")) as handle:
        _, chain_id = create_l1(handle, json.dumps(GENESIS).encode())
        handle.l1_id = id_to_str(chain_id)
        yield handle


def send(rpc: str, to: str, value: int, chain_id: int = C_ID) -> int:
    nonce = int(call(rpc, "eth_getTransactionCount", [EWOQ.address, "pending"]), 16)
    tx = {"chainId": chain_id, "nonce": nonce, "to": to, "value": value, "gas": 21000,
          "maxFeePerGas": 300 * GWEI, "maxPriorityFeePerGas": GWEI}
    h = call(rpc, "eth_sendRawTransaction", [EWOQ.sign_transaction(tx).raw_transaction.to_0x_hex()])
    for _ in range(200):
        rc = call(rpc, "eth_getTransactionReceipt", [h])
        if rc is not None:
            return int(rc["blockNumber"], 16)
        asyncio.run(asyncio.sleep(0.01))
    raise AssertionError("the transfer was not mined")


async def ws_chain_id(url: str) -> str:
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        await ws.send_json({"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []})
        return (await ws.receive_json(timeout=10))["result"]


# ------------------------------------------------------------------------------------ chains

def test_chains_list_and_get(h):
    base = h.url
    chains = api(base, "/v1/chains")["chains"]
    assert [c["chainId"] for c in chains] == [str(C_ID), str(L1_CHAIN_ID)]
    c, l1 = chains
    c_id = call(base + "/ext/info", "info.getBlockchainID", {"alias": "C"})["blockchainID"]
    assert c == {
        "chainId": "43112", "status": "OK", "chainName": "Avalanche Local (C-Chain)",
        "description": "The C-Chain of the local network (12345), served by simnode",
        "platformChainId": c_id, "subnetId": "11111111111111111111111111111111LpoYY",
        "vmId": "mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6", "vmName": "EVM",
        "rpcUrl": f"{base}/ext/bc/C/rpc", "wsUrl": base.replace("http://", "ws://") + "/ext/bc/C/ws",
        "isTestnet": True, "networkToken": {"name": "Avalanche", "symbol": "AVAX", "decimals": 18},
        "enabledFeatures": ["nftIndexing"],
    }
    record = next(b for b in call(base + "/ext/bc/P", "platform.getBlockchains")["blockchains"]
                  if b["id"] == h.l1_id)
    assert (l1["platformChainId"], l1["subnetId"], l1["vmId"], l1["chainName"]) == (
        h.l1_id, record["subnetID"], record["vmID"], record["name"])
    assert l1["networkToken"] == {"name": "myl1", "symbol": "MYL1", "decimals": 18}
    # the URLs are this node's and answer
    for info, evm_id in ((c, C_ID), (l1, L1_CHAIN_ID)):
        assert call(info["rpcUrl"], "eth_chainId") == hex(evm_id)
        assert asyncio.run(ws_chain_id(info["wsUrl"])) == hex(evm_id)
    # every network name names this network; features filter
    for network in ("mainnet", "fuji", "testnet"):
        assert api(base, f"/v1/chains?network={network}")["chains"] == chains
    assert api(base, "/v1/chains?feature=nftIndexing&network=fuji")["chains"] == chains
    assert api(base, "/v1/chains?feature=teleporter")["chains"] == []
    assert api(base, "/v1/chains?feature=webhooks")["chains"] == []
    # one chain by EVM chain ID, blockchain ID or alias
    for ref in ("43112", c_id, "C"):
        assert api(base, f"/v1/chains/{ref}") == c
    for ref in (str(L1_CHAIN_ID), h.l1_id):
        assert api(base, f"/v1/chains/{ref}") == l1


# ------------------------------------------------------------------------------------ balances

def test_get_native_equals_eth_get_balance_at_every_block(h):
    base, rpc = h.url, h.url + "/ext/bc/C/rpc"
    dest = Account.create().address
    for value in (1, 10**18, 12345):
        send(rpc, dest, value)
    head = int(call(rpc, "eth_blockNumber"), 16)
    assert head >= 3
    for addr in (EWOQ.address, dest, dest.lower()):
        for n in range(head + 1):
            got = api(base, NATIVE.format(C_ID, addr) + f"?blockNumber={n}&currency=eur")["nativeTokenBalance"]
            assert got == {"name": "Avalanche", "symbol": "AVAX", "decimals": 18, "chainId": "43112",
                           "balance": str(int(call(rpc, "eth_getBalance", [addr, hex(n)]), 16))}
        latest = api(base, NATIVE.format(C_ID, addr))["nativeTokenBalance"]["balance"]
        assert latest == str(int(call(rpc, "eth_getBalance", [addr, "latest"]), 16))
    # a dev edit shows in the latest state, as it does in eth_getBalance
    call(rpc, "anvil_setBalance", [dest, hex(777)])
    assert api(base, NATIVE.format("C", dest))["nativeTokenBalance"]["balance"] == "777"
    assert api(base, NATIVE.format("C", dest) + f"?blockNumber={head}")["nativeTokenBalance"]["balance"] == "777"
    assert api(base, NATIVE.format("C", dest) + f"?blockNumber={head - 1}")["nativeTokenBalance"]["balance"] == \
        str(int(call(rpc, "eth_getBalance", [dest, hex(head - 1)]), 16))
    # the L1 chain, by EVM chain ID and blockchain ID
    l1_rpc = f"{base}/ext/bc/{h.l1_id}/rpc"
    send(l1_rpc, dest, 99, L1_CHAIN_ID)
    for ref in (str(L1_CHAIN_ID), h.l1_id):
        got = api(base, NATIVE.format(ref, dest))["nativeTokenBalance"]
        assert got == {"name": "myl1", "symbol": "MYL1", "decimals": 18, "chainId": str(L1_CHAIN_ID),
                       "balance": "99"}
        assert api(base, NATIVE.format(ref, EWOQ.address) + "?blockNumber=0")["nativeTokenBalance"]["balance"] == \
            str(int(call(l1_rpc, "eth_getBalance", [EWOQ.address, "0x0"]), 16))
    # a block that does not exist yet
    err = api(base, NATIVE.format(C_ID, dest) + f"?blockNumber={head + 5}", 404)
    assert err["message"] == f"block {head + 5} not found on chain 43112 (the latest is {head})"


# ------------------------------------------------------------------------------------ errors

def test_every_bad_parameter_class_gets_its_4xx_and_nestjs_body(h):
    base = h.url
    cases = [
        # out-of-range and non-integer pageSize
        ("/v1/chains/43112/blocks?pageSize=0", 400, ["pageSize must not be less than 1"]),
        ("/v1/chains/43112/blocks?pageSize=101", 400, ["pageSize must not be greater than 100"]),
        ("/v1/chains/43112/blocks?pageSize=2.5", 400, ["pageSize must be an integer number"]),
        ("/v1/chains/43112/blocks?pageSize=ten", 400, ["pageSize must not be greater than 100",
                                                       "pageSize must not be less than 1",
                                                       "pageSize must be an integer number"]),
        # bad enum, bad boolean
        ("/v1/networks/fuji/validators?sortOrder=up", 400,
         ["sortOrder must be one of the following values: asc, desc"]),
        ("/v1/chains/43112/transactions?status=ok", 400,
         ["status must be one of the following values: failed, success"]),
        ("/v1/networks/fuji/blockchains/p-chain/utxos?includeSpent=yes", 400,
         ["includeSpent must be a boolean value"]),
        (NATIVE.format(C_ID, EWOQ.address) + "?currency=btc", 400,
         ["currency must be one of the following values: usd, eur, aud, cad, chf, clp, cny, czk, dkk, gbp, hkd, "
          "huf, jpy, nzd"]),
        # bad network
        ("/v1/networks/local/validators", 400, ["network must be one of the following values: mainnet, fuji, testnet"]),
        ("/v1/chains?network=local", 400, ["network must be one of the following values: mainnet, fuji, testnet"]),
        # bad page token
        ("/v1/chains/43112/blocks?pageToken=garbage", 400, None),
        # bad address, bad block number
        (NATIVE.format(C_ID, "0x1234"), 400, ["address must be an Ethereum address"]),
        (NATIVE.format(C_ID, "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"), 400,
         ["address must be an Ethereum address"]),
        (NATIVE.format(C_ID, EWOQ.address) + "?blockNumber=0x10", 400,
         ["blockNumber must be a block number (a non-negative integer)"]),
        # unknown chain
        ("/v1/chains/1234", 404, "chain 1234 is not an EVM chain of this node (its EVM chains: 43112, 99999)"),
        (NATIVE.format("nope", EWOQ.address), 404,
         "chain nope is not an EVM chain of this node (its EVM chains: 43112, 99999)"),
    ]
    for path, status, message in cases:
        body = api(base, path, status)
        assert body["statusCode"] == status and body["error"] == {400: "Bad Request", 404: "Not Found"}[status]
        if message is not None:
            assert body["message"] == message, path
    token = api(base, "/v1/chains/43112/blocks?pageToken=garbage", 400)["message"]
    assert token == ["pageToken is not a page token of this node: start again from the first page "
                     "(without a pageToken)"]
    # a primary-network blockchainId: the aliases, the mainnet/Fuji IDs and this node's own IDs
    x_id = call(base + "/ext/info", "info.getBlockchainID", {"alias": "X"})["blockchainID"]
    for ref in ("x-chain", "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm", x_id):
        body = api(base, f"/v1/networks/fuji/blockchains/{ref}/utxos?addresses=X-local1abc", 400)
        assert body["message"] == ["addresses: X-local1abc is not a bech32 address: invalid separator index 5"]
    body = api(base, "/v1/networks/fuji/blockchains/X/utxos", 400)
    assert body["message"][0].startswith("blockchainId must be one of the following values: "
                                         "11111111111111111111111111111111LpoYY, ")
    assert body["message"][0].endswith(f", c-chain, {x_id}, " + call(
        base + "/ext/info", "info.getBlockchainID", {"alias": "C"})["blockchainID"])
    assert api(base, f"/v1/networks/fuji/blockchains/{x_id}/transactions:listStaking", 400)["message"] == [
        "blockchainId must be one of the following values: 11111111111111111111111111111111LpoYY, p-chain"]
    # the Metrics API: messages are always arrays
    assert api(base, "/v2/chains/43112/metrics/txCount?pageSize=0", 400)["message"] == [
        "pageSize must not be less than 1"]
    assert api(base, "/v2/chains/43112/metrics/nope", 400)["message"][0].startswith(
        "metric must be one of the following values: activeAddresses, ")
    assert api(base, "/v2/chains/43112/metrics/avgTps?timeInterval=week", 400)["message"] == [
        "avgTps supports only timeInterval=day (metrics named cumulative*, avg* or max*, and contracts, deployers and "
        "feesPaid are daily)"]


def test_post_bodies_are_validated(h):
    base = h.url
    utxos = "/v1/networks/fuji/blockchains/p-chain/utxos"
    assert api(base, utxos, 400, "POST", {})["message"] == ["addresses must be a string"]
    assert api(base, utxos, 400, "POST", {"addresses": ["P-local1a"]})["message"] == ["addresses must be a string"]
    assert api(base, utxos + "?pageSize=1025", 400, "POST", {"addresses": "P-local1a"})["message"] == [
        "pageSize must not be greater than 1024"]
    assert api(base, utxos + "?pageSize=1024", 400, "POST", {"addresses": "P-local1a"})["message"] == [
        "addresses: P-local1a is not a bech32 address: invalid bech32 string length 7"]
    status, _, raw = request(base, "POST", utxos, raw_body=b'{"addresses": ')
    assert status == 400 and json.loads(raw)["message"].startswith("the request body is not valid JSON")
    status, headers, raw = request(base, "POST", utxos, raw_body=b'{"addresses": "' + b"a" * (6 << 20) + b'"}')
    assert status == 413 and headers["Content-Type"].startswith("application/json")
    assert json.loads(raw) == {"message": "request entity too large", "error": "Payload Too Large",
                               "statusCode": 413}
    sig = "/v1/signatureAggregator/fuji/aggregateSignatures"
    assert api(base, sig, 400, "POST", {"message": 5, "quorumPercentage": "67"})["message"] == [
        "message must be a string", "quorumPercentage must be a number conforming to the specified constraints"]


def test_unknown_and_account_bound_routes_are_json_404s(h):
    base = h.url
    for method, path in (("GET", "/v1/foo"), ("GET", "/v1/foo?x=1"), ("GET", "/v1"), ("GET", "/v2/"),
                         ("POST", "/v1/chains"), ("DELETE", "/v1/chains/43112"), ("GET", "/v1/chains/43112/nope")):
        body = unknown_route(base, path, method)
        assert body["message"] == f"Cannot {method} {path}"
    bound = [("GET", "/v1/webhooks", "webhooks"), ("POST", "/v1/webhooks", "webhooks"),
             ("PATCH", "/v1/webhooks/abc", "webhooks"), ("GET", "/v1/webhooks/abc/addresses", "webhooks"),
             ("POST", "/v1/webhooks:generateOrRotateSharedSecret", "webhooks"),
             ("GET", "/v1/webhooks:getSharedSecret", "webhooks")]
    for method, path, feature in bound:
        body = unknown_route(base, path, method)
        assert body["message"] == (f"{method} {path} is an account-bound route of the hosted Data API ({feature}): "
                                   "it does not exist on a local node")
    # NFT reindexing is a data route, not an account's
    body = api(base, f"/v1/chains/43112/nfts/collections/{EWOQ.address}/tokens/1:reindex", 404, "POST")
    assert body["message"].startswith(f"token 1 of {EWOQ.address} not found on chain 43112")


def test_an_internal_error_is_a_logged_500_without_details(h, monkeypatch):
    def broken(_ctx: object) -> dict:
        raise RuntimeError("a detail for the log only")

    monkeypatch.setitem(HANDLERS, ("GET", "/v1/live-check"), broken)
    records: list[logging.LogRecord] = []
    catcher = logging.Handler()
    catcher.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("simnode.dataapi")
    logger.addHandler(catcher)
    try:
        body = api(h.url, "/v1/live-check", 500)
    finally:
        logger.removeHandler(catcher)
    assert body == {"message": "Internal server error", "error": "Internal Server Error", "statusCode": 500}
    assert [r.exc_info[1].args for r in records if r.exc_info] == [("a detail for the log only",)]
    assert "(live-check)" in records[0].getMessage()


def test_api_keys_and_client_headers_are_accepted(h):
    base = h.url
    for headers in ({"x-glacier-api-key": "k1"}, {"x-data-api-key": "k2"}, {"cookie": "", "X-App-Component": "x"}):
        assert api(base, "/v1/chains/43112", headers=headers)["chainId"] == "43112"
    status, headers, _ = request(base, "OPTIONS", "/v1/chains", headers={
        "Origin": "http://localhost:3000", "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "x-glacier-api-key"})
    assert status == 204 and headers["Access-Control-Allow-Headers"] == "x-glacier-api-key"
    assert headers["Access-Control-Allow-Origin"] == "http://localhost:3000"


# ------------------------------------------------------------------------------------ health, documents

def test_health_and_live_checks(h):
    up = {"status": "up"}
    assert api(h.url, "/v1/health-check") == {"status": "ok", "info": {"database": up, "chains": up}, "error": {},
                                             "details": {"database": up, "chains": up}}
    assert api(h.url, "/v1/live-check") == {"status": "ok", "info": {"database": up}, "error": {},
                                           "details": {"database": up}}


def test_health_check_fails_with_a_chain_that_failed_to_start():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="OFF")) as handle:
        create_l1(handle, b"not a genesis")
        status, headers, raw = request(handle.url, "GET", "/v1/health-check")
        assert status == 503 and headers["Content-Type"] == "application/json; charset=utf-8"
        assert json.loads(raw) == {"status": "error", "info": {"database": {"status": "up"}},
                                   "error": {"chains": {"status": "down"}},
                                   "details": {"database": {"status": "up"}, "chains": {"status": "down"}}}
        assert api(handle.url, "/v1/live-check")["status"] == "ok"


def test_api_json_serves_the_implemented_documents(h):
    status, headers, raw = request(h.url, "GET", "/api-json")
    assert status == 200 and headers["Content-Type"] == "application/json; charset=utf-8"
    doc = json.loads(raw)
    assert doc["openapi"] == "3.1.0" and doc["info"]["title"] == "Data API"
    assert doc["servers"] == [{"url": h.url}]
    served = {(m.upper(), p) for p, item in doc["paths"].items() for m in item}
    assert served == {key for key in HANDLERS if key[1] in raw_document("data")["paths"]}
    assert {("GET", "/v1/health-check"), ("GET", "/v1/chains/{chainId}"), ("GET", "/v1/blocks"),
            ("GET", "/v1/chains/{chainId}/addresses/{address}/balances:getNative")} <= served
    assert "GetNativeBalanceResponse" in doc["components"]["schemas"]
    assert doc["security"] == [{"apiKey": []}, {}]
    # the address the client used is the server it is told about
    other = h.url.replace("127.0.0.1", "localhost")
    assert json.loads(request(other, "GET", "/api-json")[2])["servers"] == [{"url": other}]
    metrics = json.loads(request(h.url, "GET", "/api-json/metrics")[2])
    assert metrics["info"]["title"] == "Metrics API" and metrics["servers"] == [{"url": h.url}]
    assert sorted(metrics["paths"]) == sorted(p for m, p in HANDLERS if p in raw_document("metrics")["paths"])


def test_the_data_api_is_loaded_on_its_first_request_not_at_start():
    code = (
        "import sys, urllib.request\n"
        "from simnode.config import NodeConfig\n"
        "from simnode.node import Node\n"
        "with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level='OFF')) as h:\n"
        "    print(any(m.startswith('simnode.api.data') for m in sys.modules))\n"
        "    urllib.request.urlopen(h.url + '/v1/live-check').read()\n"
        "    from simnode.api.data.spec import document\n"
        "    print(document.cache_info().currsize)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.split() == ["False", "2"], proc.stderr


# ------------------------------------------------------------------------------------ rate limit

def test_rate_limit_answers_429_and_recovers():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="WARN",
                                         data_api_rate_limit=2)) as handle:
        base, path = handle.url, "/v1/chains/43112"
        key = {"x-glacier-api-key": "alice"}
        answers = [request(base, "GET", path, headers=key) for _ in range(12)]
        limited = [a for a in answers if a[0] == 429]
        assert limited, "12 quick requests at 2 per second were never limited"
        status, headers, raw = limited[0]
        assert contract().check("GET", path, status, headers, raw) == {
            "message": "ThrottlerException: Too Many Requests", "error": "Too Many Requests", "statusCode": 429}
        assert int(headers["Retry-After"]) >= 1
        ok = next(a for a in answers if a[0] == 200)
        assert ok[1]["X-RateLimit-Limit"] == "2" and "X-RateLimit-Remaining" in ok[1]
        # another key (either header) has its own budget; so has a client without a key
        assert request(base, "GET", path, headers={"x-data-api-key": "bob"})[0] == 200
        assert request(base, "GET", path)[0] == 200
        # after the window, the same key is served again
        asyncio.run(asyncio.sleep(int(headers["Retry-After"])))
        assert request(base, "GET", path, headers=key)[0] == 200
