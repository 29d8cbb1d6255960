"""The index tests' scenario on one EVM chain through web3.py: native transfers, an ERC-20, an
ERC-1155 (mint, batch transfer), an ERC-721 (mint, transfer, burn), a factory that CREATEs and
CREATE2s contracts (one creation undone with the frame around it), value moved by internal calls
and SELFDESTRUCT, and reverted txs. Also: JSON-RPC readers the tests compare the index with."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eth_account import Account
from web3 import Web3

CONTRACTS = Path(__file__).resolve().parents[1] / "contracts"
EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
GWEI = 10**9


def artifact(name: str) -> dict:
    return json.loads((CONTRACTS / f"{name}.json").read_text())


def raw_address(address: str) -> bytes:
    return bytes.fromhex(address[2:])


@dataclass
class Scenario:
    w3: Web3
    chain_id: int
    alice: Any = None
    bob: Any = None
    token: Any = None
    multi: Any = None
    nft: Any = None
    factory: Any = None
    made_token: str = ""
    receipts: list = field(default_factory=list)  # every receipt, in order
    factory_receipts: list = field(default_factory=list)
    reverted: list = field(default_factory=list)

    def send(self, acct: Any, tx: dict) -> Any:
        tx = {"chainId": self.chain_id, "nonce": self.w3.eth.get_transaction_count(acct.address, "pending"),
              "maxFeePerGas": 100 * GWEI, "maxPriorityFeePerGas": GWEI, "gas": 21000, **tx}
        h = self.w3.eth.send_raw_transaction(acct.sign_transaction(tx).raw_transaction)
        rc = self.w3.eth.wait_for_transaction_receipt(h, timeout=30, poll_latency=0.01)
        self.receipts.append(rc)
        return rc

    def transact(self, acct: Any, fn: Any, value: int = 0, gas: int = 3_000_000) -> Any:
        return self.send(acct, {"to": fn.address, "data": fn._encode_transaction_data(), "value": value, "gas": gas})

    def deploy(self, acct: Any, name: str, *args: Any) -> Any:
        a = artifact(name)
        c = self.w3.eth.contract(abi=a["abi"], bytecode=a["bytecode"])
        rc = self.send(acct, {"data": c.constructor(*args).data_in_transaction, "gas": 3_000_000})
        assert rc.status == 1
        return self.w3.eth.contract(address=rc.contractAddress, abi=a["abi"])

    def contract(self, name: str, address: str) -> Any:
        return self.w3.eth.contract(address=address, abi=artifact(name)["abi"])


def run(w3: Web3, chain_id: int, funder: Any = EWOQ) -> Scenario:
    s = Scenario(w3, chain_id)
    s.alice, s.bob = Account.from_key(b"\xa1" * 32), Account.from_key(b"\xb0" * 32)
    alice, bob = s.alice, s.bob
    s.send(funder, {"to": alice.address, "value": 10**21})
    s.send(funder, {"to": bob.address, "value": 10**21})
    s.send(alice, {"to": bob.address, "value": 12345})
    legacy = {"chainId": chain_id, "nonce": w3.eth.get_transaction_count(bob.address), "to": alice.address,
              "value": 54321, "gas": 21000, "gasPrice": 100 * GWEI}
    s.receipts.append(w3.eth.wait_for_transaction_receipt(
        w3.eth.send_raw_transaction(bob.sign_transaction(legacy).raw_transaction), timeout=30, poll_latency=0.01))
    # ERC-20
    s.token = s.deploy(alice, "Token", "Index Token", "IDX", 10**24)
    s.transact(alice, s.token.functions.transfer(bob.address, 10**20))
    s.transact(bob, s.token.functions.transfer(funder.address, 7))
    s.reverted.append(s.transact(alice, s.token.functions.fail(1), gas=100_000))
    s.reverted.append(s.transact(alice, s.token.functions.transfer(bob.address, 10**30), gas=100_000))
    # ERC-1155: mints, a batch transfer
    s.multi = s.deploy(alice, "MultiToken")
    s.transact(alice, s.multi.functions.mint(alice.address, 1, 100))
    s.transact(alice, s.multi.functions.mint(alice.address, 2, 50))
    s.transact(alice, s.multi.functions.safeBatchTransferFrom(alice.address, bob.address, [1, 2], [30, 50], b""))
    # ERC-721: mint, transfer, burn
    s.nft = s.deploy(alice, "Collectible", "Index Cats", "ICAT")
    s.transact(alice, s.nft.functions.mint(alice.address, 1))
    s.transact(alice, s.nft.functions.mint(alice.address, 2))
    s.transact(alice, s.nft.functions.transferFrom(alice.address, bob.address, 1))
    s.transact(alice, s.nft.functions.burn(2))
    # a factory: CREATE and CREATE2 with value, a token made by a contract, a creation undone by a
    # failed frame, value through internal calls and SELFDESTRUCT, a failed tx with a create inside
    s.factory = s.deploy(bob, "Factory")
    f = s.factory.functions
    rcs = [s.transact(bob, f.deploy(), value=1000), s.transact(bob, f.deploy2(b"\x07" * 32), value=2000),
           s.transact(bob, f.deployToken("Made", "MADE", 5000)), s.transact(bob, f.deployAfterFailure()),
           s.transact(bob, f.forward(alice.address), value=333)]
    child = s.factory.events.Deployed().process_receipt(rcs[0])[0].args.child
    rcs.append(s.transact(bob, f.pingAndDestroy(child, alice.address), value=44))
    failed = s.transact(bob, f.deployAndRevert(), gas=500_000)
    s.reverted.append(failed)
    s.factory_receipts = [*rcs, failed]
    s.made_token = rcs[2].logs[0].address  # the Transfer its constructor logged
    return s


def rpc_block(w3: Web3, number: int) -> dict:
    return dict(w3.eth.get_block(number))


def flatten_trace(frame: dict, depth: int = 0) -> list[dict]:
    """callTracer's tree in pre-order, with depths."""
    out = [{**frame, "depth": depth}]
    for sub in frame.get("calls", []):
        out += flatten_trace(sub, depth + 1)
    return out
