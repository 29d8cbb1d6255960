"""The Data API's primary-network routes against the real OpenAPI document, on one node that has run
the primary-network scenario (primary_scenario.py) and that the tests only read: every route of
the document is served and answers per its schema, by every name of a chain and with its filters,
first pages and next pages; every bad-parameter class gets its 4xx with a NestJS body (an X
address on a P route, a wrong HRP, a bad bech32 checksum, an unknown blockchainId, subnet, node
or tx, an out-of-range pageSize, a bad enum, assetId off the X-Chain, a bad page token). A node
without an index answers them 503."""

from __future__ import annotations

import urllib.parse

import pytest

from simnode.api.data.primary_routes import ROUTES
from simnode.config import NodeConfig
from simnode.formats import format_address, id_to_str, node_id_to_str
from simnode.node import Node

from ..openapi_contract import contract, raw_document
from . import primary_scenario
from .dataapi import api, request
from .primary_scenario import Recorded
from .rpc import call

N = "/v1/networks/fuji"


@pytest.fixture(scope="module")
def h():
    config = NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", log_level="WARN")
    with Node.start_in_thread(config) as handle:
        yield handle


@pytest.fixture(scope="module")
def rec(h) -> Recorded:
    return primary_scenario.run(h)


def q(**params: object) -> str:
    return "?" + urllib.parse.urlencode(params)


def route_paths(h, rec: Recorded) -> list[tuple[str, str, object]]:
    """(method, path, body) for every primary-network route, with the scenario's IDs."""
    g = h.node.genesis
    p_addr, x_addr = rec.addr("P", rec.ewoq), rec.addr("X", rec.alice)
    c_addr = rec.addr("C", rec.ewoq)
    node = node_id_to_str(rec.validator_node)
    p_block = call(h.url + "/ext/bc/P", "platform.getHeight")["height"]
    x_tx = rec.asset
    b = f"{N}/blockchains"
    return [("GET", p, None) for p in (
        N, f"{b}", f"{b}?pageSize=2&sortOrder=desc", f"{b}/p-chain", f"{b}/{id_to_str(rec.chain)}",
        f"{N}/subnets", f"{N}/subnets{q(pageSize=1, sortOrder='desc')}", f"{N}/subnets/{id_to_str(rec.subnet)}",
        f"{N}/validators", f"{N}/validators{q(validationStatus='completed', sortBy='timeRemaining')}",
        f"{N}/validators{q(subnetId=id_to_str(rec.subnet), validationStatus='removed')}",
        f"{N}/validators{q(validationStatus='active', sortBy='delegationCapacity', minFeePercentage=2)}",
        f"{N}/validators/{node}", f"{N}/validators/{node}{q(validationStatus='completed')}",
        f"{N}/delegators", f"{N}/delegators{q(nodeIds=node, delegationStatus='completed')}",
        f"{N}/l1Validators", f"{N}/l1Validators{q(includeInactiveL1Validators='true')}",
        f"{N}/l1Validators{q(subnetId=id_to_str(rec.subnet), nodeId=node_id_to_str(rec.l1_nodes[0]))}",
        f"{N}/l1Validators{q(l1ValidationId=id_to_str(rec.validation_ids[1]))}",
        f"{N}/rewards{q(addresses=p_addr[2:])}", f"{N}/rewards{q(nodeIds=node, currency='eur')}",
        f"{N}/rewards:listPending{q(nodeIds=node_id_to_str(g.validators[0].node_id))}",
        f"{N}/addresses:listChainIds{q(addresses=','.join([p_addr[2:], rec.addr('X', rec.alice)[2:]]))}",
        f"{b}/p-chain/utxos{q(addresses=p_addr)}",
        f"{b}/p-chain/utxos{q(addresses=p_addr, includeSpent='true', sortBy='amount', sortOrder='desc')}",
        f"{b}/x-chain/utxos{q(addresses=x_addr, assetId=id_to_str(rec.asset), includeSpent='true')}",
        f"{b}/x-chain/utxos{q(addresses=x_addr, minUtxoAmount=1000)}",
        f"{b}/c-chain/utxos{q(addresses=c_addr, includeSpent='true')}",
        f"{b}/p-chain/balances{q(addresses=p_addr)}",
        f"{b}/p-chain/balances{q(addresses=p_addr, blockTimestamp=rec.balances[0][0])}",
        f"{b}/x-chain/balances{q(addresses=x_addr)}", f"{b}/c-chain/balances{q(addresses=c_addr)}",
        f"{b}/p-chain/lastActivityTimestampByAddresses{q(addresses=p_addr)}",
        f"{b}/p-chain/blocks", f"{b}/x-chain/blocks{q(pageSize=3)}", f"{b}/p-chain/blocks/{p_block}",
        f"{b}/p-chain/nodes/{node_id_to_str(g.validators[0].node_id)}/blocks",
        f"{b}/p-chain/transactions", f"{b}/p-chain/transactions{q(txTypes='AddPermissionlessValidatorTx')}",
        f"{b}/p-chain/transactions{q(l1ValidationId=id_to_str(rec.validation_ids[2]))}",
        f"{b}/x-chain/transactions{q(addresses=x_addr, sortOrder='asc')}",
        f"{b}/c-chain/transactions{q(addresses=c_addr)}",
        f"{b}/p-chain/transactions/{id_to_str(rec.validator_tx)}", f"{b}/x-chain/transactions/{id_to_str(x_tx)}",
        f"{b}/p-chain/transactions:listStaking{q(addresses=rec.addr('P', rec.alice))}",
        f"{b}/x-chain/assets/{id_to_str(rec.asset)}", f"{b}/x-chain/assets/{id_to_str(rec.asset)}/transactions",
        f"{b}/x-chain/vertices", f"{b}/x-chain/vertices:listByHeight{q(vertexHeight=0)}",
        "/v1/avax/supply")] + [
        ("POST", f"{b}/p-chain/utxos", {"addresses": p_addr}),
        ("POST", f"{b}/p-chain/lastActivityTimestampByAddresses", {"addresses": p_addr})]


