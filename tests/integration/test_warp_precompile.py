"""The Warp precompile on a running node's C-Chain, over JSON-RPC with signed txs: a message sent by
sendWarpMessage is served by warp_getMessage and signed by the Primary Network's validators
(warp_getMessage*Signature); delivered back as a predicate in an access list it reads as valid,
costs PredicateGas and is recorded in the header extra; a predicate with too little weight, a
tampered signature or signers of another set reads `valid = false` while the tx still lands and
changes nothing else; snapshot/revert moves the accepted messages with the chain."""

from __future__ import annotations

import pytest
from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from eth_account import Account
from eth_utils import to_checksum_address

from simnode.config import NodeConfig
from simnode.crypto import bls
from simnode.formats import id_to_str
from simnode.node import Node
from simnode.vms.evm import predicates
from simnode.warp import signatures
from simnode.warp.message import BitSetSignature, SignedMessage, parse_signed_message, parse_unsigned_message
from simnode.warp.payload import parse_addressed_call

from .rpc import RPCFailure, call

EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
WARP = "0x0200000000000000000000000000000000000005"
READER = "0x00000000000000000000000000000000000000a1"
CHAIN_ID = 43112
GWEI = 10**9
SEND_WARP_MESSAGE_TOPIC = "0x56600c567728a800c0aa927500f831cb451df66a7af570eb4df4dfbf4674887d"
# calls getVerifiedWarpMessage(0) and logs (LOG0) what it returns:
# mstore(0, sel << 224); call(gas, 0x..05, 0, 0, 36, 0, 0); returndatacopy(0, 0, rds); log0(0, rds)
READER_CODE = ("0x636f82535060e01b5f525f5f60245f5f730200000000000000000000000000000000000005"
               "5af1503d5f5f3e3d5fa000")


@pytest.fixture()
def node():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", seed=7)) as handle:
        yield handle


def _send(rpc: str, tx: dict) -> dict:
    tx = {"chainId": CHAIN_ID, "nonce": int(call(rpc, "eth_getTransactionCount", [EWOQ.address, "pending"]), 16),
          "maxFeePerGas": 50 * GWEI, "maxPriorityFeePerGas": GWEI, "value": 0, **tx,
          "to": to_checksum_address(tx["to"])}
    h = call(rpc, "eth_sendRawTransaction", ["0x" + EWOQ.sign_transaction(tx).raw_transaction.hex()])
    receipt = call(rpc, "eth_getTransactionReceipt", [h])
    assert receipt is not None
    return receipt


def _send_message(rpc: str, payload: bytes) -> tuple[bytes, dict]:
    data = "0x" + (bytes.fromhex("ee5b48eb") + abi_encode(["bytes"], [payload])).hex()
    receipt = _send(rpc, {"to": WARP, "data": data, "gas": 200_000})
    assert receipt["status"] == "0x1"
    (log,) = receipt["logs"]
    assert log["address"] == WARP and log["topics"][0] == SEND_WARP_MESSAGE_TOPIC
    assert log["topics"][1] == "0x" + "00" * 12 + EWOQ.address[2:].lower()
    (raw,) = abi_decode(["bytes"], bytes.fromhex(log["data"][2:]))
    assert log["topics"][2] == "0x" + parse_unsigned_message(raw).id.hex()
    return raw, receipt


def _deliver(rpc: str, signed: bytes) -> tuple[dict, tuple]:
    """A tx to the reader with `signed` as predicate 0: its receipt and what the precompile answered."""
    keys = ["0x" + c.hex() for c in predicates.encode(signed)]
    receipt = _send(rpc, {"to": READER, "data": "0x", "gas": 1_000_000, "type": 2,
                          "accessList": [{"address": WARP, "storageKeys": keys}]})
    assert receipt["status"] == "0x1"  # the tx lands whatever the predicate
    (log,) = receipt["logs"]
    answer = abi_decode(["(bytes32,address,bytes)", "bool"], bytes.fromhex(log["data"][2:]))
    return receipt, answer


def _header_results(rpc: str, receipt: dict) -> dict:
    block = call(rpc, "eth_getBlockByNumber", [receipt["blockNumber"], False])
    extra = bytes.fromhex(block["extraData"][2:])
    for cut in range(len(extra)):  # the results follow the fee state, whose length the test need not know
        try:
            results = predicates.parse_results(extra[cut:])
        except Exception:  # noqa: BLE001 - not the start of the results yet
            continue
        if results:
            return results
    return {}


