"""Block headers as coreth (C-Chain) and subnet-EVM (L1 chains) encode them: the fields, the RLP
whose keccak is the block hash, and the two JSON shapes clients see.

From avalanchego v1.14.2, graft/coreth and graft/subnet-evm, plugin/evm/customtypes
(`HeaderSerializable` with its rlpgen and gencodec code, `GetHeaderExtra`), internal/ethapi
(`RPCMarshalHeader`), core/genesis.go (`toBlock`) and miner/worker.go + consensus/dummy (what a
built block sets):

* RLP: Ethereum's first 15 fields, then coreth's required `ExtDataHash`, then the optional tail
  BaseFee, ExtDataGasUsed, BlockGasCost, BlobGasUsed, ExcessBlobGas, ParentBeaconRoot,
  TimeMilliseconds, MinDelayExcess. subnet-EVM has neither ExtDataHash nor ExtDataGasUsed. The
  tail ends at the last field that is set; an unset field before it is written empty (0x80).
  There is no withdrawals root.
* Which optional fields a header has follows the upgrades active at its timestamp (`HeaderRules`).
  Unset is None here, as nil is in Go.
* `marshal_json`: the header's own MarshalJSON (newHeads): struct order, every key present,
  `null` where unset, `hash` last. `rpc_fields`: RPCMarshalHeader's map (eth_getBlockBy*,
  eth_getHeaderBy*): only the set optional fields; the caller adds the block's keys and sorts.
* `evm_header`: py-evm's header for executing on top of a header (the block context).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...formats.jsonnum import hex_or_decimal
from ...crypto.hashing import keccak256
from . import rlpcodec

if TYPE_CHECKING:
    from eth.vm.forks.cancun.headers import CancunBlockHeader

EMPTY_UNCLE_HASH = keccak256(b"\xc0")
EMPTY_ROOT_HASH = keccak256(b"\x80")  # empty trie; also coreth's EmptyExtDataHash (rlpHash of no bytes)
ZERO_HASH = b"\x00" * 32
BLACKHOLE = bytes.fromhex("0100000000000000000000000000000000000000")  # coreth's coinbase (constants.BlackholeAddr)
INITIAL_MIN_DELAY_EXCESS = 7_970_124  # acp226.InitialDelayExcess
GENESIS_GAS_LIMIT = 4_712_388  # params.GenesisGasLimit, for a genesis with gasLimit 0
GENESIS_DIFFICULTY = 131_072  # params.GenesisDifficulty, for a genesis without difficulty
# predicate.BlockResults{}.Bytes(): codec version u16 + zero results u32, appended to every
# header extra from Durango on (a block with Warp predicates carries their results, predicates.py)
EMPTY_PREDICATE_RESULTS = b"\x00" * 6


@dataclass(frozen=True, slots=True)
class HeaderRules:
    """When each optional header field starts, in unix seconds, for one chain. coreth: base fee
    at Apricot Phase 3, blockGasCost and extDataGasUsed at Apricot Phase 4; subnet-EVM: both at
    its SubnetEVM timestamp. Cancun's fields come with Etna, milliseconds with Granite."""

    coreth: bool  # coreth's layout (extDataHash, extDataGasUsed) or subnet-EVM's
    base_fee: int
    block_gas_cost: int
    durango: int
    etna: int
    granite: int


