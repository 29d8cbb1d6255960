"""An EVM chain's genesis state written without py-evm (vms/evm/genesis_state.py) against py-evm's
AccountDB given the same writes: the same state root and the same database writes, byte for byte,
for the C-Chain of each network, a C-Chain genesis with code, storage (coreth's odd first-byte
keys, zero values), empty and nonce-only accounts, and an L1 with every genesis precompile
config (allow lists, an initial mint, a fee config, a reward address, Warp). Out-of-range values
are refused with py-evm's own error."""

from __future__ import annotations

import copy
import json

import pytest
from eth.constants import BLANK_ROOT_HASH
from eth_utils import ValidationError

from simnode.clock import VirtualClock
from simnode.config import NodeConfig
from simnode.genesis import load_network_genesis
from simnode.store import Store
from simnode.vms.chain_context import ChainContext
from simnode.vms.evm.db import CANONICAL_HASH_KEY
from simnode.vms.evm.db import StoreKV, atomic_db
from simnode.vms.evm.evm_chain import EVMChain
from simnode.vms.evm.genesis_state import GenesisState
from simnode.vms.evm.subnet import SubnetEVMChain

START_MS = 1_767_225_600_000
A, B, C, D = (bytes([n]) * 20 for n in (0xA1, 0xB2, 0xC3, 0xD4))


def both_ways(chain: EVMChain) -> tuple[tuple[bytes, dict], tuple[bytes, dict]]:
    """(root, db writes) of the chain's genesis through GenesisState and through py-evm's AccountDB."""
    ours = StoreKV(Store.memory(), b"x/s/")
    state = GenesisState(chain.header_rules.coreth)
    chain.fill_genesis_state(state)
    root = state.commit(ours)
    theirs = StoreKV(Store.memory(), b"x/s/")
    account_db = chain.account_db_class(atomic_db(theirs), BLANK_ROOT_HASH)
    chain.fill_genesis_state(account_db)
    account_db.persist()
    return (root, ours.pending), (account_db.state_root, theirs.pending)


def c_chain(network_id: int, genesis_json: dict | None = None) -> EVMChain:
    ctx = ChainContext(NodeConfig(network_id=network_id), load_network_genesis(network_id), Store.memory(),
                       VirtualClock(START_MS), b"\x01" * 32)
    return EVMChain(ctx, genesis_json=genesis_json)


@pytest.mark.parametrize("network_id", [5, 12345])
def test_c_chain_genesis_as_py_evm_writes_it(network_id):
    chain = c_chain(network_id)
    ours, theirs = both_ways(chain)
    assert ours == theirs
    assert ours[0] == chain.head.header.state_root


def rich_alloc() -> dict:
    odd_slot = "0x" + "01" + "00" * 30 + "07"  # coreth keys it as its even twin
    return {
        A.hex(): {"balance": "0x56bc75e2d63100000", "nonce": "0x3", "code": "0x6001600055",
                  "storage": {"0x" + "00" * 32: "0x" + "00" * 31 + "2a", odd_slot: "0x" + "ff" * 32,
                              "0x" + "00" * 31 + "09": "0x" + "00" * 32}},
        B.hex(): {"balance": "0x0"},
        C.hex(): {"balance": "0x0", "nonce": "0x1"},
        D.hex(): {"balance": "0x1", "code": "0x6001600055"},  # the same code as A's: stored once
    }


def test_c_chain_genesis_with_code_and_storage_as_py_evm_writes_it():
    genesis = copy.deepcopy(load_network_genesis(12345).c_chain_genesis.parsed)
    genesis["alloc"].update(rich_alloc())
    chain = c_chain(12345, genesis)
    ours, theirs = both_ways(chain)
    assert ours == theirs
    assert ours[0] == chain.head.header.state_root


def test_l1_genesis_with_every_precompile_config_as_py_evm_writes_it():
    genesis = {"config": {
        "chainId": 99999,
        "feeConfig": {"gasLimit": 12_000_000, "targetBlockRate": 2, "minBaseFee": 25 * 10**9,
                      "targetGas": 60_000_000, "baseFeeChangeDenominator": 36, "minBlockGasCost": 0,
                      "maxBlockGasCost": 1_000_000, "blockGasCostStep": 200_000},
        "txAllowListConfig": {"blockTimestamp": 0, "adminAddresses": ["0x" + A.hex()],
                              "enabledAddresses": ["0x" + B.hex()]},
        "contractDeployerAllowListConfig": {"blockTimestamp": 0, "managerAddresses": ["0x" + C.hex()]},
        "contractNativeMinterConfig": {"blockTimestamp": 0, "adminAddresses": ["0x" + A.hex()],
                                       "initialMint": {"0x" + D.hex(): "0x64", "0x" + A.hex(): "0x1"}},
        "feeManagerConfig": {"blockTimestamp": 0, "adminAddresses": ["0x" + A.hex()],
                             "initialFeeConfig": {"gasLimit": 15_000_000, "targetBlockRate": 2,
                                                  "minBaseFee": 30 * 10**9, "targetGas": 60_000_000,
                                                  "baseFeeChangeDenominator": 36, "minBlockGasCost": 0,
                                                  "maxBlockGasCost": 1_000_000, "blockGasCostStep": 200_000}},
        "rewardManagerConfig": {"blockTimestamp": 0, "adminAddresses": ["0x" + A.hex()],
                                "initialRewardConfig": {"rewardAddress": "0x" + B.hex()}},
        "warpConfig": {"blockTimestamp": 0}},
        "alloc": rich_alloc(), "gasLimit": hex(12_000_000), "timestamp": "0x0"}
    ctx = ChainContext(NodeConfig(), load_network_genesis(12345), Store.memory(), VirtualClock(START_MS), bytes(32))
    chain = SubnetEVMChain(ctx, genesis_data=json.dumps(genesis).encode(), name="t", subnet_id=b"\x01" * 32)
    assert len(chain.precompiles.active(0)) == 6
    ours, theirs = both_ways(chain)
    assert ours == theirs
    assert ours[0] == chain.head.header.state_root


def test_out_of_range_values_are_refused_with_py_evms_error():
    state = GenesisState(coreth=True)
    with pytest.raises(ValidationError, match="Account Balance"):
        state.set_balance(A, 1 << 256)
    with pytest.raises(ValidationError, match="Nonce"):
        state.set_nonce(A, 1 << 64)
    with pytest.raises(ValidationError, match="Storage Value"):
        state.set_storage(A, 0, -1)
    assert state.accounts == {}


def test_the_canonical_hash_key_is_py_evms():
    """The key StoreKV answers BLOCKHASH's reads under (from the block rows) is py-evm's."""
    from eth.db.schema import SchemaV1

    for n in (0, 1, 255, 10**12):
        assert CANONICAL_HASH_KEY + str(n).encode() == SchemaV1.make_block_number_to_hash_lookup_key(n)
