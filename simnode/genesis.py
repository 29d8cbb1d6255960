"""AvalancheGo's genesis JSON → the initial state of the X-, P- and C-Chain.

Mirrors avalanchego ``genesis/genesis.go`` (FromConfig, splitAllocations), ``genesis/config.go``
(getRecentStartTime), ``vms/avm/genesis.go`` and ``vms/platformvm/genesis/genesis.go`` (New), so the
AVAX asset ID, the X-/C-Chain IDs, the genesis UTXOs, the genesis validator txs and the P-Chain
genesis bytes are the ones a real node derives from the same file. Pure: no wall-clock reads; a
caller that wants the local network's start time re-based to "now" passes "now" in.
"""

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from simnode.codec.avax import UTXO, TransferableOutput
from simnode.codec.errors import CodecError
from simnode.codec.packer import Writer
from simnode.codec.registry import TypeRegistry
from simnode.codec.secp256k1fx import OutputOwners, TransferOutput
from simnode.codec.stakeable import StakeableLockOut
from simnode.codec.tables import new_p_registry, new_x_registry
from simnode.crypto import bls
from simnode.formats.address import FUJI_ID, LOCAL_ID, MAINNET_ID, hrp_for_network, network_name, parse_address
from simnode.formats.errors import FormatError
from simnode.formats.ids import (
    AVM_VM_ID,
    EVM_VM_ID,
    NFTFX_ID,
    PROPERTYFX_ID,
    SECP256K1FX_ID,
    ZERO_ID,
    node_id_from_str,
)
from simnode.warp.keystore import derived_secret_key

# AvalancheGo re-bases the local network's start time forward in steps of 9×30 days.
LOCAL_START_TIME_PERIOD = 9 * 30 * 24 * 3600

AVAX_ALIAS = "AVAX"
AVAX_NAME = "Avalanche"
AVAX_SYMBOL = "AVAX"
AVAX_DENOMINATION = 9

BLS_PUBLIC_KEY_LEN = 48
BLS_SIGNATURE_LEN = 96
MAX_UINT64 = (1 << 64) - 1
MAX_UINT32 = (1 << 32) - 1

# Type IDs used in genesis bytes (X genesis codec / P genesis codec).
X_CREATE_ASSET_TX_TYPE_ID = 1
P_APRICOT_COMMIT_BLOCK_TYPE_ID = 2
P_ADD_VALIDATOR_TX_TYPE_ID = 12
P_CREATE_CHAIN_TX_TYPE_ID = 15
P_ADD_PERMISSIONLESS_VALIDATOR_TX_TYPE_ID = 25
P_PROOF_OF_POSSESSION_TYPE_ID = 28
P_SECP_INPUT_TYPE_ID = 10
P_SECP_OUTPUT_OWNERS_TYPE_ID = 11

GENESIS_DATA_DIRS = (
    Path(__file__).resolve().parent / "genesis_data",  # shipped inside the package (wheel installs)
    Path(__file__).resolve().parent.parent / "genesis",  # the repository's top-level folder
)
NETWORK_GENESIS_FILES = {LOCAL_ID: "genesis_local.json", FUJI_ID: "genesis_fuji.json"}
KNOWN_SIGNERS_FILE = "local_signers.json"  # AvalancheGo's staking/local/signer*.key


class GenesisError(ValueError):
    """A genesis file that cannot be read or that AvalancheGo would refuse."""


# ----------------------------------------------------------------------------------------------
# The genesis file (AvalancheGo's genesis.Config)


@dataclass(frozen=True, slots=True)
class LockedAmount:
    amount: int
    locktime: int


@dataclass(frozen=True, slots=True)
class Allocation:
    eth_addr: bytes  # 20 bytes
    avax_addr: bytes  # 20 bytes
    initial_amount: int  # nAVAX on the X-Chain
    unlock_schedule: tuple[LockedAmount, ...]  # nAVAX on the P-Chain


@dataclass(frozen=True, slots=True)
class BlsSigner:
    public_key: bytes  # 48 bytes, compressed
    proof_of_possession: bytes  # 96 bytes


@dataclass(frozen=True, slots=True)
class Staker:
    node_id: bytes
    reward_address: bytes
    delegation_fee: int  # ppm
    signer: BlsSigner | None


