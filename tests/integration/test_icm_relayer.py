"""The in-process ICM relayer on a running node: an L1 (converted, validators whose keys simnode
holds; the messenger in its genesis alloc, Warp enabled) where a PingPongReceiver pings another one
on the same chain; the relayer delivers the ping and the pong in following blocks, as signed txs
from its seed-derived account (funded at block 1) with the signed message as predicate 0; the same
delivery replayed reverts ("message already received") and changes nothing. Switched off
(`simnode.setRelayer`), a message waits (listed by `simnode.getRelayer`) and nobody delivers it;
switched back on, it goes out; pending across a restart, it goes out after it, once. An L1
validator registered with a message from the aggregator routes, and the P-Chain's acknowledgement
delivered to the L1 as a verified predicate. Ping-pong between the C-Chain (the messenger placed
there at block 1) and an L1: each leg verified by the L1's validators."""

from __future__ import annotations

import hashlib
import json

import pytest
from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from eth_utils import to_checksum_address

from simnode.config import NodeConfig
from simnode.crypto import bls
from simnode.crypto.hashing import keccak256
from simnode.formats import id_to_str
from simnode.icm import events as ev
from simnode.icm.artifacts import load_artifact, messenger_genesis_alloc
from simnode.icm.messages import MESSENGER_ADDRESS, decode_receive_cross_chain_message_calldata
from simnode.icm.relayer_account import RELAYER_FUNDS, relayer_address
from simnode.node import Node
from simnode.vms.evm import predicates
from simnode.vms.platform.wallet import PBuilder, address_of
from simnode.warp import acp77
from simnode.warp.keystore import derived_secret_key
from simnode.warp.message import UnsignedMessage, parse_signed_message
from simnode.warp.payload import AddressedCall

from .dataapi import api, request
from .icm_l1 import EWOQ, GWEI, P_KEY, converted_l1, issue, send, subnet_evm_genesis
from .rpc import call

WARP = "0x0200000000000000000000000000000000000005"
L1_EVM_ID = 77777


def _l1(h) -> tuple[bytes, str]:
    """A converted L1 with the messenger in its genesis alloc: (its blockchain ID, its RPC URL)."""
    alloc = {k[2:]: v for k, v in messenger_genesis_alloc().items()}
    return converted_l1(h, "icml1", subnet_evm_genesis(L1_EVM_ID, alloc))


def _send(rpc: str, to: str | None, data: bytes, gas: int = 3_000_000) -> dict:
    return send(rpc, L1_EVM_ID, to, data, gas)


def _view(rpc: str, to: str, signature: str, out: str) -> object:
    data = "0x" + keccak256(signature.encode())[:4].hex()
    return abi_decode([out], bytes.fromhex(call(rpc, "eth_call", [{"to": to, "data": data}, "latest"])[2:]))[0]


def _messenger_events(rpc: str, from_block: int) -> list:
    logs = call(rpc, "eth_getLogs", [{"address": "0x" + MESSENGER_ADDRESS.hex(), "fromBlock": hex(from_block),
                                      "toBlock": "latest"}])
    return [ev.decode_event([bytes.fromhex(t[2:]) for t in lg["topics"]], bytes.fromhex(lg["data"][2:]))
            for lg in logs]


@pytest.fixture()
def node():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", seed=3)) as handle:
        yield handle


