"""P-Chain blocks: BanffStandardBlock (type 32) and the genesis block (ApricotCommitBlock, type 2).

BanffStandardBlock = ``u16 0 | u32 32 | u64 time | 32 parentID | u64 height | u32 n | n × signed tx``
(each tx without its own codec version); blockID = sha256(bytes).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from simnode.codec import Reader, SignedTx, Writer

from . import txs as t

APRICOT_COMMIT_BLOCK = 2


def encode_standard_block(time: int, parent_id: bytes, height: int, tx_bytes: list[bytes]) -> bytes:
    w = Writer()
    w.codec_version()
    w.u32(t.BANFF_STANDARD_BLOCK)
    w.u64(time)
    w.fixed_bytes(parent_id, 32)
    w.u64(height)
    w.u32(len(tx_bytes))
    out = w.getvalue()
    return out + b"".join(b[2:] for b in tx_bytes)


def genesis_block_bytes(p_genesis_bytes: bytes) -> bytes:
    w = Writer()
    w.codec_version()
    w.u32(APRICOT_COMMIT_BLOCK)
    w.fixed_bytes(hashlib.sha256(p_genesis_bytes).digest(), 32)
    w.u64(0)
    return w.getvalue()


def block_id(block: bytes) -> bytes:
    return hashlib.sha256(block).digest()


@dataclass(frozen=True, slots=True)
class Block:
    type_id: int
    time: int
    parent_id: bytes
    height: int
    txs: tuple[SignedTx, ...]


def decode_block(data: bytes) -> Block:
    r = Reader(data)
    r.codec_version()
    type_id = r.u32()
    if type_id == APRICOT_COMMIT_BLOCK:
        parent = r.fixed_bytes(32)
        height = r.u64()
        r.done()
        return Block(type_id, 0, parent, height, ())
    if type_id != t.BANFF_STANDARD_BLOCK:
        raise ValueError(f"unknown block type {type_id}")
    time = r.u64()
    parent = r.fixed_bytes(32)
    height = r.u64()
    n = r.count_u32(8)
    txs_ = tuple(t.read_tx(r) for _ in range(n))
    r.done()
    return Block(type_id, time, parent, height, txs_)
