"""Block headers byte for byte as coreth and subnet-EVM encode them (avalanchego v1.14.2):
genesis hashes from avalanchego's own tests, a fully populated Granite header hashed from coreth's
field list independently of headers.py, the JSON key sets, and RLP round trips."""

from __future__ import annotations

import rlp
from eth_utils import keccak
from hypothesis import given, settings
from hypothesis import strategies as st

from simnode.clock import VirtualClock
from simnode.config import NodeConfig
from simnode.genesis import load_network_genesis
from simnode.network import LOCAL_UPGRADE_TIME, UNSCHEDULED_TIME
from simnode.store import Store
from simnode.vms.chain_context import ChainContext
from simnode.vms.evm.evm_chain import EVMChain
from simnode.vms.evm.headers import (BLACKHOLE, EMPTY_ROOT_HASH, EMPTY_UNCLE_HASH, INITIAL_MIN_DELAY_EXCESS, Header,
                                     HeaderRules, block_header, ext_data_hash, header_number)
from simnode.vms.evm.rpcjson import block_json, header_json

START_MS = 1_767_225_600_000

# coreth HeaderSerializable's json tags in struct order (gen_header_serializable_json.go), then
# the "hash" MarshalJSON adds; subnet-EVM's struct has neither extDataHash nor extDataGasUsed
CORETH_HEADER_KEYS = [
    "parentHash", "sha3Uncles", "miner", "stateRoot", "transactionsRoot", "receiptsRoot", "logsBloom", "difficulty",
    "number", "gasLimit", "gasUsed", "timestamp", "extraData", "mixHash", "nonce", "extDataHash", "baseFeePerGas",
    "extDataGasUsed", "blockGasCost", "blobGasUsed", "excessBlobGas", "parentBeaconBlockRoot",
    "timestampMilliseconds", "minDelayExcess", "hash",
]
SUBNET_EVM_HEADER_KEYS = [k for k in CORETH_HEADER_KEYS if k not in ("extDataHash", "extDataGasUsed")]


def c_chain(network_id: int, header_rules: HeaderRules | None = None) -> EVMChain:
    ctx = ChainContext(NodeConfig(network_id=network_id), load_network_genesis(network_id), Store.memory(),
                       VirtualClock(START_MS), b"\x01" * 32)
    return EVMChain(ctx, header_rules=header_rules)


# ------------------------------------------------------------------------------------ genesis


def test_fuji_block_0_hashes_as_on_the_real_chain():
    """avalanchego TestGenesisHash: Fuji (and mainnet, same C genesis) block 0. The genesis time
    (0) is before every upgrade: no baseFeePerGas, no optional field at all."""
    chain = c_chain(5)
    genesis = chain.block(0)
    assert genesis.hash.hex() == "31ced5b9beb7f8782b014660da0cb18cc409f121f408186886e1ca3e8eeca96b"
    fields = block_json(chain, genesis, False)
    assert "baseFeePerGas" not in fields and "timestampMilliseconds" not in fields
    assert fields["extDataHash"] == "0x" + "00" * 32 and fields["blockExtraData"] == "0x"
    head = genesis.header.marshal_json(genesis.hash)
    assert list(head) == CORETH_HEADER_KEYS
    assert all(head[k] is None for k in CORETH_HEADER_KEYS[16:-1])


def test_local_block_0_hashes_as_avalanchego_v1_14_2():
    """avalanchego TestGenesisHash, local network: every upgrade through Granite is active at the
    genesis time, so block 0 has all of coreth's optional fields and the warp precompile account.
    simnode's local genesis is avalanchego's (genesis_local.json, same cChainGenesis string)."""
    chain = c_chain(12345)
    genesis = chain.block(0)
    assert genesis.hash.hex() == "608ddbd611241719b64642d8e152537e2a5bdf46b6ddb9e8f15340c5e007b8b1"
    assert chain.view().get_code(bytes.fromhex("0200000000000000000000000000000000000005")) == b"\x01"
    fields = header_json(genesis)
    assert fields["baseFeePerGas"] == "0x34630b8a00" and fields["timestampMilliseconds"] == hex(1607144400 * 1000)
    assert fields["minDelayExcess"] == hex(INITIAL_MIN_DELAY_EXCESS) and fields["totalDifficulty"] == "0x0"
    assert "size" not in fields and "transactions" not in fields and "blockExtraData" not in fields


def _rules_through(fork: str) -> HeaderRules:
    """upgradetest.GetConfig(fork): forks up to `fork` active at genesis, the rest unscheduled."""
    order = ["NoUpgrades", "ApricotPhase3", "ApricotPhase4", "Durango", "Etna", "Granite"]
    at = {f: LOCAL_UPGRADE_TIME if order.index(f) <= order.index(fork) else UNSCHEDULED_TIME for f in order}
    return HeaderRules(coreth=True, base_fee=at["ApricotPhase3"], block_gas_cost=at["ApricotPhase4"],
                       durango=at["Durango"], etna=at["Etna"], granite=at["Granite"])