def test_every_primary_network_route_of_the_document_is_served():
    documented = {(m.upper(), p) for p, item in raw_document("data")["paths"].items() for m in item
                  if p.startswith(("/v1/networks", "/v1/avax"))}
    assert documented == set(ROUTES)


def test_every_primary_network_route_answers_per_the_document(h, rec):
    paths = route_paths(h, rec)
    served = {(m, contract().find(m, p.split("?")[0])[1]) for m, p, _ in paths}
    # vertices/{vertexHash} has no vertex to name on a linearized X-Chain: its 404 is checked below
    assert served | {("GET", "/v1/networks/{network}/blockchains/{blockchainId}/vertices/{vertexHash}")} == set(ROUTES)
    for method, path, body in paths:
        got, headers, raw = request(h.url, method, path, body)
        assert got == 200, (path, raw[:400])
        answer = contract().check(method, path, got, headers, raw)
        token = answer.get("nextPageToken") if isinstance(answer, dict) else None
        if token is not None:
            sep = "&" if "?" in path else "?"
            assert api(h.url, f"{path}{sep}pageToken={token}", method=method, body=body)


def test_the_same_chain_by_each_of_its_names(h, rec):
    g = h.node.genesis
    x_addr = rec.addr("X", rec.alice)
    for name in ("x-chain", id_to_str(g.x_chain_id), "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm"):
        got = api(h.url, f"{N}/blockchains/{name}/utxos{q(addresses=x_addr)}")
        assert got["utxos"] and got["chainInfo"]["chainName"] == "x-chain", name
    for network in ("mainnet", "fuji", "testnet"):
        assert api(h.url, f"/v1/networks/{network}/blockchains/p-chain/blocks")["blocks"]