def test_ping_pong_on_an_l1_through_the_relayer(node):
    chain_id, rpc = _l1(node)
    relayer = "0x" + relayer_address(3).hex()
    simnode = node.url + "/ext/simnode"
    assert call(simnode, "simnode.getRelayer", {}) == {"enabled": True, "address": relayer, "pending": []}
    creation = load_artifact("PingPongReceiver").creation_code + abi_encode(["address"], [MESSENGER_ADDRESS])
    pinger = _send(rpc, None, creation)["contractAddress"]
    ponger = _send(rpc, None, creation)["contractAddress"]
    assert int(call(rpc, "eth_getBalance", [relayer, "0x1"]), 16) == RELAYER_FUNDS  # credited in block 1
    assert int(call(rpc, "eth_getBalance", [relayer, "0x0"]), 16) == 0
    start = int(call(rpc, "eth_blockNumber", []), 16)
    ping = keccak256(b"ping(bytes32,address,string,uint256,uint256)")[:4] + abi_encode(
        ["bytes32", "address", "string", "uint256", "uint256"], [chain_id, ponger, "hello", 300_000, 200_000])
    sent = _send(rpc, pinger, ping)

    # the relayer delivered the ping, then the pong, each in a later block
    assert _view(rpc, ponger, "pingsReceived()", "uint256") == 1
    assert _view(rpc, pinger, "pongsReceived()", "uint256") == 1
    assert _view(rpc, pinger, "lastText()", "string") == "hello"
    kinds = [type(e).__name__ for e in _messenger_events(rpc, start + 1)]
    assert kinds == ["BlockchainIDInitialized", "SendCrossChainMessage",  # the ping
                     "ReceiveCrossChainMessage", "SendCrossChainMessage", "MessageExecuted",  # delivered; pong
                     "ReceiptReceived", "ReceiveCrossChainMessage", "MessageExecuted"]  # the pong, with the receipt
    head = int(call(rpc, "eth_blockNumber", []), 16)
    assert head >= int(sent["blockNumber"], 16) + 2

    # the deliveries are the relayer's signed txs: receiveCrossChainMessage(0, relayer), predicate 0
    block = call(rpc, "eth_getBlockByNumber", [hex(int(sent["blockNumber"], 16) + 1), True])
    (tx,) = block["transactions"]
    assert tx["from"] == relayer and tx["to"] == "0x" + MESSENGER_ADDRESS.hex()
    assert decode_receive_cross_chain_message_calldata(bytes.fromhex(tx["input"][2:])) == (
        0, bytes.fromhex(relayer[2:]))
    (entry,) = tx["accessList"]
    assert entry["address"] == WARP
    signed = parse_signed_message(predicates.decode(tuple(bytes.fromhex(k[2:]) for k in entry["storageKeys"])))
    assert signed.unsigned.source_chain_id == chain_id
    assert call(simnode, "simnode.getRelayer", {})["pending"] == []

    # the same signed message delivered again (a replay): its predicate still verifies, the
    # messenger refuses it, the tx reverts and nothing changes
    replay = {"chainId": L1_EVM_ID, "nonce": int(call(rpc, "eth_getTransactionCount", [EWOQ.address, "pending"]), 16),
              "maxFeePerGas": 100 * GWEI, "maxPriorityFeePerGas": GWEI, "value": 0, "gas": int(tx["gas"], 16),
              "to": to_checksum_address("0x" + MESSENGER_ADDRESS.hex()), "data": tx["input"], "type": 2,
              "accessList": [{"address": WARP, "storageKeys": entry["storageKeys"]}]}
    h = call(rpc, "eth_sendRawTransaction", ["0x" + EWOQ.sign_transaction(replay).raw_transaction.hex()])
    receipt = call(rpc, "eth_getTransactionReceipt", [h])
    assert receipt["status"] == "0x0" and receipt["logs"] == []
    assert _view(rpc, ponger, "pingsReceived()", "uint256") == 1
    trace = call(rpc, "debug_traceTransaction", [h, {"tracer": "callTracer"}])
    assert trace["revertReason"] == "TeleporterMessenger: message already received"


READER_CODE = ("0x636f82535060e01b5f525f5f60245f5f730200000000000000000000000000000000000005"
               "5af1503d5f5f3e3d5fa000")  # logs what getVerifiedWarpMessage(0) answers


