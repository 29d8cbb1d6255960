"""The signature aggregator's HTTP routes on a running node, both dialects: the Data API's
`POST /v1/signatureAggregator/{network}/aggregateSignatures` and `GET …/{txHash}` (201, checked
against the OpenAPI document, NestJS errors for bad input and refusals) and icm-services'
`POST /aggregate-signatures`. Signed messages are checked with py_ecc against getValidatorsAt."""

from __future__ import annotations

import hashlib
import json

import pytest
from eth_abi import encode as abi_encode
from py_ecc.bls import G2ProofOfPossession as oracle

from simnode.config import NodeConfig
from simnode.formats import encode_bytes, id_to_str, node_id_from_str, private_key_from_str
from simnode.formats.ids import vm_id_from_name
from simnode.node import Node
from simnode.vms.platform.wallet import PBuilder
from simnode.warp.keystore import derived_secret_key
from simnode.warp.message import UnsignedMessage, parse_signed_message
from simnode.warp.payload import AddressedCall
from simnode.warp.validators import bitset_indices, canonical_set

from .dataapi import api, request
from .rpc import call

ROUTE = "/v1/signatureAggregator/fuji/aggregateSignatures"
EWOQ = private_key_from_str("PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN")


def _issue(node, stx) -> None:
    call(node.url + "/ext/bc/P", "platform.issueTx", {"tx": encode_bytes(stx.tx_bytes, "hex")})


@pytest.fixture(scope="module")
def node():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", seed=5)) as handle:
        yield handle


@pytest.fixture(scope="module")
def message(node) -> UnsignedMessage:
    """A C-Chain message its validators are willing to sign (an off-chain message)."""
    unsigned = UnsignedMessage(12345, node.node.genesis.c_chain_id, AddressedCall(b"\2" * 20, b"agg").encode())
    node.call(node.node.warp_signer.add_off_chain_message, unsigned.encoded)
    return unsigned


def _verifies(node, signed_hex: str, unsigned: UnsignedMessage, quorum: int = 67) -> list[int]:
    signed = parse_signed_message(bytes.fromhex(signed_hex))
    assert signed.unsigned.encoded == unsigned.encoded
    height = call(node.url + "/ext/bc/P", "platform.getHeight")["height"]
    at = call(node.url + "/ext/bc/P", "platform.getValidatorsAt", {"height": height})
    ws = canonical_set((node_id_from_str(n), int(v["weight"]), bytes.fromhex(v["publicKey"][2:]))
                       for n, v in at.items())
    indices = bitset_indices(signed.signature.signer_bits(), len(ws.validators))
    assert sum(ws.validators[i].weight for i in indices) * 100 >= ws.total_weight * quorum
    assert oracle.FastAggregateVerify([ws.validators[i].public_key for i in indices], unsigned.encoded,
                                      signed.signature.signature)
    return indices


def test_data_api_aggregates(node, message):
    out = api(node.url, ROUTE, 201, "POST", {"message": message.encoded.hex()})
    assert len(_verifies(node, out["signedMessage"], message)) == 4  # 4 of the 5 equal genesis stakers: 80%
    # the SendWarpMessage event data form, 0x-prefixed, a higher quorum, a cb58 signing subnet
    event_data = "0x" + abi_encode(["bytes"], [message.encoded]).hex()
    full = api(node.url, ROUTE, 201, "POST", {"message": event_data, "quorumPercentage": 90,
                                             "signingSubnetId": id_to_str(bytes(32))})
    assert len(_verifies(node, full["signedMessage"], message, 90)) == 5
    # a buffer above the quorum asks for more signers; pChainHeight 0 is the current height
    buffered = api(node.url, ROUTE, 201, "POST", {"message": message.encoded.hex(), "quorumPercentage": 67,
                                                 "quorumPercentageBuffer": 20, "pChainHeight": 0})
    assert len(_verifies(node, buffered["signedMessage"], message)) == 5


@pytest.mark.parametrize("body, status, text", [
    ({}, 400, "Either message or justification must be provided"),
    ({"justification": "00"}, 400, "simnode builds no message from a justification alone"),
    ({"message": "zz"}, 400, "message is not valid hex"),
    ({"message": "0000"}, 400, "Error unpacking warp message"),
    ({"quorumPercentage": 101, "message": "00"}, 400, "quorumPercentage must be an integer from 0 to 100"),
    ({"signingSubnetId": "nope", "message": "00"}, 400, "signingSubnetId must be a hex or cb58 subnet ID"),
])
def test_data_api_bad_requests(node, body, status, text):
    err = api(node.url, ROUTE, status, "POST", body)
    assert err["statusCode"] == status and text in json.dumps(err["message"])


