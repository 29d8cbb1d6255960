"""geth's JSON shapes and param parsing for the EVM JSON-RPC: quantities, addresses, hashes and
data in, tx/receipt/log/block JSON out. Shared by the eth service, the dev methods, the
websocket and the tracers (service.py and eth_*.py, dev.py, ws.py, tracing/debug_trace.py).

Block JSON is a Go map in coreth, so its keys are alphabetical; transactions, receipts and logs
follow geth's field order. The header parts come from headers.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast


from ...crypto.hashing import keccak256
from ...errors import InvalidArgument, InvalidInput
from ...formats.jsonnum import json_kind
from ...rpc.jsonrpc import InvalidParams
from .receipts import LogRow, logs_bloom

if TYPE_CHECKING:
    from eth_typing import Address

    from .block_rows import BlockInfo
    from .evm_chain import EVMChain

# ----------------------------------------------------------------------------- param parsing


def parse_address(v: Any, arg: int = 0) -> Address:
    """A common.Address argument, typed as py-evm's state takes it (eth_typing's Address, a
    NewType of bytes: the same bytes at run time, where this module does not import it)."""
    if not isinstance(v, str) or not v.startswith(("0x", "0X")):
        raise InvalidParams(f"invalid argument {arg}: hex string without 0x prefix")
    h = v[2:]
    if len(h) != 40:
        raise InvalidParams(f"invalid argument {arg}: hex string has length {len(h)}, want 40 for common.Address")
    try:
        return cast("Address", bytes.fromhex(h))
    except ValueError:
        raise InvalidParams(f"invalid argument {arg}: invalid hex string") from None


def parse_quantity(v: Any, arg: int = 0) -> int:
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if not isinstance(v, str) or not v.startswith(("0x", "0X")):
        raise InvalidParams(f"invalid argument {arg}: hex string without 0x prefix")
    h = v[2:]
    if not h:
        raise InvalidParams(f"invalid argument {arg}: hex string \"0x\"")
    if len(h) > 1 and h[0] == "0":
        raise InvalidParams(f"invalid argument {arg}: hex number with leading zero digits")
    try:
        return int(h, 16)
    except ValueError:
        raise InvalidParams(f"invalid argument {arg}: invalid hex string") from None


def parse_data(v: Any, arg: int = 0) -> bytes:
    # hexutil.Bytes wraps its decoding errors in a json.UnmarshalTypeError
    if v is None:
        return b""
    if not isinstance(v, str) or not v.startswith(("0x", "0X")):
        raise InvalidParams(f"invalid argument {arg}: {_bytes_error('hex string without 0x prefix')}")
    h = v[2:]
    if len(h) % 2:
        raise InvalidParams(f"invalid argument {arg}: {_bytes_error('hex string of odd length')}")
    try:
        return bytes.fromhex(h)
    except ValueError:
        raise InvalidParams(f"invalid argument {arg}: {_bytes_error('invalid hex string')}") from None


def parse_bool(v: Any, arg: int) -> bool:
    """A Go bool argument (a JSON null leaves it false)."""
    if v is not None and not isinstance(v, bool):
        raise InvalidArgument(arg, f"json: cannot unmarshal {json_kind(v)} into Go value of type bool")
    return bool(v)


def parse_go_string(v: Any, arg: int) -> str:
    """An argument the real method takes as a Go string (decoded by the method itself)."""
    if not isinstance(v, str):
        raise InvalidArgument(arg, f"json: cannot unmarshal {json_kind(v)} into Go value of type string")
    return v


def decode_storage_key(s: str) -> int:
    """coreth's decodeHash (eth_getStorageAt, eth_getProof): 0x optional, an odd length padded,
    at most 32 bytes; its errors are the method's (-32000), not the argument decoder's."""
    h = s[2:] if s.startswith(("0x", "0X")) else s
    if len(h) % 2:
        h = "0" + h
    if any(c not in "0123456789abcdefABCDEF" for c in h):
        raise InvalidInput("hex string invalid")
    if len(h) > 64:
        raise InvalidInput("hex string too long, want at most 32 bytes")
    return int(h, 16) if h else 0


def _bytes_error(what: str) -> str:
    return f"json: cannot unmarshal {what} into Go value of type hexutil.Bytes"


_BLOCK_OVERRIDES = {"number": ("block_number", 256), "difficulty": ("difficulty", 256), "time": ("timestamp", 64),
                    "gaslimit": ("gas_limit", 64), "basefee": ("base_fee_per_gas", 256),
                    "blobbasefee": ("blob_base_fee", 256)}


def parse_block_overrides(obj: Any, arg: int) -> dict[str, Any] | None:
    """eth_call's BlockOverrides (Go field names, matched without case) as header fields."""
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise InvalidParams(
            f"invalid argument {arg}: json: cannot unmarshal into Go value of type ethapi.BlockOverrides")
    out: dict[str, Any] = {}
    for key, value in obj.items():
        name = key.lower()
        if value is None:
            continue
        if name == "coinbase":
            out["coinbase"] = parse_address(value, arg)
        elif name in _BLOCK_OVERRIDES:
            field, bits = _BLOCK_OVERRIDES[name]
            n = parse_quantity(value, arg)
            if n >= 1 << bits:
                raise InvalidParams(f"invalid argument {arg}: hex number > {bits} bits")
            out[field] = n
    return out


