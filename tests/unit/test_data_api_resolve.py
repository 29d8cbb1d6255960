"""What {chainId}, {blockchainId} and EVM address parameters name (resolve.py), on a node whose
C-Chain is still loading and on a Fuji node."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from simnode.api.data.errors import ApiError
from simnode.api.data.params import ENUM, ParamSpec
from simnode.api.data.resolve import (blockchain_param, evm_address, evm_chain, evm_chains, ready_evm_chain)
from simnode.formats.ids import EVM_VM_ID, SUBNET_EVM_VM_ID, ZERO_ID, id_to_str
from simnode.genesis import load_network_genesis
from simnode.vms.primary import BootstrappingChain, DeferredChain

BLOCKCHAIN_ID = ParamSpec("blockchainId", "path", True, ENUM, (
    "11111111111111111111111111111111LpoYY", "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
    "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm", "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5",
    "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp", "p-chain", "x-chain", "c-chain"))
P_CHAIN_ID = ParamSpec("blockchainId", "path", True, ENUM, ("11111111111111111111111111111111LpoYY", "p-chain"))


@dataclass
class L1:
    chain_id: bytes
    evm_chain_id: int
    subnet_id: bytes = b"\x07" * 32
    vm_id: bytes = SUBNET_EVM_VM_ID
    name: str = "l1"

    def is_bootstrapped(self) -> bool:
        return True


@dataclass
class FakeNode:
    network_id: int = 12345
    chains: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.genesis = load_network_genesis(self.network_id)
        g = self.genesis
        c = BootstrappingChain(DeferredChain(g.c_chain_id, "C-Chain", EVM_VM_ID, ("C", "evm"), lambda: None))
        self.chains[g.c_chain_id] = c
        for l1 in (L1(b"\x02" * 32, 99999), L1(b"\x01" * 32, 555)):
            self.chains[l1.chain_id] = l1

    def chain_by_alias(self, ref: str) -> object | None:
        for cid, chain in self.chains.items():
            if ref == id_to_str(cid) or ref in getattr(chain, "default_aliases", ()):
                return chain
        return None


def test_evm_chains_by_id_alias_and_blockchain_id_while_the_c_chain_loads() -> None:
    node = FakeNode()
    c = node.chains[node.genesis.c_chain_id]
    assert [getattr(x, "evm_chain_id", 43112) for x in evm_chains(node)] == [43112, 555, 99999]
    for ref in ("43112", "C", id_to_str(node.genesis.c_chain_id)):
        assert evm_chain(node, ref) is c
    assert evm_chain(node, "555").evm_chain_id == 555
    assert evm_chain(node, id_to_str(b"\x02" * 32)).evm_chain_id == 99999
    for ref in ("1", "X", id_to_str(ZERO_ID), "0x2b", "", "٣"):
        with pytest.raises(ApiError) as info:
            evm_chain(node, ref)
        assert info.value.status == 404
        assert info.value.message == f"chain {ref} is not an EVM chain of this node (its EVM chains: 43112, 555, 99999)"
    with pytest.raises(ApiError) as info:
        ready_evm_chain(node, "43112")
    assert (info.value.status, info.value.message) == (503, "chain 43112 is not done bootstrapping")
    assert ready_evm_chain(node, "555").evm_chain_id == 555


def test_blockchain_ids_map_onto_the_local_chains() -> None:
    node = FakeNode()
    check = blockchain_param(node)
    g = node.genesis
    local_x, local_c = id_to_str(g.x_chain_id), id_to_str(g.c_chain_id)
    names = {"p-chain": "p-chain", "11111111111111111111111111111111LpoYY": "p-chain",
             "x-chain": "x-chain", "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM": "x-chain",
             "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm": "x-chain", local_x: "x-chain",
             "c-chain": "c-chain", "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5": "c-chain",
             "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp": "c-chain", local_c: "c-chain"}
    for ref, name in names.items():
        assert check(ref, BLOCKCHAIN_ID) == name
    for ref in ("X", "P-chain", "x", id_to_str(b"\x02" * 32)):
        with pytest.raises(ApiError) as info:
            check(ref, BLOCKCHAIN_ID)
        assert info.value.message == ["blockchainId must be one of the following values: "
                                      + ", ".join([*BLOCKCHAIN_ID.enum, local_x, local_c])]
    with pytest.raises(ApiError) as info:
        check("x-chain", P_CHAIN_ID)
    assert info.value.message == ["blockchainId must be one of the following values: "
                                  "11111111111111111111111111111111LpoYY, p-chain"]
    # a Fuji node's own IDs are the enum's Fuji IDs: listed once
    fuji = FakeNode(5)
    with pytest.raises(ApiError) as info:
        blockchain_param(fuji)("nope", BLOCKCHAIN_ID)
    assert info.value.message == ["blockchainId must be one of the following values: " + ", ".join(BLOCKCHAIN_ID.enum)]


def test_evm_addresses() -> None:
    assert evm_address("address", "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC") == bytes.fromhex(
        "8db97c7cece249c2b98bdc0226cc4c2a57bf52fc")
    assert evm_address("address", "0X" + "ab" * 20) == b"\xab" * 20
    for bad in ("", "0x", "0x" + "ab" * 19, "0x" + "ab" * 21, "ab" * 20 + "0x", "0x" + "gg" * 20, " 0x" + "ab" * 20):
        with pytest.raises(ApiError) as info:
            evm_address("address", bad)
        assert info.value.message == ["address must be an Ethereum address"]