def nest(h, path: str, status: int, method: str = "GET", body: object = None) -> str:
    got, headers, raw = request(h.url, method, path, body)
    assert got == status, (path, got, raw[:400])
    answer = contract().check_error(got, headers, raw)
    return str(answer["message"])


def test_bad_parameters_get_their_4xx(h, rec):
    b = f"{N}/blockchains"
    p_addr, x_addr = rec.addr("P", rec.ewoq), rec.addr("X", rec.ewoq)
    other_hrp = format_address("P", "avax", rec.ewoq)
    broken = p_addr[:-1] + ("q" if p_addr[-1] != "q" else "p")
    for path in (f"{b}/p-chain/utxos{q(addresses=x_addr)}",  # an X address on the P route
                 f"{b}/x-chain/utxos{q(addresses=p_addr)}",
                 f"{b}/p-chain/utxos{q(addresses=other_hrp)}",  # the wrong network's HRP
                 f"{b}/p-chain/utxos{q(addresses=broken)}",  # a bad bech32 checksum
                 f"{b}/p-chain/balances{q(addresses=broken)}",
                 f"{b}/p-chain/utxos{q(addresses=p_addr, assetId=id_to_str(h.node.genesis.avax_asset_id))}",
                 f"{b}/p-chain/utxos{q(addresses=p_addr, sortBy='size')}",
                 f"{b}/p-chain/utxos{q(addresses=p_addr, pageSize=1025)}",
                 f"{b}/p-chain/utxos{q(addresses=p_addr, pageSize=0)}",
                 f"{b}/p-chain/utxos{q(addresses=p_addr, pageToken='not-a-token')}",
                 f"{N}/subnets{q(pageSize=10001)}",
                 f"{N}/validators{q(validationStatus='resting')}",
                 f"{N}/validators{q(minTimeRemaining=-1)}",
                 f"{N}/validators{q(minDelegationCapacity='lots')}",
                 f"{N}/delegators{q(delegationStatus='gone')}",
                 f"{b}/p-chain/transactions{q(txTypes='NoSuchTx')}",
                 f"{b}/p-chain/blocks/not-a-block",
                 f"{b}/p-chain/balances{q(addresses=p_addr, blockTimestamp='yesterday')}",
                 f"{N}/blockchains/not-a-chain/utxos{q(addresses=p_addr)}"):
        message = nest(h, path, 400)
        assert message, path
    unknown = id_to_str(b"\x07" * 32)
    for path in (f"{N}/blockchains/{unknown}", f"{N}/subnets/{unknown}", f"{b}/p-chain/transactions/{unknown}",
                 f"{b}/p-chain/blocks/{unknown}", f"{b}/x-chain/assets/{unknown}",
                 f"{b}/x-chain/vertices/{unknown}"):
        nest(h, path, 404)
    nest(h, "/v1/networks/devnet/blockchains/p-chain/blocks", 400)
    # a page token of one route is refused by another
    token = api(h.url, f"{N}/blockchains?pageSize=1")["nextPageToken"]
    nest(h, f"{N}/subnets?pageSize=1&pageToken={token}", 400)
    nest(h, f"{b}/p-chain/utxos", 400, "POST", {"addresses": "nope"})


def test_a_node_without_the_index_answers_503():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="WARN", index=False)) as h:
        message = ("this node keeps no Data API index (it was started with --no-index): start it without "
                   "--no-index to serve the primary network's data")
        p_addr = format_address("P", h.node.genesis.hrp, primary_scenario.address_of(primary_scenario.EWOQ))
        for path in (f"{N}/validators", f"{N}/subnets", f"{N}/blockchains/p-chain/utxos{q(addresses=p_addr)}",
                     f"{N}/blockchains/x-chain/blocks", f"{N}/blockchains/p-chain/balances{q(addresses=p_addr)}"):
            assert nest(h, path, 503) == message, path