@dataclass(frozen=True, slots=True)
class GenesisConfig:
    network_id: int
    allocations: tuple[Allocation, ...]
    start_time: int
    initial_stake_duration: int
    initial_stake_duration_offset: int
    initial_staked_funds: tuple[bytes, ...]
    initial_stakers: tuple[Staker, ...]
    c_chain_genesis: str
    message: str

    @property
    def initial_supply(self) -> int:
        return sum(a.initial_amount + sum(u.amount for u in a.unlock_schedule) for a in self.allocations)


# ----------------------------------------------------------------------------------------------
# What the chains start with


@dataclass(frozen=True, slots=True)
class PGenesisUTXO:
    """A P-Chain genesis UTXO (txID = 32 zero bytes, index = position) and its message (the ethAddr)."""

    utxo: UTXO
    message: bytes


@dataclass(frozen=True, slots=True)
class GenesisValidator:
    """A primary-network validator created by genesis (AddValidatorTx or AddPermissionlessValidatorTx)."""

    tx_id: bytes
    tx_bytes: bytes  # signed-tx bytes with no credentials; tx_id = sha256(tx_bytes)
    node_id: bytes
    start_time: int
    end_time: int
    weight: int
    delegation_fee: int  # ppm (the tx's DelegationShares)
    reward_owner: OutputOwners  # both validation and delegation rewards owner
    stake_outputs: tuple[TransferableOutput, ...]
    signer: BlsSigner | None


@dataclass(frozen=True, slots=True)
class GenesisChain:
    """A chain created by genesis (a CreateChainTx); its chain ID is the tx ID."""

    chain_id: bytes
    tx_bytes: bytes
    name: str
    vm_id: bytes
    fx_ids: tuple[bytes, ...]
    genesis_data: bytes
    subnet_id: bytes


@dataclass(frozen=True, slots=True)
class CChainAccount:
    address: bytes  # 20 bytes
    balance: int  # wei
    nonce: int
    code: bytes
    storage: tuple[tuple[bytes, bytes], ...]  # (32-byte slot, 32-byte value), sorted by slot


@dataclass(frozen=True, slots=True)
class CChainGenesis:
    raw: str  # the cChainGenesis string byte for byte (the C-Chain ID hashes it)
    parsed: dict[str, Any]  # the whole JSON document
    chain_id: int
    config: dict[str, Any]
    nonce: int
    timestamp: int
    extra_data: bytes
    gas_limit: int
    difficulty: int
    mix_hash: bytes
    coinbase: bytes
    number: int
    gas_used: int
    parent_hash: bytes
    base_fee: int | None
    alloc: tuple[CChainAccount, ...]  # sorted by address

    def balance_of(self, address: bytes) -> int:
        return next((account.balance for account in self.alloc if account.address == address), 0)


@dataclass(frozen=True, slots=True)
class Genesis:
    config: GenesisConfig
    network_id: int
    hrp: str
    network_name: str
    start_time: int  # the P-Chain genesis timestamp (after any re-basing)
    avax_asset_id: bytes
    avax_asset_tx_bytes: bytes  # the CreateAssetTx whose sha256 is the AVAX asset ID
    x_chain_id: bytes
    c_chain_id: bytes
    x_genesis_bytes: bytes
    x_utxos: tuple[UTXO, ...]
    p_utxos: tuple[PGenesisUTXO, ...]
    validators: tuple[GenesisValidator, ...]  # in P genesis order
    chains: tuple[GenesisChain, ...]  # X, then C
    initial_supply: int
    message: str
    p_genesis_bytes: bytes
    p_genesis_block_id: bytes
    c_chain_genesis: CChainGenesis


# ----------------------------------------------------------------------------------------------
# Reading the JSON


def _require(obj: Any, key: str, where: str) -> Any:
    if not isinstance(obj, dict):
        raise GenesisError(f"{where}: expected a JSON object")
    if key not in obj:
        raise GenesisError(f"{where}: missing field {key!r}")
    return obj[key]


def _uint(value: Any, where: str, maximum: int = MAX_UINT64) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= maximum:
        raise GenesisError(f"{where}: expected an unsigned integer ≤ {maximum}, got {value!r}")
    return value


def _optional_uint(obj: dict[str, Any], key: str, where: str, maximum: int = MAX_UINT64) -> int:
    # Go leaves an absent (or null) field at zero.
    value = obj.get(key)
    return 0 if value is None else _uint(value, f"{where}.{key}", maximum)


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise GenesisError(f"{where}: expected a JSON array")
    return value


