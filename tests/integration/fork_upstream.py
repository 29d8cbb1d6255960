"""A live network for the fork tests to fork: a second simnode (virtual clock) holding a deployed
ERC-20 with balances, a validator with a delegator (besides the genesis validators), a subnet
converted to an L1 with two validators (its chain running), X-Chain assets and balances, and
AVAX exported from X to C and to P that waits in shared memory."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from eth_utils import keccak, to_checksum_address
from rlp import encode as rlp_encode

from simnode.config import NodeConfig
from simnode.node import Node, NodeThread
from simnode.scenario.replay import run_on

from .rpc import call

CONTRACTS = Path(__file__).resolve().parent.parent / "contracts"
TOKEN = json.loads((CONTRACTS / "Token.json").read_text())
L1_GENESIS = {
    "config": {"chainId": 99991, "homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0, "eip158Block": 0,
               "byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0,
               "muirGlacierBlock": 0, "subnetEVMTimestamp": 0,
               "feeConfig": {"gasLimit": 8000000, "targetBlockRate": 2, "minBaseFee": 25000000000,
                             "targetGas": 15000000, "baseFeeChangeDenominator": 36, "minBlockGasCost": 0,
                             "maxBlockGasCost": 1000000, "blockGasCostStep": 200000},
               "warpConfig": {"blockTimestamp": 0, "quorumNumerator": 67}},
    "alloc": {"8db97c7cece249c2b98bdc0226cc4c2a57bf52fc": {"balance": "0x52b7d2dcc80cd2e4000000",
                                                          "storage": {"0x01": "0x02"}}},
    "nonce": "0x0", "timestamp": "0x0", "extraData": "0x", "gasLimit": "0x7a1200", "difficulty": "0x0",
    "mixHash": "0x" + "00" * 32, "coinbase": "0x" + "00" * 20, "number": "0x0", "gasUsed": "0x0",
    "parentHash": "0x" + "00" * 32,
}

SETUP = {
    "network": {"seed": 21},
    "accounts": {
        "alice": {"fund": {"C": "100 AVAX", "X": "200 AVAX", "P": "10000 AVAX"}},
        "bob": {"fund": {"C": "10 AVAX", "X": "1 AVAX"}},
        "carol": {"fund": {"C": "10 AVAX"}},
    },
    "steps": [
        {"kind": "deploy", "from": "alice", "artifact": "Token.json", "args": ["Fork Token", "FTK", "1000000 ether"],
         "save": "token"},
        {"kind": "transact", "contract": "token", "function": "transfer", "from": "alice",
         "args": ["bob", "2500 ether"]},
        {"kind": "create_asset", "from": "alice", "name": "Fork Asset", "symbol": "FKA", "supply": 1_000_000,
         "save": "asset"},
        {"kind": "transfer", "chain": "X", "from": "alice", "to": "bob", "amount": 1234, "asset": "${asset}"},
        {"kind": "add_validator", "from": "alice", "node": "fork-v1", "amount": "2000 AVAX", "duration": "20d",
         "delegation_fee": "3%"},
        {"kind": "add_delegator", "from": "alice", "node": "fork-v1", "amount": "30 AVAX", "duration": "10d"},
        {"kind": "create_subnet", "from": "alice", "save": "subnet"},
        {"kind": "create_chain", "from": "alice", "subnet": "subnet", "name": "forkl1", "genesis": L1_GENESIS,
         "save": "chain"},
        {"kind": "convert_to_l1", "from": "alice", "subnet": "subnet", "chain": "chain",
         "manager": "0x0Feedc0de0000000000000000000000000000000",
         "validators": [{"node_id": "fork-l1-1", "weight": 100, "balance": "5 AVAX"},
                        {"node_id": "fork-l1-2", "weight": 50, "balance": "2 AVAX"}]},
        {"kind": "export", "from_chain": "X", "to_chain": "C", "from": "alice", "amount": "5 AVAX", "import": False},
        {"kind": "export", "from_chain": "X", "to_chain": "P", "from": "alice", "amount": "7 AVAX", "import": False},
    ],
}


@dataclass
class Upstream:
    handle: NodeThread
    saved: dict[str, Any]
    accounts: dict[str, Any]

    @property
    def url(self) -> str:
        return self.handle.url

    @property
    def c(self) -> str:
        return self.handle.url + "/ext/bc/C/rpc"

    def account(self, name: str) -> Any:
        return self.accounts[name]

    @property
    def token(self) -> str:
        return self.saved["token"]


def start_upstream(log_level: str = "WARN") -> Upstream:
    handle = Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", seed=21,
                                             log_level=log_level))
    result = run_on(handle, SETUP, base_dir=CONTRACTS)
    saved = dict(result.saved)
    saved["token"] = token_address(result.accounts["alice"].c_address)
    return Upstream(handle, saved, result.accounts)


def token_address(deployer: str) -> str:
    """The token the scenario deployed: alice's first contract (her nonce 0)."""
    return to_checksum_address(keccak(rlp_encode([bytes.fromhex(deployer[2:]), 0]))[12:])


def erc20_balance(rpc: str, token: str, holder: str, tag: str = "latest") -> int:
    data = "0x70a08231" + abi_encode(["address"], [holder]).hex()
    return abi_decode(["uint256"], bytes.fromhex(call(rpc, "eth_call", [{"to": token, "data": data}, tag])[2:]))[0]


def erc20_transfer_data(to: str, amount: int) -> str:
    return "0xa9059cbb" + abi_encode(["address", "uint256"], [to, amount]).hex()
