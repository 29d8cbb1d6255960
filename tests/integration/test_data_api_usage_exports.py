"""Issue 29's "other eleven" over plain HTTP, every answer checked against the real documents:
export operations as background jobs kept in LevelDB (CSV served by the node), the usage metrics
and logs from the node's request log per API key, validators:getAddresses, the deprecated EVM
routes; and chainkit 0.3.13's own calls of each (tests/js/chainkit_usage_ops.mjs)."""

from __future__ import annotations

import csv
import http.client
import io
import json
import time
import urllib.parse
from typing import Any

import pytest
from eth_account import Account

from simnode.api.data import export_job
from simnode.api.request_log import RequestLog, key_id
from simnode.config import NodeConfig
from simnode.formats import id_to_str
from simnode.node import Node

from ..openapi_contract import contract
from .dataapi import api, request
from .icm_l1 import converted_l1, subnet_evm_genesis
from .js import JS_DIR, require_js, run_js
from .rpc import call

EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
EWOQ_P = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
GWEI = 10**9
PRIMARY = "11111111111111111111111111111111LpoYY"


def send_avax(url: str, nonce: int, to: str) -> str:
    tx = {"chainId": 43112, "nonce": nonce, "to": to, "value": 10**15 + nonce, "gas": 21000,
          "maxFeePerGas": 300 * GWEI, "maxPriorityFeePerGas": GWEI}
    return call(url + "/ext/bc/C/rpc", "eth_sendRawTransaction", [EWOQ.sign_transaction(tx).raw_transaction.to_0x_hex()])


@pytest.fixture(scope="module")
def h():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="WARN")) as handle:
        handle.receiver = Account.create().address
        handle.tx_hashes = [send_avax(handle.url, n, handle.receiver) for n in range(3)]
        yield handle


def export(h, body: dict[str, Any], key: str | None = None) -> dict[str, Any]:
    """The finished operation (polled until it leaves RUNNING)."""
    headers = {"x-glacier-api-key": key} if key else None
    created = api(h.url, "/v1/operations/transactions:export", 201, "POST", body, headers)
    assert created["operationStatus"] == "RUNNING" and "metadata" not in created
    for _ in range(400):
        op = api(h.url, f"/v1/operations/{created['operationId']}")
        if op["operationStatus"] != "RUNNING":
            assert op["operationId"] == created["operationId"] and op["createdAtTimestamp"] == created["createdAtTimestamp"]
            return op
        time.sleep(0.02)
    raise AssertionError("the export stayed RUNNING")


def download(url: str) -> list[dict[str, str]]:
    parts = urllib.parse.urlsplit(url)
    status, headers, raw = request(f"{parts.scheme}://{parts.netloc}", "GET", parts.path)
    assert status == 200 and headers["Content-Type"].startswith("text/csv"), (status, raw[:300])
    return list(csv.DictReader(io.StringIO(raw.decode())))


def evm_export(first: str = "2020-01-01", last: str = "2099-12-31", chains: tuple[str, ...] = ("43112",)) -> dict:
    return {"type": "TRANSACTION_EXPORT_EVM", "firstDate": first, "lastDate": last,
            "options": {"addresses": [EWOQ.address], "includeChains": list(chains)}}


# ------------------------------------------------------------------------------ export operations


def test_evm_export_is_a_csv_of_the_address_transactions(h):
    op = export(h, evm_export())
    assert op["operationType"] == "TRANSACTION_EXPORT_EVM" and op["operationStatus"] == "COMPLETED"
    rows = download(op["metadata"]["downloadUrl"])
    native = [r for r in rows if r["kind"] == "native"]
    assert [r["txHash"] for r in native] == h.tx_hashes  # oldest first
    for r, nonce in zip(native, range(3), strict=True):
        tx = api(h.url, f"/v1/chains/43112/transactions/{r['txHash']}")["nativeTransaction"]
        assert (r["from"], r["to"], r["value"], r["blockNumber"], r["gasPrice"]) == (
            EWOQ.address, h.receiver, str(10**15 + nonce), tx["blockNumber"], tx["gasPrice"])
        assert r["chainId"] == "43112" and r["txStatus"] == "1" and int(r["blockTimestamp"]) == tx["blockTimestamp"]
    # a range before the chain: an empty CSV (its header only)
    assert download(export(h, evm_export("2020-01-01", "2020-01-31"))["metadata"]["downloadUrl"]) == []


