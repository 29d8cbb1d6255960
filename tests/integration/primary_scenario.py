"""A primary-network history for the Data API tests, driven over the node's own APIs on a
virtual clock: X transfers and an asset, X→P, X→C→P and P→X atomic moves, a validator with two
delegators through their whole staking period (rewards paid), a permissioned subnet validator
added and removed, a subnet with a chain converted to an L1 whose validators are then added,
re-weighted, topped up and removed. `run` returns what the tests compare the Data API with,
including the node's own answers recorded at earlier moments."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

from simnode.codec import TransferableOutput, TransferOutput, decode_utxo
from simnode.crypto import bls
from simnode.crypto.secp256k1 import eth_address
from simnode.formats import encode_bytes, format_address, id_to_str, private_key_from_str
from simnode.formats.ids import id_from_str, vm_id_from_name
from simnode.signing.aggregator import AggregationRequest
from simnode.vms.avm.wallet import XContext, XWallet, owner
from simnode.vms.avm.txs import InitialState, X_REGISTRY
from simnode.vms.evm.atomic_builder import build_export, build_import
from simnode.vms.evm.atomic_txs import C_REGISTRY, AtomicContext
from simnode.vms.platform.wallet import PBuilder, address_of
from simnode.warp import acp77
from simnode.warp.keystore import derived_secret_key
from simnode.warp.message import UnsignedMessage
from simnode.warp.payload import AddressedCall

from .rpc import call

EWOQ = private_key_from_str("PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN")
ALICE = hashlib.sha256(b"primary-scenario-alice").digest()
AVAX = 10**9
DAY = 24 * 3600
MANAGER = b"\x0f" * 20
CHAIN_GENESIS = {
    "config": {"chainId": 77777, "homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0, "eip158Block": 0,
               "byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0,
               "muirGlacierBlock": 0, "subnetEVMTimestamp": 0, "allowFeeRecipients": False,
               "feeConfig": {"gasLimit": 8000000, "targetBlockRate": 2, "minBaseFee": 25000000000,
                             "targetGas": 15000000, "baseFeeChangeDenominator": 36, "minBlockGasCost": 0,
                             "maxBlockGasCost": 1000000, "blockGasCostStep": 200000},
               "warpConfig": {"blockTimestamp": 0, "quorumNumerator": 67},
               "contractNativeMinterConfig": {"blockTimestamp": 0, "adminAddresses": ["0x" + "ab" * 20]}},
    "alloc": {"8db97c7cece249c2b98bdc0226cc4c2a57bf52fc": {"balance": "0x52b7d2dcc80cd2e4000000",
                                                          "storage": {"0x01": "0x02"}}},
    "nonce": "0x0", "timestamp": "0x0", "extraData": "0x", "gasLimit": "0x7a1200", "difficulty": "0x0",
    "mixHash": "0x" + "00" * 32, "coinbase": "0x" + "00" * 20, "number": "0x0", "gasUsed": "0x0",
    "parentHash": "0x" + "00" * 32, "baseFeePerGas": "0x5d21dba00",
}


@dataclass
class Recorded:
    """What the scenario did, and what the node answered on the way."""

    hrp: str
    ewoq: bytes = field(default_factory=lambda: address_of(EWOQ))
    alice: bytes = field(default_factory=lambda: address_of(ALICE))
    asset: bytes = b""
    validator_node: bytes = b""
    validator_tx: bytes = b""
    delegator_txs: list[bytes] = field(default_factory=list)
    subnet: bytes = b""
    chain: bytes = b""
    convert_tx: bytes = b""
    l1_nodes: list[bytes] = field(default_factory=list)
    validation_ids: list[bytes] = field(default_factory=list)
    permissioned_tx: bytes = b""
    remove_tx: bytes = b""
    # (unix time, chain letter, address text, the node's getBalance answer then)
    balances: list[tuple[int, str, str, Any]] = field(default_factory=list)
    current_validators: Any = None  # platform.getCurrentValidators while the validator staked

    def addr(self, letter: str, payload: bytes) -> str:
        return format_address(letter, self.hrp, payload)


class Driver:
    def __init__(self, handle: Any) -> None:
        self.h = handle
        self.node = handle.node
        self.url = handle.url
        g = self.node.genesis
        self.x_id, self.c_id, self.p_id = g.x_chain_id, g.c_chain_id, bytes(32)
        self.avax = g.avax_asset_id
        self.rec = Recorded(g.hrp)

    # ------------------------------------------------------------------ plumbing

    def now(self) -> int:
        return self.node.clock.now()

    def advance(self, seconds: int) -> None:
        call(self.url + "/ext/simnode", "simnode.advanceTime", {"seconds": seconds})

    def issue(self, chain: str, tx_bytes: bytes) -> bytes:
        endpoint, method, status_method, done = {
            "X": ("/ext/bc/X", "avm.issueTx", "avm.getTxStatus", "Accepted"),
            "P": ("/ext/bc/P", "platform.issueTx", "platform.getTxStatus", "Committed"),
            "C": ("/ext/bc/C/avax", "avax.issueTx", "avax.getAtomicTxStatus", "Accepted")}[chain]
        tx_id = call(self.url + endpoint, method, {"tx": encode_bytes(tx_bytes, "hex"), "encoding": "hex"})["txID"]
        deadline = time.monotonic() + 20
        while call(self.url + endpoint, status_method, {"txID": tx_id})["status"] != done:
            assert time.monotonic() < deadline, f"{chain} tx {tx_id} not accepted"
            time.sleep(0.005)
        return id_from_str(tx_id)

    def p(self, build: Any, keys: list[bytes] | None = None) -> bytes:
        vm = self.node.chains[self.p_id]
        signed = self.h.call(lambda: build(PBuilder(vm, keys or [EWOQ])))
        return self.issue("P", signed.tx_bytes)

    def x_utxos(self, address: bytes, source: bytes | None = None) -> list[Any]:
        params: dict[str, Any] = {"addresses": [self.rec.addr("X", address)], "limit": 1024, "encoding": "hex"}
        if source is not None:
            params["sourceChain"] = id_to_str(source)
        res = call(self.url + "/ext/bc/X", "avm.getUTXOs", params)
        return [decode_utxo(bytes.fromhex(u[2:])[:-4], X_REGISTRY) for u in res["utxos"]]

    def x(self, key: bytes, build: Any) -> bytes:
        vm = self.node.chains[self.x_id]
        ctx = XContext.of_vm(vm)
        utxos = self.x_utxos(address_of(key))
        wallet = XWallet(ctx, (key,), tuple(utxos), self.now())
        return self.issue("X", build(wallet).bytes)

    def c_context(self) -> AtomicContext:
        return AtomicContext(self.node.config.network_id, self.c_id, self.avax, frozenset({self.x_id, self.p_id}))

    def c_base_fee(self) -> int:
        return int(call(self.url + "/ext/bc/C/rpc", "eth_baseFee", []), 16)

    def c_export(self, dest: bytes, amount: int, to: bytes) -> bytes:
        sender = "0x" + eth_address(EWOQ).hex()
        nonce = int(call(self.url + "/ext/bc/C/rpc", "eth_getTransactionCount", [sender, "latest"]), 16)
        tx = build_export(self.c_context(), dest, amount, to, EWOQ, nonce, self.c_base_fee())
        return self.issue("C", tx.bytes)

    def c_import(self, source: bytes) -> bytes:
        res = call(self.url + "/ext/bc/C/avax", "avax.getUTXOs", {
            "addresses": [self.rec.addr("C", self.rec.ewoq)], "sourceChain": id_to_str(source), "encoding": "hex"})
        utxos = [decode_utxo(bytes.fromhex(u[2:])[:-4], C_REGISTRY) for u in res["utxos"]]
        tx = build_import(self.c_context(), source, utxos, eth_address(EWOQ), [EWOQ], self.c_base_fee(),
                          self.now())
        return self.issue("C", tx.bytes)

    def record_balances(self) -> None:
        """The node's balances of the scenario's addresses, now (then a second passes, so no later
        block shares this moment)."""
        now = self.now()
        for payload in (self.rec.ewoq, self.rec.alice):
            p = self.rec.addr("P", payload)
            self.rec.balances.append((now, "P", p, call(self.url + "/ext/bc/P", "platform.getBalance",
                                                        {"addresses": [p]})))
            x = self.rec.addr("X", payload)
            got = {a: call(self.url + "/ext/bc/X", "avm.getBalance", {"address": x, "assetID": id_to_str(a)})
                   for a in (self.avax, self.rec.asset) if a}
            self.rec.balances.append((now, "X", x, got))
        self.advance(1)

    def warp(self, payload: bytes) -> bytes:
        """A message of the L1's manager, signed by the L1's validators through the aggregator."""
        call_payload = AddressedCall(MANAGER, payload).encode()
        unsigned = UnsignedMessage(self.node.config.network_id, self.rec.chain, call_payload)
        self.h.call(self.node.warp_signer.add_off_chain_message, unsigned.encoded)
        return self.h.call(self.node.aggregator.aggregate, AggregationRequest(unsigned.encoded)).encoded


def run(handle: Any) -> Recorded:
    d = Driver(handle)
    rec = d.rec
    d.advance(5)
    # X: transfers and an asset
    d.x(EWOQ, lambda w: w.base_tx([TransferableOutput(d.avax, TransferOutput(50 * AVAX, owner(rec.alice)))],
                                  memo=b"to alice"))
    rec.asset = d.x(EWOQ, lambda w: w.create_asset_tx("Scenario Token", "SCN", 2, [
        InitialState(0, (TransferOutput(1_000_000, owner(rec.ewoq)),))]))
    d.x(EWOQ, lambda w: w.base_tx([TransferableOutput(rec.asset, TransferOutput(2_500, owner(rec.alice)))]))
    d.x(ALICE, lambda w: w.base_tx([TransferableOutput(d.avax, TransferOutput(7 * AVAX, owner(rec.ewoq)))]))
    d.record_balances()
    # X -> P
    out = TransferableOutput(d.avax, TransferOutput(5_000 * AVAX, owner(rec.ewoq)))
    d.x(EWOQ, lambda w: w.export_tx(d.p_id, [out]))
    d.p(lambda b: b.import_tx(d.x_id, rec.ewoq))
    # X -> C -> P
    out = TransferableOutput(d.avax, TransferOutput(100 * AVAX, owner(rec.ewoq)))
    d.x(EWOQ, lambda w: w.export_tx(d.c_id, [out]))
    d.c_import(d.x_id)
    d.c_export(d.p_id, 40 * AVAX, rec.ewoq)
    d.p(lambda b: b.import_tx(d.c_id, rec.ewoq))
    # P -> X, left in X's shared memory for a while
    d.p(lambda b: b.export_tx(d.x_id, rec.alice, 30 * AVAX))
    d.record_balances()
    # a validator and two delegators through their whole staking period
    vm = d.node.chains[d.p_id]
    rec.validator_node = hashlib.sha256(b"primary-scenario-node").digest()[:20]
    key = bls.secret_key_from_seed(hashlib.sha256(b"primary-scenario-bls").digest())
    end = d.h.call(vm.next_block_time) + 2 * DAY
    rec.validator_tx = d.p(lambda b: b.add_validator(rec.validator_node, end, 2_000 * AVAX, key, 30_000,
                                                     rec.alice))
    for weight in (100, 250):
        rec.delegator_txs.append(d.p(lambda b, w=weight: b.add_delegator(rec.validator_node, end - DAY // 2,
                                                                         w * AVAX, rec.alice)))
    rec.current_validators = call(d.url + "/ext/bc/P", "platform.getCurrentValidators")
    d.record_balances()
    d.advance(DAY)
    d.record_balances()
    d.advance(DAY + 60)
    # the P -> X export is imported on X
    d.x(ALICE, lambda w: w.import_tx(d.p_id, d.x_utxos(rec.alice, d.p_id)))
    d.record_balances()
    # a subnet: a permissioned validator added and removed, a chain, the conversion to an L1
    rec.subnet = d.p(lambda b: b.create_subnet())
    genesis_node = d.node.genesis.validators[0].node_id
    end = d.h.call(vm.next_block_time) + DAY
    rec.permissioned_tx = d.p(lambda b: b.add_subnet_validator(rec.subnet, genesis_node, end, 10))
    rec.remove_tx = d.p(lambda b: b.remove_subnet_validator(rec.subnet, genesis_node))
    rec.chain = d.p(lambda b: b.create_chain(rec.subnet, "scenario", vm_id_from_name("scenariovm"),
                                             json.dumps(CHAIN_GENESIS).encode()))
    seed = d.node.config.seed
    rec.l1_nodes = [hashlib.sha256(f"primary-scenario-l1-{i}".encode()).digest()[:20] for i in range(3)]
    keys = [derived_secret_key(seed, n) for n in rec.l1_nodes]
    rec.convert_tx = d.p(lambda b: b.convert_subnet(rec.subnet, rec.chain, MANAGER, [
        (rec.l1_nodes[0], 100, 10 * AVAX, keys[0]), (rec.l1_nodes[1], 80, 10 * AVAX, keys[1])]))
    order = sorted(range(2), key=lambda i: rec.l1_nodes[i])
    rec.validation_ids = [acp77.subnet_validation_id(rec.subnet, order.index(i)) for i in range(2)]
    po = acp77.PChainOwner(1, (rec.ewoq,))
    reg = acp77.RegisterL1Validator(rec.subnet, rec.l1_nodes[2], bls.public_key(keys[2]), d.now() + 3600, po, po, 60)
    signed = d.warp(reg.encode())  # outside the builder: both run on the node's thread
    d.p(lambda b: b.register_l1_validator(5 * AVAX, keys[2], signed))
    rec.validation_ids.append(reg.validation_id)
    d.advance(60)
    signed = d.warp(acp77.L1ValidatorWeight(reg.validation_id, 1, 90).encode())
    d.p(lambda b: b.set_l1_validator_weight(signed))
    d.p(lambda b: b.increase_l1_validator_balance(rec.validation_ids[0], 3 * AVAX))
    removal = d.warp(acp77.L1ValidatorWeight(rec.validation_ids[1], 1, 0).encode())
    d.p(lambda b: b.set_l1_validator_weight(removal))
    d.advance(60)
    d.record_balances()
    return rec