def test_data_api_refusals(node, message):
    unknown_source = UnsignedMessage(12345, b"\x42" * 32, AddressedCall(b"", b"x").encode())
    err = api(node.url, ROUTE, 404, "POST", {"message": unknown_source.encoded.hex()})
    assert "source blockchain not found" in err["message"]
    err = api(node.url, ROUTE, 404, "POST", {"message": message.encoded.hex(), "signingSubnetId": "0x" + "43" * 32})
    assert "not found" in err["message"]
    # a C-Chain message the chain never sent: the validators refuse, no signed message
    unsent = UnsignedMessage(12345, node.node.genesis.c_chain_id, AddressedCall(b"\3" * 20, b"never").encode())
    err = api(node.url, ROUTE, 400, "POST", {"message": unsent.encoded.hex()})
    assert "failed to collect a threshold of signatures" in err["message"]
    wrong_network = UnsignedMessage(5, node.node.genesis.c_chain_id, AddressedCall(b"", b"x").encode())
    assert "wrong networkID" in api(node.url, ROUTE, 400, "POST", {"message": wrong_network.encoded.hex()})["message"]
    err = api(node.url, ROUTE, 400, "POST", {"message": message.encoded.hex(), "pChainHeight": 10**9})
    assert "requested P-Chain height" in err["message"]
    err = api(node.url, "/v1/signatureAggregator/local/aggregateSignatures", 400, "POST", {"message": "00"})
    assert err["statusCode"] == 400  # the hosted service's networks only


def test_get_by_tx_hash(node):
    """ConvertSubnetToL1Tx -> its SubnetToL1Conversion, signed by the new L1's validators."""
    base = "/v1/signatureAggregator/fuji/aggregateSignatures/"
    vm = node.node.chains[bytes(32)]
    nodes = [hashlib.sha256(f"agg-node-{i}".encode()).digest()[:20] for i in range(2)]
    keys = [derived_secret_key(node.node.config.seed, n) for n in nodes]
    sub = node.call(node.call(PBuilder, vm, [EWOQ]).create_subnet)
    _issue(node, sub)
    chain = node.call(node.call(PBuilder, vm, [EWOQ]).create_chain, sub.tx_id, "aggchain",
                      vm_id_from_name("aggvm"), b"{}")
    _issue(node, chain)
    convert = node.call(node.call(PBuilder, vm, [EWOQ]).convert_subnet, sub.tx_id, chain.tx_id, b"\x0f" * 20,
                        [(nodes[0], 100, 5 * 10**9, keys[0]), (nodes[1], 80, 5 * 10**9, keys[1])])
    _issue(node, convert)

    out = api(node.url, base + id_to_str(convert.tx_id), 201)
    signed = parse_signed_message(bytes.fromhex(out["signedMessage"]))
    assert signed.unsigned.source_chain_id == bytes(32)
    height = call(node.url + "/ext/bc/P", "platform.getHeight")["height"]
    l1_set = call(node.url + "/ext/bc/P", "platform.getValidatorsAt",
                  {"height": height, "subnetID": id_to_str(sub.tx_id)})
    ws = canonical_set((node_id_from_str(n), int(v["weight"]), bytes.fromhex(v["publicKey"][2:]))
                       for n, v in l1_set.items())
    indices = bitset_indices(signed.signature.signer_bits(), len(ws.validators))
    assert oracle.FastAggregateVerify([ws.validators[i].public_key for i in indices], signed.unsigned.encoded,
                                      signed.signature.signature)

    assert "not an L1-related P-Chain transaction" in api(node.url, base + id_to_str(sub.tx_id), 400)["message"]
    assert "not found" in api(node.url, base + id_to_str(b"\x09" * 32), 404)["message"]
    assert "cb58" in api(node.url, base + "not-an-id", 400)["message"]


def test_icm_services_dialect(node, message):
    status, _, raw = request(node.url, "POST", "/aggregate-signatures",
                             {"message": message.encoded.hex(), "quorum-percentage": 90,
                              "signing-subnet-id": "0x" + "00" * 32})
    assert status == 200
    assert len(_verifies(node, json.loads(raw)["signed-message"], message, 90)) == 5
    status, _, raw = request(node.url, "POST", "/aggregate-signatures", {"message": "0x00", "quorum-percentage": 0})
    assert status == 400 and "Error unpacking warp message" in json.loads(raw)["error"]
    status, _, raw = request(node.url, "POST", "/aggregate-signatures", raw_body=b"{")
    assert status == 400 and "could not decode request body" in json.loads(raw)["error"]