def test_primary_network_exports(h):
    body = {"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "firstDate": "2020-01-01", "lastDate": "2099-12-31",
            "options": {"addresses": [EWOQ_P], "includeChains": ["p-chain", "x-chain"]}}
    rows = download(export(h, body)["metadata"]["downloadUrl"])
    listed = api(h.url, f"/v1/networks/fuji/blockchains/p-chain/transactions?addresses={EWOQ_P}&pageSize=100"
                        "&sortOrder=asc")["transactions"]
    assert [r["txHash"] for r in rows if r["chainName"] == "p-chain"] == [t["txHash"] for t in listed]
    staking = download(export(h, {**body, "type": "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING"})["metadata"]["downloadUrl"])
    assert staking and all(r["txType"] in export_job.STAKING_TYPES and r["chainName"] == "p-chain" for r in staking)


def test_an_export_of_a_chain_the_node_lacks_fails(h):
    op = export(h, evm_export(chains=("43112", "777")))
    assert op["operationStatus"] == "FAILED" and op["metadata"] == {"code": "ErrInvalidRequest"}
    assert "777" in op["message"]
    status, _, raw = request(h.url, "GET", f"/v1/operations/{op['operationId']}/download")
    assert status == 404 and json.loads(raw)["statusCode"] == 404


def test_an_export_over_the_bound_is_truncated_at_a_day(h, monkeypatch):
    monkeypatch.setattr(export_job, "MAX_ROWS", 2)
    op = export(h, evm_export())
    rows = download(op["metadata"]["downloadUrl"])
    assert op["operationStatus"] == "COMPLETED_WITH_WARNING" and op["metadata"]["code"] == "WarnTruncatedExport"
    day = rows[0]["date"]
    assert len(rows) == 2 and all(r["date"] == day for r in rows)  # one day alone is over the bound
    assert op["metadata"]["nextDate"] > day


def test_a_running_export_starts_again_when_read(h):
    op = export(h, evm_export())
    op_id = bytes.fromhex(op["operationId"].replace("-", ""))
    rec = export_job.load(h.node.store, op_id)
    export_job.save(h.node.store, op_id, {**rec, "status": "RUNNING"})  # as a node stopped mid-job leaves it
    again = api(h.url, f"/v1/operations/{op['operationId']}")
    assert again["operationStatus"] == "RUNNING"
    for _ in range(400):
        again = api(h.url, f"/v1/operations/{op['operationId']}")
        if again["operationStatus"] != "RUNNING":
            break
        time.sleep(0.02)
    assert again["operationStatus"] == "COMPLETED"
    assert download(again["metadata"]["downloadUrl"]) == download(op["metadata"]["downloadUrl"])


def test_operations_persist_across_a_restart(tmp_path):
    data = tmp_path / "data"
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=data, log_level="WARN")) as h:
        send_avax(h.url, 0, Account.create().address)
        op = export(h, evm_export())
        before = download(op["metadata"]["downloadUrl"])
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=data, log_level="WARN")) as h:
        after = api(h.url, f"/v1/operations/{op['operationId']}")
        assert after["operationStatus"] == "COMPLETED" and after["updatedAtTimestamp"] == op["updatedAtTimestamp"]
        assert download(after["metadata"]["downloadUrl"]) == before and len(before) == 1