def parse_args_quantity(obj: dict, key: str, bits: int, arg: int) -> int | None:
    """A TransactionArgs quantity: hexutil.Uint64 (64 bits) or *hexutil.Big (256 bits)."""
    value = obj.get(key)
    if value is None:
        return None
    return go_quantity(value, arg, "hexutil.Uint64" if bits == 64 else "*hexutil.Big", f"TransactionArgs.{key}")


_GO_QUANTITY_BITS = {"hexutil.Uint64": 64, "hexutil.Uint": 64, "*hexutil.Big": 256}


def go_quantity(v: Any, arg: int, go_type: str, field: str = "") -> int:
    """A hexutil.Uint64/Uint/Big as its UnmarshalJSON decodes it (an empty string is 0), its
    errors wrapped as encoding/json wraps them, with the struct field when there is one."""
    where = f"Go struct field {field} of type {go_type}" if field else f"Go value of type {go_type}"
    if not isinstance(v, str):
        raise InvalidArgument(arg, f"json: cannot unmarshal non-string into {where}")
    if not v:
        return 0
    h = v[2:]
    if not v.startswith(("0x", "0X")):
        err = "hex string without 0x prefix"
    elif not h:
        err = 'hex string "0x"'
    elif len(h) > 1 and h[0] == "0":
        err = "hex number with leading zero digits"
    elif len(h) > _GO_QUANTITY_BITS[go_type] // 4:
        err = f"hex number > {_GO_QUANTITY_BITS[go_type]} bits"
    elif any(c not in "0123456789abcdefABCDEF" for c in h):
        err = "invalid hex string"
    else:
        return int(h, 16)
    raise InvalidArgument(arg, f"json: cannot unmarshal {err} into {where}")


def parse_access_list(entries: Any, arg: int) -> list[tuple[Address, list[int]]] | None:
    """A JSON accessList ([{address, storageKeys}]) as py-evm's txs take it."""
    if entries is None:
        return None
    invalid = InvalidParams(f"invalid argument {arg}: json: cannot unmarshal into Go struct field "
                            "TransactionArgs.accessList of type types.AccessList")
    if not isinstance(entries, list):
        raise invalid
    out: list[tuple[Address, list[int]]] = []
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("address"), str):
            raise invalid
        keys = entry.get("storageKeys") or []
        if not isinstance(keys, list):
            raise invalid
        out.append((parse_address(entry["address"], arg), [int.from_bytes(parse_hash(k, arg), "big") for k in keys]))
    return out


@dataclass(frozen=True, slots=True)
class AccountOverride:
    """One account of a StateOverride (geth's OverrideAccount); None leaves a field as it is."""

    nonce: int | None
    code: bytes | None
    balance: int | None
    state: dict[int, int] | None  # replaces the whole storage
    state_diff: dict[int, int] | None  # patches it


