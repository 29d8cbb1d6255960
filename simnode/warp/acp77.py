"""The ACP-77 messages: the P-Chain's (vms/platformvm/warp/message, codec version 0) and the L1's
validator-uptime message (subnet-evm's warp/messages codec; ValidatorMessages.sol calls it
ValidationUptimeMessage).

P-Chain codec type IDs: 0 SubnetToL1Conversion, 1 RegisterL1Validator, 2 L1ValidatorRegistration,
3 L1ValidatorWeight. On the wire each sits in an AddressedCall: with an empty source address when
the P-Chain signs it, with the manager contract's address when the L1's manager sends it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Self

from simnode.codec import CodecError, OutputOwners, Reader, TypeRegistry, VerifyError, Writer
from simnode.crypto.hashing import sha256

PUBLIC_KEY_LEN = 48
NODE_ID_LEN = 20
MAX_U64 = (1 << 64) - 1

SUBNET_TO_L1_CONVERSION_TYPE_ID = 0
REGISTER_L1_VALIDATOR_TYPE_ID = 1
L1_VALIDATOR_REGISTRATION_TYPE_ID = 2
L1_VALIDATOR_WEIGHT_TYPE_ID = 3
VALIDATOR_UPTIME_TYPE_ID = 0  # in the L1 (subnet-evm) codec, at most 24 KiB
MAX_L1_MESSAGE_SIZE = 24 * 1024


@dataclass(frozen=True, slots=True)
class PChainOwner:
    """message.PChainOwner: ``u32 threshold | u32 n | n×20 B`` (an OutputOwners without locktime)."""

    threshold: int
    addresses: tuple[bytes, ...]

    def encode(self, w: Writer, reg: TypeRegistry | None = None) -> None:
        w.u32(self.threshold)
        w.u32(len(self.addresses))
        for a in self.addresses:
            w.fixed_bytes(a, 20)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry | None = None) -> Self:
        threshold = r.u32()
        n = r.count_u32()
        return cls(threshold, tuple(r.fixed_bytes(20) for _ in range(n)))

    def as_output_owners(self) -> OutputOwners:
        return OutputOwners(0, self.threshold, self.addresses)

    def verify(self) -> None:
        self.as_output_owners().verify()


def _header(type_id: int) -> Writer:
    w = Writer()
    w.codec_version()
    w.u32(type_id)
    return w


@dataclass(frozen=True, slots=True)
class SubnetToL1Conversion:
    conversion_id: bytes

    def encode(self) -> bytes:
        w = _header(SUBNET_TO_L1_CONVERSION_TYPE_ID)
        w.fixed_bytes(self.conversion_id, 32)
        return w.getvalue()


@dataclass(frozen=True, slots=True)
class RegisterL1Validator:
    subnet_id: bytes
    node_id: bytes
    bls_public_key: bytes
    expiry: int
    remaining_balance_owner: PChainOwner
    disable_owner: PChainOwner
    weight: int
    validation_id: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # The validation ID is the hash of the whole message, codec version and type ID included.
        object.__setattr__(self, "validation_id", sha256(self.encode()))

    def encode(self) -> bytes:
        w = _header(REGISTER_L1_VALIDATOR_TYPE_ID)
        w.fixed_bytes(self.subnet_id, 32)
        w.bytes_u32(self.node_id)
        w.fixed_bytes(self.bls_public_key, PUBLIC_KEY_LEN)
        w.u64(self.expiry)
        self.remaining_balance_owner.encode(w)
        self.disable_owner.encode(w)
        w.u64(self.weight)
        return w.getvalue()

    def verify(self) -> None:
        if self.subnet_id == bytes(32):
            raise VerifyError("invalid subnet ID")
        if self.weight == 0:
            raise VerifyError("invalid weight")
        if len(self.node_id) != NODE_ID_LEN:
            raise VerifyError(f"invalid node ID: invalid hash length: expected 20 bytes but got {len(self.node_id)}")
        if self.node_id == bytes(NODE_ID_LEN):
            raise VerifyError("invalid node ID: empty nodeID is disallowed")
        try:
            self.remaining_balance_owner.verify()
            self.disable_owner.verify()
        except VerifyError as e:
            raise VerifyError(f"invalid owner: {e}") from None


@dataclass(frozen=True, slots=True)
class L1ValidatorRegistration:
    """registered=True: the validation ID is a current validator; False: it is not and never can be."""

    validation_id: bytes
    registered: bool

    def encode(self) -> bytes:
        w = _header(L1_VALIDATOR_REGISTRATION_TYPE_ID)
        w.fixed_bytes(self.validation_id, 32)
        w.bool(self.registered)
        return w.getvalue()


@dataclass(frozen=True, slots=True)
class L1ValidatorWeight:
    validation_id: bytes
    nonce: int
    weight: int

    def encode(self) -> bytes:
        w = _header(L1_VALIDATOR_WEIGHT_TYPE_ID)
        w.fixed_bytes(self.validation_id, 32)
        w.u64(self.nonce)
        w.u64(self.weight)
        return w.getvalue()

    def verify(self) -> None:
        if self.nonce == MAX_U64 and self.weight != 0:
            raise VerifyError("maxUint64 nonce is reserved for removal")


PChainMessage = SubnetToL1Conversion | RegisterL1Validator | L1ValidatorRegistration | L1ValidatorWeight
_GO_NAMES = {
    SubnetToL1Conversion: "*message.SubnetToL1Conversion",
    RegisterL1Validator: "*message.RegisterL1Validator",
    L1ValidatorRegistration: "*message.L1ValidatorRegistration",
    L1ValidatorWeight: "*message.L1ValidatorWeight",
}


def go_type_name(msg: PChainMessage) -> str:
    return _GO_NAMES[type(msg)]


def parse_pchain_message(data: bytes) -> PChainMessage:
    r = Reader(data)
    r.codec_version()
    type_id = r.type_id()
    out: PChainMessage
    if type_id == SUBNET_TO_L1_CONVERSION_TYPE_ID:
        out = SubnetToL1Conversion(r.fixed_bytes(32))
    elif type_id == REGISTER_L1_VALIDATOR_TYPE_ID:
        out = RegisterL1Validator(r.fixed_bytes(32), r.bytes_u32(), r.fixed_bytes(PUBLIC_KEY_LEN), r.u64(),
                                  PChainOwner.decode(r), PChainOwner.decode(r), r.u64())
    elif type_id == L1_VALIDATOR_REGISTRATION_TYPE_ID:
        out = L1ValidatorRegistration(r.fixed_bytes(32), r.bool())
    elif type_id == L1_VALIDATOR_WEIGHT_TYPE_ID:
        out = L1ValidatorWeight(r.fixed_bytes(32), r.u64(), r.u64())
    else:
        raise CodecError(f"couldn't unmarshal interface: unknown type ID {type_id}")
    r.done()
    return out


def _parse_as(data: bytes, kind: type) -> PChainMessage:
    msg = parse_pchain_message(data)
    if not isinstance(msg, kind):
        raise CodecError(f"wrong payload type: {go_type_name(msg)}")
    return msg


def parse_register_l1_validator(data: bytes) -> RegisterL1Validator:
    return _parse_as(data, RegisterL1Validator)  # type: ignore[return-value]


def parse_l1_validator_weight(data: bytes) -> L1ValidatorWeight:
    return _parse_as(data, L1ValidatorWeight)  # type: ignore[return-value]


def parse_l1_validator_registration(data: bytes) -> L1ValidatorRegistration:
    return _parse_as(data, L1ValidatorRegistration)  # type: ignore[return-value]


def parse_subnet_to_l1_conversion(data: bytes) -> SubnetToL1Conversion:
    return _parse_as(data, SubnetToL1Conversion)  # type: ignore[return-value]


# ------------------------------------------------------------------------------ conversion data, IDs


@dataclass(frozen=True, slots=True)
class ConversionValidator:
    node_id: bytes
    bls_public_key: bytes
    weight: int


@dataclass(frozen=True, slots=True)
class SubnetToL1ConversionData:
    """What a ConvertSubnetToL1Tx commits to; validators in tx order (sorted by node ID)."""

    subnet_id: bytes
    manager_chain_id: bytes
    manager_address: bytes
    validators: tuple[ConversionValidator, ...]

    def encode(self) -> bytes:
        """A plain struct: codec version, then the fields (no type ID)."""
        w = Writer()
        w.codec_version()
        w.fixed_bytes(self.subnet_id, 32)
        w.fixed_bytes(self.manager_chain_id, 32)
        w.bytes_u32(self.manager_address)
        w.u32(len(self.validators))
        for v in self.validators:
            w.bytes_u32(v.node_id)
            w.fixed_bytes(v.bls_public_key, PUBLIC_KEY_LEN)
            w.u64(v.weight)
        return w.getvalue()

    @property
    def conversion_id(self) -> bytes:
        return sha256(self.encode())


def subnet_validation_id(subnet_id: bytes, index: int) -> bytes:
    """The validation ID of the `index`-th validator of a ConvertSubnetToL1Tx (subnetID.Append(index))."""
    return sha256(subnet_id + index.to_bytes(4, "big"))


# ------------------------------------------------------------------------------ the L1's own message


@dataclass(frozen=True, slots=True)
class ValidatorUptime:
    """Signed by an L1's validators (source chain = the L1 chain, empty source address) when the
    validator's uptime they observed is at least `total_uptime` seconds."""

    validation_id: bytes
    total_uptime: int

    def encode(self) -> bytes:
        w = _header(VALIDATOR_UPTIME_TYPE_ID)
        w.fixed_bytes(self.validation_id, 32)
        w.u64(self.total_uptime)
        return w.getvalue()


def parse_validator_uptime(data: bytes) -> ValidatorUptime:
    if len(data) > MAX_L1_MESSAGE_SIZE:
        raise CodecError(f"byte array exceeds maximum length: {len(data)} > {MAX_L1_MESSAGE_SIZE}")
    r = Reader(data)
    r.codec_version()
    type_id = r.type_id()
    if type_id != VALIDATOR_UPTIME_TYPE_ID:
        raise CodecError(f"couldn't unmarshal interface: unknown type ID {type_id}")
    out = ValidatorUptime(r.fixed_bytes(32), r.u64())
    r.done()
    return out
