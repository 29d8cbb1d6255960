"""X-Chain transactions: their types, parse, serialize and sign exactly as AvalancheGo's vms/avm does.

Types (node-api.md §4.1, X table): BaseTx 0, CreateAssetTx 1, OperationTx 2, ImportTx 3,
ExportTx 4; the fx types 5–19 come from `simnode.codec.new_x_registry`. Verifying a tx is
`verify.py`'s job, what accepting it changes `execute.py`'s.

Every error is a `TxError` whose text is AvalancheGo's.
"""

from __future__ import annotations

import builtins
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Self

from simnode.codec.signed import encode_signed, read_signed_body
from simnode.codec import (
    UTXO,
    BaseTxFields,
    CodecError,
    Credential,
    MintOperation,
    MintOutput,
    Reader,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
    TypeRegistry,
    Writer,
    encode_utxo,
    new_x_registry,
)
from simnode.codec.nftfx import (
    NftCredential,
    NftMintOperation,
    NftMintOutput,
    NftTransferOperation,
    NftTransferOutput,
)
from simnode.codec.propertyfx import (
    PropertyBurnOperation,
    PropertyCredential,
    PropertyMintOperation,
    PropertyMintOutput,
    PropertyOwnedOutput,
)
from simnode.codec.registry import FxOperation, State
from simnode.formats.ids import NFTFX_ID, PROPERTYFX_ID, SECP256K1FX_ID, utxo_id
from simnode.errors import TxError  # noqa: F401 - importers of the X-Chain txs name it here

ID_LEN = 32
CODEC_VERSION_BYTES = b"\x00\x00"

FX_IDS = (SECP256K1FX_ID, NFTFX_ID, PROPERTYFX_ID)
SECP_FX, NFT_FX, PROPERTY_FX = 0, 1, 2
FX_CREDENTIALS = (Credential, NftCredential, PropertyCredential)  # by fx index


# --------------------------------------------------------------------------------------- types


class UnsignedTx:
    """Marker for avm txs.UnsignedTx (the interface a signed tx's first field is declared with)."""

    __slots__ = ()
    base: BaseTxFields

    def input_utxo_ids(self) -> list[bytes]:
        return [i.utxo_id for i in self.base.ins]


@dataclass(frozen=True, slots=True)
class BaseTx(UnsignedTx):
    base: BaseTxFields

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg))


@dataclass(frozen=True, slots=True)
class InitialState:
    """``u32 fxIndex | u32 n | n × (u32 typeID | state)``."""

    fx_index: int
    outs: tuple[State, ...]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.u32(self.fx_index)
        w.u32(len(self.outs))
        for out in self.outs:
            reg.encode_typed(w, out)  # type: ignore[arg-type]

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        fx_index = r.u32()
        count = r.count_u32()
        return cls(fx_index, tuple(reg.decode_typed(r, State) for _ in range(count)))


@dataclass(frozen=True, slots=True)
class CreateAssetTx(UnsignedTx):
    base: BaseTxFields
    name: str
    symbol: str
    denomination: int
    states: tuple[InitialState, ...]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.str_u16(self.name)
        w.str_u16(self.symbol)
        w.u8(self.denomination)
        w.u32(len(self.states))
        for state in self.states:
            state.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        base = BaseTxFields.decode(r, reg)
        name = r.str_u16()
        symbol = r.str_u16()
        denomination = r.u8()
        count = r.count_u32()
        return cls(base, name, symbol, denomination, tuple(InitialState.decode(r, reg) for _ in range(count)))


@dataclass(frozen=True, slots=True)
class Operation:
    """``32 assetID | u32 n × (32 txID | u32 outputIndex) | u32 typeID | op``."""

    asset_id: bytes
    utxo_ids: tuple[tuple[bytes, int], ...]
    op: FxOperation

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.fixed_bytes(self.asset_id, ID_LEN)
        w.u32(len(self.utxo_ids))
        for tx_id, index in self.utxo_ids:
            w.fixed_bytes(tx_id, ID_LEN)
            w.u32(index)
        reg.encode_typed(w, self.op)  # type: ignore[arg-type]

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        asset_id = r.fixed_bytes(ID_LEN)
        count = r.count_u32()
        utxo_ids = tuple((r.fixed_bytes(ID_LEN), r.u32()) for _ in range(count))
        return cls(asset_id, utxo_ids, reg.decode_typed(r, FxOperation))

    def input_ids(self) -> list[bytes]:
        return [utxo_id(t, i) for t, i in self.utxo_ids]


@dataclass(frozen=True, slots=True)
class OperationTx(UnsignedTx):
    base: BaseTxFields
    ops: tuple[Operation, ...]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.u32(len(self.ops))
        for op in self.ops:
            op.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        base = BaseTxFields.decode(r, reg)
        count = r.count_u32()
        return cls(base, tuple(Operation.decode(r, reg) for _ in range(count)))

    def input_utxo_ids(self) -> list[bytes]:
        ids = [i.utxo_id for i in self.base.ins]
        for op in self.ops:
            ids.extend(op.input_ids())
        return ids


@dataclass(frozen=True, slots=True)
class ImportTx(UnsignedTx):
    base: BaseTxFields
    source_chain: bytes
    imported_ins: tuple[TransferableInput, ...]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.fixed_bytes(self.source_chain, ID_LEN)
        w.u32(len(self.imported_ins))
        for in_ in self.imported_ins:
            in_.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        base = BaseTxFields.decode(r, reg)
        source = r.fixed_bytes(ID_LEN)
        count = r.count_u32()
        return cls(base, source, tuple(TransferableInput.decode(r, reg) for _ in range(count)))

    def input_utxo_ids(self) -> list[bytes]:
        return [i.utxo_id for i in self.base.ins] + [i.utxo_id for i in self.imported_ins]


