"""Type-ID tables (linearcodec): each chain maps u32 type IDs to the classes of its interface values.

Every codec structure is a frozen dataclass with
    ``encode(self, w: Writer, reg: TypeRegistry) -> None`` and
    ``@classmethod decode(cls, r: Reader, reg: TypeRegistry) -> Self``;
the registry is passed down so that interface-typed fields (an output, an input, a credential, a tx)
are written as ``u32 typeID | body`` with the chain's own table.

Interfaces are marker base classes: a field typed ``avax.TransferableOut`` in Go decodes only to
classes that subclass TransferableOut here, as linearcodec rejects a type that does not implement the
field's interface.
"""

from typing import Any, Protocol, Self, TypeVar

from simnode.codec.errors import CodecError
from simnode.codec.packer import Reader, Writer


class Encodable(Protocol):
    def encode(self, w: Writer, reg: "TypeRegistry") -> None: ...

    @classmethod
    def decode(cls, r: Reader, reg: "TypeRegistry") -> Self: ...


# Interface markers (Go interfaces that interface-typed fields are declared with).
class State:
    """verify.State: what a UTXO may hold (outputs of any fx)."""

    __slots__ = ()


class TransferableOut(State):
    """avax.TransferableOut: an output with an amount (TransferableOutput.out)."""

    __slots__ = ()


class TransferableIn:
    """avax.TransferableIn: an input with an amount (TransferableInput.in_)."""

    __slots__ = ()


class Owner:
    """fx.Owner: a P-Chain owner (rewards owner, subnet owner)."""

    __slots__ = ()


class FxOperation:
    """fxs.FxOperation: an X-Chain operation body."""

    __slots__ = ()


T = TypeVar("T")

# Go's names, for the reflect codec's "*pkg.Type does not implement interface pkg.Interface": the Go
# package of a simnode module, and the types whose Go name is not the class name in that package.
_GO_PACKAGES = {"secp256k1fx": "secp256k1fx", "nftfx": "nftfx", "propertyfx": "propertyfx", "stakeable": "stakeable",
                "avax": "avax", "atomic_txs": "atomic", "txs": "txs", "tx_parts": "txs"}
_GO_NAMES = {"EmptySigner": "signer.Empty", "State": "verify.State", "TransferableOut": "avax.TransferableOut",
             "TransferableIn": "avax.TransferableIn", "Owner": "fx.Owner", "FxOperation": "fxs.FxOperation"}


def go_type(cls: type, interface: bool = False) -> str:
    """A type as Go prints it: a pointer to the struct, or the interface itself."""
    package = _GO_PACKAGES.get(cls.__module__.rsplit(".", 1)[-1], cls.__module__.rsplit(".", 1)[-1])
    name = _GO_NAMES.get(cls.__name__, f"{package}.{cls.__name__}")
    return name if interface else "*" + name


def not_implemented(cls: type, interface: str) -> CodecError:
    return CodecError(f"couldn't unmarshal interface: {go_type(cls)} does not implement interface {interface}")


class TypeRegistry:
    """A chain's type-ID table. Extend it with ``register``; copy it with ``copy``."""

    __slots__ = ("name", "_class_by_id", "_id_by_class")

    def __init__(self, name: str) -> None:
        self.name = name
        self._class_by_id: dict[int, type] = {}
        self._id_by_class: dict[type, int] = {}

    def register(self, type_id: int, cls: type) -> None:
        if type_id in self._class_by_id:
            raise ValueError(f"{self.name}: type ID {type_id} is already {self._class_by_id[type_id].__name__}")
        if cls in self._id_by_class:
            raise ValueError(f"{self.name}: {cls.__name__} already has type ID {self._id_by_class[cls]}")
        self._class_by_id[type_id] = cls
        self._id_by_class[cls] = type_id

    def copy(self, name: str | None = None) -> "TypeRegistry":
        clone = TypeRegistry(name or self.name)
        clone._class_by_id = dict(self._class_by_id)
        clone._id_by_class = dict(self._id_by_class)
        return clone

    def type_id_of(self, obj: object) -> int:
        type_id = self._id_by_class.get(type(obj))
        if type_id is None:
            raise CodecError(f'can\'t marshal unregistered type "{type(obj).__name__}"')
        return type_id

    def class_of(self, type_id: int) -> type:
        cls = self._class_by_id.get(type_id)
        if cls is None:
            raise CodecError(f"couldn't unmarshal interface: unknown type ID {type_id}")
        return cls

    def encode_typed(self, w: Writer, obj: Encodable) -> None:
        """An interface value: u32 type ID, then the body."""
        w.u32(self.type_id_of(obj))
        obj.encode(w, self)

    def decode_typed(self, r: Reader, interface: type[T] | None = None) -> T | Any:
        """Read u32 type ID + body; if `interface` is given the class must implement it."""
        cls = self.class_of(r.type_id())
        if interface is not None and not issubclass(cls, interface):
            raise not_implemented(cls, go_type(interface, interface=True))
        return cls.decode(r, self)

    def marshal(self, obj: Encodable, *, typed: bool = True) -> bytes:
        """Top-level bytes: codec version, then the value (as an interface value when `typed`)."""
        w = Writer()
        w.codec_version()
        if typed:
            self.encode_typed(w, obj)
        else:
            obj.encode(w, self)
        return w.getvalue()

    def unmarshal_typed(self, data: bytes, interface: type[T] | None = None) -> T | Any:
        """Inverse of ``marshal(obj)``: version, typed value, no trailing bytes."""
        r = Reader(data)
        r.codec_version()
        obj = self.decode_typed(r, interface)
        r.done()
        return obj

    def unmarshal(self, data: bytes, cls: type[T]) -> T:
        """Inverse of ``marshal(obj, typed=False)`` for a concrete class."""
        r = Reader(data)
        r.codec_version()
        obj = cls.decode(r, self)  # type: ignore[attr-defined]
        r.done()
        return obj
