"""X-Chain blocks: StandardBlock (type 20), AvalancheGo's vms/avm/block/standard_block.go.

    u16 0 | u32 20 | 32 parentID | u64 height | u64 time | 32 merkleRoot | u32 n | n × signed tx body

Each tx body is a signed tx without its own codec-version prefix. blockID = sha256(bytes).
The merkle root is never populated (AvalancheGo rejects a non-zero one). The genesis block has
parent = the Cortina stop vertex ID, height 0, time = the Cortina time, and no txs. A network whose
upgrades name no stop vertex (local and custom ones) has the one AvalancheGo's Avalanche
bootstrapper builds on an empty DAG (snow/engine/avalanche/vertex/builder.go BuildStopVertex):

    u16 1 (the stop-vertex codec) | 32 chainID | u64 height 0 | u32 0 parent IDs;  ID = sha256
"""

from __future__ import annotations

import builtins
import hashlib
from dataclasses import dataclass, field

from simnode.codec import CodecError, Reader, Writer
from simnode.formats.ids import ZERO_ID

from .txs import Tx, check_done, read_tx_body

STANDARD_BLOCK_TYPE_ID = 20
ID_LEN = 32


@dataclass(frozen=True, slots=True)
class StandardBlock:
    parent_id: bytes
    height: int
    time: int
    merkle_root: bytes
    txs: tuple[Tx, ...] = field(repr=False)
    bytes: bytes = field(repr=False)
    id: builtins.bytes = b""


def stop_vertex_id(configured: bytes, chain_id: bytes) -> bytes:
    """The parent of the X-Chain's first block: the configured Cortina stop vertex, else the one
    built on an empty DAG (its codec version 1 serializes chain ID, height and parent IDs only)."""
    if configured != ZERO_ID:
        return configured
    w = Writer()
    w.u16(1)
    w.raw(chain_id)
    w.u64(0)
    w.u32(0)
    return hashlib.sha256(w.getvalue()).digest()


def build_block(parent_id: bytes, height: int, time: int, txs: tuple[Tx, ...] | list[Tx],
                merkle_root: bytes = ZERO_ID) -> StandardBlock:
    w = Writer()
    w.codec_version()
    w.u32(STANDARD_BLOCK_TYPE_ID)
    w.fixed_bytes(parent_id, ID_LEN)
    w.u64(height)
    w.u64(time)
    w.fixed_bytes(merkle_root, ID_LEN)
    w.u32(len(txs))
    head = w.getvalue()
    raw = head + b"".join(tx.bytes[2:] for tx in txs)
    return StandardBlock(parent_id, height, time, merkle_root, tuple(txs), raw, hashlib.sha256(raw).digest())


def parse_block(data: bytes) -> StandardBlock:
    r = Reader(data)
    r.codec_version()
    type_id = r.type_id()
    if type_id != STANDARD_BLOCK_TYPE_ID:
        raise CodecError(f"couldn't unmarshal interface: unknown type ID {type_id}")
    parent = r.fixed_bytes(ID_LEN)
    height = r.u64()
    time = r.u64()
    root = r.fixed_bytes(ID_LEN)
    count = r.count_u32()
    txs = tuple(read_tx_body(r) for _ in range(count))
    check_done(r, len(data))
    return StandardBlock(parent, height, time, root, txs, bytes(data), hashlib.sha256(data).digest())
