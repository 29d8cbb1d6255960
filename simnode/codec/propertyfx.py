"""propertyfx structures (vms/propertyfx), X-Chain only."""

from dataclasses import dataclass
from typing import Self

from simnode.codec.packer import Reader, Writer
from simnode.codec.registry import FxOperation, TypeRegistry
from simnode.codec.secp256k1fx import Credential, Input, OwnersState


@dataclass(frozen=True, slots=True)
class PropertyMintOutput(OwnersState):
    """Type 15: ``OutputOwners``."""


@dataclass(frozen=True, slots=True)
class PropertyOwnedOutput(OwnersState):
    """Type 16: ``OutputOwners``."""


@dataclass(frozen=True, slots=True)
class PropertyMintOperation(FxOperation):
    """Type 17: ``Input | PropertyMintOutput | PropertyOwnedOutput`` (inline)."""

    mint_input: Input
    mint_output: PropertyMintOutput
    owned_output: PropertyOwnedOutput

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.mint_input.encode(w, reg)
        self.mint_output.encode(w, reg)
        self.owned_output.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(Input.decode(r, reg), PropertyMintOutput.decode(r, reg), PropertyOwnedOutput.decode(r, reg))

    def verify(self) -> None:
        self.mint_input.verify()
        self.mint_output.verify()
        self.owned_output.verify()


@dataclass(frozen=True, slots=True)
class PropertyBurnOperation(FxOperation):
    """Type 18: ``Input``."""

    input: Input

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.input.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(Input.decode(r, reg))

    def verify(self) -> None:
        self.input.verify()


@dataclass(frozen=True, slots=True)
class PropertyCredential(Credential):
    """Type 19: same body as a secp256k1fx Credential."""
