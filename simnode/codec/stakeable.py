"""P-Chain stakeable locks (vms/platformvm/stakeable): an output or input locked until a time, but stakeable."""

from dataclasses import dataclass
from typing import Self

from simnode.codec.errors import VerifyError
from simnode.codec.packer import Reader, Writer
from simnode.codec.registry import TransferableIn, TransferableOut, TypeRegistry


@dataclass(frozen=True, slots=True)
class StakeableLockOut(TransferableOut):
    """Type 22: ``u64 locktime | u32 typeID | TransferableOut``."""

    locktime: int
    out: TransferableOut

    @property
    def amount(self) -> int:
        return self.out.amount  # type: ignore[attr-defined]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.u64(self.locktime)
        reg.encode_typed(w, self.out)  # type: ignore[arg-type]

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.u64(), reg.decode_typed(r, TransferableOut))

    def verify(self) -> None:
        if self.locktime == 0:
            raise VerifyError("invalid locktime")
        if isinstance(self.out, StakeableLockOut):
            raise VerifyError("shouldn't nest stakeable locks")
        self.out.verify()  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class StakeableLockIn(TransferableIn):
    """Type 21: ``u64 locktime | u32 typeID | TransferableIn``."""

    locktime: int
    in_: TransferableIn

    @property
    def amount(self) -> int:
        return self.in_.amount  # type: ignore[attr-defined]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.u64(self.locktime)
        reg.encode_typed(w, self.in_)  # type: ignore[arg-type]

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.u64(), reg.decode_typed(r, TransferableIn))

    def verify(self) -> None:
        if self.locktime == 0:
            raise VerifyError("invalid locktime")
        if isinstance(self.in_, StakeableLockIn):
            raise VerifyError("shouldn't nest stakeable locks")
        self.in_.verify()  # type: ignore[attr-defined]
