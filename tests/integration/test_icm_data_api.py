"""The ICM routes of the Data API and the Metrics API end to end: messages sent through the real
messenger (placed at block 1 of an L1 whose genesis does not have it) and the real Warp precompile,
delivered by the in-process relayer, read back through /v1/icm/messages/{id}, /v1/icm/messages
(every filter, page walks), /v1/icm/addresses/{address}/messages, /v2/icm/timeseries and
/v2/icm/summary, each answer checked against the OpenAPI documents (tests/openapi_contract.py).

The L1 pings itself: ewoq sends a ping to a PingPongReceiver with an ERC-20 relayer fee while the
relayer is off (pending, its rewardDetails from the fee token), then the relayer delivers it
(delivered, executed, the relayer as deliverer and reward address); the receiver's pong goes to
ewoq, an account without code, so it is delivered but not executed, and it carries the ping's
receipt back (receiptDelivered)."""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

from eth_abi import encode as abi_encode
from eth_utils import to_checksum_address

from simnode import cli
from simnode.config import NodeConfig
from simnode.formats import id_to_str
from simnode.icm import events as ev
from simnode.icm.artifacts import load_artifact
from simnode.icm.messages import MESSENGER_ADDRESS, TeleporterFeeInfo, TeleporterMessageInput, message_id, \
    send_cross_chain_message_calldata
from simnode.icm.relayer_account import relayer_address
from simnode.node import Node

from .dataapi import api, request
from .icm_l1 import EWOQ, GWEI, converted_l1, send, subnet_evm_genesis
from .rpc import call

CONTRACTS = Path(__file__).resolve().parents[1] / "contracts"
EVM_CHAIN_ID = 77778
FEE = 5 * 10**18
MESSENGER = to_checksum_address("0x" + MESSENGER_ADDRESS.hex())
SEED = 5


def _l1(h) -> tuple[bytes, str]:
    """A converted L1 with Warp on and no messenger in its genesis (block 1 places it)."""
    return converted_l1(h, "icmapi", subnet_evm_genesis(EVM_CHAIN_ID, {}))


def _send(rpc: str, to: str | None, data: bytes, gas: int = 3_000_000) -> dict:
    return send(rpc, EVM_CHAIN_ID, to, data, gas)


def _sent_ids(receipt: dict) -> list[bytes]:
    out = []
    for lg in receipt["logs"]:
        event = ev.decode_event([bytes.fromhex(t[2:]) for t in lg["topics"]], bytes.fromhex(lg["data"][2:]))
        if isinstance(event, ev.SendCrossChainMessage):
            out.append(event.message_id)
    return out


def _messenger_receipts(rpc: str, from_block: int) -> dict[bytes, dict]:
    """The receipt of the tx that received each message (ReceiveCrossChainMessage), by message ID."""
    logs = call(rpc, "eth_getLogs", [{"address": MESSENGER, "fromBlock": hex(from_block), "toBlock": "latest"}])
    out = {}
    for lg in logs:
        event = ev.decode_event([bytes.fromhex(t[2:]) for t in lg["topics"]], bytes.fromhex(lg["data"][2:]))
        if isinstance(event, ev.ReceiveCrossChainMessage):
            out[event.message_id] = call(rpc, "eth_getTransactionReceipt", [lg["transactionHash"]])
    return out


def _walk(base: str, path: str, query: dict[str, str]) -> list[str]:
    """Every message ID of a list route, one page of one at a time."""
    ids, token = [], None
    while True:
        q = {**query, "pageSize": "1", **({"pageToken": token} if token else {})}
        page = api(base, f"{path}?{urllib.parse.urlencode(q)}")
        ids += [m["messageId"] for m in page["messages"]]
        token = page.get("nextPageToken")
        if not token:
            return ids


def _teleporter_chains(base: str) -> list[str]:
    return [c.get("platformChainId", "") for c in api(base, "/v1/chains?feature=teleporter")["chains"]]