def _avax_address(value: Any, where: str) -> bytes:
    # AvalancheGo keeps only the payload: any chain alias and HRP are accepted here.
    try:
        return parse_address(value)[2]
    except FormatError as e:
        raise GenesisError(f"{where}: invalid address {value!r}: {e}") from None


def _hex_bytes(value: Any, where: str, length: int | None = None) -> bytes:
    if not isinstance(value, str) or not value.startswith("0x"):
        raise GenesisError(f"{where}: expected a 0x-prefixed hex string")
    try:
        raw = bytes.fromhex(value[2:])
    except ValueError:
        raise GenesisError(f"{where}: invalid hex {value!r}") from None
    if length is not None and len(raw) != length:
        raise GenesisError(f"{where}: expected {length} bytes but got {len(raw)}")
    return raw


def _parse_allocation(obj: Any, where: str) -> Allocation:
    schedule = []
    for i, unlock in enumerate(_list(obj.get("unlockSchedule") if isinstance(obj, dict) else None, where)):
        unlock_where = f"{where}.unlockSchedule[{i}]"
        if not isinstance(unlock, dict):
            raise GenesisError(f"{unlock_where}: expected a JSON object")
        schedule.append(
            LockedAmount(
                amount=_optional_uint(unlock, "amount", unlock_where),
                locktime=_optional_uint(unlock, "locktime", unlock_where),
            )
        )
    return Allocation(
        eth_addr=_hex_bytes(_require(obj, "ethAddr", where), f"{where}.ethAddr", 20),
        avax_addr=_avax_address(_require(obj, "avaxAddr", where), f"{where}.avaxAddr"),
        initial_amount=_optional_uint(obj, "initialAmount", where),
        unlock_schedule=tuple(schedule),
    )


def _parse_staker(obj: Any, where: str) -> Staker:
    node_id_text = _require(obj, "nodeID", where)
    try:
        node_id = node_id_from_str(node_id_text)
    except FormatError as e:
        raise GenesisError(f"{where}.nodeID: {e}") from None
    signer_obj = obj.get("signer")
    signer = None
    if signer_obj is not None:
        signer_where = f"{where}.signer"
        signer = BlsSigner(
            public_key=_hex_bytes(
                _require(signer_obj, "publicKey", signer_where), f"{signer_where}.publicKey", BLS_PUBLIC_KEY_LEN
            ),
            proof_of_possession=_hex_bytes(
                _require(signer_obj, "proofOfPossession", signer_where),
                f"{signer_where}.proofOfPossession",
                BLS_SIGNATURE_LEN,
            ),
        )
    return Staker(
        node_id=node_id,
        reward_address=_avax_address(_require(obj, "rewardAddress", where), f"{where}.rewardAddress"),
        delegation_fee=_optional_uint(obj, "delegationFee", where, MAX_UINT32),
        signer=signer,
    )


def parse_genesis_config(document: Any) -> GenesisConfig:
    """A decoded genesis JSON document → GenesisConfig (AvalancheGo's UnparsedConfig.Parse)."""
    if not isinstance(document, dict):
        raise GenesisError("genesis: expected a JSON object")
    c_chain_genesis = document.get("cChainGenesis", "")
    message = document.get("message", "")
    if not isinstance(c_chain_genesis, str) or not isinstance(message, str):
        raise GenesisError("genesis: cChainGenesis and message must be strings")
    return GenesisConfig(
        network_id=_uint(_require(document, "networkID", "genesis"), "genesis.networkID", MAX_UINT32),
        allocations=tuple(
            _parse_allocation(a, f"genesis.allocations[{i}]")
            for i, a in enumerate(_list(document.get("allocations"), "genesis.allocations"))
        ),
        start_time=_optional_uint(document, "startTime", "genesis"),
        initial_stake_duration=_optional_uint(document, "initialStakeDuration", "genesis"),
        initial_stake_duration_offset=_optional_uint(document, "initialStakeDurationOffset", "genesis"),
        initial_staked_funds=tuple(
            _avax_address(a, f"genesis.initialStakedFunds[{i}]")
            for i, a in enumerate(_list(document.get("initialStakedFunds"), "genesis.initialStakedFunds"))
        ),
        initial_stakers=tuple(
            _parse_staker(s, f"genesis.initialStakers[{i}]")
            for i, s in enumerate(_list(document.get("initialStakers"), "genesis.initialStakers"))
        ),
        c_chain_genesis=c_chain_genesis,
        message=message,
    )