def test_export_bad_input_is_a_400(h):
    good = evm_export()
    cases = [
        ({}, "type must be one of the following values: TRANSACTION_EXPORT_EVM, TRANSACTION_EXPORT_PRIMARY_NETWORK, "
             "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING, TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE"),
        ({**good, "options": None}, "options must be an object"),
        ({**good, "firstDate": "2020-13-01"}, "firstDate must be a valid ISO 8601 date string (YYYY-MM-DD)"),
        ({**good, "lastDate": 5}, "lastDate must be a valid ISO 8601 date string (YYYY-MM-DD)"),
        ({**good, "firstDate": "2021-01-02", "lastDate": "2021-01-01"}, "firstDate must not be after lastDate"),
        ({**good, "options": {"addresses": "0x1", "includeChains": ["43112"]}}, "options.addresses must be an array"),
        ({**good, "options": {"addresses": ["0x12"], "includeChains": ["43112"]}},
         "each value in options.addresses must be an Ethereum address"),
        ({**good, "options": {"addresses": [], "includeChains": ["43112"]}}, "options.addresses should not be empty"),
        ({**good, "options": {"addresses": [EWOQ.address], "includeChains": []}},
         "options.includeChains should not be empty"),
        ({**good, "options": {"addresses": [EWOQ.address] * 65, "includeChains": ["43112"]}},
         "options.addresses must contain no more than 64 elements"),
        ({"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "firstDate": "2020-01-01", "lastDate": "2020-01-02",
          "options": {"addresses": [EWOQ_P], "includeChains": ["d-chain"]}},
         "each value in options.includeChains must be one of the following values: " + ", ".join(
             contract().apis[0].registry.contents("urn:simnode:data-api")["components"]["schemas"]
             ["PrimaryNetworkOptions"]["properties"]["includeChains"]["items"]["enum"])),
    ]
    for body, sentence in cases:
        answer = api(h.url, "/v1/operations/transactions:export", 400, "POST", body)
        assert answer == {"message": [sentence], "error": "Bad Request", "statusCode": 400}, (body, answer)
    assert api(h.url, "/v1/operations/nope", 400)["message"] == ["operationId must be a UUID"]
    assert api(h.url, "/v1/operations/00000000-0000-4000-8000-000000000000", 404)["error"] == "Not Found"
    status, _, raw = request(h.url, "GET", "/v1/operations/nope/download")
    assert status == 400 and json.loads(raw)["message"] == ["operationId must be a UUID"]


# ------------------------------------------------------------------------------ usage