def test_icm_messages_pending_then_delivered_through_every_route(tmp_path):
    config = NodeConfig(http_port=0, data_dir=tmp_path / "data", clock_mode="virtual", seed=SEED)
    with Node.start_in_thread(config) as node:
        paths = _exercise(node)
        before = {path: api(node.url, path) for path in paths}
    # `simnode reindex` derives the same ICM rows from the stored blocks
    assert cli.main(["reindex", "--data-dir", str(tmp_path / "data")]) == 0
    with Node.start_in_thread(config) as node:
        assert {path: api(node.url, path) for path in paths} == before


def _exercise(node) -> list[str]:
    """Send, hold, relay and read back the two messages; the paths whose answers reindex keeps."""
    base = node.url
    chain_id, rpc = _l1(node)
    cid_hex, cid_cb58 = "0x" + chain_id.hex(), id_to_str(chain_id)
    relayer = to_checksum_address(relayer_address(SEED))
    simnode = base + "/ext/simnode"
    assert call(simnode, "simnode.setRelayer", {"enabled": False})["enabled"] is False
    assert cid_cb58 not in _teleporter_chains(base)  # block 0: no messenger yet

    token_artifact = json.loads((CONTRACTS / "Token.json").read_text())
    token_code = bytes.fromhex(token_artifact["bytecode"].removeprefix("0x")) + abi_encode(
        ["string", "string", "uint256"], ["Relay Fee", "RFEE", 10**24])
    token = to_checksum_address(_send(rpc, None, token_code)["contractAddress"])
    assert call(rpc, "eth_getCode", [MESSENGER, "latest"]) == "0x" + load_artifact(
        "TeleporterMessenger").runtime_code.hex()
    (entry,) = [c for c in api(base, "/v1/chains")["chains"] if c.get("platformChainId") == cid_cb58]
    assert entry["chainId"] == str(EVM_CHAIN_ID) and "teleporter" in entry["enabledFeatures"]
    assert cid_cb58 in _teleporter_chains(base)
    _send(rpc, token, bytes.fromhex("095ea7b3") + abi_encode(["address", "uint256"], [MESSENGER, FEE]))
    creation = load_artifact("PingPongReceiver").creation_code + abi_encode(["address"], [MESSENGER_ADDRESS])
    ponger = to_checksum_address(_send(rpc, None, creation)["contractAddress"])

    # the ping, sent by ewoq with a fee, while nobody relays: pending
    ping_input = TeleporterMessageInput(
        destination_blockchain_id=chain_id, destination_address=bytes.fromhex(ponger[2:]),
        fee_info=TeleporterFeeInfo(fee_token_address=bytes.fromhex(token[2:]), amount=FEE),
        required_gas_limit=300_000, allowed_relayer_addresses=(),
        message=abi_encode(["bool", "string", "uint256"], [True, "over icm", 200_000]))
    sent = _send(rpc, MESSENGER, send_cross_chain_message_calldata(ping_input))
    (ping_id,) = _sent_ids(sent)
    assert ping_id == message_id(chain_id, chain_id, 1)
    ping_hex = ping_id.hex()  # message IDs: 64 hex digits without 0x, as the document shows them
    pending = api(base, f"/v1/icm/messages/{ping_hex}")
    assert pending == {
        "messageId": ping_hex, "icmContractAddress": MESSENGER, "sourceBlockchainId": cid_cb58,
        "destinationBlockchainId": cid_cb58, "sourceEvmChainId": str(EVM_CHAIN_ID),
        "destinationEvmChainId": str(EVM_CHAIN_ID), "messageNonce": "1", "from": EWOQ.address, "to": ponger,
        "data": "0x" + ping_input.message.hex(), "messageExecuted": False, "receipts": [], "receiptDelivered": False,
        "rewardDetails": {"address": token, "name": "Relay Fee", "symbol": "RFEE", "decimals": 18,
                          "ercType": "ERC-20", "value": str(FEE)},
        "sourceTransaction": {"txHash": sent["transactionHash"],
                              "timestamp": int(call(rpc, "eth_getBlockByNumber", [sent["blockNumber"], False])[
                                  "timestamp"], 16),
                              "gasSpent": str(int(sent["gasUsed"], 16))},
        "status": "pending"}
    assert api(base, "/v1/icm/messages")["messages"] == [pending]
    assert api(base, f"/v1/icm/addresses/{EWOQ.address}/messages")["messages"] == [pending]

    # the relayer on: the ping is delivered and executed, the pong sent back to ewoq is delivered
    # but not executed (ewoq has no code) and carries the ping's receipt
    head = int(call(rpc, "eth_blockNumber", []), 16)
    assert call(simnode, "simnode.setRelayer", {"enabled": True})["enabled"] is True
    call(simnode, "simnode.mine", {"blocks": 3})
    received = _messenger_receipts(rpc, head + 1)
    assert ping_id in received and len(received) == 2
    (pong_id,) = [i for i in received if i != ping_id]
    assert pong_id == message_id(chain_id, chain_id, 2)
    pong_hex = pong_id.hex()

    def delivery(receipt: dict) -> dict:
        block = call(rpc, "eth_getBlockByNumber", [receipt["blockNumber"], False])
        return {"txHash": receipt["transactionHash"], "timestamp": int(block["timestamp"], 16),
                "gasSpent": str(int(receipt["gasUsed"], 16)), "rewardRedeemer": relayer, "delivererAddress": relayer}

    ping = api(base, f"/v1/icm/messages/{ping_hex}")
    assert ping == {**pending, "status": "delivered", "messageExecuted": True, "receiptDelivered": True,
                    "destinationTransaction": delivery(received[ping_id])}
    pong = api(base, f"/v1/icm/messages/{pong_hex}")
    assert pong["status"] == "delivered" and pong["messageExecuted"] is False
    assert (pong["from"], pong["to"], pong["messageNonce"]) == (ponger, EWOQ.address, "2")
    assert pong["receipts"] == [{"receivedMessageNonce": "1", "relayerRewardAddress": relayer}]
    assert pong["receiptDelivered"] is False
    assert pong["destinationTransaction"] == delivery(received[pong_id])
    pong_sent = _sent_ids(received[ping_id])
    assert pong_sent == [pong_id]
    assert pong["sourceTransaction"]["txHash"] == received[ping_id]["transactionHash"]
    assert pong["rewardDetails"] == {"address": "0x0000000000000000000000000000000000000000", "name": "",
                                     "symbol": "", "decimals": 0, "ercType": "ERC-20", "value": "0"}

    # lists, newest first, with every filter and page walks
    both = [pong_hex, ping_hex]
    assert [m["messageId"] for m in api(base, "/v1/icm/messages")["messages"]] == both
    for query in ({"sourceBlockchainId": cid_cb58}, {"sourceBlockchainId": cid_hex},
                  {"destinationBlockchainId": cid_cb58}, {"blockchainId": cid_hex}, {}):
        assert _walk(base, "/v1/icm/messages", {**query, "network": "fuji"}) == both
    assert _walk(base, "/v1/icm/messages", {"from": EWOQ.address}) == [ping_hex]
    assert _walk(base, "/v1/icm/messages", {"to": EWOQ.address}) == [pong_hex]
    assert _walk(base, "/v1/icm/messages", {"from": ponger, "to": EWOQ.address}) == [pong_hex]
    assert _walk(base, "/v1/icm/messages", {"sourceBlockchainId": "0x" + "ab" * 32}) == []
    assert _walk(base, f"/v1/icm/addresses/{ponger}/messages", {}) == both
    assert _walk(base, f"/v1/icm/addresses/{EWOQ.address.lower()}/messages", {}) == both
    assert _walk(base, f"/v1/icm/addresses/{token}/messages", {}) == []

    _check_deprecated_teleporter_routes(base, [ping_hex, pong_hex], ponger)

    # metrics: two messages sent from the L1 to itself, in today's bucket and every window
    series = api(base, f"/v2/icm/timeseries?srcBlockchainId={cid_cb58}&groupBy=srcBlockchainId,destBlockchainId")
    assert [(p["value"], p["srcBlockchainId"], p["destBlockchainId"]) for p in series["results"]] == [
        (2, cid_cb58, cid_cb58)]
    today = int(call(rpc, "eth_getBlockByNumber", ["latest", False])["timestamp"], 16) // 86400 * 86400
    assert series["results"][0]["timestamp"] == today
    hourly = api(base, "/v2/icm/timeseries?timeInterval=hour")["results"]
    assert sum(p["value"] for p in hourly) == 2
    summary = api(base, f"/v2/icm/summary?destBlockchainId={cid_hex}")["result"]
    assert summary == {"lastHour": 2, "lastDay": 2, "lastWeek": 2, "lastMonth": 2, "last90Days": 2, "lastYear": 2,
                       "allTime": 2, "srcBlockchainId": "", "destBlockchainId": cid_cb58}

    # bad input and unknown messages
    assert api(base, "/v1/icm/messages/0x1234", status=400)["statusCode"] == 400
    assert api(base, "/v1/icm/messages/0x" + "00" * 32, status=404)["statusCode"] == 404
    assert api(base, "/v1/icm/messages?sourceBlockchainId=nope", status=400)["statusCode"] == 400
    assert api(base, "/v1/icm/addresses/0x12/messages", status=400)["statusCode"] == 400

    return [f"/v1/icm/messages/{ping_hex}", f"/v1/icm/messages/{pong_hex}", "/v1/icm/messages",
            f"/v1/icm/messages?blockchainId={cid_cb58}&pageSize=1", f"/v1/icm/addresses/{ponger}/messages",
            "/v2/icm/timeseries?groupBy=srcBlockchainId", "/v2/icm/timeseries?timeInterval=hour"]