def _hex_or_decimal(value: Any, where: str) -> int:
    # go-ethereum's math.HexOrDecimal64/256: "0x…" hex, a decimal string, or a JSON number.
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str):
        try:
            if value[:2] in ("0x", "0X"):
                return int(value[2:], 16)
            if value.isascii() and value.isdigit():
                return int(value)
        except ValueError:
            pass
    raise GenesisError(f"{where}: expected a hex or decimal number, got {value!r}")


def _evm_address(text: Any, where: str) -> bytes:
    if not isinstance(text, str):
        raise GenesisError(f"{where}: expected an address string")
    digits = text[2:] if text[:2] in ("0x", "0X") else text
    try:
        raw = bytes.fromhex(digits)
    except ValueError:
        raise GenesisError(f"{where}: invalid address {text!r}") from None
    if len(raw) != 20:
        raise GenesisError(f"{where}: expected 20 bytes but got {len(raw)}")
    return raw


def parse_c_chain_genesis(raw: str) -> CChainGenesis:
    """The coreth genesis JSON carried as a string in the network genesis."""
    try:
        document = json.loads(raw)
    except json.JSONDecodeError as e:
        raise GenesisError(f"cChainGenesis: invalid JSON: {e}") from None
    if not isinstance(document, dict):
        raise GenesisError("cChainGenesis: expected a JSON object")
    config = document.get("config")
    if not isinstance(config, dict):
        raise GenesisError("cChainGenesis: missing config object")
    alloc_obj = document.get("alloc") or {}
    if not isinstance(alloc_obj, dict):
        raise GenesisError("cChainGenesis.alloc: expected a JSON object")
    accounts = []
    for key, account in alloc_obj.items():
        where = f"cChainGenesis.alloc[{key}]"
        if not isinstance(account, dict):
            raise GenesisError(f"{where}: expected a JSON object")
        storage_obj = account.get("storage") or {}
        if not isinstance(storage_obj, dict):
            raise GenesisError(f"{where}.storage: expected a JSON object")
        storage = sorted(
            (_hex_bytes(slot, f"{where}.storage", 32), _hex_bytes(value, f"{where}.storage", 32))
            for slot, value in storage_obj.items()
        )
        accounts.append(
            CChainAccount(
                address=_evm_address(key, where),
                balance=_hex_or_decimal(_require(account, "balance", where), f"{where}.balance"),
                nonce=_hex_or_decimal(account.get("nonce", 0), f"{where}.nonce"),
                code=_hex_bytes(account["code"], f"{where}.code") if account.get("code") else b"",
                storage=tuple(storage),
            )
        )
    base_fee = document.get("baseFeePerGas")
    return CChainGenesis(
        raw=raw,
        parsed=document,
        chain_id=_hex_or_decimal(config.get("chainId"), "cChainGenesis.config.chainId"),
        config=config,
        nonce=_hex_or_decimal(document.get("nonce", 0), "cChainGenesis.nonce"),
        timestamp=_hex_or_decimal(document.get("timestamp", 0), "cChainGenesis.timestamp"),
        extra_data=_hex_bytes(document.get("extraData", "0x"), "cChainGenesis.extraData"),
        gas_limit=_hex_or_decimal(document.get("gasLimit", 0), "cChainGenesis.gasLimit"),
        difficulty=_hex_or_decimal(document.get("difficulty", 0), "cChainGenesis.difficulty"),
        mix_hash=_hex_bytes(document.get("mixHash", "0x" + "00" * 32), "cChainGenesis.mixHash", 32),
        coinbase=_evm_address(document.get("coinbase", "0x" + "00" * 20), "cChainGenesis.coinbase"),
        number=_hex_or_decimal(document.get("number", 0), "cChainGenesis.number"),
        gas_used=_hex_or_decimal(document.get("gasUsed", 0), "cChainGenesis.gasUsed"),
        parent_hash=_hex_bytes(document.get("parentHash", "0x" + "00" * 32), "cChainGenesis.parentHash", 32),
        base_fee=None if base_fee is None else _hex_or_decimal(base_fee, "cChainGenesis.baseFeePerGas"),
        alloc=tuple(sorted(accounts, key=lambda account: account.address)),
    )


# ----------------------------------------------------------------------------------------------
# Deriving the chains' genesis


