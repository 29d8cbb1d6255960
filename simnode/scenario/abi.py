"""Contract ABIs for scenario steps: function lookup, argument conversion, encode and decode.

A function is named by its signature (``transfer(address,uint256)``, optionally with outputs:
``balanceOf(address)(uint256)``) or, when the contract has an ABI, by its bare name.
Arguments accept scenario-friendly values: account names for addresses, amounts with units
("10 ether", "1.5 AVAX" = 1.5·10^18) for integers, 0x-hex for bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from eth_utils import to_checksum_address

from ..crypto.hashing import keccak256
from ..formats.amounts import AVAX_FAMILY, parse_amount
from ..formats.errors import FormatError

_SIG = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*?)\)\s*(?:\((.*)\))?\s*")


class AbiError(ValueError):
    pass


def load_artifact(path: Path) -> tuple[bytes, list[dict[str, Any]] | None]:
    """(creation bytecode, abi) from a JSON artifact: {abi, bytecode} with bytecode a hex string
    or {"object": hex} (solc, Hardhat and Foundry shapes)."""
    try:
        doc = json.loads(path.read_text())
    except OSError as exc:
        raise AbiError(f"cannot read artifact {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise AbiError(f"artifact {path} is not JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise AbiError(f"artifact {path}: expected a JSON object with abi and bytecode")
    code = doc.get("bytecode")
    if isinstance(code, dict):
        code = code.get("object")
    if code is None and isinstance(doc.get("evm"), dict):
        code = doc["evm"].get("bytecode", {}).get("object")
    if not isinstance(code, str):
        raise AbiError(f"artifact {path} has no bytecode")
    try:
        bytecode = bytes.fromhex(code[2:] if code.startswith("0x") else code)
    except ValueError:
        raise AbiError(f"artifact {path}: bytecode is not hex (unlinked libraries?)") from None
    abi = doc.get("abi")
    if isinstance(abi, str):
        abi = json.loads(abi)
    return bytecode, abi


def load_abi(value: Any, base_dir: Path) -> list[dict[str, Any]] | None:
    if value is None:
        return None
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        path = base_dir / value
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise AbiError(f"cannot read ABI {path}: {exc}") from None
        return doc["abi"] if isinstance(doc, dict) and "abi" in doc else doc
    raise AbiError("abi must be a list or a path to a JSON file")


def _type_str(param: dict[str, Any]) -> str:
    t = param["type"]
    if t.startswith("tuple"):
        inner = ",".join(_type_str(c) for c in param.get("components", []))
        return f"({inner}){t[5:]}"
    return t


class Function:
    def __init__(self, name: str, inputs: list[str], outputs: list[str] | None) -> None:
        self.name = name
        self.inputs = inputs
        self.outputs = outputs

    @property
    def signature(self) -> str:
        return f"{self.name}({','.join(self.inputs)})"

    @property
    def selector(self) -> bytes:
        return keccak256(self.signature.encode())[:4]


def _split_types(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def find_function(spec: str, abi: list[dict[str, Any]] | None, nargs: int) -> Function:
    m = _SIG.fullmatch(spec)
    if m and "(" in spec:
        name, ins, outs = m.group(1), _split_types(m.group(2)), m.group(3)
        outputs = _split_types(outs) if outs is not None else None
        if outputs is None and abi:
            for item in abi:
                if item.get("type") == "function" and item.get("name") == name and \
                        [_type_str(p) for p in item.get("inputs", [])] == ins:
                    outputs = [_type_str(p) for p in item.get("outputs", [])]
        return Function(name, ins, outputs)
    if not abi:
        raise AbiError(f"function {spec!r}: give a signature like {spec}(address,uint256) (the contract has no ABI)")
    cands = [i for i in abi if i.get("type") == "function" and i.get("name") == spec.strip()]
    if len(cands) > 1:
        cands = [i for i in cands if len(i.get("inputs", [])) == nargs]
    if not cands:
        names = sorted({name for i in abi if i.get("type") == "function" and (name := i.get("name"))})
        raise AbiError(f"the ABI has no function {spec!r} (has: {', '.join(names)})")
    if len(cands) > 1:
        raise AbiError(f"function {spec!r} is overloaded; give its signature")
    item = cands[0]
    return Function(item["name"], [_type_str(p) for p in item.get("inputs", [])],
                    [_type_str(p) for p in item.get("outputs", [])])


def constructor_inputs(abi: list[dict[str, Any]] | None) -> list[str]:
    for item in abi or []:
        if item.get("type") == "constructor":
            return [_type_str(p) for p in item.get("inputs", [])]
    return []


def to_int(value: Any) -> int:
    if isinstance(value, bool):
        raise AbiError(f"expected an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.startswith(("0x", "0X")):
            return int(text, 16)
        if text.startswith("-") and text[1:].isdigit():
            return int(text)
        try:
            amount, family = parse_amount(text)
        except FormatError as exc:
            raise AbiError(str(exc)) from None
        return amount * 10**9 if family == AVAX_FAMILY else amount
    raise AbiError(f"expected an integer, got {value!r}")


def convert_arg(typ: str, value: Any, address_of: Callable[[str], bytes]) -> Any:
    if typ.endswith("]"):
        base = typ[: typ.rindex("[")]
        if not isinstance(value, list):
            raise AbiError(f"{typ}: expected a list, got {value!r}")
        return [convert_arg(base, v, address_of) for v in value]
    if typ.startswith("("):
        types = _split_types(typ[1:-1])
        if not isinstance(value, list) or len(value) != len(types):
            raise AbiError(f"{typ}: expected a list of {len(types)} values")
        return tuple(convert_arg(t, v, address_of) for t, v in zip(types, value, strict=True))
    if typ == "address":
        if not isinstance(value, str):
            raise AbiError(f"address: expected a name or 0x address, got {value!r}")
        return to_checksum_address(address_of(value))
    if typ.startswith(("uint", "int")):
        return to_int(value)
    if typ == "bool":
        if not isinstance(value, bool):
            raise AbiError(f"bool: expected true or false, got {value!r}")
        return value
    if typ == "string":
        if not isinstance(value, str):
            raise AbiError(f"string: expected a string, got {value!r}")
        return value
    if typ.startswith("bytes"):
        if isinstance(value, str) and value.startswith("0x"):
            try:
                return bytes.fromhex(value[2:])
            except ValueError:
                raise AbiError(f"{typ}: invalid hex {value!r}") from None
        raise AbiError(f"{typ}: expected 0x-hex, got {value!r}")
    raise AbiError(f"unsupported ABI type {typ}")


def encode_args(types: list[str], args: list[Any], address_of: Callable[[str], bytes]) -> bytes:
    if len(types) != len(args):
        raise AbiError(f"expected {len(types)} argument(s) ({', '.join(types) or 'none'}), got {len(args)}")
    values = [convert_arg(t, a, address_of) for t, a in zip(types, args, strict=True)]
    try:
        return abi_encode(types, values)
    except Exception as exc:  # noqa: BLE001 - eth-abi raises several kinds
        raise AbiError(f"cannot encode arguments: {exc}") from None


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes):
        return "0x" + value.hex()
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def decode_result(outputs: list[str] | None, data: bytes) -> Any:
    if outputs is None:
        return "0x" + data.hex()
    if not outputs:
        return None
    try:
        values = abi_decode(outputs, data)
    except Exception as exc:  # noqa: BLE001
        raise AbiError(f"cannot decode the result as ({','.join(outputs)}): {exc}") from None
    jsonable = [_jsonable(v) for v in values]
    return jsonable[0] if len(jsonable) == 1 else jsonable


def revert_reason(data: bytes) -> str | None:
    if data[:4] == bytes.fromhex("08c379a0"):
        try:
            return abi_decode(["string"], data[4:])[0]
        except Exception:  # noqa: BLE001
            return None
    return None