# the fields of PendingTeleporterMessage and DeliveredTeleporterMessage in the deprecated routes'
# document (reference/data-api-deprecated-routes.md), `data` being optional
TELEPORTER_MESSAGE = {"messageId", "teleporterContractAddress", "sourceBlockchainId", "destinationBlockchainId",
                      "sourceEvmChainId", "destinationEvmChainId", "messageNonce", "from", "to", "data",
                      "messageExecuted", "receipts", "receiptDelivered", "rewardDetails", "sourceTransaction",
                      "status"}


def _deprecated(base: str, path: str, status: int = 200) -> dict:
    got, headers, raw = request(base, "GET", path)
    assert got == status and headers["Content-Type"].startswith("application/json"), (path, got, raw[:300])
    return json.loads(raw)


def _check_deprecated_teleporter_routes(base: str, ids: list[str], address: str) -> None:
    """/v1/teleporter/*: the ICM answers under the old names, the contract as teleporterContractAddress."""
    def teleporter_form(m: dict) -> dict:
        m = dict(m)
        m["teleporterContractAddress"] = m.pop("icmContractAddress")
        return m

    for hex_id in ids:
        old = _deprecated(base, f"/v1/teleporter/messages/{hex_id}")
        assert old == teleporter_form(api(base, f"/v1/icm/messages/{hex_id}"))
        assert set(old) - {"destinationTransaction"} == TELEPORTER_MESSAGE
        assert ("destinationTransaction" in old) == (old["status"] == "delivered")
    for path in ("/messages?pageSize=1", f"/addresses/{address}/messages"):
        new, old = api(base, "/v1/icm" + path), _deprecated(base, "/v1/teleporter" + path)
        assert old["messages"] == [teleporter_form(m) for m in new["messages"]]
        assert ("nextPageToken" in old) == ("nextPageToken" in new)  # a token belongs to its route
    token = _deprecated(base, "/v1/teleporter/messages?pageSize=1")["nextPageToken"]
    assert [m["messageId"] for m in _deprecated(base, f"/v1/teleporter/messages?pageSize=1&pageToken={token}")[
        "messages"]] == ids[:1]
    assert _deprecated(base, "/v1/teleporter/messages/0x1234", status=400)["statusCode"] == 400
    assert _deprecated(base, "/v1/teleporter/messages/" + "00" * 32, status=404)["statusCode"] == 404
    assert _deprecated(base, "/v1/teleporter/messages?pageSize=101", status=400)["statusCode"] == 400