def rebased_start_time(genesis_start: int, now: int, period: int = LOCAL_START_TIME_PERIOD) -> int:
    """AvalancheGo's getRecentStartTime: move the start forward by whole periods while that stays ≤ now."""
    if now < genesis_start + period:
        return genesis_start
    return genesis_start + (now - genesis_start) // period * period


def _single_owner(address: bytes) -> OutputOwners:
    return OutputOwners(locktime=0, threshold=1, addresses=(address,))


def _write_empty_base_tx(w: Writer, network_id: int, memo: bytes = b"") -> None:
    # avax.BaseTx with the P-/X-Chain ID left empty, no outputs and no inputs, as genesis builds it.
    w.u32(network_id)
    w.fixed_bytes(ZERO_ID, 32)
    w.u32(0)
    w.u32(0)
    w.bytes_u32(memo)


def _build_x_genesis(
    config: GenesisConfig, x_reg: TypeRegistry
) -> tuple[bytes, bytes, bytes, tuple[TransferOutput, ...]]:
    """→ (X genesis bytes, CreateAssetTx bytes, AVAX asset ID, the initial outputs in index order)."""
    # FromConfig: holders sorted by (initialAmount, avaxAddr); the memo concatenates their ethAddrs.
    x_allocations = sorted(
        (a for a in config.allocations if a.initial_amount > 0), key=lambda a: (a.initial_amount, a.avax_addr)
    )
    memo = b"".join(a.eth_addr for a in x_allocations)

    def typed_bytes(out: TransferOutput) -> bytes:
        w = Writer()
        x_reg.encode_typed(w, out)
        return w.getvalue()

    outs = tuple(
        sorted((TransferOutput(a.initial_amount, _single_owner(a.avax_addr)) for a in x_allocations), key=typed_bytes)
    )

    body = Writer()
    _write_empty_base_tx(body, config.network_id, memo)
    body.str_u16(AVAX_NAME)
    body.str_u16(AVAX_SYMBOL)
    body.u8(AVAX_DENOMINATION)
    if outs:
        body.u32(1)  # one InitialState: secp256k1fx (fxIndex 0) with the fixed-cap holders
        body.u32(0)
        body.u32(len(outs))
        for out in outs:
            x_reg.encode_typed(body, out)
    else:
        body.u32(0)
    fields = body.getvalue()

    asset_tx = Writer()
    asset_tx.codec_version()
    asset_tx.u32(X_CREATE_ASSET_TX_TYPE_ID)
    asset_tx.raw(fields)
    asset_tx.u32(0)  # no credentials
    asset_tx_bytes = asset_tx.getvalue()

    genesis = Writer()
    genesis.codec_version()
    genesis.u32(1)  # one GenesisAsset: alias, then the CreateAssetTx fields without a type ID
    genesis.str_u16(AVAX_ALIAS)
    genesis.raw(fields)
    return genesis.getvalue(), asset_tx_bytes, hashlib.sha256(asset_tx_bytes).digest(), outs


def _split_allocations(allocations: tuple[Allocation, ...], num_splits: int) -> list[list[Allocation]]:
    """AvalancheGo's splitAllocations: share the initially staked funds out evenly over the stakers."""
    total = sum(u.amount for a in allocations for u in a.unlock_schedule)
    node_weight = total // num_splits
    all_nodes: list[list[Allocation]] = []
    current_node: list[Allocation] = []
    current_amount = 0
    for allocation in allocations:
        schedule: list[LockedAmount] = []
        for unlock in allocation.unlock_schedule:
            amount = unlock.amount
            while current_amount + amount > node_weight and len(all_nodes) < num_splits - 1:
                amount_to_add = node_weight - current_amount
                schedule.append(LockedAmount(amount_to_add, unlock.locktime))
                amount -= amount_to_add
                current_node.append(replace(allocation, initial_amount=0, unlock_schedule=tuple(schedule)))
                all_nodes.append(current_node)
                current_node, current_amount, schedule = [], 0, []
            if amount == 0:
                continue
            schedule.append(LockedAmount(amount, unlock.locktime))
            current_amount += amount
        if schedule:
            current_node.append(replace(allocation, initial_amount=0, unlock_schedule=tuple(schedule)))
    all_nodes.append(current_node)
    return all_nodes


def _p_output(amount: int, locktime: int, address: bytes, start_time: int) -> TransferOutput | StakeableLockOut:
    out = TransferOutput(amount, _single_owner(address))
    # Only funds still locked at genesis time are wrapped in a stakeable lock.
    return StakeableLockOut(locktime, out) if locktime > start_time else out


