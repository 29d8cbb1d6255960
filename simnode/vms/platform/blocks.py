"""P-Chain blocks (vms/platformvm/block): the Banff blocks simnode builds and the genesis block.

Every block starts with ``u16 0 | u32 typeID``; blockID = sha256(bytes). Struct fields in Go
declaration order, embedded structs inlined (node-api.md §4):

* BanffStandardBlock (32) = ``u64 time | 32 parentID | u64 height | u32 n | n × signed tx``
* BanffProposalBlock (29) = ``u64 time | u32 n | n × signed tx (decision txs) | 32 parentID | u64 height
  | signed tx (the proposal)`` — ``Time, Transactions`` come before the embedded ApricotProposalBlock
  (``CommonBlock, Tx``)
* BanffCommitBlock (31) = ``u64 time | 32 parentID | u64 height``
* genesis: ApricotCommitBlock (2) = ``32 parentID (sha256 of the genesis bytes) | u64 0``

Signed txs inside a block carry no codec version of their own.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from simnode.codec import Reader, SignedTx, Writer

from . import txs as t

APRICOT_COMMIT_BLOCK = 2


def _header(type_id: int, time: int) -> Writer:
    w = Writer()
    w.codec_version()
    w.u32(type_id)
    w.u64(time)
    return w


def encode_standard_block(time: int, parent_id: bytes, height: int, tx_bytes: list[bytes]) -> bytes:
    w = _header(t.BANFF_STANDARD_BLOCK, time)
    w.fixed_bytes(parent_id, 32)
    w.u64(height)
    w.u32(len(tx_bytes))
    return w.getvalue() + b"".join(b[2:] for b in tx_bytes)


def encode_proposal_block(time: int, parent_id: bytes, height: int, proposal_tx: bytes) -> bytes:
    """A BanffProposalBlock with no decision txs (the simulator builds mempool txs into standard blocks)."""
    w = _header(t.BANFF_PROPOSAL_BLOCK, time)
    w.u32(0)
    w.fixed_bytes(parent_id, 32)
    w.u64(height)
    return w.getvalue() + proposal_tx[2:]


def encode_commit_block(time: int, parent_id: bytes, height: int) -> bytes:
    w = _header(t.BANFF_COMMIT_BLOCK, time)
    w.fixed_bytes(parent_id, 32)
    w.u64(height)
    return w.getvalue()


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
    txs: tuple[SignedTx, ...]  # a standard block's txs; a proposal block's decision txs
    proposal_tx: SignedTx | None = None


def _read_txs(r: Reader) -> tuple[SignedTx, ...]:
    n = r.count_u32()
    return tuple(t.read_tx(r) for _ in range(n))


def decode_block(data: bytes) -> Block:
    r = Reader(data)
    r.codec_version()
    type_id = r.type_id()
    if type_id == APRICOT_COMMIT_BLOCK:
        block = Block(type_id, 0, r.fixed_bytes(32), r.u64(), ())
    elif type_id == t.BANFF_STANDARD_BLOCK:
        time, parent, height = r.u64(), r.fixed_bytes(32), r.u64()
        block = Block(type_id, time, parent, height, _read_txs(r))
    elif type_id == t.BANFF_PROPOSAL_BLOCK:
        time, decision = r.u64(), _read_txs(r)
        parent, height = r.fixed_bytes(32), r.u64()
        block = Block(type_id, time, parent, height, decision, t.read_tx(r))
    elif type_id == t.BANFF_COMMIT_BLOCK:
        block = Block(type_id, r.u64(), r.fixed_bytes(32), r.u64(), ())
    else:
        raise ValueError(f"unknown block type {type_id}")
    r.done()
    return block