@dataclass(frozen=True, slots=True)
class ExportTx(UnsignedTx):
    base: BaseTxFields
    destination_chain: bytes
    exported_outs: tuple[TransferableOutput, ...]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.fixed_bytes(self.destination_chain, ID_LEN)
        w.u32(len(self.exported_outs))
        for out in self.exported_outs:
            out.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        base = BaseTxFields.decode(r, reg)
        dest = r.fixed_bytes(ID_LEN)
        count = r.count_u32()
        return cls(base, dest, tuple(TransferableOutput.decode(r, reg) for _ in range(count)))


BASE_TX_ID, CREATE_ASSET_TX_ID, OPERATION_TX_ID, IMPORT_TX_ID, EXPORT_TX_ID = 0, 1, 2, 3, 4
TX_TYPE_NAMES = {BaseTx: "BaseTx", CreateAssetTx: "CreateAssetTx", OperationTx: "OperationTx",
                 ImportTx: "ImportTx", ExportTx: "ExportTx"}


def _new_registry() -> TypeRegistry:
    reg = new_x_registry()
    reg.register(BASE_TX_ID, BaseTx)
    reg.register(CREATE_ASSET_TX_ID, CreateAssetTx)
    reg.register(OPERATION_TX_ID, OperationTx)
    reg.register(IMPORT_TX_ID, ImportTx)
    reg.register(EXPORT_TX_ID, ExportTx)
    return reg


X_REGISTRY = _new_registry()

# Which fx a concrete type belongs to (AvalancheGo's typeToFxIndex).
FX_INDEX_OF_TYPE: dict[type, int] = {
    TransferInput: SECP_FX, MintOutput: SECP_FX, TransferOutput: SECP_FX, MintOperation: SECP_FX,
    Credential: SECP_FX,
    NftMintOutput: NFT_FX, NftTransferOutput: NFT_FX, NftMintOperation: NFT_FX, NftTransferOperation: NFT_FX,
    NftCredential: NFT_FX,
    PropertyMintOutput: PROPERTY_FX, PropertyOwnedOutput: PROPERTY_FX, PropertyMintOperation: PROPERTY_FX,
    PropertyBurnOperation: PROPERTY_FX, PropertyCredential: PROPERTY_FX,
}


# --------------------------------------------------------------------------------------- signed tx


@dataclass(frozen=True, slots=True)
class Tx:
    """A signed X-Chain tx: ``u16 0 | u32 typeID | unsigned | u32 n | (u32 typeID | credential)…``."""

    unsigned: UnsignedTx
    creds: tuple[Credential, ...]
    unsigned_bytes: bytes = field(repr=False)
    bytes: bytes = field(repr=False)
    id: builtins.bytes = field(default=b"")

    @property
    def unsigned_hash(self) -> builtins.bytes:
        return hashlib.sha256(self.unsigned_bytes).digest()

    @property
    def type_name(self) -> str:
        return TX_TYPE_NAMES[type(self.unsigned)]


def read_tx_body(r: Reader, reg: TypeRegistry = X_REGISTRY) -> Tx:
    """A signed tx without its version prefix (as inside a block); its bytes get the prefix."""
    s = read_signed_body(r, reg, lambda r: reg.decode_typed(r, UnsignedTx), Credential)
    return Tx(s.unsigned, s.credentials, s.unsigned_bytes, s.tx_bytes, s.tx_id)


def check_done(r: Reader, total: int) -> None:
    if r.remaining:
        raise CodecError(f"trailing buffer space: read {r.offset} provided {total}")


def parse_tx(data: bytes, reg: TypeRegistry = X_REGISTRY) -> Tx:
    """Decode signed tx bytes (ParseTx); rejects a wrong codec version and trailing bytes."""
    r = Reader(data)
    r.codec_version()
    tx = read_tx_body(r, reg)
    check_done(r, len(data))
    return tx


def encode_tx(unsigned: UnsignedTx, creds: Iterable[Credential], reg: TypeRegistry = X_REGISTRY) -> Tx:
    s = encode_signed(unsigned, tuple(creds), reg)  # type: ignore[arg-type]
    return Tx(unsigned, s.credentials, s.unsigned_bytes, s.tx_bytes, s.tx_id)


def sign_tx(unsigned: UnsignedTx, keys: list[list[bytes]], reg: TypeRegistry = X_REGISTRY,
            fx_indices: Sequence[int] | None = None) -> Tx:
    """Sign like avalanchejs/AvalancheGo's wallet: keys[i] signs credential i, a credential of the fx
    `fx_indices[i]` (all secp256k1fx if not given; an nftfx/propertyfx operation needs its own)."""
    from simnode.crypto.secp256k1 import sign_hash

    digest = hashlib.sha256(reg.marshal(unsigned)).digest()  # type: ignore[arg-type]
    fxs = fx_indices if fx_indices is not None else [SECP_FX] * len(keys)
    creds = [FX_CREDENTIALS[fx](tuple(sign_hash(k, digest) for k in ks)) for fx, ks in zip(fxs, keys, strict=True)]
    return encode_tx(unsigned, creds, reg)


def utxo_bytes(utxo: UTXO) -> bytes:
    return encode_utxo(utxo, X_REGISTRY)


# --------------------------------------------------------------------------------------- canonical order


def state_sort_key(state: State) -> bytes:
    w = Writer()
    X_REGISTRY.encode_typed(w, state)  # type: ignore[arg-type]
    return w.getvalue()


def op_sort_key(op: Operation) -> bytes:
    w = Writer()
    op.encode(w, X_REGISTRY)
    return w.getvalue()