def _build_validator(
    config: GenesisConfig,
    index: int,
    staker: Staker,
    node_allocations: list[Allocation],
    start_time: int,
    avax_asset_id: bytes,
    p_reg: TypeRegistry,
) -> GenesisValidator:
    end_time = start_time + config.initial_stake_duration - index * config.initial_stake_duration_offset
    # (locktime, amount, address) order, as genesis.Allocation.Compare.
    staked = sorted(
        (unlock.locktime, unlock.amount, allocation.avax_addr)
        for allocation in node_allocations
        for unlock in allocation.unlock_schedule
    )
    stake_outputs = tuple(
        TransferableOutput(avax_asset_id, _p_output(amount, locktime, address, start_time))
        for locktime, amount, address in staked
    )
    weight = sum(amount for _, amount, _ in staked)
    if weight == 0:
        raise GenesisError("validator has not weight")
    if weight > MAX_UINT64:
        raise GenesisError("validator stake exceeds limit")
    if end_time <= start_time:
        raise GenesisError("validator would have already unstaked")
    reward_owner = _single_owner(staker.reward_address)

    w = Writer()
    w.codec_version()
    w.u32(P_ADD_VALIDATOR_TX_TYPE_ID if staker.signer is None else P_ADD_PERMISSIONLESS_VALIDATOR_TX_TYPE_ID)
    _write_empty_base_tx(w, config.network_id)
    w.fixed_bytes(staker.node_id, 20)
    w.u64(start_time)
    w.u64(end_time)
    w.u64(weight)
    if staker.signer is not None:
        w.fixed_bytes(ZERO_ID, 32)  # the primary network
        w.u32(P_PROOF_OF_POSSESSION_TYPE_ID)
        w.fixed_bytes(staker.signer.public_key, BLS_PUBLIC_KEY_LEN)
        w.fixed_bytes(staker.signer.proof_of_possession, BLS_SIGNATURE_LEN)
    w.u32(len(stake_outputs))
    for out in stake_outputs:
        out.encode(w, p_reg)
    owners_count = 1 if staker.signer is None else 2  # permissionless: validation and delegation owners
    for _ in range(owners_count):
        w.u32(P_SECP_OUTPUT_OWNERS_TYPE_ID)
        reward_owner.encode(w, p_reg)
    w.u32(staker.delegation_fee)
    w.u32(0)  # no credentials
    tx_bytes = w.getvalue()
    return GenesisValidator(
        tx_id=hashlib.sha256(tx_bytes).digest(),
        tx_bytes=tx_bytes,
        node_id=staker.node_id,
        start_time=start_time,
        end_time=end_time,
        weight=weight,
        delegation_fee=staker.delegation_fee,
        reward_owner=reward_owner,
        stake_outputs=stake_outputs,
        signer=staker.signer,
    )


def _heap_order(validators: list[GenesisValidator]) -> tuple[GenesisValidator, ...]:
    """The array order of AvalancheGo's txheap.NewByEndTime after pushing each validator (Go container/heap)."""
    heap: list[GenesisValidator] = []
    for validator in validators:
        heap.append(validator)
        child = len(heap) - 1
        while child > 0:
            parent = (child - 1) // 2
            if not heap[child].end_time < heap[parent].end_time:
                break
            heap[child], heap[parent] = heap[parent], heap[child]
            child = parent
    return tuple(heap)


def _build_chain(
    network_id: int, name: str, vm_id: bytes, fx_ids: tuple[bytes, ...], genesis_data: bytes
) -> GenesisChain:
    w = Writer()
    w.codec_version()
    w.u32(P_CREATE_CHAIN_TX_TYPE_ID)
    _write_empty_base_tx(w, network_id)
    w.fixed_bytes(ZERO_ID, 32)  # subnet: the primary network
    w.str_u16(name)
    w.fixed_bytes(vm_id, 32)
    w.u32(len(fx_ids))
    for fx_id in fx_ids:
        w.fixed_bytes(fx_id, 32)
    w.bytes_u32(genesis_data)
    w.u32(P_SECP_INPUT_TYPE_ID)  # subnetAuth: an empty secp256k1fx.Input
    w.u32(0)
    w.u32(0)  # no credentials
    tx_bytes = w.getvalue()
    return GenesisChain(
        chain_id=hashlib.sha256(tx_bytes).digest(),
        tx_bytes=tx_bytes,
        name=name,
        vm_id=vm_id,
        fx_ids=fx_ids,
        genesis_data=genesis_data,
        subnet_id=ZERO_ID,
    )


