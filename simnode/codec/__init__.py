"""The Avalanche linear codec (codec version 0) and the structures all chains share (node-api.md §4)."""

from simnode.codec.avax import (
    UTXO,
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
    decode_utxo,
    encode_utxo,
    inputs_sorted_unique,
    outputs_sorted,
    sort_inputs,
    sort_outputs,
)
from simnode.codec.errors import CodecError, VerifyError
from simnode.codec.packer import Reader, Writer
from simnode.codec.registry import FxOperation, Owner, State, TransferableIn, TransferableOut, TypeRegistry
from simnode.codec.secp256k1fx import (
    Credential,
    Input,
    MintOperation,
    MintOutput,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
from simnode.codec.signed import SignedTx, encode_signed, parse_signed, read_signed_body, tx_id, unsigned_hash
from simnode.codec.sorting import is_sorted, is_sorted_and_unique
from simnode.codec.stakeable import StakeableLockIn, StakeableLockOut
from simnode.codec.tables import new_c_registry, new_p_registry, new_x_registry

__all__ = [
    "UTXO",
    "BaseTxFields",
    "CodecError",
    "Credential",
    "FxOperation",
    "Input",
    "MintOperation",
    "MintOutput",
    "OutputOwners",
    "Owner",
    "Reader",
    "SignedTx",
    "StakeableLockIn",
    "StakeableLockOut",
    "State",
    "TransferInput",
    "TransferOutput",
    "TransferableIn",
    "TransferableInput",
    "TransferableOut",
    "TransferableOutput",
    "TypeRegistry",
    "VerifyError",
    "Writer",
    "decode_utxo",
    "encode_signed",
    "encode_utxo",
    "inputs_sorted_unique",
    "is_sorted",
    "is_sorted_and_unique",
    "new_c_registry",
    "new_p_registry",
    "new_x_registry",
    "outputs_sorted",
    "parse_signed",
    "read_signed_body",
    "sort_inputs",
    "sort_outputs",
    "tx_id",
    "unsigned_hash",
]