def test_send_sign_and_deliver_on_the_c_chain(node):
    rpc = node.url + "/ext/bc/C/rpc"
    call(rpc, "anvil_setCode", [READER, READER_CODE])
    c_chain = node.node.genesis.c_chain_id

    # getBlockchainID answers the C-Chain's blockchain ID
    blockchain_id = call(rpc, "eth_call", [{"to": WARP, "data": "0x4213cf78"}, "latest"])
    assert blockchain_id == "0x" + c_chain.hex()

    raw, sent = _send_message(rpc, b"hello warp")
    unsigned = parse_unsigned_message(raw)
    assert (unsigned.network_id, unsigned.source_chain_id) == (12345, c_chain)
    call_payload = parse_addressed_call(unsigned.payload)
    assert (call_payload.source_address, call_payload.payload) == (bytes.fromhex(EWOQ.address[2:]), b"hello warp")
    mid = id_to_str(unsigned.id)
    assert call(rpc, "warp_getMessage", [mid]) == "0x" + raw.hex()

    # this node's signature, with the BLS key the P-Chain reports for it
    me = call(node.url + "/ext/info", "info.getNodeID")
    sig = bytes.fromhex(call(rpc, "warp_getMessageSignature", [mid])[2:])
    assert bls.verify(bytes.fromhex(me["nodePOP"]["publicKey"][2:]), sig, raw)
    block_sig = bytes.fromhex(call(rpc, "warp_getBlockSignature", [id_to_str(bytes.fromhex(sent["blockHash"][2:]))])[2:])
    assert len(block_sig) == 96
    with pytest.raises(RPCFailure, match="failed to get signature for block"):
        call(rpc, "warp_getBlockSignature", [id_to_str(b"\x05" * 32)])
    with pytest.raises(RPCFailure, match="failed to get message .* with error not found"):
        call(rpc, "warp_getMessage", [id_to_str(b"\x06" * 32)])

    signed = bytes.fromhex(call(rpc, "warp_getMessageAggregateSignature", [mid, 67, ""])[2:])
    assert parse_signed_message(signed).unsigned.encoded == raw
    block_signed = call(rpc, "warp_getBlockAggregateSignature", [id_to_str(bytes.fromhex(sent["blockHash"][2:])), 67])
    assert parse_signed_message(bytes.fromhex(block_signed[2:])).unsigned.source_chain_id == c_chain

    receipt, (message, valid) = _deliver(rpc, signed)
    assert valid is True
    assert message == (c_chain, EWOQ.address.lower(), b"hello warp")
    chunks = len(predicates.encode(signed))
    signers = parse_signed_message(signed).signature.num_signers()
    predicate_gas = 125_000 + 512 * chunks + 250 * signers
    # intrinsic 21,000 + PredicateGas, then the reader: the call reads the chunks again (512 each)
    assert int(receipt["gasUsed"], 16) > 21_000 + predicate_gas + 750 + 512 * chunks
    tx_hash = bytes.fromhex(receipt["transactionHash"][2:])
    assert _header_results(rpc, receipt) == {tx_hash: {bytes.fromhex(WARP[2:]): b""}}
    trace = call(rpc, "debug_traceTransaction", [receipt["transactionHash"], {"tracer": "callTracer"}])
    assert trace["gasUsed"] == receipt["gasUsed"]


def _resigned(node, signed: bytes, indices: list[int], keys_of_set: list | None = None) -> bytes:
    """`signed`'s message signed again by the Primary Network validators at `indices` (or by
    `keys_of_set`, other validators' keys, claiming those indices)."""
    message = parse_signed_message(signed)
    platform = node.node.chains[bytes(32)]
    warp_set = node.call(platform.state.warp_set, bytes(32), platform.state.meta.height)
    if keys_of_set is None:
        keys = {i: node.node.keystore.secret_for(warp_set.validators[i].public_key, warp_set.validators[i].node_ids)
                for i in indices}
    else:
        keys = dict(zip(indices, keys_of_set, strict=True))
    return signatures.sign_aggregate(keys, message.unsigned)[1].encoded


def test_failed_predicates_read_invalid_and_change_nothing_else(node):
    rpc = node.url + "/ext/bc/C/rpc"
    call(rpc, "anvil_setCode", [READER, READER_CODE])
    raw, _ = _send_message(rpc, b"to be verified")
    mid = id_to_str(parse_unsigned_message(raw).id)
    signed = bytes.fromhex(call(rpc, "warp_getMessageAggregateSignature", [mid, 67, ""])[2:])
    good = parse_signed_message(signed)

    one_of_five = _resigned(node, signed, [0])  # 20% of the Primary Network's weight: below 67%
    tampered_sig = bytearray(good.signature.signature)
    tampered_sig[-1] ^= 1
    tampered = SignedMessage(good.unsigned, BitSetSignature(good.signature.signers, bytes(tampered_sig))).encoded
    strangers = [bls.secret_key_from_seed(bytes([i]) * 32) for i in range(5)]
    other_set = _resigned(node, signed, [0, 1, 2, 3, 4], strangers)  # every bit set, keys of nobody in the set

    for bad in (one_of_five, tampered, other_set):
        before = {a: call(rpc, "eth_getBalance", [a, "latest"]) for a in (READER, WARP)}
        receipt, (message, valid) = _deliver(rpc, bad)
        assert valid is False and message == (b"\x00" * 32, "0x" + "00" * 20, b"")
        tx_hash = bytes.fromhex(receipt["transactionHash"][2:])
        assert _header_results(rpc, receipt) == {tx_hash: {bytes.fromhex(WARP[2:]): b"\x01"}}
        assert {a: call(rpc, "eth_getBalance", [a, "latest"]) for a in (READER, WARP)} == before
        # re-executed for tracing with the block's recorded results: the same gas (no chunk reads)
        trace = call(rpc, "debug_traceTransaction", [receipt["transactionHash"], {"tracer": "callTracer"}])
        assert trace["gasUsed"] == receipt["gasUsed"]

    # the same message properly signed still verifies afterwards (replay protection is the
    # receiving contract's, e.g. the messenger's "message already received")
    assert _deliver(rpc, signed)[1][1] is True