def _p_genesis_bytes(
    p_utxos: tuple[PGenesisUTXO, ...],
    validators: tuple[GenesisValidator, ...],
    chains: tuple[GenesisChain, ...],
    start_time: int,
    initial_supply: int,
    message: str,
    p_reg: TypeRegistry,
) -> bytes:
    """platformvm genesis.Genesis: UTXOs with messages, validator txs, chain txs, timestamp, supply, message."""
    w = Writer()
    w.codec_version()
    w.u32(len(p_utxos))
    for entry in p_utxos:
        entry.utxo.encode(w, p_reg)
        w.bytes_u32(entry.message)
    for txs in (validators, chains):
        w.u32(len(txs))
        for tx in txs:
            w.raw(tx.tx_bytes[2:])  # a Tx nested in the genesis has no codec version of its own
    w.u64(start_time)
    w.u64(initial_supply)
    w.str_u16(message)
    return w.getvalue()


def build_genesis(config: GenesisConfig, start_time: int | None = None) -> Genesis:
    """Derive every chain's genesis from a config; `start_time` overrides the file's (e.g. a re-based one)."""
    genesis_start = config.start_time if start_time is None else start_time
    initial_supply = config.initial_supply
    if initial_supply > MAX_UINT64:
        raise GenesisError("unable to calculate the initial supply: overflow")
    if initial_supply == 0:
        raise GenesisError("initial supply must be > 0")
    if not config.initial_stakers:
        raise GenesisError("initial stakers must be > 0")
    if not config.c_chain_genesis:
        raise GenesisError("C-Chain genesis cannot be empty")
    allocated = {a.avax_addr for a in config.allocations}
    for address in config.initial_staked_funds:
        if address not in allocated:
            raise GenesisError("no allocation to stake")

    x_reg = new_x_registry()
    p_reg = new_p_registry()
    try:
        x_genesis_bytes, asset_tx_bytes, avax_asset_id, x_outs = _build_x_genesis(config, x_reg)
        x_utxos = tuple(UTXO(avax_asset_id, i, avax_asset_id, out) for i, out in enumerate(x_outs))

        staked_set = set(config.initial_staked_funds)
        p_utxos = tuple(
            PGenesisUTXO(
                UTXO(ZERO_ID, i, avax_asset_id, _p_output(amount, locktime, address, genesis_start)),
                message,
            )
            for i, (amount, locktime, address, message) in enumerate(
                (unlock.amount, unlock.locktime, allocation.avax_addr, allocation.eth_addr)
                for allocation in config.allocations
                if allocation.avax_addr not in staked_set
                for unlock in allocation.unlock_schedule
                if unlock.amount > 0
            )
        )

        skipped = tuple(a for a in config.allocations if a.avax_addr in staked_set)
        node_allocations = _split_allocations(skipped, len(config.initial_stakers))
        validators = _heap_order(
            [
                _build_validator(config, i, staker, node_allocations[i], genesis_start, avax_asset_id, p_reg)
                for i, staker in enumerate(config.initial_stakers)
            ]
        )

        chains = (
            _build_chain(
                config.network_id, "X-Chain", AVM_VM_ID, (SECP256K1FX_ID, NFTFX_ID, PROPERTYFX_ID), x_genesis_bytes
            ),
            _build_chain(config.network_id, "C-Chain", EVM_VM_ID, (), config.c_chain_genesis.encode("utf-8")),
        )
        p_genesis_bytes = _p_genesis_bytes(
            p_utxos, validators, chains, genesis_start, initial_supply, config.message, p_reg
        )
    except CodecError as e:
        raise GenesisError(f"genesis does not encode: {e}") from None

    # platformvm: the genesis block is an ApricotCommitBlock at height 0 whose parent is sha256(genesis bytes).
    block = Writer()
    block.codec_version()
    block.u32(P_APRICOT_COMMIT_BLOCK_TYPE_ID)
    block.fixed_bytes(hashlib.sha256(p_genesis_bytes).digest(), 32)
    block.u64(0)

    return Genesis(
        config=config,
        network_id=config.network_id,
        hrp=hrp_for_network(config.network_id),
        network_name=network_name(config.network_id),
        start_time=genesis_start,
        avax_asset_id=avax_asset_id,
        avax_asset_tx_bytes=asset_tx_bytes,
        x_chain_id=chains[0].chain_id,
        c_chain_id=chains[1].chain_id,
        x_genesis_bytes=x_genesis_bytes,
        x_utxos=x_utxos,
        p_utxos=p_utxos,
        validators=validators,
        chains=chains,
        initial_supply=initial_supply,
        message=config.message,
        p_genesis_bytes=p_genesis_bytes,
        p_genesis_block_id=hashlib.sha256(block.getvalue()).digest(),
        c_chain_genesis=parse_c_chain_genesis(config.c_chain_genesis),
    )


