"""secp256k1fx structures (vms/secp256k1fx): owners, outputs, inputs, credentials, mint operation."""

from dataclasses import dataclass
from typing import Self

from simnode.codec.errors import VerifyError
from simnode.codec.packer import Reader, Writer
from simnode.codec.registry import FxOperation, Owner, State, TransferableIn, TransferableOut, TypeRegistry
from simnode.codec.sorting import is_sorted_and_unique

ADDRESS_LEN = 20
SIGNATURE_LEN = 65


@dataclass(frozen=True, slots=True)
class OutputOwners(Owner):
    """``u64 locktime | u32 threshold | u32 n | n×20-byte address``."""

    locktime: int
    threshold: int
    addresses: tuple[bytes, ...]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.u64(self.locktime)
        w.u32(self.threshold)
        w.u32(len(self.addresses))
        for address in self.addresses:
            w.fixed_bytes(address, ADDRESS_LEN)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        locktime = r.u64()
        threshold = r.u32()
        count = r.count_u32()
        return cls(locktime, threshold, tuple(r.fixed_bytes(ADDRESS_LEN) for _ in range(count)))

    def verify(self) -> None:
        if self.threshold > len(self.addresses):
            raise VerifyError("output is unspendable")
        if self.threshold == 0 and self.addresses:
            raise VerifyError("output representation should be optimized")
        if not is_sorted_and_unique(self.addresses):
            raise VerifyError("addresses not sorted and unique")


@dataclass(frozen=True, slots=True)
class TransferOutput(TransferableOut):
    """``u64 amount | OutputOwners``."""

    amount: int
    owners: OutputOwners

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.u64(self.amount)
        self.owners.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.u64(), OutputOwners.decode(r, reg))

    def verify(self) -> None:
        if self.amount == 0:
            raise VerifyError("output has no value")
        self.owners.verify()


@dataclass(frozen=True, slots=True)
class OwnersState(State):
    """A state that is only ``OutputOwners``; each fx registers its own subclass as a type."""

    owners: OutputOwners

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.owners.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(OutputOwners.decode(r, reg))

    def verify(self) -> None:
        self.owners.verify()


@dataclass(frozen=True, slots=True)
class MintOutput(OwnersState):
    """``OutputOwners``: the right to mint more of a variable-cap asset."""


@dataclass(frozen=True, slots=True)
class Input:
    """``u32 n | n×u32 sigIndex``: which owner addresses sign (ascending, unique)."""

    sig_indices: tuple[int, ...]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.u32(len(self.sig_indices))
        for index in self.sig_indices:
            w.u32(index)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        count = r.count_u32()
        return cls(tuple(r.u32() for _ in range(count)))

    def verify(self) -> None:
        if not is_sorted_and_unique(self.sig_indices):
            raise VerifyError("address indices not sorted and unique")


@dataclass(frozen=True, slots=True)
class TransferInput(TransferableIn):
    """``u64 amount | Input``."""

    amount: int
    input: Input

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.u64(self.amount)
        self.input.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.u64(), Input.decode(r, reg))

    def verify(self) -> None:
        if self.amount == 0:
            raise VerifyError("input has no value")
        self.input.verify()


@dataclass(frozen=True, slots=True)
class Credential:
    """``u32 n | n×65-byte signature`` (r ‖ s ‖ v)."""

    signatures: tuple[bytes, ...]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.u32(len(self.signatures))
        for signature in self.signatures:
            w.fixed_bytes(signature, SIGNATURE_LEN)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        count = r.count_u32()
        return cls(tuple(r.fixed_bytes(SIGNATURE_LEN) for _ in range(count)))

    def verify(self) -> None:
        """Nothing to check beyond the fixed signature size the codec enforces."""


@dataclass(frozen=True, slots=True)
class MintOperation(FxOperation):
    """``Input | MintOutput | TransferOutput`` (bodies inline, no type IDs)."""

    mint_input: Input
    mint_output: MintOutput
    transfer_output: TransferOutput

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.mint_input.encode(w, reg)
        self.mint_output.encode(w, reg)
        self.transfer_output.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(Input.decode(r, reg), MintOutput.decode(r, reg), TransferOutput.decode(r, reg))

    def verify(self) -> None:
        self.mint_input.verify()
        self.mint_output.verify()
        self.transfer_output.verify()