def _uint(n: int) -> bytes:
    return n.to_bytes((n.bit_length() + 7) // 8, "big")


def _int(b: bytes) -> int:
    return int.from_bytes(b, "big")


def ext_data_hash(ext: bytes) -> bytes:
    """coreth CalcExtDataHash: rlpHash(extdata), the empty-RLP hash when there is none."""
    return keccak256(rlpcodec.encode(ext)) if ext else EMPTY_ROOT_HASH


@dataclass(frozen=True, slots=True)
class Header:
    """One block header. `ext_data_hash` is None exactly for subnet-EVM headers (the field does
    not exist there); every other None is an optional field the block's upgrades do not set."""

    parent_hash: bytes
    uncles_hash: bytes
    coinbase: bytes
    state_root: bytes
    transaction_root: bytes
    receipt_root: bytes
    bloom: int
    difficulty: int
    block_number: int
    gas_limit: int
    gas_used: int
    timestamp: int
    extra_data: bytes
    mix_hash: bytes
    nonce: bytes
    ext_data_hash: bytes | None
    base_fee_per_gas: int | None = None
    ext_data_gas_used: int | None = None
    block_gas_cost: int | None = None
    blob_gas_used: int | None = None
    excess_blob_gas: int | None = None
    parent_beacon_block_root: bytes | None = None
    timestamp_ms: int | None = None
    min_delay_excess: int | None = None

    @property
    def coreth(self) -> bool:
        return self.ext_data_hash is not None

    def _optional(self) -> list[Any]:
        if self.ext_data_hash is not None:
            return [self.base_fee_per_gas, self.ext_data_gas_used, self.block_gas_cost, self.blob_gas_used,
                    self.excess_blob_gas, self.parent_beacon_block_root, self.timestamp_ms, self.min_delay_excess]
        return [self.base_fee_per_gas, self.block_gas_cost, self.blob_gas_used, self.excess_blob_gas,
                self.parent_beacon_block_root, self.timestamp_ms, self.min_delay_excess]

    def encode(self) -> bytes:
        items = [self.parent_hash, self.uncles_hash, self.coinbase, self.state_root, self.transaction_root,
                 self.receipt_root, self.bloom.to_bytes(256, "big"), _uint(self.difficulty), _uint(self.block_number),
                 _uint(self.gas_limit), _uint(self.gas_used), _uint(self.timestamp), self.extra_data, self.mix_hash,
                 self.nonce]
        if self.ext_data_hash is not None:
            items.append(self.ext_data_hash)
        tail = self._optional()
        end = len(tail)
        while end and tail[end - 1] is None:
            end -= 1
        for v in tail[:end]:
            items.append(b"" if v is None else v if type(v) is bytes else _uint(v))
        return rlpcodec.encode(items)

    def hash(self) -> bytes:
        """The block hash: keccak256 of the header's RLP."""
        return keccak256(self.encode())

    @classmethod
    def decode(cls, data: bytes, coreth: bool) -> Header:
        items = rlpcodec.decode(data)
        assert isinstance(items, list)
        fixed = 16 if coreth else 15
        head = items[:fixed]
        tail: list[Any] = items[fixed:]
        names: tuple[str, ...] = ("base_fee_per_gas", "ext_data_gas_used", "block_gas_cost", "blob_gas_used",
                                  "excess_blob_gas", "parent_beacon_block_root", "timestamp_ms", "min_delay_excess")
        if not coreth:
            names = names[:1] + names[2:]
        optional: dict[str, Any] = {name: (v if name == "parent_beacon_block_root" else _int(v))  # bytes | int
                                    for name, v in zip(names, tail)}
        return cls(head[0], head[1], head[2], head[3], head[4], head[5], _int(head[6]), _int(head[7]), _int(head[8]),
                   _int(head[9]), _int(head[10]), _int(head[11]), head[12], head[13], head[14],
                   head[15] if coreth else None, **optional)

    def marshal_json(self, block_hash: bytes) -> dict[str, Any]:
        """HeaderSerializable.MarshalJSON: what eth_subscribe("newHeads") sends."""
        out: dict[str, Any] = {
            "parentHash": _hash(self.parent_hash),
            "sha3Uncles": _hash(self.uncles_hash),
            "miner": _hash(self.coinbase),
            "stateRoot": _hash(self.state_root),
            "transactionsRoot": _hash(self.transaction_root),
            "receiptsRoot": _hash(self.receipt_root),
            "logsBloom": _bloom(self.bloom),
            "difficulty": hex(self.difficulty),
            "number": hex(self.block_number),
            "gasLimit": hex(self.gas_limit),
            "gasUsed": hex(self.gas_used),
            "timestamp": hex(self.timestamp),
            "extraData": _hash(self.extra_data),
            "mixHash": _hash(self.mix_hash),
            "nonce": _hash(self.nonce),
        }
        if self.ext_data_hash is not None:
            out["extDataHash"] = _hash(self.ext_data_hash)
        out["baseFeePerGas"] = _opt_hex(self.base_fee_per_gas)
        if self.ext_data_hash is not None:
            out["extDataGasUsed"] = _opt_hex(self.ext_data_gas_used)
        out["blockGasCost"] = _opt_hex(self.block_gas_cost)
        out["blobGasUsed"] = _opt_hex(self.blob_gas_used)
        out["excessBlobGas"] = _opt_hex(self.excess_blob_gas)
        out["parentBeaconBlockRoot"] = None if self.parent_beacon_block_root is None else _hash(
            self.parent_beacon_block_root)
        out["timestampMilliseconds"] = _opt_hex(self.timestamp_ms)
        out["minDelayExcess"] = _opt_hex(self.min_delay_excess)
        out["hash"] = _hash(block_hash)
        return out

    def rpc_fields(self, block_hash: bytes) -> dict[str, Any]:
        """RPCMarshalHeader: the header part of eth_getBlockBy* and eth_getHeaderBy* (unsorted)."""
        out: dict[str, Any] = {
            "number": hex(self.block_number),
            "hash": _hash(block_hash),
            "parentHash": _hash(self.parent_hash),
            "nonce": _hash(self.nonce),
            "mixHash": _hash(self.mix_hash),
            "sha3Uncles": _hash(self.uncles_hash),
            "logsBloom": _bloom(self.bloom),
            "stateRoot": _hash(self.state_root),
            "miner": _hash(self.coinbase),
            "difficulty": hex(self.difficulty),
            "extraData": _hash(self.extra_data),
            "gasLimit": hex(self.gas_limit),
            "gasUsed": hex(self.gas_used),
            "timestamp": hex(self.timestamp),
            "transactionsRoot": _hash(self.transaction_root),
            "receiptsRoot": _hash(self.receipt_root),
        }
        if self.ext_data_hash is not None:
            out["extDataHash"] = _hash(self.ext_data_hash)
        for key, value in (("baseFeePerGas", self.base_fee_per_gas), ("extDataGasUsed", self.ext_data_gas_used),
                           ("blockGasCost", self.block_gas_cost), ("blobGasUsed", self.blob_gas_used),
                           ("excessBlobGas", self.excess_blob_gas), ("timestampMilliseconds", self.timestamp_ms),
                           ("minDelayExcess", self.min_delay_excess)):
            if value is not None:
                out[key] = hex(value)
        if self.parent_beacon_block_root is not None:
            out["parentBeaconBlockRoot"] = _hash(self.parent_beacon_block_root)
        return out


def _hash(b: bytes) -> str:
    return "0x" + b.hex()


def _bloom(bloom: int) -> str:
    return "0x" + bloom.to_bytes(256, "big").hex()


def _opt_hex(v: int | None) -> str | None:
    return None if v is None else hex(v)


def genesis_header(rules: HeaderRules, genesis: dict, state_root: bytes, base_fee: int) -> Header:
    """Block 0 as core.Genesis.toBlock builds it from the genesis JSON: the optional fields of
    the upgrades active at the genesis timestamp; a coreth genesis leaves ExtDataHash zero.
    `base_fee` is the genesis's own baseFeePerGas or the chain's default (coreth: 225 gwei;
    subnet-EVM: feeConfig.minBaseFee)."""
    ts = _number(genesis.get("timestamp"), 0)
    etna = ts >= rules.etna
    granite = ts >= rules.granite
    difficulty = genesis.get("difficulty")
    return Header(
        parent_hash=_bytes(genesis.get("parentHash"), 32), uncles_hash=EMPTY_UNCLE_HASH,
        coinbase=_bytes(genesis.get("coinbase"), 20), state_root=state_root, transaction_root=EMPTY_ROOT_HASH,
        receipt_root=EMPTY_ROOT_HASH, bloom=0,
        difficulty=GENESIS_DIFFICULTY if difficulty is None else _number(difficulty, 0),
        block_number=_number(genesis.get("number"), 0),
        gas_limit=_number(genesis.get("gasLimit"), 0) or GENESIS_GAS_LIMIT,
        gas_used=_number(genesis.get("gasUsed"), 0), timestamp=ts,
        extra_data=_bytes(genesis.get("extraData"), 0), mix_hash=_bytes(genesis.get("mixHash"), 32),
        nonce=_number(genesis.get("nonce"), 0).to_bytes(8, "big"),
        ext_data_hash=ZERO_HASH if rules.coreth else None,
        base_fee_per_gas=base_fee if ts >= rules.base_fee else None,
        ext_data_gas_used=0 if etna and rules.coreth else None,
        block_gas_cost=0 if etna else None,
        blob_gas_used=0 if etna else None, excess_blob_gas=0 if etna else None,
        parent_beacon_block_root=ZERO_HASH if etna else None,
        timestamp_ms=ts * 1000 if granite else None,
        min_delay_excess=INITIAL_MIN_DELAY_EXCESS if granite else None,
    )


@functools.lru_cache(maxsize=8)
def decoded_header(data: bytes, coreth: bool) -> Header:
    """Header.decode, kept for the last few headers: the readers of a block row (a query's, a
    webhook's) often read one header several times."""
    return Header.decode(data, coreth)


def header_number(data: bytes) -> int:
    """The block number of header RLP `data` (its 9th field, in coreth's and subnet-EVM's layout
    alike) without decoding the rest: decoded_header(data, coreth).block_number, for the index
    families, which need nothing else of the header."""
    pos = rlpcodec.payload_bounds(data, 0)[0]
    for _ in range(8):
        pos = rlpcodec.payload_bounds(data, pos)[1]
    start, end = rlpcodec.payload_bounds(data, pos)
    return int.from_bytes(data[start:end], "big")


def block_header(rules: HeaderRules, *, parent: Header, parent_hash: bytes, state_root: bytes, transaction_root: bytes,
                 receipt_root: bytes, bloom: int, gas_limit: int, gas_used: int, ts_ms: int, fee_extra: bytes,
                 base_fee: int, block_gas_cost: int = 0, ext: bytes = b"", ext_gas_used: int = 0,
                 coinbase: bytes = BLACKHOLE, predicate_results: bytes = EMPTY_PREDICATE_RESULTS) -> Header:
    """A header the chain builds, as coreth's/subnet-EVM's miner fills it: the coinbase
    (coreth's BlackholeAddr; on an L1 the reward manager's or fee recipient's choice), difficulty 1,
    the fee state (`fee_extra`) then the predicate results as extra, the optional
    fields of the upgrades active at `ts_ms`. `block_gas_cost` is ignored from Granite on (0)."""
    ts = ts_ms // 1000
    durango = ts >= rules.durango
    etna = ts >= rules.etna
    granite = ts >= rules.granite
    ap4 = ts >= rules.block_gas_cost
    return Header(
        parent_hash=parent_hash, uncles_hash=EMPTY_UNCLE_HASH, coinbase=coinbase, state_root=state_root,
        transaction_root=transaction_root, receipt_root=receipt_root, bloom=bloom, difficulty=1,
        block_number=parent.block_number + 1, gas_limit=gas_limit, gas_used=gas_used, timestamp=ts,
        extra_data=fee_extra + predicate_results if durango else fee_extra, mix_hash=ZERO_HASH,
        nonce=b"\x00" * 8, ext_data_hash=ext_data_hash(ext) if rules.coreth else None,
        base_fee_per_gas=base_fee if ts >= rules.base_fee else None,
        ext_data_gas_used=ext_gas_used if ap4 and rules.coreth else None,
        block_gas_cost=(0 if granite else block_gas_cost) if ap4 else None,
        blob_gas_used=0 if etna else None, excess_blob_gas=0 if etna else None,
        parent_beacon_block_root=ZERO_HASH if etna else None,
        timestamp_ms=ts_ms if granite else None,
        min_delay_excess=(INITIAL_MIN_DELAY_EXCESS if parent.min_delay_excess is None else parent.min_delay_excess)
        if granite else None,
    )


def _number(v: Any, default: int) -> int:
    if v is None:
        return default
    return hex_or_decimal(v)


def _bytes(v: Any, size: int) -> bytes:
    """A genesis hex field; missing = `size` zero bytes."""
    if v is None:
        return b"\x00" * size
    h = v[2:] if v.lower().startswith("0x") else v
    return bytes.fromhex(h)


def evm_header(header: Header, **changes: Any) -> CancunBlockHeader:
    """py-evm's header for executing on top of `header` (block context: number, time, coinbase,
    gas limit, base fee); its own hash is never used. py-evm is imported here, not with the
    module: the index and the webhooks read headers before (or without) any EVM execution."""
    fields: dict[str, Any] = dict(  # Any: py-evm's field types, and `changes` override any of them
        parent_hash=header.parent_hash, uncles_hash=header.uncles_hash, coinbase=header.coinbase,
        state_root=header.state_root, transaction_root=header.transaction_root, receipt_root=header.receipt_root,
        bloom=header.bloom, difficulty=header.difficulty, block_number=header.block_number,
        gas_limit=header.gas_limit, gas_used=header.gas_used, timestamp=header.timestamp,
        extra_data=header.extra_data, mix_hash=header.mix_hash, nonce=header.nonce,
        base_fee_per_gas=header.base_fee_per_gas or 0, withdrawals_root=EMPTY_ROOT_HASH,
        blob_gas_used=header.blob_gas_used or 0, excess_blob_gas=header.excess_blob_gas or 0,
        parent_beacon_block_root=header.parent_beacon_block_root or ZERO_HASH)
    fields.update(changes)
    return cancun_header(fields)


_CANCUN: tuple[Any, tuple[tuple[str, str], ...]] | None = None  # py-evm's class, its (field, attribute) pairs


def cancun_header(fields: dict[str, Any]) -> CancunBlockHeader:
    """CancunBlockHeader(**fields) when `fields` names every field once and no value is None or
    a list: the same object, without pyrlp's per-call argument merging and checks (~3 us against
    ~11). Anything else goes through the constructor, which defaults or refuses it as before."""
    global _CANCUN
    if _CANCUN is None:
        from eth.vm.forks.cancun.headers import CancunBlockHeader

        meta = CancunBlockHeader._meta
        _CANCUN = CancunBlockHeader, tuple(zip(meta.field_names, meta.field_attrs))
    cls, names = _CANCUN
    if len(fields) != len(names):
        return cls(**fields)
    header = object.__new__(cls)
    for name, attr in names:
        value = fields.get(name)
        if value is None or isinstance(value, list):  # missing, defaulted or made immutable: the constructor's job
            return cls(**fields)
        setattr(header, attr, value)
    return header
