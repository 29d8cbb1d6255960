"""The parts P-Chain txs are built of (vms/platformvm/txs): the codec readers and writers of
input/output lists, owners and authorizations; `Validator`; the two signers; the validators of a
ConvertSubnetToL1Tx; the bytes L1 validator records keep their PChainOwners in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from simnode.codec import (
    Input,
    OutputOwners,
    Reader,
    TransferableInput,
    TransferableOutput,
    TypeRegistry,
    VerifyError,
    Writer,
)
from simnode.codec.registry import Owner, not_implemented
from simnode.warp.acp77 import PChainOwner

ID_LEN = 32
NODE_ID_LEN = 20
BLS_PK_LEN = 48
BLS_SIG_LEN = 96


def read_outs(r: Reader, reg: TypeRegistry) -> tuple[TransferableOutput, ...]:
    return tuple(TransferableOutput.decode(r, reg) for _ in range(r.count_u32()))


def write_outs(w: Writer, reg: TypeRegistry, outs: tuple[TransferableOutput, ...]) -> None:
    w.u32(len(outs))
    for out in outs:
        out.encode(w, reg)


def read_ins(r: Reader, reg: TypeRegistry) -> tuple[TransferableInput, ...]:
    return tuple(TransferableInput.decode(r, reg) for _ in range(r.count_u32()))


def write_ins(w: Writer, reg: TypeRegistry, ins: tuple[TransferableInput, ...]) -> None:
    w.u32(len(ins))
    for in_ in ins:
        in_.encode(w, reg)


def read_owner(r: Reader, reg: TypeRegistry) -> OutputOwners:
    return reg.decode_typed(r, Owner)


def read_auth(r: Reader, reg: TypeRegistry) -> Input:
    auth = reg.decode_typed(r)
    if not isinstance(auth, Input):
        raise not_implemented(type(auth), "verify.Verifiable")
    return auth


@dataclass(frozen=True, slots=True)
class Validator:
    """``20 nodeID | u64 start | u64 end | u64 weight``."""

    node_id: bytes
    start: int
    end: int
    weight: int

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.fixed_bytes(self.node_id, NODE_ID_LEN)
        w.u64(self.start)
        w.u64(self.end)
        w.u64(self.weight)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.fixed_bytes(NODE_ID_LEN), r.u64(), r.u64(), r.u64())

    def verify(self) -> None:
        if self.weight == 0:
            raise VerifyError("weight of this validator is 0")


@dataclass(frozen=True, slots=True)
class EmptySigner:
    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        pass

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls()

    @property
    def public_key(self) -> bytes | None:
        return None


@dataclass(frozen=True, slots=True)
class ProofOfPossession:
    """``48 B compressed public key | 96 B signature``."""

    public_key: bytes
    proof: bytes

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.fixed_bytes(self.public_key, BLS_PK_LEN)
        w.fixed_bytes(self.proof, BLS_SIG_LEN)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.fixed_bytes(BLS_PK_LEN), r.fixed_bytes(BLS_SIG_LEN))

    def verify(self) -> None:
        from simnode.crypto import bls

        if not bls.is_valid_public_key(self.public_key):
            raise VerifyError("couldn't parse public key")
        if not bls.verify_possession(self.public_key, self.proof):
            raise VerifyError("invalid proof of possession")


@dataclass(frozen=True, slots=True)
class ConvertSubnetToL1Validator:
    """``u32 len nodeID | u64 weight | u64 balance | PoP (48+96) | remainingBalanceOwner | deactivationOwner``."""

    node_id: bytes
    weight: int
    balance: int
    signer: ProofOfPossession
    remaining_balance_owner: PChainOwner
    deactivation_owner: PChainOwner

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.bytes_u32(self.node_id)
        w.u64(self.weight)
        w.u64(self.balance)
        self.signer.encode(w, reg)
        self.remaining_balance_owner.encode(w)
        self.deactivation_owner.encode(w)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.bytes_u32(), r.u64(), r.u64(), ProofOfPossession.decode(r, reg), PChainOwner.decode(r),
                   PChainOwner.decode(r))

    def verify(self) -> None:
        if self.weight == 0:
            raise VerifyError("validator weight must be non-zero")
        if len(self.node_id) != NODE_ID_LEN:
            raise VerifyError(f"expected {NODE_ID_LEN} bytes but got {len(self.node_id)} bytes")
        if self.node_id == bytes(NODE_ID_LEN):
            raise VerifyError("validator nodeID cannot be empty")
        self.signer.verify()
        self.remaining_balance_owner.verify()
        self.deactivation_owner.verify()


def pchain_owner_bytes(owner: PChainOwner) -> bytes:
    wr = Writer()
    owner.encode(wr)
    return wr.getvalue()


def pchain_owner_from_bytes(data: bytes) -> PChainOwner:
    return PChainOwner.decode(Reader(data))