def test_a_predicate_that_does_not_parse_is_refused(node):
    """PredicateGas fails, so the tx is invalid (as the intrinsic gas check refuses it)."""
    rpc = node.url + "/ext/bc/C/rpc"
    raw, _ = _send_message(rpc, b"padded")
    signed = parse_signed_message(bytes.fromhex(
        call(rpc, "warp_getMessageAggregateSignature", [id_to_str(parse_unsigned_message(raw).id), 67, ""])[2:]))
    padded = SignedMessage(signed.unsigned, BitSetSignature(b"\x00" + signed.signature.signers,
                                                            signed.signature.signature)).encoded
    for keys, reason in [
        (["0x" + ("ab" * 32)], "cannot unpack predicate bytes: wrong delimiter"),
        (["0x" + c.hex() for c in predicates.encode(padded)], "cannot fetch num signers from warp message: "
                                                              "bitset is invalid"),
    ]:
        tx = {"chainId": CHAIN_ID, "nonce": 1, "maxFeePerGas": 50 * GWEI, "maxPriorityFeePerGas": GWEI, "value": 0,
              "to": to_checksum_address(READER), "data": "0x", "gas": 1_000_000, "type": 2,
              "accessList": [{"address": WARP, "storageKeys": keys}]}
        with pytest.raises(RPCFailure, match=f"invalid predicate: {reason}"):
            call(rpc, "eth_sendRawTransaction", ["0x" + EWOQ.sign_transaction(tx).raw_transaction.hex()])


def test_accepted_messages_move_with_snapshot_and_revert(node):
    rpc = node.url + "/ext/bc/C/rpc"
    snap = call(rpc, "evm_snapshot", [])
    raw, _ = _send_message(rpc, b"reverted away")
    mid = id_to_str(parse_unsigned_message(raw).id)
    assert call(rpc, "warp_getMessage", [mid]) == "0x" + raw.hex()
    assert call(rpc, "evm_revert", [snap]) is True
    with pytest.raises(RPCFailure, match="not found"):
        call(rpc, "warp_getMessage", [mid])
    with pytest.raises(RPCFailure, match="failed to collect a threshold of signatures|not found"):
        call(rpc, "warp_getMessageAggregateSignature", [mid, 67, ""])


def test_accepted_messages_are_kept_across_a_restart(tmp_path):
    config = NodeConfig(http_port=0, data_dir=tmp_path, clock_mode="virtual", seed=7)
    with Node.start_in_thread(config) as handle:
        raw, _ = _send_message(handle.url + "/ext/bc/C/rpc", b"still here")
    mid = id_to_str(parse_unsigned_message(raw).id)
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=tmp_path, clock_mode="virtual", seed=7)) as handle:
        rpc = handle.url + "/ext/bc/C/rpc"
        assert call(rpc, "warp_getMessage", [mid]) == "0x" + raw.hex()
        signed = bytes.fromhex(call(rpc, "warp_getMessageAggregateSignature", [mid, 67, ""])[2:])
        assert parse_signed_message(signed).unsigned.encoded == raw


def test_eth_call_reads_a_predicate_as_valid(node):
    """eth_call with the predicate in its accessList: nothing verifies it, so it reads valid (as
    coreth's eth_call has no predicate results); estimateGas counts its PredicateGas."""
    rpc = node.url + "/ext/bc/C/rpc"
    returner = "0x00000000000000000000000000000000000000a2"  # returns what getVerifiedWarpMessage(0) answers
    call(rpc, "anvil_setCode", [returner, READER_CODE.removesuffix("3d5fa000") + "3d5ff3"])
    raw, _ = _send_message(rpc, b"called")
    signed = bytes.fromhex(call(rpc, "warp_getMessageAggregateSignature",
                                [id_to_str(parse_unsigned_message(raw).id), 67, ""])[2:])
    keys = ["0x" + c.hex() for c in predicates.encode(signed)]
    args = {"from": EWOQ.address, "to": returner, "accessList": [{"address": WARP, "storageKeys": keys}]}
    out = call(rpc, "eth_call", [args, "latest"])
    assert abi_decode(["(bytes32,address,bytes)", "bool"], bytes.fromhex(out[2:]))[1] is True
    without = call(rpc, "eth_call", [{"from": EWOQ.address, "to": returner}, "latest"])
    assert abi_decode(["(bytes32,address,bytes)", "bool"], bytes.fromhex(without[2:]))[1] is False
    gas = int(call(rpc, "eth_estimateGas", [args]), 16)
    assert gas > 21_000 + 125_000 + 512 * len(keys)
