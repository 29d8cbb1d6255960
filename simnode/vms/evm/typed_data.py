"""What the node's accounts sign for eth_signTypedData_v4, _v3 and eth_signTypedData.

* v4: EIP-712 (eth-account's encoder, the encoding of MetaMask's eth-sig-util V4: nested structs,
  arrays); the typed data as a JSON object or as a string holding one (viem and ethers send it
  stringified).
* v3: the same encoding without arrays (eth-sig-util's V3 refuses them).
* eth_signTypedData: MetaMask's first typed data, a list of {type, name, value}
  (eth-sig-util's typedSignatureHash), or an EIP-712 object as v4.

Malformed typed data is a TypedDataError, answered -32602 as Anvil answers it.
"""

from __future__ import annotations

import json
from typing import Any

from ...crypto.hashing import keccak256
from simnode.errors import InvalidInput


class TypedDataError(InvalidInput):
    pass


_PARTS = (("types", dict), ("primaryType", str), ("domain", dict), ("message", dict))


def _load(data: Any) -> Any:
    if isinstance(data, str):
        try:
            return json.loads(data)
        except ValueError as exc:
            raise TypedDataError(f"invalid typed data: {exc}") from None
    return data


def _eip712(data: Any, arrays: bool) -> bytes:
    if not isinstance(data, dict):
        raise TypedDataError("invalid typed data: an object with types, primaryType, domain and message is expected")
    for key, kind in _PARTS:
        if not isinstance(data.get(key), kind):
            raise TypedDataError(f"invalid typed data: missing or malformed field `{key}`")
    types = data["types"]
    for name, fields in types.items():
        if not isinstance(fields, list) or not all(isinstance(f, dict) and isinstance(f.get("name"), str)
                                                   and isinstance(f.get("type"), str) for f in fields):
            raise TypedDataError(f"invalid typed data: type `{name}` is not a list of {{name, type}}")
        if not arrays and any(f["type"].endswith("]") for f in fields):
            raise TypedDataError("Arrays are unimplemented in encodeData; use V4 extension")
    if data["primaryType"] not in types:
        raise TypedDataError(f"missing type in type resolution: {data['primaryType']}")
    from eth_account.messages import encode_typed_data  # imported on first use, not at start

    typed = dict(data)
    typed["types"] = {"EIP712Domain": [], **types}
    try:
        signable = encode_typed_data(full_message=typed)
    except Exception as exc:  # noqa: BLE001 - eth-account reports bad data with many exception types
        raise TypedDataError(f"invalid typed data: {exc}") from None
    return keccak256(b"\x19" + signable.version + signable.header + signable.body)


def _legacy(entries: list) -> bytes:
    """eth-sig-util's typedSignatureHash (eth_signTypedData's first form)."""
    from eth_abi.packed import encode_packed

    if not entries or not all(isinstance(e, dict) and isinstance(e.get("type"), str) for e in entries):
        raise TypedDataError("invalid typed data: a non-empty list of {type, name, value} is expected")
    if not all(e.get("name") for e in entries):
        raise TypedDataError("Name is missing")
    types = [e["type"] for e in entries]
    values = [bytes.fromhex(e["value"].removeprefix("0x")) if e["type"] == "bytes" and isinstance(e["value"], str)
              else e.get("value") for e in entries]
    try:
        schema = keccak256(encode_packed(["string"] * len(entries), [f"{e['type']} {e['name']}" for e in entries]))
        return keccak256(schema + keccak256(encode_packed(types, values)))
    except Exception as exc:  # noqa: BLE001 - eth-abi's encoders raise several types
        raise TypedDataError(f"invalid typed data: {exc}") from None


def typed_data_digest(data: Any, version: str) -> bytes:
    """The hash an account signs for typed data of `version` ("v1", "v3" or "v4")."""
    data = _load(data)
    if version == "v1" and isinstance(data, list):
        return _legacy(data)
    return _eip712(data, arrays=version != "v3")
