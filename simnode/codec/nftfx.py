"""nftfx structures (vms/nftfx), X-Chain only. Field order as in AvalancheGo."""

from dataclasses import dataclass
from typing import Self

from simnode.codec.errors import VerifyError
from simnode.codec.packer import Reader, Writer
from simnode.codec.registry import FxOperation, State, TypeRegistry
from simnode.codec.secp256k1fx import Credential, Input, OutputOwners

MAX_PAYLOAD_SIZE = 1024


def _verify_payload(payload: bytes) -> None:
    if len(payload) > MAX_PAYLOAD_SIZE:
        raise VerifyError("payload too large")


@dataclass(frozen=True, slots=True)
class NftMintOutput(State):
    """Type 10: ``u32 groupID | OutputOwners``."""

    group_id: int
    owners: OutputOwners

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.u32(self.group_id)
        self.owners.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.u32(), OutputOwners.decode(r, reg))

    def verify(self) -> None:
        self.owners.verify()


@dataclass(frozen=True, slots=True)
class NftTransferOutput(State):
    """Type 11: ``u32 groupID | u32 len payload | OutputOwners``."""

    group_id: int
    payload: bytes
    owners: OutputOwners

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.u32(self.group_id)
        w.bytes_u32(self.payload)
        self.owners.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.u32(), r.bytes_u32(), OutputOwners.decode(r, reg))

    def verify(self) -> None:
        _verify_payload(self.payload)
        self.owners.verify()


@dataclass(frozen=True, slots=True)
class NftMintOperation(FxOperation):
    """Type 12: ``Input | u32 groupID | u32 len payload | u32 n × OutputOwners``."""

    mint_input: Input
    group_id: int
    payload: bytes
    outputs: tuple[OutputOwners, ...]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.mint_input.encode(w, reg)
        w.u32(self.group_id)
        w.bytes_u32(self.payload)
        w.u32(len(self.outputs))
        for owners in self.outputs:
            owners.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        mint_input = Input.decode(r, reg)
        group_id = r.u32()
        payload = r.bytes_u32()
        count = r.count_u32()  # an OutputOwners is at least 16 bytes
        return cls(mint_input, group_id, payload, tuple(OutputOwners.decode(r, reg) for _ in range(count)))

    def verify(self) -> None:
        _verify_payload(self.payload)
        for owners in self.outputs:
            owners.verify()
        self.mint_input.verify()


@dataclass(frozen=True, slots=True)
class NftTransferOperation(FxOperation):
    """Type 13: ``Input | NftTransferOutput`` (inline, no type ID)."""

    input: Input
    output: NftTransferOutput

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.input.encode(w, reg)
        self.output.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(Input.decode(r, reg), NftTransferOutput.decode(r, reg))

    def verify(self) -> None:
        self.input.verify()
        self.output.verify()


@dataclass(frozen=True, slots=True)
class NftCredential(Credential):
    """Type 14: same body as a secp256k1fx Credential."""
