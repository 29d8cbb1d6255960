"""The Metrics API of a real node over plain HTTP, every answer checked against the real
metrics-api.openapi.json.

Known answers: a scenario on the C-Chain and an L1 spread over five days of virtual time that
cross a month (Sunday 1 February 2026) and a week (Monday 2 February) — native transfers, ERC-20,
ERC-721 and ERC-1155 transfers, a factory that CREATEs and CREATE2s contracts (one creation undone
with the frame around it), reverted txs, several txs in one block, a transfer to the zero
address. The expected value of every metric in every bucket of every interval, of every rolling
window and of the legacy avg_tps route is counted in the test from the blocks, receipts and
callTracer traces read over JSON-RPC (tests/metrics_reference.py), for each chain and for
`total`/`mainnet`/`testnet`. Then: the P-Chain's staking and L1 fee series against platform.*,
the 400 and 404 answers, page tokens (walks, expiry, another request's token), snapshot/revert
and time travel moving the live bucket, and a node without an index."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from eth_account import Account
from web3 import Web3

from simnode.api.data.routes import HANDLERS
from simnode.config import NodeConfig
from simnode.formats import encode_bytes, id_to_str, node_id_to_str, private_key_from_str
from simnode.formats.ids import vm_id_from_name
from simnode.node import Node
from simnode.vms.platform.wallet import PBuilder, address_of
from simnode.warp.keystore import derived_secret_key

from ..metrics_reference import (DAY_ONLY, INTERVALS, SHORT_WINDOWS, TRANSFER, TRANSFER_BATCH, TRANSFER_SINGLE, Block,
                                 Tx, chain_expected, frame_creations, union_expected, union_window_expected,
                                 window_expected)
from ..openapi_contract import raw_document
from .dataapi import api, request
from .index_scenario import EWOQ, Scenario
from .rpc import call
from .test_l1_evm_chain import GENESIS, L1_CHAIN_ID, create_l1, l1_web3

METRICS = ("activeAddresses", "activeSenders", "cumulativeTxCount", "cumulativeAddresses", "cumulativeContracts",
           "cumulativeDeployers", "contracts", "deployers", "gasUsed", "txCount", "avgGps", "maxGps", "avgTps",
           "maxTps", "avgGasPrice", "maxGasPrice", "feesPaid")
ROLLING = ("gasUsed", "txCount", "avgGps", "maxGps", "avgTps", "maxTps", "avgGasPrice", "maxGasPrice", "feesPaid",
           "contracts", "deployers", "activeAddresses", "activeSenders")
WINDOWS = {"lastHour": 3600, "lastDay": 86_400, "lastWeek": 7 * 86_400, "lastMonth": 30 * 86_400,
           "last90Days": 90 * 86_400, "lastYear": 365 * 86_400, "allTime": None}
START = datetime(2026, 1, 30, 21, 0, tzinfo=UTC)  # a Friday evening
P_KEY = private_key_from_str("PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN")
AVAX = 10**9
GWEI = 10**9
DAY = 86_400
AB, CD = Web3.to_checksum_address("0x" + "ab" * 20), Web3.to_checksum_address("0x" + "cd" * 20)
NO_SUBNET, NO_VALIDATION, NO_NODE = id_to_str(b"\x05" * 32), id_to_str(b"\x06" * 32), node_id_to_str(b"\x44" * 20)


def ms_of(when: datetime) -> int:
    return int(when.timestamp() * 1000)


def move_to(h, when: datetime) -> None:
    """The node's virtual clock to `when` (every chain's next block is stamped from it)."""
    h.call(h.node.clock.set_ms, ms_of(when))


def submit(w3: Web3, chain_id: int, acct, tx: dict) -> bytes:
    """Sign and send without waiting for a block."""
    tx = {"chainId": chain_id, "nonce": w3.eth.get_transaction_count(acct.address, "pending"),
          "maxFeePerGas": 100 * GWEI, "maxPriorityFeePerGas": GWEI, "gas": 21000, **tx}
    return w3.eth.send_raw_transaction(acct.sign_transaction(tx).raw_transaction)


def fn_tx(fn) -> dict:
    return {"to": fn.address, "data": fn._encode_transaction_data(), "gas": 300_000}


# ---------------------------------------------------------------------------------------- the scenario


@pytest.fixture(scope="module")
def world():
    config = NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", start_time_ms=ms_of(START), log_level="WARN")
    with Node.start_in_thread(config) as h:
        rpc = h.url + "/ext/bc/C/rpc"
        w3 = Web3(Web3.HTTPProvider(rpc, request_kwargs={"timeout": 60}))
        s = Scenario(w3, 43112)
        alice, bob, carol = (Account.from_key(bytes([b]) * 32) for b in (0xA1, 0xB0, 0xCA))
        _, l1_chain = create_l1(h, json.dumps(GENESIS).encode(), "metricl1")
        l1_rpc = h.url + f"/ext/bc/{id_to_str(l1_chain)}/rpc"
        l1 = Scenario(l1_web3(l1_rpc), L1_CHAIN_ID)
        # Friday evening: funding, an ERC-20 deployed and moved
        s.send(EWOQ, {"to": alice.address, "value": 10**21})
        s.send(EWOQ, {"to": bob.address, "value": 10**21})
        l1.send(EWOQ, {"to": alice.address, "value": 10**20})  # alice on both chains: one address in `total`
        move_to(h, START + timedelta(seconds=7))
        token = s.deploy(alice, "Token", "Metric Token", "MTK", 10**24)
        move_to(h, START + timedelta(seconds=10))
        s.transact(alice, token.functions.transfer(bob.address, 10**20))
        # Friday 23:30: three txs in one block
        move_to(h, START + timedelta(hours=2, minutes=30))
        call(rpc, "evm_setAutomine", [False])
        hashes = [submit(w3, 43112, alice, {"to": carol.address, "value": 10**18}),
                  submit(w3, 43112, bob, fn_tx(token.functions.transfer(alice.address, 5))),
                  submit(w3, 43112, EWOQ, {"to": carol.address, "value": 10**19})]
        call(rpc, "evm_mine")
        call(rpc, "evm_setAutomine", [True])
        blocks = {w3.eth.wait_for_transaction_receipt(x, timeout=30).blockNumber for x in hashes}
        assert len(blocks) == 1
        # Saturday 01:15: ERC-1155 mints and a batch transfer, two reverted txs; an L1 contract
        move_to(h, datetime(2026, 1, 31, 1, 15, tzinfo=UTC))
        multi = s.deploy(alice, "MultiToken")
        s.transact(alice, multi.functions.mint(alice.address, 1, 100))
        move_to(h, datetime(2026, 1, 31, 1, 15, 40, tzinfo=UTC))
        s.transact(alice, multi.functions.mint(alice.address, 2, 50))
        s.transact(alice, multi.functions.safeBatchTransferFrom(alice.address, bob.address, [1, 2], [30, 50], b""))
        assert s.transact(alice, token.functions.fail(1), gas=100_000).status == 0
        assert s.transact(alice, token.functions.transfer(bob.address, 10**30), gas=100_000).status == 0
        l1_token = l1.deploy(EWOQ, "Token", "L1 Token", "L1T", 10**6)
        l1.transact(EWOQ, l1_token.functions.transfer(bob.address, 10))
        # Sunday 1 February (a new month): ERC-721 mint, transfer, burn
        move_to(h, datetime(2026, 2, 1, 9, 0, tzinfo=UTC))
        nft = s.deploy(alice, "Collectible", "Metric Cats", "MCAT")
        s.transact(alice, nft.functions.mint(alice.address, 1))
        s.transact(alice, nft.functions.mint(alice.address, 2))
        s.transact(alice, nft.functions.transferFrom(alice.address, bob.address, 1))
        s.transact(alice, nft.functions.burn(2))
        # Sunday 15:00: a factory CREATEs and CREATE2s; a creation undone with its frame; a failed tx
        move_to(h, datetime(2026, 2, 1, 15, 0, tzinfo=UTC))
        factory = s.deploy(bob, "Factory")
        f = factory.functions
        s.transact(bob, f.deploy(), value=1000)
        move_to(h, datetime(2026, 2, 1, 15, 0, 5, tzinfo=UTC))
        s.transact(bob, f.deploy2(b"\x07" * 32), value=2000)
        s.transact(bob, f.deployAfterFailure())
        assert s.transact(bob, f.deployAndRevert(), gas=500_000).status == 0
        # Monday 2 February (a new week): carol deploys through the factory; value to the zero address
        move_to(h, datetime(2026, 2, 2, 10, 0, tzinfo=UTC))
        s.transact(carol, f.deploy2(b"\x08" * 32))
        s.send(alice, {"to": "0x" + "00" * 20, "value": 5})
        l1.send(alice, {"to": bob.address, "value": 7})
        # Tuesday
        move_to(h, datetime(2026, 2, 3, 12, 0, tzinfo=UTC))
        s.transact(bob, token.functions.transfer(carol.address, 5))
        s.send(carol, {"to": alice.address, "value": 3})
        move_to(h, datetime(2026, 2, 3, 12, 30, tzinfo=UTC))
        h.l1_id = id_to_str(l1_chain)
        h.chains = {0: rpc, 1: l1_rpc}
        yield h


def traced_creations(trace: dict) -> int:
    """CREATE/CREATE2 frames below the top of a callTracer tree that stayed."""
    outline: list[tuple[str, int, bool]] = []

    def walk(frame: dict, depth: int) -> None:
        outline.append((frame["type"], depth, "error" in frame))
        for sub in frame.get("calls", []):
            walk(sub, depth + 1)
    walk(trace, 0)
    return frame_creations(outline)


def read_chain(rpc: str, chain: int) -> list[Block]:
    """Every block of a chain as the reference counts it, from JSON-RPC alone."""
    out = []
    for n in range(int(call(rpc, "eth_blockNumber"), 16) + 1):
        raw = call(rpc, "eth_getBlockByNumber", [hex(n), True])
        ms = int(raw["timestampMilliseconds"], 16) if "timestampMilliseconds" in raw else int(raw["timestamp"], 16) * 1000
        txs = []
        for tx in raw["transactions"]:
            rc = call(rpc, "eth_getTransactionReceipt", [tx["hash"]])
            trace = call(rpc, "debug_traceTransaction", [tx["hash"], {"tracer": "callTracer"}])
            ok = int(rc["status"], 16)
            made = (1 if tx["to"] is None and ok else 0) + (traced_creations(trace) if ok else 0)
            txs.append(Tx(bytes.fromhex(tx["from"][2:]), bytes.fromhex(tx["to"][2:]) if tx["to"] else None, ok,
                          int(rc["gasUsed"], 16), int(rc["effectiveGasPrice"], 16),
                          [[bytes.fromhex(t[2:]) for t in lg["topics"]] for lg in rc["logs"]], made))
        out.append(Block(chain, n, ms, txs))
    return out


@pytest.fixture(scope="module")
def observed(world) -> list[Block]:
    return read_chain(world.chains[0], 0) + read_chain(world.chains[1], 1)


def full_series(base: str, path: str) -> dict[int, float | int]:
    body = api(base, path + ("&" if "?" in path else "?") + "pageSize=2160")
    assert "nextPageToken" not in body
    stamps = [p["timestamp"] for p in body["results"]]
    assert stamps == sorted(stamps, reverse=True)
    return {p["timestamp"]: p["value"] for p in body["results"]}


def test_scenario_covers_what_the_issue_asks(observed):
    c_chain = [b for b in observed if b.chain == 0]
    txs = [t for b in c_chain for t in b.txs]
    days = {b.t // DAY for b in c_chain if b.number}
    assert len(days) == 5 and max(len(b.txs) for b in c_chain) == 3
    assert sum(t.creations for t in txs) >= 8 and sum(1 for t in txs if not t.status) == 3
    kinds = {(topics[0], len(topics)) for t in txs for topics in t.topics}
    assert {(TRANSFER, 3), (TRANSFER, 4), (TRANSFER_SINGLE, 4), (TRANSFER_BATCH, 4)} <= kinds  # ERC-20/721/1155


def test_every_metric_in_every_bucket_equals_the_blocks(world, observed):
    base = world.url
    scopes = [("43112", [b for b in observed if b.chain == 0], False),
              (str(L1_CHAIN_ID), [b for b in observed if b.chain == 1], False),
              ("total", observed, True), ("mainnet", observed, True), ("testnet", observed, True)]
    for ref, blocks, together in scopes:
        for metric in METRICS:
            for interval in ("day",) if metric in DAY_ONLY else INTERVALS:
                got = full_series(base, f"/v2/chains/{ref}/metrics/{metric}?timeInterval={interval}")
                want = (union_expected if together else chain_expected)(blocks, metric, interval)
                assert got == want, (ref, metric, interval)
    # the default interval is the day; a chain is also named by its blockchain ID
    assert full_series(base, "/v2/chains/43112/metrics/txCount") == full_series(
        base, "/v2/chains/43112/metrics/txCount?timeInterval=day")
    assert full_series(base, f"/v2/chains/{world.l1_id}/metrics/activeAddresses?timeInterval=week") == \
        chain_expected([b for b in observed if b.chain == 1], "activeAddresses", "week")


def test_time_bounds_select_bucket_starts(world, observed):
    want = chain_expected([b for b in observed if b.chain == 0], "txCount", "hour")
    lo, hi = ms_of(datetime(2026, 1, 31, 1, 0, tzinfo=UTC)) // 1000, ms_of(datetime(2026, 2, 1, 15, 0, tzinfo=UTC)) // 1000
    got = full_series(world.url, f"/v2/chains/43112/metrics/txCount?timeInterval=hour&startTimestamp={lo}"
                                 f"&endTimestamp={hi}")
    assert got == {t: v for t, v in want.items() if lo <= t < hi} and lo in got and hi not in got


def test_rolling_windows_equal_the_blocks(world, observed):
    now = world.node.clock.now_ms()
    for ref, blocks, together in (("43112", [b for b in observed if b.chain == 0], False),
                                  (str(L1_CHAIN_ID), [b for b in observed if b.chain == 1], False),
                                  ("total", observed, True)):
        for metric in ROLLING:
            got = api(world.url, f"/v2/chains/{ref}/rollingWindowMetrics/{metric}")["result"]
            names = SHORT_WINDOWS if metric in ("activeAddresses", "activeSenders") else tuple(WINDOWS)
            assert tuple(got) == names
            for name in names:
                since = None if WINDOWS[name] is None else now - WINDOWS[name] * 1000
                want = (union_window_expected if together else window_expected)(blocks, metric, since)
                assert got[name] == want, (ref, metric, name)


def test_legacy_avg_tps(world, observed):
    from jsonschema import Draft202012Validator
    schema = {"type": "object", "additionalProperties": False, "required": ["results", "status"],
              "properties": {"results": {"type": "array", "items": {
                  "type": "object", "additionalProperties": False, "required": ["timestamp", "value"],
                  "properties": {"timestamp": {"type": "number"}, "value": {"type": "number"}}}},
                  "status": {"type": "number"}, "lastRun": {"type": "number"}, "nextPageToken": {"type": "string"}}}
    for ref, blocks in (("43112", [b for b in observed if b.chain == 0]), ("total", observed)):
        status, headers, raw = request(world.url, "GET", f"/v1/avg_tps/{ref}")
        body = json.loads(raw)
        assert status == 200 and headers["Content-Type"].startswith("application/json")
        Draft202012Validator(schema).validate(body)
        assert body["status"] == 200 and body["lastRun"] == max(b.t for b in blocks)
        assert {p["timestamp"]: p["value"] for p in body["results"]} == (
            union_expected if ref == "total" else chain_expected)(blocks, "avgTps", "day")
    lo = ms_of(datetime(2026, 2, 1, tzinfo=UTC)) // 1000
    got = json.loads(request(world.url, "GET", f"/v1/avg_tps/43112?from={lo}")[2])["results"]
    assert [p["timestamp"] for p in got] == sorted((t for t in chain_expected(
        [b for b in observed if b.chain == 0], "avgTps", "day") if t >= lo), reverse=True)
    status, _, raw = request(world.url, "GET", "/v1/avg_tps/43112?from=yesterday")
    assert status == 400 and json.loads(raw)["message"] == ["from must be a UNIX timestamp (seconds)"]


def test_page_walks_give_the_whole_series(world, observed):
    want = chain_expected([b for b in observed if b.chain == 0], "gasUsed", "hour")
    for ref in ("43112", "total"):
        path, got, pages = f"/v2/chains/{ref}/metrics/gasUsed?timeInterval=hour&pageSize=3", [], 0
        token = None
        while True:
            body = api(world.url, path + (f"&pageToken={token}" if token else ""))
            got += body["results"]
            pages += 1
            token = body.get("nextPageToken")
            if token is None:
                break
        assert pages > 2 and len(got) == len({p["timestamp"] for p in got})
        if ref == "43112":
            assert {p["timestamp"]: p["value"] for p in got} == want


def test_chains_routes(world):
    chains = api(world.url, "/v2/chains")["chains"]
    c_id = call(world.url + "/ext/info", "info.getBlockchainID", {"alias": "C"})["blockchainID"]
    assert chains == [
        {"evmChainId": 43112, "chainName": "c_chain", "blockchainId": c_id,
         "subnetId": "11111111111111111111111111111111LpoYY", "network": "testnet"},
        {"evmChainId": L1_CHAIN_ID, "chainName": "metricl1", "blockchainId": world.l1_id,
         "subnetId": chains[1]["subnetId"], "network": "testnet"}]
    assert api(world.url, "/v2/chains?network=mainnet")["chains"] == chains
    assert api(world.url, f"/v2/chains/{L1_CHAIN_ID}") == chains[1] == api(world.url, f"/v2/chains/{world.l1_id}")
    assert api(world.url, "/v2/chains/1", 404)["message"] == [
        f"chain 1 is not an EVM chain of this node (its EVM chains: 43112, {L1_CHAIN_ID})"]
    for route in ("/v2/health-check", "/v2/live-check"):
        assert api(world.url, route)["status"] == "ok"
    doc = json.loads(request(world.url, "GET", "/api-json/metrics")[2])
    assert sorted(doc["paths"]) == sorted(p for m, p in HANDLERS if p in raw_document("metrics")["paths"])


# ---------------------------------------------------------------------------------------- bad requests


@pytest.fixture()
def node():
    config = NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", start_time_ms=ms_of(START), log_level="WARN")
    with Node.start_in_thread(config) as h:
        yield h


def test_bad_requests_are_400_and_404_with_array_messages(node):
    base = node.url
    Scenario(Web3(Web3.HTTPProvider(base + "/ext/bc/C/rpc")), 43112).send(EWOQ, {"to": AB, "value": 1})
    day_only = ("supports only timeInterval=day (metrics named cumulative*, avg* or max*, and contracts, deployers "
                "and feesPaid are daily)")
    cases = [
        ("/v2/chains/43112/metrics/txCount?pageSize=0", 400, ["pageSize must not be less than 1"]),
        ("/v2/chains/43112/metrics/txCount?pageSize=2161", 400, ["pageSize must not be greater than 2160"]),
        ("/v2/chains/43112/metrics/txCount?pageSize=1.5", 400, ["pageSize must be an integer number"]),
        ("/v2/chains/43112/metrics/txCount?timeInterval=year", 400,
         ["timeInterval must be one of the following values: hour, day, week, month"]),
        ("/v2/chains/43112/metrics/txCount?startTimestamp=-1", 400, ["startTimestamp must not be less than 0"]),
        ("/v2/chains/43112/metrics/txCount?startTimestamp=20&endTimestamp=10", 400,
         ["startTimestamp must not be greater than endTimestamp"]),
        ("/v2/chains/total/metrics/feesPaid?timeInterval=hour", 400, ["feesPaid " + day_only]),
        ("/v2/chains/43112/rollingWindowMetrics/cumulativeTxCount", 400, None),
        ("/v2/chains/43112/metrics/txCount?pageToken=not-a-token", 400, ["pageToken must be a UUID"]),
        ("/v2/chains/43112/metrics/txCount?pageToken=7f1e0d8c-4b6a-4c7e-9a1d-2b3c4d5e6f70", 400,
         ["pageToken is not a page token of this node: start again from the first page (without a pageToken)"]),
        ("/v2/chains/777/metrics/txCount", 404, ["chain 777 is not an EVM chain of this node (its EVM chains: 43112)"]),
        ("/v2/chains/total/rollingWindowMetrics/nope", 400, None),
        ("/v2/networks/devnet/metrics/validatorCount", 400,
         ["network must be one of the following values: mainnet, fuji, testnet"]),
        ("/v2/networks/fuji/metrics/validatorCount?subnetId=nope", 400,
         ["subnetId must be a valid subnet ID (a cb58 ID)"]),
        (f"/v2/networks/fuji/metrics/validatorCount?subnetId={NO_SUBNET}", 404,
         [f"subnet {NO_SUBNET} is not a subnet of this network"]),
        ("/v2/validation/nope/metrics/validationFeesDaily", 400,
         ["l1ValidationId must be a valid validation ID (a cb58 ID)"]),
        (f"/v2/validation/{NO_VALIDATION}/metrics/validationFeesDaily", 404,
         [f"no L1 validation {NO_VALIDATION} on this network"]),
        ("/v2/validator/NodeID-nope/metrics/perNodeDailyFeesPaid", 400, ["nodeId must be a valid node ID (NodeID-...)"]),
        ("/v2/subnet/nope/metrics/perSubnetDailyFeesPaid", 400, ["subnetId must be a valid subnet ID (a cb58 ID)"]),
        ("/v2/validators/metrics/totalValidatorFeesDaily?startTimestamp=5&endTimestamp=4", 400,
         ["startTimestamp must not be greater than endTimestamp"]),
        ("/v2/icm/summary?srcBlockchainId=nope", 400,
         ["srcBlockchainId must be a blockchain ID (CB58, or 0x and 64 hex digits)"]),
        ("/v2/icm/timeseries?groupBy=chain", 400, None),
        ("/v2/chains/43114/btcb/bridged:getAddresses?threshold=1", 404, [
            "GET /v2/chains/43114/btcb/bridged:getAddresses: BTC.b bridge balances exist only on the Avalanche "
            "mainnet C-Chain (43114); this node runs no BTC.b bridge"]),
    ]
    for path, status, message in cases:
        body = api(base, path, status)
        assert isinstance(body["message"], list), path
        if message is not None:
            assert body["message"] == message, path
    for metric in sorted(DAY_ONLY):
        for interval in ("hour", "week", "month"):
            assert api(base, f"/v2/chains/43112/metrics/{metric}?timeInterval={interval}", 400)["message"] == [
                f"{metric} {day_only}"]
    query = {"queries": [], "operator": "AND"}
    assert api(base, "/v2/lookingGlass/compositeQuery", 404, "POST", query)["message"] == [
        "POST /v2/lookingGlass/compositeQuery: composite holder queries need balance histories of every address by "
        "time (native, ERC-20, NFT holders, Stars Arena), which this node does not index"]


def test_the_primary_networks_subnet_has_no_l1_validator_fees(node):
    # the Primary Network is a subnet of every network, with no L1 validators: empty series, not a 404
    primary = "11111111111111111111111111111111LpoYY"
    for metric in ("perSubnetDailyFeesPaid", "perSubnetCumulativeFeesPaid", "perSubnetPayingValidators"):
        assert api(node.url, f"/v2/subnet/{primary}/metrics/{metric}") == {"results": []}
    missing = "WBVaWFoundqRbet928VeZtChcB6fYkrLq9SVruMP7vb3Gsp43"
    assert api(node.url, f"/v2/subnet/{missing}/metrics/perSubnetDailyFeesPaid", 404)["message"] == [
        f"subnet {missing} is not a subnet of this network"]


def test_page_tokens_expire_after_a_day_and_belong_to_their_request(node):
    base = node.url
    s = Scenario(Web3(Web3.HTTPProvider(base + "/ext/bc/C/rpc")), 43112)
    for hours in range(3):
        move_to(node, START + timedelta(hours=hours))
        s.send(EWOQ, {"to": AB, "value": 1})
    path = "/v2/chains/43112/metrics/txCount?timeInterval=hour"
    token = api(base, path + "&pageSize=1")["nextPageToken"]
    assert len(api(base, path + f"&pageToken={token}&pageSize=2")["results"]) == 2  # pageSize may change mid-walk
    other = api(base, "/v2/chains/43112/metrics/gasUsed?timeInterval=hour&pageToken=" + token, 400)["message"]
    assert other == ["pageToken belongs to another request: pass it with the route and filters that returned it, "
                     "or start again from the first page (without a pageToken)"]
    move_to(node, START + timedelta(hours=2, days=1, seconds=1))
    assert api(base, path + f"&pageToken={token}", 400)["message"] == [
        "pageToken has expired (page tokens are valid for 24 hours): start again from the first page "
        "(without a pageToken)"]


def test_snapshot_revert_and_time_travel_move_the_live_bucket(node):
    base, rpc = node.url, node.url + "/ext/bc/C/rpc"
    s = Scenario(Web3(Web3.HTTPProvider(rpc)), 43112)
    s.send(EWOQ, {"to": AB, "value": 1})
    paths = [f"/v2/chains/{ref}/metrics/{m}?timeInterval={iv}" for ref in ("43112", "total")
             for m, iv in (("txCount", "hour"), ("activeAddresses", "day"), ("cumulativeTxCount", "day"),
                           ("feesPaid", "day"), ("maxTps", "day"), ("activeSenders", "month"))]
    before = {p: full_series(base, p) for p in paths}
    weeks_before = full_series(base, "/v2/chains/43112/metrics/txCount?timeInterval=week")
    rolling_before = api(base, "/v2/chains/43112/rollingWindowMetrics/txCount")["result"]
    snap = call(rpc, "evm_snapshot")
    s.send(EWOQ, {"to": CD, "value": 2})
    today = ms_of(START) // 1000 // DAY * DAY
    assert full_series(base, "/v2/chains/43112/metrics/txCount")[today] == 2
    assert full_series(base, "/v2/chains/total/metrics/activeAddresses")[today] == 3
    # time travel: the next block lands in next week's buckets
    call(rpc, "evm_increaseTime", [7 * DAY])
    s.send(EWOQ, {"to": CD, "value": 3})
    weekly = full_series(base, "/v2/chains/43112/metrics/txCount?timeInterval=week")
    this_week = max(weeks_before)
    next_week = max(weekly)
    assert next_week == this_week + 7 * DAY and len(weekly) == len(weeks_before) + 1
    assert (weekly[this_week], weekly[next_week]) == (2, 1)
    call(rpc, "evm_setNextBlockTimestamp", [next_week + 8 * DAY])
    s.send(EWOQ, {"to": CD, "value": 4})
    assert max(full_series(base, "/v2/chains/43112/metrics/txCount?timeInterval=week")) == next_week + 7 * DAY
    assert call(rpc, "evm_revert", [snap]) is True
    assert {p: full_series(base, p) for p in paths} == before
    assert full_series(base, "/v2/chains/43112/metrics/txCount?timeInterval=week") == weeks_before
    # the clock stays where time travel took it; the rows are back
    assert api(base, "/v2/chains/43112/rollingWindowMetrics/txCount")["result"]["allTime"] == rolling_before["allTime"]


def test_no_index_is_a_503():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, index=False, log_level="WARN")) as h:
        body = api(h.url, "/v2/chains/43112/metrics/txCount", 503)
        assert body["message"][0].startswith("this node runs with --no-index")
        assert api(h.url, "/v2/chains")["chains"][0]["evmChainId"] == 43112


# ---------------------------------------------------------------------------------------- P-Chain


def test_staking_and_l1_fee_series_from_the_p_chain(node):
    url, base = node.url + "/ext/bc/P", node.url
    vm = node.node.chains[bytes(32)]

    def issue(build, *args):
        w = node.call(PBuilder, vm, [P_KEY])
        stx = node.call(getattr(w, build), *args)
        call(url, "platform.issueTx", {"tx": encode_bytes(stx.tx_bytes, "hex")})
        return stx

    genesis = call(url, "platform.getCurrentValidators")["validators"]
    genesis_weight = sum(int(v["weight"]) for v in genesis)
    first_day = ms_of(START) // 1000 // DAY * DAY
    move_to(node, START + timedelta(hours=1))  # Friday 22:00: a validator and a delegator join
    node_id = b"\x21" * 20
    end = node.call(vm.next_block_time) + 20 * DAY
    issue("add_validator", node_id, end, 2500 * AVAX, derived_secret_key(11, node_id), 50_000, address_of(P_KEY))
    issue("add_delegator", node_id, end, 100 * AVAX, address_of(P_KEY))
    # an L1 of two validators: one with 5 AVAX, one whose 150,000 nAVAX run out on the second day
    sub = issue("create_subnet")
    chain = issue("create_chain", sub.tx_id, "managerchain", vm_id_from_name("managervm"), b"{}")
    l1_nodes = [b"\x31" * 20, b"\x32" * 20]
    converted_at = node.call(vm.next_block_time)
    issue("convert_subnet", sub.tx_id, chain.tx_id, b"\x0f" * 20,
          [(l1_nodes[0], 100, 5 * AVAX, derived_secret_key(11, l1_nodes[0])),
           (l1_nodes[1], 80, 150_000, derived_secret_key(11, l1_nodes[1]))])
    move_to(node, START + timedelta(days=3, hours=5))  # Tuesday 02:00
    issue("base_tx", address_of(P_KEY), AVAX)  # a block: chain time (and the fees it charges) moves on
    now = node.node.clock.now()
    today = now // DAY * DAY

    # staking: one point a day from the genesis day to today
    days = list(range(today, first_day - 1, -DAY))
    series = api(base, "/v2/networks/fuji/metrics/validatorCount?pageSize=2160")["results"]
    genesis_day = series[-1]["timestamp"]
    assert [p["timestamp"] for p in series] == list(range(today, genesis_day - 1, -DAY)) and genesis_day <= first_day
    for metric, before, after in (("validatorCount", len(genesis), len(genesis) + 1),
                                  ("validatorWeight", genesis_weight, genesis_weight + 2500 * AVAX),
                                  ("delegatorCount", 0, 1), ("delegatorWeight", 0, 100 * AVAX)):
        got = {p["timestamp"]: p["value"] for p in api(base, f"/v2/networks/testnet/metrics/{metric}?pageSize=2160")[
            "results"]}
        assert got == {d: (after if d >= first_day else before) for d in range(genesis_day, today + 1, DAY)}, metric
    now_weight = sum(int(v["weight"]) for v in call(url, "platform.getCurrentValidators")["validators"])
    assert api(base, "/v2/networks/mainnet/metrics/validatorWeight?pageSize=1")["results"][0]["value"] == now_weight
    l1_count = api(base, f"/v2/networks/fuji/metrics/validatorCount?subnetId={id_to_str(sub.tx_id)}")["results"]
    assert [p["value"] for p in l1_count] == [2] * len(days) and l1_count[-1]["timestamp"] == first_day
    assert api(base, f"/v2/networks/fuji/metrics/validatorWeight?subnetId={id_to_str(sub.tx_id)}&pageSize=1"
               )["results"] == [{"value": 180, "timestamp": today}]
    walk = api(base, "/v2/networks/fuji/metrics/delegatorCount?pageSize=2")
    rest = api(base, f"/v2/networks/fuji/metrics/delegatorCount?pageSize=2&pageToken={walk['nextPageToken']}")
    assert [p["timestamp"] for p in walk["results"] + rest["results"]] == [today - k * DAY for k in range(4)]

    # fees: each validator pays the P-Chain's per-second price while active, split by UTC day
    vids = [v.validation_id for v in sorted(vm.state.l1.values(), key=lambda v: v.node_id)]
    balance = int(call(url, "platform.getL1Validator", {"validationID": id_to_str(vids[0])})["balance"])
    paid0 = 5 * AVAX - balance
    price = paid0 // (now - converted_at)
    assert price * (now - converted_at) == paid0 and price >= 1
    runs_out = converted_at + 150_000 // price
    assert call(url, "platform.getL1Validator", {"validationID": id_to_str(vids[1])})["balance"] == "0"

    def per_day(start: int, stop: int) -> dict[int, int]:
        out = {}
        for d in range(start // DAY * DAY, stop, DAY):
            seconds = min(stop, d + DAY) - max(start, d)
            if seconds > 0:
                out[d] = seconds * price
        return out

    want = [per_day(converted_at, now), per_day(converted_at, runs_out)]

    def fees(route: str) -> dict[int, int]:
        return {p["timestamp"]: p["value"] for p in api(base, route)["results"]}

    assert fees(f"/v2/validation/{id_to_str(vids[0])}/metrics/validationFeesDaily") == want[0]
    assert fees(f"/v2/validation/{id_to_str(vids[1])}/metrics/validationFeesDaily") == want[1]
    assert sum(want[1].values()) == 150_000
    assert fees(f"/v2/validator/{node_id_to_str(l1_nodes[1])}/metrics/perNodeDailyFeesPaid") == want[1]
    total = {d: want[0].get(d, 0) + want[1].get(d, 0) for d in want[0]}
    assert fees("/v2/validators/metrics/totalValidatorFeesDaily") == total
    assert fees(f"/v2/subnet/{id_to_str(sub.tx_id)}/metrics/perSubnetDailyFeesPaid") == total
    cumulative, running = {}, 0
    for d in sorted(total):
        running += total[d]
        cumulative[d] = running
    assert fees("/v2/validators/metrics/totalCumulativeFeesDaily") == cumulative
    assert fees(f"/v2/subnet/{id_to_str(sub.tx_id)}/metrics/perSubnetCumulativeFeesPaid") == cumulative
    assert max(cumulative.values()) == paid0 + 150_000
    paying = {d: 1 + (d in want[1]) for d in total}
    assert fees("/v2/validators/metrics/totalPayingValidatorsDaily") == paying
    assert fees(f"/v2/subnet/{id_to_str(sub.tx_id)}/metrics/perSubnetPayingValidators") == paying
    node_cum = fees(f"/v2/validator/{node_id_to_str(l1_nodes[0])}/metrics/perNodeCumulativeFeesPaid")
    assert max(node_cum.values()) == paid0 == max(fees(
        f"/v2/validation/{id_to_str(vids[0])}/metrics/validationCumulativeFeesDaily").values())
    lo = first_day + DAY
    assert fees(f"/v2/validators/metrics/totalValidatorFeesDaily?startTimestamp={lo}&endTimestamp={lo + DAY}") == {
        lo: total[lo]}
    assert api(base, f"/v2/validator/{NO_NODE}/metrics/perNodeDailyFeesPaid", 404)["message"] == [
        f"node {NO_NODE} has no L1 validation on this network"]