def _override_slots(value: Any, arg: int) -> dict[int, int] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InvalidParams(f"invalid argument {arg}: json: cannot unmarshal into Go struct field "
                            "OverrideAccount.state of type map[common.Hash]common.Hash")
    return {int.from_bytes(parse_hash(k, arg), "big"): int.from_bytes(parse_hash(v, arg), "big")
            for k, v in value.items()}


def parse_state_overrides(obj: Any, arg: int) -> dict[bytes, AccountOverride] | None:
    """A StateOverride as geth unmarshals it: addresses, quantities and 32-byte slots checked."""
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise InvalidParams(
            f"invalid argument {arg}: json: cannot unmarshal into Go value of type ethapi.StateOverride")
    out: dict[bytes, AccountOverride] = {}
    for address, account in obj.items():
        if not isinstance(account, dict):
            raise InvalidParams(f"invalid argument {arg}: json: cannot unmarshal into Go value of type "
                                "ethapi.OverrideAccount")
        nonce, balance = account.get("nonce"), account.get("balance")
        if nonce is not None:
            nonce = go_quantity(nonce, arg, "hexutil.Uint64", "OverrideAccount.nonce")
        if balance is not None:
            balance = go_quantity(balance, arg, "*hexutil.Big", "OverrideAccount.balance")
        code = parse_data(account["code"], arg) if account.get("code") is not None else None
        out[parse_address(address, arg)] = AccountOverride(nonce, code, balance,
                                                           _override_slots(account.get("state"), arg),
                                                           _override_slots(account.get("stateDiff"), arg))
    return out


def parse_hash(v: Any, arg: int = 0) -> bytes:
    b = parse_data(v, arg)
    if len(b) != 32:
        raise InvalidParams(f"invalid argument {arg}: hex string has length {len(b) * 2}, want 64 for common.Hash")
    return b


def hx(n: int) -> str:
    return hex(n)


def hb(b: bytes) -> str:
    return "0x" + b.hex()


# ----------------------------------------------------------------------------- formatting


