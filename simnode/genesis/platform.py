"""The P-Chain's genesis: UTXOs, the genesis validators and the X-/C-Chain's CreateChainTxs, the
genesis bytes and block (avalanchego ``genesis/genesis.go`` splitAllocations and
``vms/platformvm/genesis/genesis.go`` New)."""

import hashlib
from dataclasses import dataclass, replace

from simnode.codec.avax import UTXO, TransferableOutput
from simnode.codec.packer import Writer
from simnode.codec.registry import TypeRegistry
from simnode.codec.secp256k1fx import OutputOwners, TransferOutput
from simnode.codec.stakeable import StakeableLockOut
from simnode.formats.ids import AVM_VM_ID, EVM_VM_ID, NFTFX_ID, PROPERTYFX_ID, SECP256K1FX_ID, ZERO_ID

from .base_tx import single_owner, write_empty_base_tx
from .config import BLS_PUBLIC_KEY_LEN, BLS_SIGNATURE_LEN, Allocation, BlsSigner, GenesisConfig, LockedAmount, Staker
from .fields import MAX_UINT64, GenesisError

# Type IDs in the P genesis codec.
P_APRICOT_COMMIT_BLOCK_TYPE_ID = 2
P_ADD_VALIDATOR_TX_TYPE_ID = 12
P_CREATE_CHAIN_TX_TYPE_ID = 15
P_ADD_PERMISSIONLESS_VALIDATOR_TX_TYPE_ID = 25
P_PROOF_OF_POSSESSION_TYPE_ID = 28
P_SECP_INPUT_TYPE_ID = 10
P_SECP_OUTPUT_OWNERS_TYPE_ID = 11


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
    out = TransferOutput(amount, single_owner(address))
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
    reward_owner = single_owner(staker.reward_address)

    w = Writer()
    w.codec_version()
    w.u32(P_ADD_VALIDATOR_TX_TYPE_ID if staker.signer is None else P_ADD_PERMISSIONLESS_VALIDATOR_TX_TYPE_ID)
    write_empty_base_tx(w, config.network_id)
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
    write_empty_base_tx(w, network_id)
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


@dataclass(frozen=True, slots=True)
class PChainGenesis:
    utxos: tuple[PGenesisUTXO, ...]
    validators: tuple[GenesisValidator, ...]  # in P genesis order
    chains: tuple[GenesisChain, ...]  # X, then C
    genesis_bytes: bytes
    genesis_block_id: bytes


def build_p_genesis(
    config: GenesisConfig,
    genesis_start: int,
    avax_asset_id: bytes,
    x_genesis_bytes: bytes,
    initial_supply: int,
    p_reg: TypeRegistry,
) -> PChainGenesis:
    """The P-Chain genesis of `config`; raises CodecError where a part does not encode."""
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
    p_genesis_bytes = _p_genesis_bytes(p_utxos, validators, chains, genesis_start, initial_supply, config.message,
                                       p_reg)

    # platformvm: the genesis block is an ApricotCommitBlock at height 0 whose parent is sha256(genesis bytes).
    block = Writer()
    block.codec_version()
    block.u32(P_APRICOT_COMMIT_BLOCK_TYPE_ID)
    block.fixed_bytes(hashlib.sha256(p_genesis_bytes).digest(), 32)
    block.u64(0)
    return PChainGenesis(p_utxos, validators, chains, p_genesis_bytes, hashlib.sha256(block.getvalue()).digest())