def test_l1_validator_registered_and_the_acknowledgement_delivered_to_the_l1(node):
    """RegisterL1ValidatorTx with a message aggregated from the L1's validators, then the P-Chain's
    L1ValidatorRegistration (from the aggregator route by tx hash, signed by the L1's own
    validators) delivered to the L1 as a predicate: it verifies there, from the P-Chain, with no
    origin address, as ValidatorManager expects."""
    chain_id, rpc = _l1(node)
    p = node.node.chains[bytes(32)]
    subnet_id = node.node.warp_validators.subnet_of_chain(chain_id)
    new_node = hashlib.sha256(b"relay-new-node").digest()[:20]
    new_key = derived_secret_key(node.node.config.seed, new_node)
    owner = acp77.PChainOwner(1, (address_of(P_KEY),))
    expiry = node.call(p.next_block_time) + 3600
    reg = acp77.RegisterL1Validator(subnet_id, new_node, bls.public_key(new_key), expiry, owner, owner, 40)
    manager_message = UnsignedMessage(12345, chain_id, AddressedCall(b"\x0f" * 20, reg.encode()).encode())
    node.call(node.node.warp_signer.add_off_chain_message, manager_message.encoded)
    status, _, raw = request(node.url, "POST", "/v1/signatureAggregator/fuji/aggregateSignatures",
                             {"message": manager_message.encoded.hex()})
    assert status == 201
    register = node.call(node.call(PBuilder, p, [P_KEY]).register_l1_validator, 10**9, new_key,
                         bytes.fromhex(json.loads(raw)["signedMessage"]))
    issue(node, register)

    status, _, raw = request(node.url, "GET", "/v1/signatureAggregator/fuji/aggregateSignatures/"
                             + id_to_str(register.tx_id))
    assert status == 201
    ack = bytes.fromhex(json.loads(raw)["signedMessage"])
    call(rpc, "anvil_setCode", ["0x00000000000000000000000000000000000000a1", READER_CODE])
    keys = ["0x" + c.hex() for c in predicates.encode(ack)]
    tx = {"chainId": L1_EVM_ID, "nonce": int(call(rpc, "eth_getTransactionCount", [EWOQ.address, "pending"]), 16),
          "maxFeePerGas": 100 * GWEI, "maxPriorityFeePerGas": GWEI, "value": 0, "gas": 1_000_000, "type": 2,
          "to": to_checksum_address("0x00000000000000000000000000000000000000a1"), "data": "0x",
          "accessList": [{"address": WARP, "storageKeys": keys}]}
    h = call(rpc, "eth_sendRawTransaction", ["0x" + EWOQ.sign_transaction(tx).raw_transaction.hex()])
    receipt = call(rpc, "eth_getTransactionReceipt", [h])
    (log,) = receipt["logs"]
    (source, origin, payload), valid = abi_decode(["(bytes32,address,bytes)", "bool"], bytes.fromhex(log["data"][2:]))
    assert valid is True and source == bytes(32) and origin == "0x" + "00" * 20
    assert acp77.parse_pchain_message(payload) == acp77.L1ValidatorRegistration(reg.validation_id, True)


def test_relayer_off_then_on(node):
    chain_id, rpc = _l1(node)
    simnode = node.url + "/ext/simnode"
    assert call(simnode, "simnode.setRelayer", {"enabled": False})["enabled"] is False
    creation = load_artifact("PingPongReceiver").creation_code + abi_encode(["address"], [MESSENGER_ADDRESS])
    pinger = _send(rpc, None, creation)["contractAddress"]
    ponger = _send(rpc, None, creation)["contractAddress"]
    ping = keccak256(b"ping(bytes32,address,string,uint256,uint256)")[:4] + abi_encode(
        ["bytes32", "address", "string", "uint256", "uint256"], [chain_id, ponger, "later", 300_000, 200_000])
    sent = _send(rpc, pinger, ping)
    call(simnode, "simnode.mine", {"blocks": 2})
    (message_id,) = [e.message_id for e in _messenger_events(rpc, int(sent["blockNumber"], 16))
                     if isinstance(e, ev.SendCrossChainMessage)]
    state = call(simnode, "simnode.getRelayer", {})
    assert state["enabled"] is False and state["pending"] == ["0x" + message_id.hex()]
    assert _view(rpc, ponger, "pingsReceived()", "uint256") == 0

    assert call(simnode, "simnode.setRelayer", {"enabled": True})["enabled"] is True
    call(simnode, "simnode.mine", {"blocks": 3})
    assert _view(rpc, ponger, "pingsReceived()", "uint256") == 1
    assert _view(rpc, pinger, "pongsReceived()", "uint256") == 1
    with pytest.raises(Exception, match="enabled must be true or false"):
        call(simnode, "simnode.setRelayer", {"enabled": "yes"})