def tx_json(chain: EVMChain, tx: Any, sender: bytes, block: BlockInfo | None, index: int | None,
            raw: bytes | None = None) -> dict:
    type_id = tx.type_id or 0
    h = tx.hash if raw is None else keccak256(raw)
    out: dict[str, Any] = {
        "blockHash": hb(block.hash) if block else None,
        "blockNumber": hx(block.number) if block else None,
        "from": hb(sender),
        "gas": hx(tx.gas),
    }
    base_fee = block.header.base_fee_per_gas if block else None
    if type_id == 2:
        price = (min(tx.max_fee_per_gas, base_fee + tx.max_priority_fee_per_gas) if base_fee is not None
                 else tx.max_fee_per_gas)
        out["gasPrice"] = hx(price)
        out["maxFeePerGas"] = hx(tx.max_fee_per_gas)
        out["maxPriorityFeePerGas"] = hx(tx.max_priority_fee_per_gas)
    else:
        out["gasPrice"] = hx(tx.gas_price)
    out["hash"] = hb(h)
    out["input"] = hb(tx.data)
    out["nonce"] = hx(tx.nonce)
    out["to"] = hb(tx.to) if tx.to else None
    out["transactionIndex"] = hx(index) if index is not None else None
    out["value"] = hx(tx.value)
    out["type"] = hx(type_id)
    if type_id in (1, 2):
        out["accessList"] = [{"address": hb(a), "storageKeys": ["0x" + k.to_bytes(32, "big").hex() for k in keys]}
                             for a, keys in tx.access_list]
        out["chainId"] = hx(tx.chain_id)
        out["v"] = hx(tx.y_parity)
        out["r"] = hx(tx.r)
        out["s"] = hx(tx.s)
        out["yParity"] = hx(tx.y_parity)
    else:
        v = tx.v
        if v not in (27, 28):
            out["chainId"] = hx((v - 35) // 2)
        out["v"] = hx(v)
        out["r"] = hx(tx.r)
        out["s"] = hx(tx.s)
    return out


def tx_object_json(tx: Any) -> dict:
    """A tx as go-ethereum's Transaction.MarshalJSON gives it (eth_signTransaction's and
    eth_fillTransaction's `tx`): the fields of its type, null for another type's fees."""
    type_id = tx.type_id or 0
    out: dict[str, Any] = {"type": hx(type_id)}
    if type_id:
        out["chainId"] = hx(tx.chain_id)
    elif tx.v not in (0, 1, 27, 28):  # EIP-155 protected
        out["chainId"] = hx((tx.v - 35) // 2)
    out.update({"nonce": hx(tx.nonce), "to": hb(tx.to) if tx.to else None, "gas": hx(tx.gas),
                "gasPrice": hx(tx.gas_price) if type_id != 2 else None,
                "maxPriorityFeePerGas": hx(tx.max_priority_fee_per_gas) if type_id == 2 else None,
                "maxFeePerGas": hx(tx.max_fee_per_gas) if type_id == 2 else None,
                "value": hx(tx.value), "input": hb(tx.data)})
    if type_id:
        out["accessList"] = [{"address": hb(a), "storageKeys": ["0x" + k.to_bytes(32, "big").hex() for k in keys]}
                             for a, keys in tx.access_list]
    v = tx.y_parity if type_id else tx.v
    out.update({"v": hx(v), "r": hx(tx.r), "s": hx(tx.s)})
    if type_id:
        out["yParity"] = hx(v)
    out["hash"] = hb(tx.hash)
    return out


def log_json(block: BlockInfo, tx_index: int, log_index: int, lg: LogRow) -> dict:
    return {
        "address": hb(lg.address),
        "topics": [hb(t) for t in lg.topics],
        "data": hb(lg.data),
        "blockNumber": hx(block.number),
        "transactionHash": hb(keccak256(block.raws[tx_index])),
        "transactionIndex": hx(tx_index),
        "blockHash": hb(block.hash),
        "logIndex": hx(log_index),
        "removed": False,
    }


def receipt_json(block: BlockInfo, index: int) -> dict:
    rc = block.receipts[index]
    tx = block.txs[index]
    first_log = sum(len(r.logs) for r in block.receipts[:index])
    logs = [log_json(block, index, first_log + i, lg) for i, lg in enumerate(rc.logs)]
    out = {
        "blockHash": hb(block.hash),
        "blockNumber": hx(block.number),
        "contractAddress": hb(rc.contract) if rc.contract else None,
        "cumulativeGasUsed": hx(rc.cumulative_gas),
        "effectiveGasPrice": hx(rc.effective_gas_price),
        "from": hb(block.senders[index]),
        "gasUsed": hx(rc.gas_used),
        "logs": logs,
        "logsBloom": "0x" + logs_bloom(rc.logs).to_bytes(256, "big").hex(),
        "status": hx(rc.status),
        "to": hb(tx.to) if tx.to else None,
        "transactionHash": hb(keccak256(block.raws[index])),
        "transactionIndex": hx(index),
        "type": hx(tx.type_id or 0),
    }
    return out


def header_json(block: BlockInfo) -> dict:
    """eth_getHeaderBy*: coreth's rpcMarshalHeader (the header's fields and totalDifficulty)."""
    out = block.header.rpc_fields(block.hash)
    out["totalDifficulty"] = hx(block.number)  # difficulty is 1 per block after genesis
    return dict(sorted(out.items()))


def block_json(chain: EVMChain, block: BlockInfo, full: bool) -> dict:
    """eth_getBlockBy*: coreth's rpcMarshalBlock; `blockExtraData` only on the C-Chain."""
    out = block.header.rpc_fields(block.hash)
    out["size"] = hx(block.size)
    if block.header.coreth:
        out["blockExtraData"] = hb(block.ext)
    if full:
        out["transactions"] = [tx_json(chain, tx, block.senders[i], block, i, block.raws[i])
                               for i, tx in enumerate(block.txs)]
    else:
        out["transactions"] = [hb(keccak256(r)) for r in block.raws]
    out["uncles"] = []
    out["totalDifficulty"] = hx(block.number)
    return dict(sorted(out.items()))


def pending_tx_json(chain: EVMChain, p: Any) -> dict:
    return tx_json(chain, p.tx, p.sender, None, None, p.raw)
