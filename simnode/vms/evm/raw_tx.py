"""Raw eth tx bytes: one-pass decoding of legacy, EIP-2930 and EIP-1559 txs (read_tx, with
py-evm's decoder for what it declines) and sender recovery with coincurve."""

from __future__ import annotations

from typing import Any

import coincurve
import rlp
from eth.abc import SignedTransactionAPI
from eth.vm.forks.berlin.transactions import AccessListTransaction, AccountAccesses
from eth.vm.forks.london.transactions import DynamicFeeTransaction

from ...crypto.hashing import keccak256
from .rlpcodec import list_header
from .rules import AvalancheVM
from .vmerrors import ChainError

_SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141

# Field layouts of the txs read by read_tx: i = big-endian int, a = `to` (empty or 20 bytes),
# b = bytes, L = access list. A type's position in the tuple is its type byte (0 = legacy).
_LAYOUTS = ("iiiaibiii", "iiiiaibLiii", "iiiiiaibLiii")
_TX_CLASSES = (AvalancheVM.get_transaction_builder().legacy_signed, AccessListTransaction, DynamicFeeTransaction)
_TYPED = AvalancheVM.get_transaction_builder().typed_transaction


def _rlp_items(data: bytes, pos: int, end: int) -> tuple[list, list[int]] | None:
    """The items of the RLP list payload data[pos:end] (bytes; lists for nested lists) and where
    each one's encoding starts. Canonical RLP only: None for anything else, which is then left to
    pyrlp for its exact verdict and wording."""
    items: list = []
    starts: list[int] = []
    while pos < end:
        starts.append(pos)
        b0 = data[pos]
        if b0 < 0x80:
            items.append(data[pos:pos + 1])
            pos += 1
            continue
        if b0 < 0xb8 or 0xc0 <= b0 < 0xf8:
            start = pos + 1
            n = b0 - (0x80 if b0 < 0xc0 else 0xc0)
        else:
            start = pos + 1 + b0 - (0xb7 if b0 < 0xc0 else 0xf7)
            if start > end or data[pos + 1] == 0:
                return None
            n = int.from_bytes(data[pos + 1:start], "big")
            if n < 56:
                return None
        stop = start + n
        if stop > end:
            return None
        if b0 < 0xc0:
            if n == 1 and data[start] < 0x80:
                return None
            items.append(data[start:stop])
        else:
            sub = _rlp_items(data, start, stop)
            if sub is None:
                return None
            items.append(sub[0])
        pos = stop
    return items, starts


def _access_list(item: Any) -> tuple | None:
    if type(item) is not list:
        return None
    out = []
    for entry in item:
        if type(entry) is not list or len(entry) != 2:
            return None
        account, keys = entry
        if type(account) is list or len(account) not in (0, 20) or type(keys) is not list:
            return None
        for k in keys:
            if type(k) is list or len(k) != 32:
                return None
        out.append(AccountAccesses(account, tuple(int.from_bytes(k, "big") for k in keys)))
    return tuple(out)


def read_tx(raw: bytes) -> tuple[SignedTransactionAPI, bytes] | None:
    """One pass over a legacy, EIP-2930 or EIP-1559 tx: the py-evm tx (as its own decoder builds
    it, RLP cache included) and the concatenated RLP of the fields its signature covers (the
    first 6 for legacy, all but y/r/s for typed). None when the bytes are not canonical RLP of
    that shape (py-evm then decides, with its own error text)."""
    if raw[0] >= 0xc0:
        type_id = off = 0
    elif raw[0] in (1, 2) and len(raw) > 1:
        type_id, off = raw[0], 1
    else:
        return None
    b0 = raw[off]
    if b0 < 0xc0:
        return None
    if b0 < 0xf8:
        start = off + 1
        n = b0 - 0xc0
    else:
        start = off + 1 + b0 - 0xf7
        if start > len(raw) or raw[off + 1] == 0:
            return None
        n = int.from_bytes(raw[off + 1:start], "big")
        if n < 56:
            return None
    if start + n != len(raw):
        return None
    parsed = _rlp_items(raw, start, len(raw))
    layout = _LAYOUTS[type_id]
    if parsed is None or len(parsed[0]) != len(layout):
        return None
    items, starts = parsed
    values: list = []
    for kind, item in zip(layout, items):
        if kind == "L":
            item = _access_list(item)
            if item is None:
                return None
        elif type(item) is list:
            return None
        elif kind == "i":
            if item[:1] == b"\x00":  # big_endian_int refuses leading zeros
                return None
            item = int.from_bytes(item, "big")
        elif kind == "a" and len(item) not in (0, 20):
            return None
        values.append(item)
    tx = _TX_CLASSES[type_id](*values)
    if type_id:
        tx._cached_rlp = raw[1:]
        return _TYPED(type_id, tx), raw[start:starts[-3]]
    tx._cached_rlp = raw
    return tx, raw[start:starts[6]]


def decode_raw(raw: bytes) -> tuple[SignedTransactionAPI, bytes]:
    """The py-evm tx and the RLP of the fields its signature covers (see read_tx); a ChainError
    in geth's words for what a node refuses to decode."""
    if not raw:
        raise ChainError("typed transaction too short")
    if raw[0] == 3:
        raise ChainError("transaction type not supported")
    if raw[0] < 0x7f and raw[0] not in (1, 2):
        raise ChainError("transaction type not supported")
    parsed = read_tx(raw)
    if parsed is not None:
        return parsed
    try:
        tx = AvalancheVM.get_transaction_builder().decode(raw)
    except Exception as exc:  # noqa: BLE001 - any decoding failure
        raise ChainError(f"rlp: {exc}") from None
    return tx, _unsigned_rlp(raw)


def _unsigned_rlp(raw: bytes) -> bytes:
    """read_tx's second result the general way, for what py-evm accepts and read_tx declines
    (pyrlp reads an empty list as the integer 0, for one)."""
    if raw[0] >= 0x80:
        return b"".join(rlp.encode(f) for f in rlp.decode(raw)[:6])
    return b"".join(rlp.encode(f) for f in rlp.decode(raw[1:])[:-3])


def recover_sender(raw: bytes, tx: Any, unsigned: bytes) -> bytes:
    """ecrecover with coincurve (~4x cheaper than py-evm's path); `unsigned` as read_tx gives it."""
    try:
        if raw[0] >= 0x80:
            v, r, s = tx.v, tx.r, tx.s
            if v in (27, 28):
                rec, payload = v - 27, unsigned
            else:
                rec = (v - 35) % 2
                payload = unsigned + rlp.encode(_int_bytes((v - 35) // 2)) + b"\x80\x80"
            msg = list_header(len(payload)) + payload
        else:
            rec, r, s = tx.y_parity, tx.r, tx.s
            msg = raw[:1] + list_header(len(unsigned)) + unsigned
        if not (0 < r < _SECP256K1_N and 0 < s <= _SECP256K1_N // 2) or rec not in (0, 1):
            raise ChainError("invalid transaction v, r, s values")
        sig = r.to_bytes(32, "big") + s.to_bytes(32, "big") + bytes([rec])
        pub = coincurve.PublicKey.from_signature_and_message(sig, keccak256(msg), hasher=None)
        return keccak256(pub.format(compressed=False)[1:])[12:]
    except ChainError:
        raise
    except Exception:  # noqa: BLE001
        raise ChainError("invalid sender") from None


def _int_bytes(n: int) -> bytes:
    return n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""
