"""JSON forms of the structures the X- and P-Chain share (avax.BaseTx, secp256k1fx, stakeable locks).

AvalancheGo marshals txs with Go's encoding/json, so these follow its rules:

* struct fields in declaration order, with embedded structs' fields promoted in place;
* types with a MarshalJSON built from a Go map (secp256k1fx.OutputOwners, TransferOutput,
  Credential) come out with their keys in alphabetical order;
* plain uint64/uint32 fields are JSON numbers (not the quoted json.Uint64 of API replies);
* ids.ID / ids.ShortID are cb58, ids.NodeID is ``NodeID-…``;
* types.JSONByteSlice is ``0x`` hex (HexNC), a plain Go ``[]byte`` is standard base64 and a fixed
  ``[N]byte`` array is a list of numbers;
* slices decoded by the codec are never nil, so empty lists are ``[]``, not ``null``.

Addresses are formatted by the caller's ``addr`` function (``<chain alias>-<hrp>1…`` once
AvalancheGo's InitCtx has run, which both getTx and getBlock do).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable
from typing import Any

from simnode.codec import (
    BaseTxFields,
    Credential,
    Input,
    OutputOwners,
    StakeableLockIn,
    StakeableLockOut,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
)
from simnode.formats.ids import SECP256K1FX_ID, id_to_str

AddrFn = Callable[[bytes], str]

SECP256K1FX_ID_STR = id_to_str(SECP256K1FX_ID)


def hex_bytes(data: bytes) -> str:
    """types.JSONByteSlice / formatting.HexNC: ``0x`` + lowercase hex, no checksum."""
    return "0x" + bytes(data).hex()


def base64_bytes(data: bytes) -> str:
    """A plain Go ``[]byte`` field: encoding/json writes standard, padded base64."""
    return base64.b64encode(bytes(data)).decode("ascii")


def owners_json(owners: OutputOwners, addr: AddrFn) -> dict[str, Any]:
    """secp256k1fx.OutputOwners.Fields() marshalled as a Go map: ``addresses, locktime, threshold``."""
    return {"addresses": [addr(a) for a in owners.addresses], "locktime": owners.locktime,
            "threshold": owners.threshold}


def transfer_output_json(out: TransferOutput, addr: AddrFn) -> dict[str, Any]:
    """secp256k1fx.TransferOutput: the owners' map plus ``amount`` (alphabetical)."""
    return {"addresses": [addr(a) for a in out.owners.addresses], "amount": out.amount,
            "locktime": out.owners.locktime, "threshold": out.owners.threshold}


def sig_input_json(inp: Input) -> dict[str, Any]:
    """secp256k1fx.Input (also a subnet / disable authorization): ``{signatureIndices}``."""
    return {"signatureIndices": list(inp.sig_indices)}


def transfer_input_json(in_: TransferInput) -> dict[str, Any]:
    """secp256k1fx.TransferInput: ``amount`` then the embedded Input's ``signatureIndices``."""
    return {"amount": in_.amount, "signatureIndices": list(in_.input.sig_indices)}


def credential_json(cred: Credential) -> dict[str, Any]:
    """secp256k1fx.Credential: ``{signatures: [0x…]}``."""
    return {"signatures": [hex_bytes(s) for s in cred.signatures]}


def secp_output_json(out: Any, addr: AddrFn) -> dict[str, Any]:
    """A secp256k1fx output, or a stakeable.LockOut around one (``{locktime, output}``)."""
    if isinstance(out, StakeableLockOut):
        return {"locktime": out.locktime, "output": secp_output_json(out.out, addr)}
    if isinstance(out, TransferOutput):
        return transfer_output_json(out, addr)
    return {}


def secp_input_json(in_: Any) -> dict[str, Any]:
    """A secp256k1fx input, or a stakeable.LockIn around one (``{locktime, input}``)."""
    if isinstance(in_, StakeableLockIn):
        return {"locktime": in_.locktime, "input": secp_input_json(in_.in_)}
    if isinstance(in_, TransferInput):
        return transfer_input_json(in_)
    return {}


def transferable_output_json(out: TransferableOutput, fx_id: str, output: dict[str, Any]) -> dict[str, Any]:
    """avax.TransferableOutput: embedded Asset (``assetID``), ``fxID``, ``output``."""
    return {"assetID": id_to_str(out.asset_id), "fxID": fx_id, "output": output}


def transferable_input_json(in_: TransferableInput, fx_id: str, input_: dict[str, Any]) -> dict[str, Any]:
    """avax.TransferableInput: embedded UTXOID (``txID, outputIndex``), Asset, ``fxID``, ``input``."""
    return {"txID": id_to_str(in_.tx_id), "outputIndex": in_.output_index, "assetID": id_to_str(in_.asset_id),
            "fxID": fx_id, "input": input_}


def base_tx_json(base: BaseTxFields, out_json: Callable[[TransferableOutput], dict[str, Any]],
                 in_json: Callable[[TransferableInput], dict[str, Any]]) -> dict[str, Any]:
    """avax.BaseTx: ``networkID, blockchainID, outputs, inputs, memo`` (memo is a JSONByteSlice)."""
    return {"networkID": base.network_id, "blockchainID": id_to_str(base.blockchain_id),
            "outputs": [out_json(o) for o in base.outs], "inputs": [in_json(i) for i in base.ins],
            "memo": hex_bytes(base.memo)}


def secp_transferable_output_json(out: TransferableOutput, addr: AddrFn) -> dict[str, Any]:
    """An output on a chain whose only fx is secp256k1fx (the P-Chain): fxID is always secp256k1fx."""
    return transferable_output_json(out, SECP256K1FX_ID_STR, secp_output_json(out.out, addr))


def secp_transferable_input_json(in_: TransferableInput) -> dict[str, Any]:
    return transferable_input_json(in_, SECP256K1FX_ID_STR, secp_input_json(in_.in_))


def secp_outputs_json(outs: Iterable[TransferableOutput], addr: AddrFn) -> list[dict[str, Any]]:
    return [secp_transferable_output_json(o, addr) for o in outs]


def secp_inputs_json(ins: Iterable[TransferableInput]) -> list[dict[str, Any]]:
    return [secp_transferable_input_json(i) for i in ins]


__all__ = [
    "SECP256K1FX_ID_STR",
    "base64_bytes",
    "base_tx_json",
    "credential_json",
    "hex_bytes",
    "owners_json",
    "secp_input_json",
    "secp_inputs_json",
    "secp_output_json",
    "secp_outputs_json",
    "secp_transferable_input_json",
    "secp_transferable_output_json",
    "sig_input_json",
    "transfer_input_json",
    "transfer_output_json",
    "transferable_input_json",
    "transferable_output_json",
]