def test_icm_message_between_the_c_chain_and_an_l1():
    """A ping from the C-Chain to an L1 and its pong back: each side's EVM chain ID, the source and
    destination filters telling the two apart, and the metrics per chain pair."""
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", seed=SEED)) as node:
        base = node.url
        chain_id, rpc = _l1(node)
        c_rpc = base + "/ext/bc/C/rpc"
        c_id = node.node.chain_by_alias("C").chain_id
        c_hex = "0x" + c_id.hex()  # the filters take 0x-hex as well as CB58
        creation = load_artifact("PingPongReceiver").creation_code + abi_encode(["address"], [MESSENGER_ADDRESS])
        ponger = to_checksum_address(_send(rpc, None, creation)["contractAddress"])
        ping_input = TeleporterMessageInput(
            destination_blockchain_id=chain_id, destination_address=bytes.fromhex(ponger[2:]),
            fee_info=TeleporterFeeInfo(fee_token_address=bytes(20), amount=0), required_gas_limit=300_000,
            allowed_relayer_addresses=(), message=abi_encode(["bool", "string", "uint256"], [True, "c to l1", 200_000]))
        tx = {"chainId": 43112, "nonce": int(call(c_rpc, "eth_getTransactionCount", [EWOQ.address, "pending"]), 16),
              "maxFeePerGas": 300 * GWEI, "maxPriorityFeePerGas": GWEI, "value": 0, "gas": 1_000_000,
              "to": MESSENGER, "data": "0x" + send_cross_chain_message_calldata(ping_input).hex()}
        h = call(c_rpc, "eth_sendRawTransaction", ["0x" + EWOQ.sign_transaction(tx).raw_transaction.hex()])
        sent = call(c_rpc, "eth_getTransactionReceipt", [h])
        assert sent["status"] == "0x1"
        (ping_id,) = _sent_ids(sent)
        call(base + "/ext/simnode", "simnode.mine", {"blocks": 3})
        ping_hex = ping_id.hex()
        ping = api(base, f"/v1/icm/messages/{ping_hex}")
        assert ping["status"] == "delivered" and ping["messageExecuted"] is True
        assert (ping["sourceBlockchainId"], ping["destinationBlockchainId"]) == (id_to_str(c_id), id_to_str(chain_id))
        assert (ping["sourceEvmChainId"], ping["destinationEvmChainId"]) == ("43112", str(EVM_CHAIN_ID))
        assert ping["sourceTransaction"]["txHash"] == h and ping["receiptDelivered"] is True
        (pong_id,) = _sent_ids(_messenger_receipts(rpc, 0)[ping_id])
        pong_hex = pong_id.hex()
        assert pong_id == message_id(chain_id, c_id, 1)
        pong = api(base, f"/v1/icm/messages/{pong_hex}")
        assert pong["status"] == "delivered" and pong["messageExecuted"] is False  # ewoq has no code
        assert (pong["sourceBlockchainId"], pong["destinationBlockchainId"]) == (id_to_str(chain_id), id_to_str(c_id))
        assert (pong["sourceEvmChainId"], pong["destinationEvmChainId"]) == (str(EVM_CHAIN_ID), "43112")
        assert pong["destinationTransaction"]["txHash"] == _messenger_receipts(c_rpc, 0)[pong_id]["transactionHash"]

        def ids(query: str) -> list[str]:
            return [m["messageId"] for m in api(base, f"/v1/icm/messages?{query}")["messages"]]

        assert ids(f"sourceBlockchainId={c_hex}") == [ping_hex]
        assert ids(f"destinationBlockchainId={c_hex}") == [pong_hex]
        # virtual time stood still: both were sent in the same millisecond, so the list orders them
        # by source chain ID (the L1's sorts below the C-Chain's)
        assert ids(f"blockchainId={id_to_str(c_id)}") == [ping_hex, pong_hex]
        assert chain_id < c_id
        assert ids(f"sourceBlockchainId={c_hex}&destinationBlockchainId={c_hex}") == []
        assert ids("sourceBlockchainId=43112") == [ping_hex]  # an EVM chain ID, as the spec allows
        assert ids(f"destinationBlockchainId={EVM_CHAIN_ID}") == [ping_hex]
        assert ids("sourceBlockchainId=99") == []
        assert api(base, "/v1/icm/messages?blockchainId=43112", status=400)["statusCode"] == 400

        series = api(base, "/v2/icm/timeseries?groupBy=srcBlockchainId,destBlockchainId")["results"]
        c_cb58, l1_cb58 = id_to_str(c_id), id_to_str(chain_id)
        assert sorted((p["srcBlockchainId"], p["destBlockchainId"], p["value"]) for p in series) == sorted(
            [(c_cb58, l1_cb58, 1), (l1_cb58, c_cb58, 1)])
        by_source = api(base, "/v2/icm/timeseries?groupBy=srcBlockchainId")["results"]
        assert sorted((p["srcBlockchainId"], p["destBlockchainId"], p["value"]) for p in by_source) == sorted(
            [(c_cb58, "", 1), (l1_cb58, "", 1)])
        assert api(base, f"/v2/icm/summary?srcBlockchainId={c_cb58}")["result"]["allTime"] == 1
        assert api(base, "/v2/icm/summary")["result"]["allTime"] == 2


