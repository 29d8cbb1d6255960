"""What the ICM tests share: a subnet-EVM genesis with Warp on, an L1 converted on a running node
with validators whose BLS keys the node holds (derived from its seed), and a signed EWOQ tx on it."""

from __future__ import annotations

import hashlib
import json

from eth_account import Account
from eth_utils import to_checksum_address

from simnode.formats import encode_bytes, id_to_str, private_key_from_str
from simnode.formats.ids import SUBNET_EVM_VM_ID
from simnode.vms.platform.wallet import PBuilder
from simnode.warp.keystore import derived_secret_key

from .rpc import call

P_KEY = private_key_from_str("PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN")
EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
GWEI = 10**9
FEE_CONFIG = {"gasLimit": 12_000_000, "targetBlockRate": 2, "minBaseFee": 25 * GWEI, "targetGas": 60_000_000,
              "baseFeeChangeDenominator": 36, "minBlockGasCost": 0, "maxBlockGasCost": 1_000_000,
              "blockGasCostStep": 200_000}


def subnet_evm_genesis(evm_chain_id: int, alloc: dict[str, dict]) -> bytes:
    """A subnet-EVM genesis with Warp on from time 0, EWOQ funded, plus `alloc`."""
    return json.dumps({
        "config": {"chainId": evm_chain_id, "homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0,
                   "eip158Block": 0, "byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0,
                   "istanbulBlock": 0, "muirGlacierBlock": 0, "subnetEVMTimestamp": 0, "feeConfig": FEE_CONFIG,
                   "warpConfig": {"blockTimestamp": 0, "quorumNumerator": 67}},
        "alloc": {EWOQ.address[2:].lower(): {"balance": hex(10**24)}, **alloc}, "nonce": "0x0",
        "timestamp": "0x0", "extraData": "0x", "gasLimit": hex(12_000_000), "difficulty": "0x0",
        "mixHash": "0x" + "00" * 32, "coinbase": "0x" + "00" * 20, "number": "0x0", "gasUsed": "0x0",
        "parentHash": "0x" + "00" * 32,
    }).encode()


def issue(h, stx) -> None:
    call(h.url + "/ext/bc/P", "platform.issueTx", {"tx": encode_bytes(stx.tx_bytes, "hex")})


def converted_l1(h, name: str, genesis: bytes) -> tuple[bytes, str]:
    """A chain `name` running `genesis` on a new subnet converted to an L1 with three validators
    whose keys the node holds: (its blockchain ID, its RPC URL)."""
    p = h.node.chains[bytes(32)]
    nodes = [hashlib.sha256(f"{name}-node-{i}".encode()).digest()[:20] for i in range(3)]
    keys = [derived_secret_key(h.node.config.seed, n) for n in nodes]
    sub = h.call(h.call(PBuilder, p, [P_KEY]).create_subnet)
    issue(h, sub)
    chain = h.call(h.call(PBuilder, p, [P_KEY]).create_chain, sub.tx_id, name, SUBNET_EVM_VM_ID, genesis)
    issue(h, chain)
    convert = h.call(h.call(PBuilder, p, [P_KEY]).convert_subnet, sub.tx_id, chain.tx_id, b"\x0f" * 20,
                     [(n, 100, 5 * 10**9, k) for n, k in zip(nodes, keys, strict=True)])
    issue(h, convert)
    return chain.tx_id, f"{h.url}/ext/bc/{id_to_str(chain.tx_id)}/rpc"


def send(rpc: str, evm_chain_id: int, to: str | bytes | None, data: bytes, gas: int = 3_000_000) -> dict:
    """EWOQ's signed tx on the chain at `rpc`; its receipt, asserted successful."""
    tx = {"chainId": evm_chain_id, "nonce": int(call(rpc, "eth_getTransactionCount", [EWOQ.address, "pending"]), 16),
          "maxFeePerGas": 100 * GWEI, "maxPriorityFeePerGas": GWEI, "value": 0, "gas": gas, "data": "0x" + data.hex()}
    if to is not None:
        tx["to"] = to_checksum_address(to)
    tx_hash = call(rpc, "eth_sendRawTransaction", ["0x" + EWOQ.sign_transaction(tx).raw_transaction.hex()])
    receipt = call(rpc, "eth_getTransactionReceipt", [tx_hash])
    assert receipt["status"] == "0x1", receipt
    return receipt
