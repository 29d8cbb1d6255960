"""An EVM chain's block rows: how an accepted block is stored, read back and cached.

Storage (all under the chain prefix, e.g. b"C/"):
    s/<key>            py-evm's database (trie nodes, code), via StoreKV; the canonical number ->
                       block hash entries BLOCKHASH reads are answered from b/ (canonical_hash);
                       a data dir written before holds them under s/ too
    sd/<node hash>     a trie branch node stored as the children it changes in another (db.py,
                       trie_delta.py)
    b/<num u64>        block row (msgpack): header RLP (coreth's or subnet-EVM's, headers.py) and
                       its keccak, the block hash; time in ms, fee state, raw txs,
                       senders, receipts with logs, and on the C-Chain the atomic txs
                       (ext = blockExtraData, egu = extDataGasUsed)
    at/<atomic txID>   -> height u64 | signed atomic tx (atomic_pool.py; shared memory is
                          updated in the same batch)
    h/<hash>           -> num
    t/<tx hash>        -> num u64 | index u32
    la/<addr><num>     block `num` has logs emitted by `addr`
    wm/<message ID>    an accepted SendWarpMessage's unsigned message (what the validators sign)
    lb/<num>           block `num` has logs
    head               -> num u64 (last accepted)
    root               -> state root the next block builds on (differs from the head's after
                          anvil_setBalance & co.)
The block row also holds, under "ct", the call frames each tx's execution recorded (tracing/block_frames.py;
only when some tx ran code), so the index can be rebuilt from block rows alone.
One accepted block = one Store batch holding all of the above, plus the index rows the node's
indexer (ctx.indexer, simnode/index) derives from the block row.
On a fork (fork_state.py) the chain's first row is the upstream's fork block N, over an empty
state the upstream's fills in as it is read; its blocks before N are the upstream's (fork_rpc.py).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import msgpack

from ...crypto.hashing import keccak256
from ..chain_context import ChainContext
from .db import StoreKV
from .fees import FeeState, fee_state_from_row
from .headers import Header, HeaderRules
from .precompiles import warp
from .receipts import ReceiptRow
from .rlpcodec import item_length

STORAGE_KEY_RULE = b"keyrule"  # chain meta row: present once a chain's slots are keyed as coreth keys them
BLOCK_CACHE = 256  # decoded recent blocks (receipt and block lookups); older ones are read back from the store


def u64(n: int) -> bytes:
    return n.to_bytes(8, "big")


class BlockInfo:
    """A decoded block row (cached)."""

    __slots__ = ("_txs", "ext", "ext_gas", "fee", "hash", "header", "ms", "number", "pre", "raws", "receipts",
                 "senders", "size")

    def __init__(self, row: dict, coreth: bool, header: Header | None = None) -> None:
        # `header`: the already decoded row["hdr"], when the caller has it
        self.header: Header = header if header is not None else Header.decode(row["hdr"], coreth)
        self.number: int = self.header.block_number
        self.hash: bytes = row.get("h") or keccak256(row["hdr"])  # stored only when it is not that
        self.ms: int = row["ms"]
        self.fee = fee_state_from_row(row["fee"])  # FeeState (ACP-176) or subnet_fees.WindowFeeState
        self.raws: list[bytes] = row["txs"]
        self.senders: list[bytes] = row["from"]
        self.receipts: list[ReceiptRow] = [ReceiptRow.decode(rc) for rc in row["rc"]]
        self.size: int = row.get("size", 0)
        self.pre: bytes | None = row.get("pre")
        self.ext: bytes = row.get("ext", b"")  # atomic txs (blockExtraData), C-Chain only
        self.ext_gas: int = row.get("egu", 0)  # extDataGasUsed
        self._txs: list | None = None

    @property
    def txs(self) -> list:
        if self._txs is None:
            if not self.raws:  # no py-evm tx classes needed (nor imported)
                self._txs = []
                return self._txs
            from .raw_tx import read_tx
            from .rules import AvalancheVM

            builder = AvalancheVM.get_transaction_builder()
            txs = []
            for raw, sender in zip(self.raws, self.senders, strict=True):
                parsed = read_tx(raw)  # one pass; py-evm's decoder for the forms read_tx declines
                tx = parsed[0] if parsed is not None else builder.decode(raw)
                tx.__dict__["sender"] = sender
                txs.append(tx)
            self._txs = txs
        return self._txs


def receipt_row(status: int, cum: int, used: int, price: int, contract: bytes | None, logs: list) -> list:
    return [status, cum, used, price, contract, logs]


class BlockRows:
    """EVMChain's part that writes and reads its block rows (mixed into EVMChain)."""

    prefix: bytes
    store: Any
    kv: StoreKV
    ctx: ChainContext
    fork: Any
    header_rules: HeaderRules
    fee_rules: Any
    _blocks: OrderedDict[int, BlockInfo]

    def _key(self, *parts: bytes) -> bytes:
        return self.prefix + b"".join(parts)

    def _write_fork_base(self) -> None:
        """The fork base block N (the upstream's, over the fork's own empty state; not indexed:
        the index starts at N+1) as the head."""
        header, row = self.fork.base_row(self.header_rules.coreth, self.fee_rules)
        num = header.block_number
        batch = self.store.batch()
        ch = batch.changes
        ch[self._key(b"b/", u64(num))] = msgpack.packb(row, use_bin_type=True)
        ch[self._key(b"h/", row["h"])] = u64(num)
        ch[self._key(b"head")] = u64(num)
        ch[self._key(b"root")] = header.state_root
        ch[self._key(STORAGE_KEY_RULE)] = b"coreth"
        self.kv.flush_into(batch)
        batch.commit()

    def _block_size(self, header_rlp: bytes, raws: list[bytes], ext: bytes) -> int:
        """Length of the block's RLP, counted, not encoded: coreth's [header, txs, uncles,
        version u32, extData], subnet-EVM's [header, txs, uncles]. A legacy tx is an RLP list
        already, a typed tx is a byte string inside the list."""
        txs = sum(len(r) if r[0] >= 0xC0 else item_length(len(r)) for r in raws)
        body = len(header_rlp) + item_length(txs) + 1
        if self.header_rules.coreth:
            body += 1 + item_length(len(ext))
        return item_length(body)

    def _put_block_rows(self, batch: Any, header: Header, ms: int, fee: FeeState, raws: list[bytes],
                        senders: list[bytes], receipts: list[list], pre: bytes | None = None,
                        ext: bytes = b"", ext_gas: int = 0, frames: list[list] | None = None) -> bytes:
        """Stage the block's rows in `batch` (the caller flushes the py-evm overlay into `batch`
        afterwards, so the indexer can still read the block's state there); returns the packed
        block row."""
        num = header.block_number
        hdr = header.encode()
        h = keccak256(hdr)
        row = {"hdr": hdr, "h": h, "ms": ms, "fee": fee.to_row(),
               "txs": raws, "from": senders, "rc": receipts, "size": self._block_size(hdr, raws, ext)}
        if pre is not None:
            row["pre"] = pre  # the state the block executed on, when not the parent's (after dev edits)
        if ext:
            row["ext"] = ext
            row["egu"] = ext_gas
        if frames is not None and any(frames):
            row["ct"] = frames  # per tx, the call frames its execution recorded (tracing/block_frames.py)
        ch = batch.changes
        # stored without "h": it is keccak256(hdr) here, computed again when the row is read
        packed = msgpack.packb({k: v for k, v in row.items() if k != "h"}, use_bin_type=True)
        ch[self._key(b"b/", u64(num))] = packed
        ch[self._key(b"h/", h)] = u64(num)
        has_logs = False
        addrs: set[bytes] = set()
        for i, raw in enumerate(raws):
            ch[self._key(b"t/", keccak256(raw))] = u64(num) + i.to_bytes(4, "big")
        for rc in map(ReceiptRow.decode, receipts):
            for lg in rc.logs:
                has_logs = True
                addrs.add(lg.address)
            for message in warp.accepted_messages(rc.logs):
                ch[self._key(b"wm/", message.id)] = message.encoded  # subnet-evm's Accept hook
        if has_logs:
            ch[self._key(b"lb/", u64(num))] = b""
            for a in sorted(addrs):
                ch[self._key(b"la/", a, u64(num))] = b""
        ch[self._key(b"head")] = u64(num)
        ch[self._key(b"root")] = header.state_root
        if self.ctx.indexer is not None:
            self.ctx.indexer.block_accepted(self, row, batch)
        return packed

    def block_row(self, num: int) -> dict | None:
        """Block `num`'s stored row as _put_block_rows wrote it (what the indexer derives from)."""
        raw = self.store.get(self._key(b"b/", u64(num)))
        if raw is None:
            return None
        row = msgpack.unpackb(raw, raw=False)
        if "h" not in row:
            row["h"] = keccak256(row["hdr"])
        return row

    def block(self, num: int) -> BlockInfo | None:
        info = self._blocks.get(num)
        if info is not None:
            return info
        raw = self.store.get(self._key(b"b/", u64(num)))
        if raw is None:
            return None
        info = BlockInfo(msgpack.unpackb(raw, raw=False), self.header_rules.coreth)
        self._cache_block(info)
        return info

    def _cache_block(self, info: BlockInfo) -> None:
        """Keep `info` as the newest decoded block (the oldest leaves past BLOCK_CACHE)."""
        blocks = self._blocks
        blocks.pop(info.number, None)
        blocks[info.number] = info
        if len(blocks) > BLOCK_CACHE:
            blocks.popitem(last=False)

    def block_by_hash(self, h: bytes) -> BlockInfo | None:
        num = self.store.get(self._key(b"h/", h))
        if num is None:
            return None
        return self.block(int.from_bytes(num, "big"))

    def canonical_hash(self, num: int) -> bytes | None:
        """Block `num`'s hash (BLOCKHASH reads it through StoreKV), None past the head or before a fork's base."""
        info = self.block(num)
        return None if info is None else info.hash

    def tx_location(self, h: bytes) -> tuple[BlockInfo, int] | None:
        loc = self.store.get(self._key(b"t/", h))
        if loc is None:
            return None
        b = self.block(int.from_bytes(loc[:8], "big"))
        if b is None:
            return None
        return b, int.from_bytes(loc[8:12], "big")

    def pre_state_root(self, block: BlockInfo) -> bytes:
        """The state root `block` executed on."""
        if block.pre is not None:
            return block.pre
        if block.number == 0:
            return block.header.state_root
        parent = self.block(block.number - 1)
        return parent.header.state_root if parent is not None else block.header.state_root
