"""The genesis file: AvalancheGo's genesis.Config, read from its JSON (UnparsedConfig.Parse)."""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simnode.formats.errors import FormatError
from simnode.formats.ids import node_id_from_str

from .fields import (
    MAX_UINT32,
    GenesisError,
    avax_address,
    hex_bytes,
    json_list,
    optional_uint,
    require,
    uint,
)

BLS_PUBLIC_KEY_LEN = 48
BLS_SIGNATURE_LEN = 96


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



def _parse_allocation(obj: Any, where: str) -> Allocation:
    schedule = []
    for i, unlock in enumerate(json_list(obj.get("unlockSchedule") if isinstance(obj, dict) else None, where)):
        unlock_where = f"{where}.unlockSchedule[{i}]"
        if not isinstance(unlock, dict):
            raise GenesisError(f"{unlock_where}: expected a JSON object")
        schedule.append(
            LockedAmount(
                amount=optional_uint(unlock, "amount", unlock_where),
                locktime=optional_uint(unlock, "locktime", unlock_where),
            )
        )
    return Allocation(
        eth_addr=hex_bytes(require(obj, "ethAddr", where), f"{where}.ethAddr", 20),
        avax_addr=avax_address(require(obj, "avaxAddr", where), f"{where}.avaxAddr"),
        initial_amount=optional_uint(obj, "initialAmount", where),
        unlock_schedule=tuple(schedule),
    )


def _parse_staker(obj: Any, where: str) -> Staker:
    node_id_text = require(obj, "nodeID", where)
    try:
        node_id = node_id_from_str(node_id_text)
    except FormatError as e:
        raise GenesisError(f"{where}.nodeID: {e}") from None
    signer_obj = obj.get("signer")
    signer = None
    if signer_obj is not None:
        signer_where = f"{where}.signer"
        signer = BlsSigner(
            public_key=hex_bytes(
                require(signer_obj, "publicKey", signer_where), f"{signer_where}.publicKey", BLS_PUBLIC_KEY_LEN
            ),
            proof_of_possession=hex_bytes(
                require(signer_obj, "proofOfPossession", signer_where),
                f"{signer_where}.proofOfPossession",
                BLS_SIGNATURE_LEN,
            ),
        )
    return Staker(
        node_id=node_id,
        reward_address=avax_address(require(obj, "rewardAddress", where), f"{where}.rewardAddress"),
        delegation_fee=optional_uint(obj, "delegationFee", where, MAX_UINT32),
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
        network_id=uint(require(document, "networkID", "genesis"), "genesis.networkID", MAX_UINT32),
        allocations=tuple(
            _parse_allocation(a, f"genesis.allocations[{i}]")
            for i, a in enumerate(json_list(document.get("allocations"), "genesis.allocations"))
        ),
        start_time=optional_uint(document, "startTime", "genesis"),
        initial_stake_duration=optional_uint(document, "initialStakeDuration", "genesis"),
        initial_stake_duration_offset=optional_uint(document, "initialStakeDurationOffset", "genesis"),
        initial_staked_funds=tuple(
            avax_address(a, f"genesis.initialStakedFunds[{i}]")
            for i, a in enumerate(json_list(document.get("initialStakedFunds"), "genesis.initialStakedFunds"))
        ),
        initial_stakers=tuple(
            _parse_staker(s, f"genesis.initialStakers[{i}]")
            for i, s in enumerate(json_list(document.get("initialStakers"), "genesis.initialStakers"))
        ),
        c_chain_genesis=c_chain_genesis,
        message=message,
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