def test_ping_pong_between_the_c_chain_and_an_l1(node):
    """A C-Chain message on the L1 is verified by the L1's own validators (no
    requirePrimaryNetworkSigners), the L1's answer on the C-Chain by the L1's validators."""
    c_rpc = node.url + "/ext/bc/C/rpc"
    l1_id, l1_rpc = _l1(node)
    creation = load_artifact("PingPongReceiver").creation_code + abi_encode(["address"], [MESSENGER_ADDRESS])
    ponger = _send(l1_rpc, None, creation)["contractAddress"]
    tx = {"chainId": 43112, "nonce": int(call(c_rpc, "eth_getTransactionCount", [EWOQ.address, "pending"]), 16),
          "maxFeePerGas": 100 * GWEI, "maxPriorityFeePerGas": GWEI, "value": 0, "gas": 3_000_000,
          "data": "0x" + creation.hex()}
    h = call(c_rpc, "eth_sendRawTransaction", ["0x" + EWOQ.sign_transaction(tx).raw_transaction.hex()])
    pinger = call(c_rpc, "eth_getTransactionReceipt", [h])["contractAddress"]
    ping = keccak256(b"ping(bytes32,address,string,uint256,uint256)")[:4] + abi_encode(
        ["bytes32", "address", "string", "uint256", "uint256"], [l1_id, ponger, "across", 300_000, 200_000])
    tx = {**tx, "nonce": tx["nonce"] + 1, "to": to_checksum_address(pinger), "data": "0x" + ping.hex()}
    h = call(c_rpc, "eth_sendRawTransaction", ["0x" + EWOQ.sign_transaction(tx).raw_transaction.hex()])
    assert call(c_rpc, "eth_getTransactionReceipt", [h])["status"] == "0x1"
    call(node.url + "/ext/simnode", "simnode.mine", {"blocks": 2})
    assert _view(l1_rpc, ponger, "pingsReceived()", "uint256") == 1
    assert _view(c_rpc, pinger, "pongsReceived()", "uint256") == 1
    assert _view(c_rpc, pinger, "lastSourceBlockchainID()", "bytes32") == l1_id

    # both legs, delivered, in the ICM Data API routes (answers checked against the document)
    c_id = node.node.genesis.c_chain_id
    legs = [(e.message_id, e.destination_blockchain_id) for rpc, start in ((c_rpc, 0), (l1_rpc, 0))
            for e in _messenger_events(rpc, start) if isinstance(e, ev.SendCrossChainMessage)]
    assert [dst for _, dst in legs] == [l1_id, c_id]
    for message_id, dst in legs:
        got = api(node.url, f"/v1/icm/messages/0x{message_id.hex()}")
        assert got["status"] == "delivered" and got["destinationBlockchainId"] == id_to_str(dst)
    listed = api(node.url, "/v1/icm/messages?network=fuji")["messages"]
    assert {m["messageId"] for m in listed} >= {m.hex() for m, _ in legs}


def test_a_reverted_message_is_not_relayed(node):
    chain_id, rpc = _l1(node)
    simnode = node.url + "/ext/simnode"
    creation = load_artifact("PingPongReceiver").creation_code + abi_encode(["address"], [MESSENGER_ADDRESS])
    pinger = _send(rpc, None, creation)["contractAddress"]
    ponger = _send(rpc, None, creation)["contractAddress"]
    call(simnode, "simnode.setRelayer", {"enabled": False})
    snap = call(simnode, "simnode.snapshot", {})["id"]
    ping = keccak256(b"ping(bytes32,address,string,uint256,uint256)")[:4] + abi_encode(
        ["bytes32", "address", "string", "uint256", "uint256"], [chain_id, ponger, "gone", 300_000, 200_000])
    _send(rpc, pinger, ping)
    assert len(call(simnode, "simnode.getRelayer", {})["pending"]) == 1
    call(simnode, "simnode.revert", {"id": snap})
    assert call(simnode, "simnode.setRelayer", {"enabled": True})["pending"] == []
    call(simnode, "simnode.mine", {"blocks": 2})
    assert _view(rpc, ponger, "pingsReceived()", "uint256") == 0