def read_genesis_config(path: Path | str) -> GenesisConfig:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise GenesisError(f"unable to load genesis file {path}: {e}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        raise GenesisError(f"could not unmarshal genesis JSON {path}: {e}") from None
    return parse_genesis_config(document)


def load_genesis(path: Path | str, *, start_time: int | None = None) -> Genesis:
    """Load a genesis file as is (a custom network's start time is never re-based by AvalancheGo)."""
    return build_genesis(read_genesis_config(path), start_time)


def network_genesis_path(network_id: int) -> Path:
    """The shipped genesis file of a network; any other network ID uses the local one, as AvalancheGo does."""
    if network_id == MAINNET_ID:
        raise GenesisError("no mainnet genesis file is shipped with simnode")
    file_name = NETWORK_GENESIS_FILES.get(network_id, NETWORK_GENESIS_FILES[LOCAL_ID])
    for directory in GENESIS_DATA_DIRS:
        candidate = directory / file_name
        if candidate.is_file():
            return candidate
    raise GenesisError(f"genesis file {file_name} not found in {', '.join(str(d) for d in GENESIS_DATA_DIRS)}")


@dataclass(frozen=True, slots=True)
class StakerKeys:
    """The genesis stakers' BLS keys as simnode runs them.

    `config`: the genesis config with every staker's signer set to a key simnode can sign with;
    `secrets`: node ID -> secret key; `derived`: the stakers whose listed signer secret is
    unknown (or who list none) and so got a key derived from the node's seed instead.
    """

    config: GenesisConfig
    secrets: dict[bytes, bls.SecretKey]
    derived: tuple[bytes, ...]


def known_signer_secrets() -> dict[bytes, bls.SecretKey]:
    """The signer secrets simnode ships (the local network's), by compressed public key."""
    for directory in GENESIS_DATA_DIRS:
        path = directory / KNOWN_SIGNERS_FILE
        if path.is_file():
            document = json.loads(path.read_text(encoding="utf-8"))
            keys = [bls.secret_key_from_bytes(bytes.fromhex(e["secretKey"][2:])) for e in document["signers"]]
            return {bls.public_key(k): k for k in keys}
    return {}


def staker_keys(config: GenesisConfig, seed: int) -> StakerKeys:
    """Keep each staker's listed signer when its secret ships with simnode; otherwise give the
    staker a key derived from the seed (its signer entry then lists that key)."""
    known = known_signer_secrets()
    stakers = []
    secrets: dict[bytes, bls.SecretKey] = {}
    derived = []
    for staker in config.initial_stakers:
        secret = known.get(staker.signer.public_key) if staker.signer is not None else None
        if secret is None:
            secret = derived_secret_key(seed, staker.node_id)
            derived.append(staker.node_id)
            staker = replace(staker, signer=BlsSigner(bls.public_key(secret), bls.prove_possession(secret)))
        secrets[staker.node_id] = secret
        stakers.append(staker)
    return StakerKeys(replace(config, initial_stakers=tuple(stakers)), secrets, tuple(derived))


def load_network_genesis(network_id: int, *, now: int | None = None) -> Genesis:
    """The genesis AvalancheGo uses for `network_id` (genesis.GetConfig).

    Fuji (5) uses its own file unchanged. The local network (12345), and any other network ID with
    the local file's content, has its start time re-based to ``now`` when ``now`` is given.
    """
    config = read_genesis_config(network_genesis_path(network_id))
    if network_id == FUJI_ID:
        return build_genesis(config)
    config = replace(config, network_id=network_id)
    start_time = None if now is None else rebased_start_time(config.start_time, now)
    return build_genesis(config, start_time)