def test_local_genesis_hash_at_each_upgrade():
    """avalanchego TestHistoricalGenesisHashes (local genesis, upgrades up to one fork active)."""
    want = {
        "NoUpgrades": "d8a07966215173e9c4a5a5db8c337d2f717b41e24eb398eeb294caf1943d2556",
        "ApricotPhase3": "cf3b70b572f31b036e2b0ca81788f34db5767899d7eed517c0c4cd61907b5755",  # base fee
        "ApricotPhase4": "cf3b70b572f31b036e2b0ca81788f34db5767899d7eed517c0c4cd61907b5755",
        "Durango": "d650b9947b759224835fb8c845f128cb9c8f016f72fec0e953d48c5872dd923a",  # warp precompile
        "Etna": "17a7011ebbed7c97c7858cec856bd462a1fe9c216ef5f110b40c3b573dc84c6f",  # gas and blob fields
        "Granite": "608ddbd611241719b64642d8e152537e2a5bdf46b6ddb9e8f15340c5e007b8b1",  # milliseconds
    }
    for fork, block_hash in want.items():
        assert c_chain(12345, _rules_through(fork)).block(0).hash.hex() == block_hash, fork


# ------------------------------------------------------------------------------------ built blocks

GRANITE = _rules_through("Granite")


def _full_header() -> Header:
    parent = c_chain(12345).block(0)
    return block_header(
        GRANITE, parent=parent.header, parent_hash=parent.hash, state_root=b"\x11" * 32, transaction_root=b"\x22" * 32,
        receipt_root=b"\x33" * 32, bloom=1 << 2047 | 5, gas_limit=10_000_000, gas_used=21_000,
        ts_ms=1_767_225_600_123, fee_extra=bytes(range(24)), base_fee=7, block_gas_cost=99, ext=b"\xab" * 70,
        ext_gas_used=11_230)


def test_granite_header_with_every_field_hashes_as_coreths_rlp():
    """coreth's HeaderSerializable field list, encoded here with pyrlp and hashed with eth_utils."""
    h = _full_header()
    parent_hash = bytes.fromhex("608ddbd611241719b64642d8e152537e2a5bdf46b6ddb9e8f15340c5e007b8b1")
    fields = [
        parent_hash,                          # ParentHash
        EMPTY_UNCLE_HASH,                     # UncleHash
        BLACKHOLE,                            # Coinbase
        b"\x11" * 32,                         # Root
        b"\x22" * 32,                         # TxHash
        b"\x33" * 32,                         # ReceiptHash
        (1 << 2047 | 5).to_bytes(256, "big"),  # Bloom
        1,                                    # Difficulty
        1,                                    # Number
        10_000_000,                           # GasLimit
        21_000,                               # GasUsed
        1_767_225_600,                        # Time
        bytes(range(24)) + b"\x00" * 6,       # Extra: fee state, then the empty predicate results
        b"\x00" * 32,                         # MixDigest
        b"\x00" * 8,                          # Nonce
        keccak(rlp.encode(b"\xab" * 70)),     # ExtDataHash
        7,                                    # BaseFee
        11_230,                               # ExtDataGasUsed
        0,                                    # BlockGasCost (0 from Granite on)
        0,                                    # BlobGasUsed
        0,                                    # ExcessBlobGas
        b"\x00" * 32,                         # ParentBeaconRoot
        1_767_225_600_123,                    # TimeMilliseconds
        INITIAL_MIN_DELAY_EXCESS,             # MinDelayExcess (the parent's)
    ]
    assert h.encode() == rlp.encode(fields)
    assert h.hash() == keccak(rlp.encode(fields))
    assert list(h.marshal_json(h.hash())) == CORETH_HEADER_KEYS
    assert None not in h.marshal_json(h.hash()).values()


def test_subnet_evm_header_layout():
    """subnet-EVM: no ExtDataHash, no ExtDataGasUsed; BlockGasCost right after BaseFee."""
    rules = HeaderRules(coreth=False, base_fee=0, block_gas_cost=0, durango=0, etna=0, granite=0)
    parent = Header(b"\x00" * 32, EMPTY_UNCLE_HASH, b"\x00" * 20, EMPTY_ROOT_HASH, EMPTY_ROOT_HASH, EMPTY_ROOT_HASH,
                    0, 0, 0, 8_000_000, 0, 0, b"", b"\x00" * 32, b"\x00" * 8, None, base_fee_per_gas=25)
    h = block_header(rules, parent=parent, parent_hash=b"\x44" * 32, state_root=b"\x11" * 32,
                     transaction_root=EMPTY_ROOT_HASH, receipt_root=EMPTY_ROOT_HASH, bloom=0, gas_limit=8_000_000,
                     gas_used=0, ts_ms=5_001, fee_extra=b"\x00" * 80, base_fee=25, block_gas_cost=12)
    items = rlp.decode(h.encode())
    assert len(items) == 15 + 7
    assert items[15:] == [b"\x19", b"", b"", b"", b"\x00" * 32, (5001).to_bytes(2, "big"),
                          INITIAL_MIN_DELAY_EXCESS.to_bytes(3, "big")]
    assert list(h.marshal_json(h.hash())) == SUBNET_EVM_HEADER_KEYS
    assert "extDataHash" not in h.rpc_fields(h.hash())
    # the genesis parent above (subnet-EVM at 0, nothing else): BaseFee is the only optional field
    assert len(rlp.decode(parent.encode())) == 16