def rpc_fast(url: str, payload: Any, key: str) -> bytes:
    """A JSON-RPC call the node answers on its lean path (HTTP/1.1 keep-alive, no Origin)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("POST", "/ext/bc/C/rpc", json.dumps(payload), {"Content-Type": "application/json",
                                                                "x-glacier-api-key": key, "User-Agent": "my-app/1"})
    body = conn.getresponse().read()
    conn.close()
    return body


def test_usage_logs_and_metrics_per_api_key(h):
    key, other = "usage-key-0001", "usage-key-0002"
    rpc_fast(h.url, {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}, key)
    rpc_fast(h.url, [{"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []},
                     {"jsonrpc": "2.0", "id": 2, "method": "eth_gasPrice", "params": []}], key)
    api(h.url, "/v1/chains/43112/blocks?pageSize=1", headers={"x-glacier-api-key": key})
    api(h.url, "/v1/chains/43112/blocks?pageSize=1000", 400, headers={"x-glacier-api-key": key})
    mine = {"x-glacier-api-key": key}
    logs = api(h.url, "/v1/apiLogs?pageSize=100", headers=mine)
    assert logs["orgId"] == h.node.node_id_str
    got = [(x["requestType"], x["requestPath"], x.get("rpcMethod"), x["responseCode"]) for x in logs["logs"]]
    assert got == [("data", "/v1/chains/43112/blocks", None, 400), ("data", "/v1/chains/43112/blocks", None, 200),
                   ("rpc", "/ext/bc/C/rpc", "eth_gasPrice", 200), ("rpc", "/ext/bc/C/rpc", "eth_blockNumber", 200),
                   ("rpc", "/ext/bc/C/rpc", "eth_chainId", 200)]  # newest first
    first = logs["logs"][-1]
    assert first["apiKeyId"] == key_id(key) and first["chainId"] == "43112"
    assert first["metadata"]["userAgent"] == "my-app/1" and first["metadata"]["ipAddress"] == "127.0.0.1"
    assert logs["logs"][1]["apiCreditsConsumed"] == 10  # listLatestBlocks: weight "small"
    # pages: newest first, pageSize 2, tokens to the end
    seen, token = [], None
    while True:
        page = api(h.url, "/v1/apiLogs?pageSize=2" + (f"&pageToken={token}" if token else ""), headers=mine)
        seen += page["logs"]
        token = page.get("nextPageToken")
        if not token:
            break
    # the first page's newest call is the apiLogs call above; the walk's own calls are newer than its cursor
    assert seen[0]["requestPath"] == "/v1/apiLogs" and [x["logId"] for x in seen[1:]] == [x["logId"] for x in logs["logs"]]
    # another key sees none of them; without a key, every call; apiKeyId narrows to one key
    assert api(h.url, "/v1/apiLogs", headers={"x-glacier-api-key": other})["logs"] == []
    everyone = api(h.url, f"/v1/apiLogs?pageSize=100&apiKeyId={key_id(key)}")["logs"]
    assert [x["logId"] for x in everyone][-5:] == [x["logId"] for x in logs["logs"]]
    # metrics: the same calls, grouped
    usage = api(h.url, "/v1/apiUsageMetrics?groupBy=requestType&requestPath=%2Fext%2Fbc%2FC%2Frpc", headers=mine)
    assert usage["aggregateDuration"] == "daily" and len(usage["metrics"]) == 1
    [value] = usage["metrics"][0]["values"]
    assert (value["groupedBy"], value["groupValue"], value["totalRequests"], value["successRatePercent"]) == \
        ("requestType", "rpc", 3, 100)
    codes = api(h.url, "/v1/apiUsageMetrics?groupBy=responseCode&requestType=data&chainId=43112", headers=mine)
    by_code = {v["groupValue"]: v for v in codes["metrics"][0]["values"]}
    assert by_code[400]["invalidRequests"] == 1 and by_code[400]["apiCreditsWasted"] == 10
    assert by_code[200]["totalRequests"] == 1 and by_code[200]["apiCreditsUsed"] == 10
    status, _, raw = request(h.url, "GET", "/v1/rpcUsageMetrics?groupBy=rpcMethod&timeInterval=hourly", headers=mine)
    assert status == 200
    rpc = _same_schema(json.loads(raw), "/v1/subnetRpcUsageMetrics")
    assert [v["groupValue"] for v in rpc["metrics"][0]["values"]] == ["eth_blockNumber", "eth_chainId", "eth_gasPrice"]
    assert api(h.url, "/v1/subnetRpcUsageMetrics", headers=mine)["metrics"] == []  # no L1 chain was called
    primary = api(h.url, "/v1/primaryNetworkRpcUsageMetrics?network=fuji&groupBy=country", headers=mine)
    assert primary["network"] == "testnet" and primary["metrics"][0]["values"][0]["groupValue"] == "XX"
    # a range before the calls; another organisation; a range the wrong way round
    assert api(h.url, "/v1/apiUsageMetrics?startTimestamp=0&endTimestamp=86400", headers=mine)["metrics"] == []
    assert api(h.url, "/v1/apiUsageMetrics?orgId=someone", 404)["error"] == "Not Found"
    assert api(h.url, "/v1/apiLogs?startTimestamp=5&endTimestamp=4", 400)["message"] == [
        "startTimestamp must not be greater than endTimestamp"]
    assert api(h.url, "/v1/apiUsageMetrics?timeInterval=yearly", 400)["message"][0].startswith(
        "timeInterval must be one of the following values:")


def test_the_request_log_is_bounded():
    class _Node:
        endpoint_aliases: dict[str, str] = {}
        chains: dict[bytes, object] = {}

        def chain_by_alias(self, ref: str) -> None:
            return None

    node = _Node()
    log = RequestLog(node, max_entries=3)  # type: ignore[arg-type]
    for n in range(5):
        log.record_data(f"/v1/x{n}", 1, 200, 1.0, None, "127.0.0.1", "h", "ua")
    assert [c.path for c in log.entries] == ["/v1/x2", "/v1/x3", "/v1/x4"] and log.count == 5


# ------------------------------------------------------------------------------ looking glass, deprecated routes


def test_validator_addresses_of_a_subnet(h):
    body = api(h.url, f"/v2/subnets/{PRIMARY}/validators:getAddresses?network=fuji")
    validators = api(h.url, "/v1/networks/fuji/validators?pageSize=100&sortOrder=asc")["validators"]
    assert len(body["addresses"]) == len(validators) and "nextPageToken" not in body
    assert [a["sortKey"] for a in body["addresses"]] == [str(v["startTimestamp"]) for v in validators]
    assert all(a["addresses"] == [EWOQ_P[2:]] for a in body["addresses"])
    first = int(body["addresses"][0]["sortKey"])
    assert api(h.url, f"/v2/subnets/{PRIMARY}/validators:getAddresses?endTimestamp={first - 1}")["addresses"] == []
    pages, token = [], None
    while True:
        page = api(h.url, f"/v2/subnets/{PRIMARY}/validators:getAddresses?pageSize=2"
                          + (f"&pageToken={token}" if token else ""))
        pages += page["addresses"]
        token = page.get("nextPageToken")
        if not token:
            break
    assert pages == body["addresses"]
    assert api(h.url, "/v2/subnets/nope/validators:getAddresses", 400)["message"] == [
        "subnetId must be a valid subnet ID (a cb58 ID)"]
    unknown = "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM"
    assert api(h.url, f"/v2/subnets/{unknown}/validators:getAddresses", 404)["error"] == "Not Found"
    assert api(h.url, f"/v2/subnets/{PRIMARY}/validators:getAddresses?pageSize=5001", 400)["message"] == [
        "pageSize must not be greater than 5000"]


def _same_schema(body: dict[str, Any], current: str) -> dict[str, Any]:
    """A deprecated route's answer, checked with its successor's schema (its document dropped it)."""
    c = contract()
    api_, _, op = c.find("GET", current)
    c.validate(api_, op["responses"]["200"]["content"]["application/json"]["schema"], body, current)
    return {k: v for k, v in body.items() if k != "nextPageToken"}


def test_the_deprecated_evm_routes_answer_as_their_successors(h):
    for old, new in (("/v1/chains/allBlocks?pageSize=2", "/v1/blocks?pageSize=2"),
                     ("/v1/chains/allTransactions?pageSize=2&status=success", "/v1/transactions?pageSize=2&status=success"),
                     (f"/v1/chains/address/{EWOQ.address}", f"/v1/address/{EWOQ.address}/chains")):
        status, _, raw = request(h.url, "GET", old)
        assert status == 200, (old, raw[:300])
        assert _same_schema(json.loads(raw), new.split("?")[0]) == {
            k: v for k, v in api(h.url, new).items() if k != "nextPageToken"}
    for path, sentence in (("/v1/chains/allBlocks?pageSize=101", "pageSize must not be greater than 100"),
                           ("/v1/chains/allTransactions?status=pending",
                            "status must be one of the following values: failed, success"),
                           ("/v1/chains/allBlocks?network=local",
                            "network must be one of the following values: mainnet, fuji, testnet"),
                           ("/v1/chains/address/0x12", "address must be an Ethereum address")):
        status, _, raw = request(h.url, "GET", path)
        body = json.loads(raw)
        assert status == 400 and body["error"] == "Bad Request" and sentence in json.dumps(body["message"]), (path, body)


def test_the_served_documents_list_the_new_routes(h):
    status, _, raw = request(h.url, "GET", "/openapi/data-api.json")
    paths = json.loads(raw)["paths"]
    assert status == 200
    for route in ("/v1/operations/transactions:export", "/v1/operations/{operationId}", "/v1/apiUsageMetrics",
                  "/v1/apiLogs", "/v1/subnetRpcUsageMetrics", "/v1/primaryNetworkRpcUsageMetrics"):
        assert route in paths, route
    status, _, raw = request(h.url, "GET", "/openapi/metrics-api.json")
    assert "/v2/subnets/{subnetId}/validators:getAddresses" in json.loads(raw)["paths"]


# ------------------------------------------------------------------------------ chainkit


def test_chainkit_calls_the_eleven(h):
    require_js("the chainkit tests")
    if not (JS_DIR / "node_modules" / "@avalanche-sdk" / "chainkit").is_dir():
        pytest.skip("tests/js/node_modules has no @avalanche-sdk/chainkit: run `cd tests/js && npm ci`")
    key = "chainkit-key-42"
    out = run_js("chainkit_usage_ops.mjs", h.url, json.dumps({"apiKey": key, "address": EWOQ.address,
                                                              "pAddress": EWOQ_P}), timeout=120)
    strip = lambda body: {k: v for k, v in body.items() if k != "nextPageToken"}  # noqa: E731
    assert strip(out["allBlocks"]) == strip(api(h.url, "/v1/blocks?pageSize=2"))
    assert strip(out["allTxs"]) == strip(api(h.url, "/v1/transactions?pageSize=2&status=success"))
    assert out["addressChains"] == api(h.url, f"/v1/address/{EWOQ.address}/chains")
    assert out["validatorAddresses"]["items"] == api(
        h.url, f"/v2/subnets/{PRIMARY}/validators:getAddresses")["addresses"]
    evm = out["evmExport"]
    assert evm["created"]["operationStatus"] == "RUNNING" and evm["op"]["operationStatus"] == "COMPLETED"
    assert set(evm["states"]) <= {"RUNNING", "COMPLETED"}
    assert [r["txHash"] for r in csv.DictReader(io.StringIO(evm["csv"])) if r["kind"] == "native"] == h.tx_hashes
    assert out["stakingExport"]["op"]["operationType"] == "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING"
    assert out["failedExport"]["op"]["operationStatus"] == "FAILED" and out["failedExport"]["csv"] is None
    assert out["badOperation"].startswith("BadRequestError: ") and out["unknownOperation"].startswith("NotFoundError: ")
    assert "firstDate must not be after lastDate" in out["badExport"]
    paths = [x["requestPath"] for x in out["logs"]["items"]]
    assert out["logs"]["pages"] == 3 and len(paths) == 15  # 5 a page, newest first: the exports' polls
    assert all(x["apiKeyId"] == key_id(key) for x in out["logs"]["items"])
    by_path = {v["groupValue"]: v["totalRequests"] for m in out["usage"]["metrics"] for v in m["values"]}
    assert by_path["/v1/chains/allBlocks"] == 1 and by_path["/v1/operations/transactions:export"] == 4
    assert out["usage"]["orgId"] == h.node.node_id_str
    assert {v["groupValue"] for m in out["usageByCode"]["metrics"] for v in m["values"]} == {200, 201, 400, 404}
    assert out["rpcUsage"]["metrics"] == [] and out["subnetRpcUsage"]["metrics"] == []  # chainkit made no RPC call
    assert out["otherOrg"].startswith("NotFoundError: ") and out["badInterval"].startswith("BadRequestError: ")


def test_subnet_rpc_usage_counts_the_l1_calls():
    """JSON-RPC calls to an L1 are subnet RPC usage (named by the L1's EVM chain ID); calls to the
    C-Chain and node APIs are the primary network's. An L1's validators have no reward addresses."""
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="WARN")) as h:
        chain_id, rpc_url = converted_l1(h, "usagel1", subnet_evm_genesis(77_001, {}))
        key, mine = "l1-app-key-9", {"x-glacier-api-key": "l1-app-key-9"}
        parts = urllib.parse.urlsplit(rpc_url)
        for method in ("eth_chainId", "eth_blockNumber", "eth_chainId"):
            conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
            conn.request("POST", parts.path, json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": []}),
                         {"Content-Type": "application/json", "x-glacier-api-key": key})
            assert json.loads(conn.getresponse().read())["result"]
            conn.close()
        rpc_fast(h.url, {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}, key)
        subnet = api(h.url, "/v1/subnetRpcUsageMetrics?groupBy=rpcMethod&chainId=77001", headers=mine)
        assert subnet["chainId"] == "77001"
        assert {v["groupValue"]: v["totalRequests"] for v in subnet["metrics"][0]["values"]} == {
            "eth_blockNumber": 1, "eth_chainId": 2}
        primary = api(h.url, "/v1/primaryNetworkRpcUsageMetrics?network=mainnet&groupBy=rpcMethod", headers=mine)
        assert primary["network"] == "mainnet"
        assert [(v["groupValue"], v["totalRequests"]) for v in primary["metrics"][0]["values"]] == [("eth_chainId", 1)]
        subnet_id = h.node.chains[chain_id].subnet_id
        assert api(h.url, f"/v2/subnets/{id_to_str(subnet_id)}/validators:getAddresses")["addresses"] == []
