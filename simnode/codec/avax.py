"""Shared structures of vms/components/avax: transferable outputs/inputs, UTXOs, the BaseTx fields."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Self

from simnode.codec.errors import VerifyError
from simnode.codec.packer import Reader, Writer
from simnode.codec.registry import State, TransferableIn, TransferableOut, TypeRegistry
from simnode.codec.sorting import is_sorted, is_sorted_and_unique
from simnode.formats.ids import ZERO_ID, utxo_id

ID_LEN = 32
MAX_MEMO_SIZE = 256

__all__ = [
    "MAX_MEMO_SIZE",
    "UTXO",
    "BaseTxFields",
    "TransferableInput",
    "TransferableOutput",
    "decode_utxo",
    "encode_utxo",
    "inputs_sorted_unique",
    "is_sorted",
    "is_sorted_and_unique",
    "outputs_sorted",
    "sort_inputs",
    "sort_outputs",
]


def _verify_asset(asset_id: bytes) -> None:
    if asset_id == ZERO_ID:
        raise VerifyError("empty asset ID is not valid")


@dataclass(frozen=True, slots=True)
class TransferableOutput:
    """``32 assetID | u32 typeID | output``."""

    asset_id: bytes
    out: TransferableOut

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.fixed_bytes(self.asset_id, ID_LEN)
        reg.encode_typed(w, self.out)  # type: ignore[arg-type]

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.fixed_bytes(ID_LEN), reg.decode_typed(r, TransferableOut))

    def verify(self) -> None:
        _verify_asset(self.asset_id)
        self.out.verify()  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class TransferableInput:
    """``32 txID | u32 outputIndex | 32 assetID | u32 typeID | input``."""

    tx_id: bytes
    output_index: int
    asset_id: bytes
    in_: TransferableIn

    @property
    def utxo_id(self) -> bytes:
        """The consumed UTXO's ID, sha256(u64 outputIndex ‖ txID)."""
        return utxo_id(self.tx_id, self.output_index)

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.fixed_bytes(self.tx_id, ID_LEN)
        w.u32(self.output_index)
        w.fixed_bytes(self.asset_id, ID_LEN)
        reg.encode_typed(w, self.in_)  # type: ignore[arg-type]

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.fixed_bytes(ID_LEN), r.u32(), r.fixed_bytes(ID_LEN), reg.decode_typed(r, TransferableIn))

    def verify(self) -> None:
        _verify_asset(self.asset_id)
        self.in_.verify()  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class UTXO:
    """``32 txID | u32 outputIndex | 32 assetID | u32 typeID | output`` (any fx output)."""

    tx_id: bytes
    output_index: int
    asset_id: bytes
    out: State

    @property
    def id(self) -> bytes:
        return utxo_id(self.tx_id, self.output_index)

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.fixed_bytes(self.tx_id, ID_LEN)
        w.u32(self.output_index)
        w.fixed_bytes(self.asset_id, ID_LEN)
        reg.encode_typed(w, self.out)  # type: ignore[arg-type]

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.fixed_bytes(ID_LEN), r.u32(), r.fixed_bytes(ID_LEN), reg.decode_typed(r, State))


def encode_utxo(utxo: UTXO, reg: TypeRegistry) -> bytes:
    """``u16 0 | UTXO``: the bytes getUTXOs returns."""
    return reg.marshal(utxo, typed=False)


def decode_utxo(data: bytes, reg: TypeRegistry) -> UTXO:
    return reg.unmarshal(data, UTXO)


@dataclass(frozen=True, slots=True)
class BaseTxFields:
    """avax.BaseTx: ``u32 networkID | 32 blockchainID | u32 n outs | u32 n ins | u32 len memo``."""

    network_id: int
    blockchain_id: bytes
    outs: tuple[TransferableOutput, ...]
    ins: tuple[TransferableInput, ...]
    memo: bytes

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.u32(self.network_id)
        w.fixed_bytes(self.blockchain_id, ID_LEN)
        w.u32(len(self.outs))
        for out in self.outs:
            out.encode(w, reg)
        w.u32(len(self.ins))
        for in_ in self.ins:
            in_.encode(w, reg)
        w.bytes_u32(self.memo)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        network_id = r.u32()
        blockchain_id = r.fixed_bytes(ID_LEN)
        outs = tuple(TransferableOutput.decode(r, reg) for _ in range(r.count_u32()))
        ins = tuple(TransferableInput.decode(r, reg) for _ in range(r.count_u32()))
        return cls(network_id, blockchain_id, outs, ins, r.bytes_u32())

    def verify(self, network_id: int, blockchain_id: bytes) -> None:
        """avax.BaseTx.Verify: the tx belongs to this network and chain, and the memo is small enough."""
        if self.network_id != network_id:
            raise VerifyError("tx has wrong network ID")
        if self.blockchain_id != blockchain_id:
            raise VerifyError("tx has wrong chain ID")
        if len(self.memo) > MAX_MEMO_SIZE:
            raise VerifyError(f"memo exceeds maximum length: {len(self.memo)} > {MAX_MEMO_SIZE}")


def _output_sort_key(reg: TypeRegistry) -> Callable[[TransferableOutput], bytes]:
    def key(out: TransferableOutput) -> bytes:
        w = Writer()
        out.encode(w, reg)
        return w.getvalue()

    return key


def outputs_sorted(outs: Sequence[TransferableOutput], reg: TypeRegistry) -> bool:
    """avax.IsSortedTransferableOutputs: ascending by (assetID, typed output bytes); equal ones allowed."""
    return is_sorted(outs, _output_sort_key(reg))


def sort_outputs(outs: Sequence[TransferableOutput], reg: TypeRegistry) -> tuple[TransferableOutput, ...]:
    return tuple(sorted(outs, key=_output_sort_key(reg)))


def _input_sort_key(in_: TransferableInput) -> tuple[bytes, int]:
    return in_.tx_id, in_.output_index


def inputs_sorted_unique(ins: Sequence[TransferableInput]) -> bool:
    """utils.IsSortedAndUnique over UTXOIDs: strictly ascending by (txID, outputIndex)."""
    return is_sorted_and_unique(ins, _input_sort_key)


def sort_inputs(ins: Sequence[TransferableInput]) -> tuple[TransferableInput, ...]:
    return tuple(sorted(ins, key=_input_sort_key))