def test_icm_pingpong_scenario_in_the_data_api():
    """scenarios/icm_pingpong.toml run on a node: both relayed legs and the hand-relayed message are
    delivered in the ICM routes, the hand-relayed one with ewoq as deliverer and reward address. The
    node's seed is not the scenario's: the L1 validators the scenario creates get BLS keys the node
    holds, so they sign."""
    from simnode.testing import Simnode

    scenario = Path(__file__).resolve().parents[2] / "scenarios" / "icm_pingpong.toml"
    with Simnode.start(seed=0) as sim:  # the scenario's seed is 12
        saved = sim.run_scenario(scenario).saved
        base = sim.url
        pong_chain = saved["pong_chain"]
        c_id = sim.node.genesis.c_chain_id
        messages = api(base, "/v1/icm/messages?network=fuji")["messages"]
        assert len(messages) == 3 and {m["status"] for m in messages} == {"delivered"}
        pinger, ponger = to_checksum_address(saved["pinger"]), to_checksum_address(saved["ponger"])
        pong_l1 = "77102"  # scenarios/icm/pong_genesis.json's chain ID
        legs = {(m["from"], m["to"], m["sourceEvmChainId"]): m for m in messages}
        ping, pong = legs[(pinger, ponger, "43112")], legs[(ponger, pinger, pong_l1)]
        assert (ping["destinationEvmChainId"], pong["destinationEvmChainId"]) == (pong_l1, "43112")
        assert ping["sourceBlockchainId"] == pong["destinationBlockchainId"] == id_to_str(c_id)
        assert ping["messageExecuted"] and pong["messageExecuted"] and ping["receiptDelivered"]
        manual = legs[(EWOQ.address, "0x0000000000000000000000000000000000000000", "43112")]
        assert manual["destinationTransaction"]["delivererAddress"] == EWOQ.address
        assert manual["destinationTransaction"]["rewardRedeemer"] == EWOQ.address
        assert manual["sourceTransaction"]["txHash"] == saved["manual_tx"]
        assert [m["messageId"] for m in api(base, f"/v1/icm/messages?destinationBlockchainId={pong_chain}")[
            "messages"]] == [manual["messageId"], ping["messageId"]]
        summary = api(base, "/v2/icm/summary")["result"]
        assert summary["allTime"] == 3