def test_ext_data_hash():
    assert ext_data_hash(b"") == EMPTY_ROOT_HASH  # coreth EmptyExtDataHash
    assert ext_data_hash(b"\x01\x02") == keccak(rlp.encode(b"\x01\x02"))


_hashes = st.binary(min_size=32, max_size=32)
_u64 = st.integers(0, 2**64 - 1)


@settings(max_examples=200, deadline=None)
@given(coreth=st.booleans(), present=st.integers(0, 8), ints=st.lists(_u64, min_size=12, max_size=12),
       hashes=st.lists(_hashes, min_size=7, max_size=7), extra=st.binary(max_size=100), bloom=st.integers(0, 2**2048 - 1))
def test_header_rlp_round_trip(coreth, present, ints, hashes, extra, bloom):
    """Optional fields are a prefix of the tail (as the upgrades add them); decode inverts encode;
    header_number reads the number decode does."""
    names = ["base_fee_per_gas", "ext_data_gas_used", "block_gas_cost", "blob_gas_used", "excess_blob_gas",
             "parent_beacon_block_root", "timestamp_ms", "min_delay_excess"]
    if not coreth:
        names.remove("ext_data_gas_used")
    optional = {n: (hashes[6] if n == "parent_beacon_block_root" else ints[4 + i]) for i, n in enumerate(names[:present])}
    h = Header(hashes[0], hashes[1], hashes[2][:20], hashes[3], hashes[4], hashes[5], bloom, ints[0], ints[1], ints[2],
               ints[3], ints[11], extra, hashes[6], ints[0].to_bytes(8, "big"), hashes[2] if coreth else None, **optional)
    encoded = h.encode()
    assert Header.decode(encoded, coreth) == h
    assert header_number(encoded) == h.block_number
    assert len(rlp.decode(encoded)) == (16 if coreth else 15) + len(optional)


CANCUN_FIELDS = dict(
    parent_hash=b"\x01" * 32, uncles_hash=EMPTY_UNCLE_HASH, coinbase=BLACKHOLE, state_root=b"\x02" * 32,
    transaction_root=EMPTY_ROOT_HASH, receipt_root=b"\x03" * 32, bloom=1 << 200, difficulty=1, block_number=7,
    gas_limit=8_000_000, gas_used=21_000, timestamp=1_767_225_600, extra_data=b"\x04" * 9, mix_hash=b"\x05" * 32,
    nonce=b"\x00" * 8, base_fee_per_gas=25, withdrawals_root=EMPTY_ROOT_HASH, blob_gas_used=0, excess_blob_gas=0,
    parent_beacon_block_root=b"\x06" * 32)


@given(st.integers(0, 2**64 - 1), st.integers(0, 2**256 - 1), st.binary(max_size=40))
def test_cancun_header_is_the_constructors(number, base_fee, extra):
    """headers.cancun_header builds the object CancunBlockHeader(**fields) builds: same fields,
    same RLP and hash; what the constructor defaults or refuses it leaves to the constructor."""
    import pytest
    from eth.vm.forks.cancun.headers import CancunBlockHeader

    from simnode.vms.evm.headers import cancun_header

    fields = {**CANCUN_FIELDS, "block_number": number, "base_fee_per_gas": base_fee, "extra_data": extra}
    fast, slow = cancun_header(dict(fields)), CancunBlockHeader(**fields)
    assert type(fast) is CancunBlockHeader
    assert vars(fast) == {k: v for k, v in vars(slow).items() if not k.startswith(("_hash", "_cached"))}
    assert rlp.encode(fast) == rlp.encode(slow) and fast.hash == slow.hash and fast == slow
    for bad in ({**fields, "gas_limt": 1}, {k: v for k, v in fields.items() if k != "nonce"},
                {**fields, "timestamp": None}):
        try:
            expected: object = CancunBlockHeader(**bad)
        except Exception as exc:  # noqa: BLE001 - the constructor's own refusal, whatever it is
            with pytest.raises(type(exc)):
                cancun_header(dict(bad))
        else:
            assert cancun_header(dict(bad)) == expected
