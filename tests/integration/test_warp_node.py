"""On a running node, over HTTP: the validators sign with the keys the P-Chain reports for them, an
L1 validator is registered with a message from the aggregator, and the P-Chain's acknowledgement
is signed by the L1's own validators (checked with py_ecc against getValidatorsAt)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from py_ecc.bls import G2ProofOfPossession as oracle

from simnode.config import NodeConfig
from simnode.crypto import bls
from simnode.formats import encode_bytes, id_to_str, node_id_from_str, node_id_to_str, private_key_from_str
from simnode.formats.ids import vm_id_from_name
from simnode.node import Node
from simnode.signing.aggregator import AggregationRequest
from simnode.vms.platform.wallet import PBuilder, address_of
from simnode.warp import acp77
from simnode.warp.keystore import derived_secret_key
from simnode.warp.message import SignedMessage, UnsignedMessage
from simnode.warp.payload import AddressedCall, parse_addressed_call
from simnode.warp.validators import bitset_indices, canonical_set

from .rpc import RPCFailure, call

EWOQ = private_key_from_str("PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN")
GENESIS_LOCAL = Path(__file__).resolve().parents[2] / "simnode" / "genesis_data" / "genesis_local.json"
AVAX = 10**9
MANAGER = b"\x0f" * 20


@pytest.fixture()
def node():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", seed=11)) as handle:
        yield handle


def _issue(node, stx) -> None:
    call(node.url + "/ext/bc/P", "platform.issueTx", {"tx": encode_bytes(stx.tx_bytes, "hex")})


def _py_ecc_verifies(signed: SignedMessage, validators_at: dict) -> bool:
    """Check a signed message with py_ecc against a validator set as getValidatorsAt reports it."""
    ws = canonical_set((node_id_from_str(n), int(v["weight"]), bytes.fromhex(v["publicKey"][2:]) if v["publicKey"]
                        else None) for n, v in validators_at.items())
    signers = [ws.validators[i] for i in bitset_indices(signed.signature.signer_bits(), len(ws.validators))]
    assert sum(v.weight for v in signers) * 100 >= ws.total_weight * 67
    return oracle.FastAggregateVerify([v.public_key for v in signers], signed.unsigned.encoded,
                                      signed.signature.signature)


def test_genesis_validators_report_their_genesis_signers(node):
    genesis = {s["nodeID"]: s["signer"] for s in json.loads(GENESIS_LOCAL.read_text())["initialStakers"]}
    validators = call(node.url + "/ext/bc/P", "platform.getCurrentValidators")["validators"]
    assert {v["nodeID"]: v["signer"] for v in validators} == genesis
    me = call(node.url + "/ext/info", "info.getNodeID")
    assert me["nodePOP"] == genesis[me["nodeID"]]
    # the Primary Network's validators sign a C-Chain message with exactly those keys
    c_chain = node.node.genesis.c_chain_id
    unsigned = UnsignedMessage(12345, c_chain, AddressedCall(b"\1" * 20, b"ping").encode())
    node.call(node.node.warp_signer.add_off_chain_message, unsigned.encoded)
    signed = node.call(node.node.aggregator.aggregate, AggregationRequest(unsigned.encoded))
    height = call(node.url + "/ext/bc/P", "platform.getHeight")["height"]
    at = call(node.url + "/ext/bc/P", "platform.getValidatorsAt", {"height": height})
    assert _py_ecc_verifies(signed, at)


def test_register_an_l1_validator_with_an_aggregated_message(node):
    url = node.url + "/ext/bc/P"
    vm = node.node.chains[bytes(32)]
    seed = node.node.config.seed
    nodes = [hashlib.sha256(f"l1-node-{i}".encode()).digest()[:20] for i in range(3)]
    keys = [derived_secret_key(seed, n) for n in nodes]  # simnode made these validators: it holds their keys

    w = node.call(PBuilder, vm, [EWOQ])
    sub = node.call(w.create_subnet)
    _issue(node, sub)
    w = node.call(PBuilder, vm, [EWOQ])
    chain = node.call(w.create_chain, sub.tx_id, "managerchain", vm_id_from_name("managervm"), b"{}")
    _issue(node, chain)
    w = node.call(PBuilder, vm, [EWOQ])
    convert = node.call(w.convert_subnet, sub.tx_id, chain.tx_id, MANAGER,
                        [(nodes[0], 100, 5 * AVAX, keys[0]), (nodes[1], 80, 5 * AVAX, keys[1])])
    _issue(node, convert)

    # the P-Chain's SubnetToL1Conversion, signed by the L1's validators, for its manager
    conversion = node.call(node.node.aggregator.aggregate_tx, convert.tx_id)
    height = call(url, "platform.getHeight")["height"]
    l1_set = call(url, "platform.getValidatorsAt", {"height": height, "subnetID": id_to_str(sub.tx_id)})
    assert _py_ecc_verifies(conversion, l1_set)

    # the manager's RegisterL1ValidatorMessage (an off-chain message of its chain), aggregated
    po = acp77.PChainOwner(1, (address_of(EWOQ),))
    expiry = node.call(vm.next_block_time) + 3600
    reg = acp77.RegisterL1Validator(sub.tx_id, nodes[2], bls.public_key(keys[2]), expiry, po, po, 60)
    unsigned = UnsignedMessage(12345, chain.tx_id, AddressedCall(MANAGER, reg.encode()).encode())
    node.call(node.node.warp_signer.add_off_chain_message, unsigned.encoded)
    signed = node.call(node.node.aggregator.aggregate, AggregationRequest(unsigned.encoded))

    # too little weight is refused with AvalancheGo's text, and nothing changes
    heavy = SignedMessage(unsigned, signed.signature.__class__(b"\x01", bls.sign(keys[0], unsigned.encoded)))
    w = node.call(PBuilder, vm, [EWOQ])
    weak = node.call(w.register_l1_validator, AVAX, keys[2], heavy.encoded)
    with pytest.raises(RPCFailure) as err:
        _issue(node, weak)
    assert "failed verifying warp messages: signature weight is insufficient: 67*180 > 100*" in err.value.error["message"]
    assert call(url, "platform.getHeight")["height"] == height

    w = node.call(PBuilder, vm, [EWOQ])
    register = node.call(w.register_l1_validator, AVAX, keys[2], signed.encoded)
    _issue(node, register)
    assert call(url, "platform.getTxStatus", {"txID": id_to_str(register.tx_id)})["status"] == "Committed"
    got = call(url, "platform.getL1Validator", {"validationID": id_to_str(reg.validation_id)})
    assert got["nodeID"] == node_id_to_str(nodes[2]) and got["weight"] == "60"

    # the acknowledgement for the L1: L1ValidatorRegistration(registered), signed by the L1's validators
    ack = node.call(node.node.aggregator.aggregate_tx, register.tx_id)
    assert ack.unsigned.source_chain_id == bytes(32)
    msg = acp77.parse_pchain_message(parse_addressed_call(ack.unsigned.payload).payload)
    assert msg == acp77.L1ValidatorRegistration(reg.validation_id, True)
    height = call(url, "platform.getHeight")["height"]
    l1_set = call(url, "platform.getValidatorsAt", {"height": height, "subnetID": id_to_str(sub.tx_id)})
    assert len(l1_set) == 3 and _py_ecc_verifies(ack, l1_set)


def test_unknown_genesis_signers_get_seed_derived_keys():
    fuji_start_ms = (1599696000 + 3600) * 1000  # while Fuji's genesis stakers still validate
    config = NodeConfig(http_port=0, ephemeral=True, network_id=5, seed=9, clock_mode="virtual",
                        start_time_ms=fuji_start_ms)
    with Node.start_in_thread(config) as handle:
        validators = call(handle.url + "/ext/bc/P", "platform.getCurrentValidators")["validators"]
        assert len(validators) == 20
        for v in validators:
            sk = derived_secret_key(9, node_id_from_str(v["nodeID"]))
            assert v["signer"]["publicKey"] == "0x" + bls.public_key(sk).hex()
        me = call(handle.url + "/ext/info", "info.getNodeID")
        assert me["nodePOP"]["publicKey"] == "0x" + bls.public_key(derived_secret_key(9, node_id_from_str(me["nodeID"]))).hex()