def test_a_message_for_a_chain_not_running_waits(node):
    chain_id, rpc = _l1(node)
    creation = load_artifact("PingPongReceiver").creation_code + abi_encode(["address"], [MESSENGER_ADDRESS])
    pinger = _send(rpc, None, creation)["contractAddress"]
    ping = keccak256(b"ping(bytes32,address,string,uint256,uint256)")[:4] + abi_encode(
        ["bytes32", "address", "string", "uint256", "uint256"], [b"\x42" * 32, pinger, "nobody", 300_000, 200_000])
    sent = _send(rpc, pinger, ping)
    call(node.url + "/ext/simnode", "simnode.mine", {"blocks": 2})
    (message_id,) = [e.message_id for e in _messenger_events(rpc, int(sent["blockNumber"], 16))
                     if isinstance(e, ev.SendCrossChainMessage)]
    assert call(node.url + "/ext/simnode", "simnode.getRelayer", {})["pending"] == ["0x" + message_id.hex()]


def test_pending_messages_outlive_a_restart(tmp_path):
    """A ping sent while the relayer is off is delivered after the node restarts (with the relayer
    on); after another restart the delivered ping is not sent again."""
    config = NodeConfig(http_port=0, data_dir=tmp_path / "data", clock_mode="virtual", seed=3)
    relayer = "0x" + relayer_address(3).hex()
    with Node.start_in_thread(config) as h:
        chain_id, rpc = _l1(h)
        simnode = h.url + "/ext/simnode"
        assert call(simnode, "simnode.setRelayer", {"enabled": False})["enabled"] is False
        creation = load_artifact("PingPongReceiver").creation_code + abi_encode(["address"], [MESSENGER_ADDRESS])
        pinger = _send(rpc, None, creation)["contractAddress"]
        ponger = _send(rpc, None, creation)["contractAddress"]
        ping = keccak256(b"ping(bytes32,address,string,uint256,uint256)")[:4] + abi_encode(
            ["bytes32", "address", "string", "uint256", "uint256"], [chain_id, ponger, "restart", 300_000, 200_000])
        sent = _send(rpc, pinger, ping)
        (message_id,) = [e.message_id for e in _messenger_events(rpc, int(sent["blockNumber"], 16))
                         if isinstance(e, ev.SendCrossChainMessage)]
        assert call(simnode, "simnode.getRelayer", {})["pending"] == ["0x" + message_id.hex()]

    with Node.start_in_thread(config) as h:  # the relayer is on again (the config's default)
        rpc = f"{h.url}/ext/bc/{id_to_str(chain_id)}/rpc"
        call(h.url + "/ext/simnode", "simnode.mine", {"blocks": 3})
        assert _view(rpc, ponger, "pingsReceived()", "uint256") == 1
        assert _view(rpc, pinger, "pongsReceived()", "uint256") == 1
        relayed = int(call(rpc, "eth_getTransactionCount", [relayer, "latest"]), 16)
        assert relayed == 2 and call(h.url + "/ext/simnode", "simnode.getRelayer", {})["pending"] == []

    with Node.start_in_thread(config) as h:
        rpc = f"{h.url}/ext/bc/{id_to_str(chain_id)}/rpc"
        call(h.url + "/ext/simnode", "simnode.mine", {"blocks": 2})
        assert int(call(rpc, "eth_getTransactionCount", [relayer, "latest"]), 16) == relayed
        assert call(h.url + "/ext/simnode", "simnode.getRelayer", {})["pending"] == []
        assert _view(rpc, ponger, "pingsReceived()", "uint256") == 1
