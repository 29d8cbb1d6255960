"""P-Chain transactions (vms/platformvm/txs): field orders and type IDs of node-api.md §4.1/§4.4.

Every unsigned tx is a frozen dataclass whose first field is `base` (avax.BaseTx fields); `encode`
and `decode` follow the linear codec with the P registry (`P_REGISTRY`). `parse_tx` reads a signed
tx (`u16 0 | u32 typeID | body | creds`) and rejects trailing bytes. The parts the txs are built
of (validators, signers, owners, input/output lists) are in tx_parts.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Self

from simnode.codec import (
    BaseTxFields,
    CodecError,
    Credential,
    Input,
    OutputOwners,
    Reader,
    SignedTx,
    TransferableInput,
    TransferableOutput,
    TypeRegistry,
    Writer,
    encode_signed,
    new_p_registry,
    parse_signed,
)
from simnode.codec.registry import not_implemented

from .tx_parts import (
    BLS_SIG_LEN,
    ID_LEN,
    NODE_ID_LEN,
    ConvertSubnetToL1Validator,
    EmptySigner,
    ProofOfPossession,
    Validator,
    read_auth,
    read_ins,
    read_outs,
    read_owner,
    write_ins,
    write_outs,
)

# Type IDs (node-api.md §4.1, P column).
ADD_VALIDATOR_TX = 12
ADD_SUBNET_VALIDATOR_TX = 13
ADD_DELEGATOR_TX = 14
CREATE_CHAIN_TX = 15
CREATE_SUBNET_TX = 16
IMPORT_TX = 17
EXPORT_TX = 18
ADVANCE_TIME_TX = 19
REWARD_VALIDATOR_TX = 20
REMOVE_SUBNET_VALIDATOR_TX = 23
TRANSFORM_SUBNET_TX = 24
ADD_PERMISSIONLESS_VALIDATOR_TX = 25
ADD_PERMISSIONLESS_DELEGATOR_TX = 26
SIGNER_EMPTY = 27
SIGNER_POP = 28
BANFF_PROPOSAL_BLOCK = 29
BANFF_COMMIT_BLOCK = 31
BANFF_STANDARD_BLOCK = 32
TRANSFER_SUBNET_OWNERSHIP_TX = 33
BASE_TX = 34
CONVERT_SUBNET_TO_L1_TX = 35
REGISTER_L1_VALIDATOR_TX = 36
SET_L1_VALIDATOR_WEIGHT_TX = 37
INCREASE_L1_VALIDATOR_BALANCE_TX = 38
DISABLE_L1_VALIDATOR_TX = 39

MAX_NAME_LEN = 128
MAX_GENESIS_LEN = 1 << 20
MAX_SUBNET_ADDRESS_LEN = 4096
PERCENT_DENOMINATOR = 1_000_000


# --------------------------------------------------------------------------------------- txs


class UnsignedTx:
    """Marker base: every P tx has `.base` (BaseTxFields)."""

    __slots__ = ()
    base: BaseTxFields

    def all_inputs(self) -> tuple[TransferableInput, ...]:
        return self.base.ins

    def all_outputs(self) -> tuple[TransferableOutput, ...]:
        """Outputs that count in the flow check (outs + stake/exported)."""
        return self.base.outs


@dataclass(frozen=True, slots=True)
class BaseTx(UnsignedTx):
    base: BaseTxFields

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg))


@dataclass(frozen=True, slots=True)
class CreateSubnetTx(UnsignedTx):
    base: BaseTxFields
    owner: OutputOwners

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        reg.encode_typed(w, self.owner)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg), read_owner(r, reg))


@dataclass(frozen=True, slots=True)
class CreateChainTx(UnsignedTx):
    base: BaseTxFields
    subnet_id: bytes
    chain_name: str
    vm_id: bytes
    fx_ids: tuple[bytes, ...]
    genesis_data: bytes
    subnet_auth: Input

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.fixed_bytes(self.subnet_id, ID_LEN)
        w.str_u16(self.chain_name)
        w.fixed_bytes(self.vm_id, ID_LEN)
        w.u32(len(self.fx_ids))
        for fx in self.fx_ids:
            w.fixed_bytes(fx, ID_LEN)
        w.bytes_u32(self.genesis_data)
        reg.encode_typed(w, self.subnet_auth)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        base = BaseTxFields.decode(r, reg)
        subnet_id = r.fixed_bytes(ID_LEN)
        name = r.str_u16()
        vm_id = r.fixed_bytes(ID_LEN)
        fxs = tuple(r.fixed_bytes(ID_LEN) for _ in range(r.count_u32()))
        genesis = r.bytes_u32()
        return cls(base, subnet_id, name, vm_id, fxs, genesis, read_auth(r, reg))


@dataclass(frozen=True, slots=True)
class ImportTx(UnsignedTx):
    base: BaseTxFields
    source_chain: bytes
    imported_inputs: tuple[TransferableInput, ...]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.fixed_bytes(self.source_chain, ID_LEN)
        write_ins(w, reg, self.imported_inputs)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg), r.fixed_bytes(ID_LEN), read_ins(r, reg))

    def all_inputs(self) -> tuple[TransferableInput, ...]:
        return self.base.ins + self.imported_inputs


@dataclass(frozen=True, slots=True)
class ExportTx(UnsignedTx):
    base: BaseTxFields
    destination_chain: bytes
    exported_outputs: tuple[TransferableOutput, ...]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.fixed_bytes(self.destination_chain, ID_LEN)
        write_outs(w, reg, self.exported_outputs)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg), r.fixed_bytes(ID_LEN), read_outs(r, reg))

    def all_outputs(self) -> tuple[TransferableOutput, ...]:
        return self.base.outs + self.exported_outputs


@dataclass(frozen=True, slots=True)
class AddValidatorTx(UnsignedTx):
    """Pre-Durango primary validator (type 12); parsed, refused post-Durango."""

    base: BaseTxFields
    validator: Validator
    stake_outs: tuple[TransferableOutput, ...]
    rewards_owner: OutputOwners
    delegation_shares: int

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        self.validator.encode(w, reg)
        write_outs(w, reg, self.stake_outs)
        reg.encode_typed(w, self.rewards_owner)
        w.u32(self.delegation_shares)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg), Validator.decode(r, reg), read_outs(r, reg), read_owner(r, reg),
                   r.u32())

    subnet_id = property(lambda self: bytes(32))
    validation_rewards_owner = property(lambda self: self.rewards_owner)
    delegation_rewards_owner = property(lambda self: self.rewards_owner)
    signer = property(lambda self: EmptySigner())

    def all_outputs(self) -> tuple[TransferableOutput, ...]:
        return self.base.outs + self.stake_outs


@dataclass(frozen=True, slots=True)
class AddDelegatorTx(UnsignedTx):
    base: BaseTxFields
    validator: Validator
    stake_outs: tuple[TransferableOutput, ...]
    rewards_owner: OutputOwners

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        self.validator.encode(w, reg)
        write_outs(w, reg, self.stake_outs)
        reg.encode_typed(w, self.rewards_owner)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg), Validator.decode(r, reg), read_outs(r, reg), read_owner(r, reg))

    subnet_id = property(lambda self: bytes(32))

    def all_outputs(self) -> tuple[TransferableOutput, ...]:
        return self.base.outs + self.stake_outs


@dataclass(frozen=True, slots=True)
class AddSubnetValidatorTx(UnsignedTx):
    base: BaseTxFields
    validator: Validator
    subnet_id: bytes
    subnet_auth: Input

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        self.validator.encode(w, reg)
        w.fixed_bytes(self.subnet_id, ID_LEN)
        reg.encode_typed(w, self.subnet_auth)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg), Validator.decode(r, reg), r.fixed_bytes(ID_LEN), read_auth(r, reg))


@dataclass(frozen=True, slots=True)
class RemoveSubnetValidatorTx(UnsignedTx):
    base: BaseTxFields
    node_id: bytes
    subnet_id: bytes
    subnet_auth: Input

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.fixed_bytes(self.node_id, NODE_ID_LEN)
        w.fixed_bytes(self.subnet_id, ID_LEN)
        reg.encode_typed(w, self.subnet_auth)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg), r.fixed_bytes(NODE_ID_LEN), r.fixed_bytes(ID_LEN), read_auth(r, reg))


@dataclass(frozen=True, slots=True)
class AddPermissionlessValidatorTx(UnsignedTx):
    base: BaseTxFields
    validator: Validator
    subnet_id: bytes
    signer: Any  # EmptySigner | ProofOfPossession
    stake_outs: tuple[TransferableOutput, ...]
    validation_rewards_owner: OutputOwners
    delegation_rewards_owner: OutputOwners
    delegation_shares: int

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        self.validator.encode(w, reg)
        w.fixed_bytes(self.subnet_id, ID_LEN)
        reg.encode_typed(w, self.signer)
        write_outs(w, reg, self.stake_outs)
        reg.encode_typed(w, self.validation_rewards_owner)
        reg.encode_typed(w, self.delegation_rewards_owner)
        w.u32(self.delegation_shares)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        base = BaseTxFields.decode(r, reg)
        vdr = Validator.decode(r, reg)
        subnet = r.fixed_bytes(ID_LEN)
        signer = reg.decode_typed(r)
        if not isinstance(signer, (EmptySigner, ProofOfPossession)):
            raise CodecError("couldn't unmarshal interface: not a signer")
        return cls(base, vdr, subnet, signer, read_outs(r, reg), read_owner(r, reg), read_owner(r, reg), r.u32())

    def all_outputs(self) -> tuple[TransferableOutput, ...]:
        return self.base.outs + self.stake_outs


@dataclass(frozen=True, slots=True)
class AddPermissionlessDelegatorTx(UnsignedTx):
    base: BaseTxFields
    validator: Validator
    subnet_id: bytes
    stake_outs: tuple[TransferableOutput, ...]
    rewards_owner: OutputOwners

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        self.validator.encode(w, reg)
        w.fixed_bytes(self.subnet_id, ID_LEN)
        write_outs(w, reg, self.stake_outs)
        reg.encode_typed(w, self.rewards_owner)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg), Validator.decode(r, reg), r.fixed_bytes(ID_LEN), read_outs(r, reg),
                   read_owner(r, reg))

    def all_outputs(self) -> tuple[TransferableOutput, ...]:
        return self.base.outs + self.stake_outs


@dataclass(frozen=True, slots=True)
class TransferSubnetOwnershipTx(UnsignedTx):
    base: BaseTxFields
    subnet_id: bytes
    subnet_auth: Input
    owner: OutputOwners

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.fixed_bytes(self.subnet_id, ID_LEN)
        reg.encode_typed(w, self.subnet_auth)
        reg.encode_typed(w, self.owner)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg), r.fixed_bytes(ID_LEN), read_auth(r, reg), read_owner(r, reg))


@dataclass(frozen=True, slots=True)
class ConvertSubnetToL1Tx(UnsignedTx):
    base: BaseTxFields
    subnet_id: bytes
    chain_id: bytes
    address: bytes
    validators: tuple[ConvertSubnetToL1Validator, ...]
    subnet_auth: Input

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.fixed_bytes(self.subnet_id, ID_LEN)
        w.fixed_bytes(self.chain_id, ID_LEN)
        w.bytes_u32(self.address)
        w.u32(len(self.validators))
        for v in self.validators:
            v.encode(w, reg)
        reg.encode_typed(w, self.subnet_auth)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        base = BaseTxFields.decode(r, reg)
        subnet = r.fixed_bytes(ID_LEN)
        chain = r.fixed_bytes(ID_LEN)
        addr = r.bytes_u32()
        vdrs = tuple(ConvertSubnetToL1Validator.decode(r, reg) for _ in range(r.count_u32()))
        return cls(base, subnet, chain, addr, vdrs, read_auth(r, reg))


@dataclass(frozen=True, slots=True)
class RegisterL1ValidatorTx(UnsignedTx):
    base: BaseTxFields
    balance: int
    proof_of_possession: bytes
    message: bytes

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.u64(self.balance)
        w.fixed_bytes(self.proof_of_possession, BLS_SIG_LEN)
        w.bytes_u32(self.message)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg), r.u64(), r.fixed_bytes(BLS_SIG_LEN), r.bytes_u32())


@dataclass(frozen=True, slots=True)
class SetL1ValidatorWeightTx(UnsignedTx):
    base: BaseTxFields
    message: bytes

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.bytes_u32(self.message)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg), r.bytes_u32())


@dataclass(frozen=True, slots=True)
class IncreaseL1ValidatorBalanceTx(UnsignedTx):
    base: BaseTxFields
    validation_id: bytes
    balance: int

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.fixed_bytes(self.validation_id, ID_LEN)
        w.u64(self.balance)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg), r.fixed_bytes(ID_LEN), r.u64())


@dataclass(frozen=True, slots=True)
class DisableL1ValidatorTx(UnsignedTx):
    base: BaseTxFields
    validation_id: bytes
    disable_auth: Input

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.fixed_bytes(self.validation_id, ID_LEN)
        reg.encode_typed(w, self.disable_auth)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg), r.fixed_bytes(ID_LEN), read_auth(r, reg))


@dataclass(frozen=True, slots=True)
class AdvanceTimeTx:
    """Type 19 (before Banff, the chain time as a proposal): ``u64 time``. It parses; the P-Chain
    refuses it since Etna when it sizes its fee (fees.tx_complexity)."""

    time: int

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.u64(self.time)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.u64())


@dataclass(frozen=True, slots=True)
class TransformSubnetTx:
    """Type 24 (an Elastic Subnet, before Etna): BaseTx, subnet, asset, supplies, consumption rates,
    stake bounds, durations, fees, weight factor, uptime, subnet auth. It parses; refused as type 19
    before anything reads it (so none of the UnsignedTx machinery, JSON forms included, takes it)."""

    base: BaseTxFields
    subnet_id: bytes
    asset_id: bytes
    u64s: tuple[int, ...]  # initial and maximum supply, min/max consumption rate, min/max validator stake
    min_stake_duration: int
    max_stake_duration: int
    min_delegation_fee: int
    min_delegator_stake: int
    max_validator_weight_factor: int
    uptime_requirement: int
    subnet_auth: Input

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.fixed_bytes(self.subnet_id, ID_LEN)
        w.fixed_bytes(self.asset_id, ID_LEN)
        for v in self.u64s:
            w.u64(v)
        for v in (self.min_stake_duration, self.max_stake_duration, self.min_delegation_fee):
            w.u32(v)
        w.u64(self.min_delegator_stake)
        w.u8(self.max_validator_weight_factor)
        w.u32(self.uptime_requirement)
        reg.encode_typed(w, self.subnet_auth)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        base, subnet_id, asset_id = BaseTxFields.decode(r, reg), r.fixed_bytes(ID_LEN), r.fixed_bytes(ID_LEN)
        u64s = tuple(r.u64() for _ in range(6))
        durations_fee = (r.u32(), r.u32(), r.u32())
        return cls(base, subnet_id, asset_id, u64s, *durations_fee, r.u64(), r.u8(), r.u32(), read_auth(r, reg))


@dataclass(frozen=True, slots=True)
class RewardValidatorTx:
    """Type 20: ``32 txID`` of the staker being rewarded (no BaseTx, no credentials)."""

    tx_id: bytes

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.fixed_bytes(self.tx_id, ID_LEN)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.fixed_bytes(ID_LEN))


STAKER_TX_TYPES = (AddValidatorTx, AddPermissionlessValidatorTx, AddDelegatorTx, AddPermissionlessDelegatorTx)
VALIDATOR_TX_TYPES = (AddValidatorTx, AddPermissionlessValidatorTx)
DELEGATOR_TX_TYPES = (AddDelegatorTx, AddPermissionlessDelegatorTx)


def _registry() -> TypeRegistry:
    reg = new_p_registry()
    reg.register(ADD_VALIDATOR_TX, AddValidatorTx)
    reg.register(ADD_SUBNET_VALIDATOR_TX, AddSubnetValidatorTx)
    reg.register(ADD_DELEGATOR_TX, AddDelegatorTx)
    reg.register(CREATE_CHAIN_TX, CreateChainTx)
    reg.register(CREATE_SUBNET_TX, CreateSubnetTx)
    reg.register(IMPORT_TX, ImportTx)
    reg.register(EXPORT_TX, ExportTx)
    reg.register(ADVANCE_TIME_TX, AdvanceTimeTx)
    reg.register(REWARD_VALIDATOR_TX, RewardValidatorTx)
    reg.register(REMOVE_SUBNET_VALIDATOR_TX, RemoveSubnetValidatorTx)
    reg.register(TRANSFORM_SUBNET_TX, TransformSubnetTx)
    reg.register(ADD_PERMISSIONLESS_VALIDATOR_TX, AddPermissionlessValidatorTx)
    reg.register(ADD_PERMISSIONLESS_DELEGATOR_TX, AddPermissionlessDelegatorTx)
    reg.register(SIGNER_EMPTY, EmptySigner)
    reg.register(SIGNER_POP, ProofOfPossession)
    reg.register(TRANSFER_SUBNET_OWNERSHIP_TX, TransferSubnetOwnershipTx)
    reg.register(BASE_TX, BaseTx)
    reg.register(CONVERT_SUBNET_TO_L1_TX, ConvertSubnetToL1Tx)
    reg.register(REGISTER_L1_VALIDATOR_TX, RegisterL1ValidatorTx)
    reg.register(SET_L1_VALIDATOR_WEIGHT_TX, SetL1ValidatorWeightTx)
    reg.register(INCREASE_L1_VALIDATOR_BALANCE_TX, IncreaseL1ValidatorBalanceTx)
    reg.register(DISABLE_L1_VALIDATOR_TX, DisableL1ValidatorTx)
    return reg


P_REGISTRY = _registry()


def _parse_unsigned(r: Reader) -> Any:
    tx = P_REGISTRY.decode_typed(r)
    if not isinstance(tx, (UnsignedTx, RewardValidatorTx, AdvanceTimeTx, TransformSubnetTx)):
        raise not_implemented(type(tx), "txs.UnsignedTx")
    return tx


def parse_tx(data: bytes) -> SignedTx:
    """A signed P tx from its bytes (codec errors raise CodecError)."""
    return parse_signed(data, P_REGISTRY, _parse_unsigned)


def read_tx(r: Reader) -> SignedTx:
    """A signed tx inside a block (no version prefix of its own)."""
    from simnode.codec import read_signed_body

    return read_signed_body(r, P_REGISTRY, _parse_unsigned)


def sign_tx(unsigned: Any, credentials: list[Credential]) -> SignedTx:
    return encode_signed(unsigned, credentials, P_REGISTRY)


def marshal(obj: Any, typed: bool = True) -> bytes:
    return P_REGISTRY.marshal(obj, typed=typed)


def type_name(tx: Any) -> str:
    return type(tx).__name__
