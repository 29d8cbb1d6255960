"""The Warp / ACP-77 formats the P-Chain reads and writes (warp-icm.md §1.2–§1.7).

Parsing only, plus the IDs the P-Chain derives (conversionID, validationIDs). Signature checks
against the L1's validator set are left to the Warp engineer's module (simnode/warp) later.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from simnode.codec import CodecError, Reader, VerifyError, Writer

from .txs import PChainOwner

MAX_U64 = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class SignedMessage:
    network_id: int
    source_chain_id: bytes
    payload: bytes
    unsigned_bytes: bytes
    signers: bytes
    signature: bytes

    @property
    def num_signers(self) -> int:
        return bin(int.from_bytes(self.signers, "big")).count("1")


def parse_signed_message(data: bytes) -> SignedMessage:
    r = Reader(data)
    r.codec_version()
    network_id = r.u32()
    source = r.fixed_bytes(32)
    payload = r.bytes_u32()
    unsigned = data[: r.offset]
    sig_type = r.u32()
    if sig_type != 0:
        raise CodecError(f"couldn't unmarshal interface: unknown type ID {sig_type}")
    signers = r.bytes_u32()
    signature = r.fixed_bytes(96)
    r.done()
    if signers and signers[0] == 0:
        raise VerifyError("invalid bitset")
    return SignedMessage(network_id, source, payload, unsigned, signers, signature)


@dataclass(frozen=True, slots=True)
class AddressedCall:
    source_address: bytes
    payload: bytes


def parse_addressed_call(data: bytes) -> AddressedCall:
    r = Reader(data)
    r.codec_version()
    type_id = r.u32()
    if type_id != 1:
        raise CodecError("wrong payload type")
    addr = r.bytes_u32()
    payload = r.bytes_u32()
    r.done()
    return AddressedCall(addr, payload)


def encode_addressed_call(source_address: bytes, payload: bytes) -> bytes:
    w = Writer()
    w.codec_version()
    w.u32(1)
    w.bytes_u32(source_address)
    w.bytes_u32(payload)
    return w.getvalue()


def encode_unsigned_message(network_id: int, source_chain_id: bytes, payload: bytes) -> bytes:
    w = Writer()
    w.codec_version()
    w.u32(network_id)
    w.fixed_bytes(source_chain_id, 32)
    w.bytes_u32(payload)
    return w.getvalue()


def encode_signed_message(unsigned: bytes, signers: bytes, signature: bytes) -> bytes:
    w = Writer()
    w.u32(0)
    w.bytes_u32(signers)
    w.fixed_bytes(signature, 96)
    return unsigned + w.getvalue()


@dataclass(frozen=True, slots=True)
class RegisterL1Validator:
    subnet_id: bytes
    node_id: bytes
    bls_public_key: bytes
    expiry: int
    remaining_balance_owner: PChainOwner
    disable_owner: PChainOwner
    weight: int
    raw: bytes

    @property
    def validation_id(self) -> bytes:
        return hashlib.sha256(self.raw).digest()

    def verify(self) -> None:
        if self.weight == 0:
            raise VerifyError("weight must be non-zero")
        if len(self.node_id) != 20:
            raise VerifyError(f"invalid nodeID length: expected 20 bytes but got {len(self.node_id)}")
        if self.node_id == bytes(20):
            raise VerifyError("empty nodeID is not allowed")


def encode_register_l1_validator(subnet_id: bytes, node_id: bytes, pk: bytes, expiry: int,
                                 remaining: PChainOwner, disable: PChainOwner, weight: int) -> bytes:
    w = Writer()
    w.codec_version()
    w.u32(1)
    w.fixed_bytes(subnet_id, 32)
    w.bytes_u32(node_id)
    w.fixed_bytes(pk, 48)
    w.u64(expiry)
    remaining.encode(w)
    disable.encode(w)
    w.u64(weight)
    return w.getvalue()


def parse_register_l1_validator(data: bytes) -> RegisterL1Validator:
    r = Reader(data)
    r.codec_version()
    if r.u32() != 1:
        raise CodecError("wrong payload type")
    subnet = r.fixed_bytes(32)
    node_id = r.bytes_u32()
    pk = r.fixed_bytes(48)
    expiry = r.u64()
    rem = PChainOwner.decode(r)
    dis = PChainOwner.decode(r)
    weight = r.u64()
    r.done()
    return RegisterL1Validator(subnet, node_id, pk, expiry, rem, dis, weight, data)


@dataclass(frozen=True, slots=True)
class L1ValidatorWeight:
    validation_id: bytes
    nonce: int
    weight: int

    def verify(self) -> None:
        if self.nonce == MAX_U64 and self.weight != 0:
            raise VerifyError("invalid nonce")


def encode_l1_validator_weight(validation_id: bytes, nonce: int, weight: int) -> bytes:
    w = Writer()
    w.codec_version()
    w.u32(3)
    w.fixed_bytes(validation_id, 32)
    w.u64(nonce)
    w.u64(weight)
    return w.getvalue()


def parse_l1_validator_weight(data: bytes) -> L1ValidatorWeight:
    r = Reader(data)
    r.codec_version()
    if r.u32() != 3:
        raise CodecError("wrong payload type")
    msg = L1ValidatorWeight(r.fixed_bytes(32), r.u64(), r.u64())
    r.done()
    return msg


def conversion_id(subnet_id: bytes, manager_chain_id: bytes, manager_address: bytes,
                  validators: list[tuple[bytes, bytes, int]]) -> bytes:
    """sha256 of SubnetToL1ConversionData (validators: (nodeID bytes, 48 B pk, weight) in tx order)."""
    w = Writer()
    w.codec_version()
    w.fixed_bytes(subnet_id, 32)
    w.fixed_bytes(manager_chain_id, 32)
    w.bytes_u32(manager_address)
    w.u32(len(validators))
    for node_id, pk, weight in validators:
        w.bytes_u32(node_id)
        w.fixed_bytes(pk, 48)
        w.u64(weight)
    return hashlib.sha256(w.getvalue()).digest()


def subnet_validation_id(subnet_id: bytes, index: int) -> bytes:
    return hashlib.sha256(subnet_id + index.to_bytes(4, "big")).digest()
