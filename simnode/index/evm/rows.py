"""EVM index rows derived from one accepted block row, staged in the block's own batch.

Input: the block row exactly as the chain stores it (vms/evm/block_rows.py: header RLP, hash, time
in ms, raw txs, senders, receipts with logs, and "ct", the call frames recorded while the block
executed), so indexing a new block and reindexing an old one run the same code on the same
bytes. Reads (the previous block's cumulative count, balances, "seen already?") go through the
batch, which sees its own pending writes: a batch may hold many blocks (reindex, mine_empty).

The tables are described in layout.py.
"""

from __future__ import annotations

from typing import Protocol

from ...crypto.hashing import keccak256
from ...store import Batch, pack, unpack
from ...vms.evm import rlpcodec
from ...vms.evm.headers import HeaderRules, header_number
from ...vms.evm.receipts import ReceiptRow
from ..keys import big, from_sbig, sbig, u8, u16, u32, u64
from .tokens import metadata, probe_standard, token_uri
from .layout import (ERC20, ERC721, ERC1155, F_CREATE, F_CREATE2, FRAME_KINDS, GLOBAL_BLOCKS, GLOBAL_TX_STATUS,
                     GLOBAL_TXS, Space, is_listed_internal, space)

TRANSFER_TOPIC = keccak256(b"Transfer(address,address,uint256)")
TRANSFER_SINGLE_TOPIC = keccak256(b"TransferSingle(address,address,address,uint256,uint256)")
TRANSFER_BATCH_TOPIC = keccak256(b"TransferBatch(address,address,address,uint256[],uint256[])")
ZERO_ADDRESS = bytes(20)
_CREATES = (F_CREATE, F_CREATE2)


class Source(Protocol):
    """What the rows need from the chain besides its block row."""

    chain_id: bytes
    prefix: bytes  # of the chain's own rows (b/<num>, t/<tx hash>, h/<block hash>), which the index reads
    header_rules: HeaderRules  # only `coreth` is read: which header layout the rows hold

    def static_call(self, row: dict, to: bytes, data: bytes) -> bytes | None:
        """A call at the state after `row`'s block: its output, None if it fails."""
        ...


def decode_tx(raw: bytes) -> tuple[int, int, int, bytes, int, bytes, int | None, int | None]:
    """(type, nonce, gas, to, value, input, maxFeePerGas, maxPriorityFeePerGas) of a legacy,
    EIP-2930 or EIP-1559 tx as the chain accepted it (the fee caps are None before type 2)."""
    if raw[0] >= 0xC0:
        f = tx_fields(raw)
        return 0, _int(f[0]), _int(f[2]), f[3], _int(f[4]), f[5], None, None
    f = tx_fields(raw[1:])
    if raw[0] == 1:
        return 1, _int(f[1]), _int(f[3]), f[4], _int(f[5]), f[6], None, None
    return raw[0], _int(f[1]), _int(f[4]), f[5], _int(f[6]), f[7], _int(f[3]), _int(f[2])


def tx_to(raw: bytes) -> bytes:
    """The `to` of a legacy, EIP-2930 or EIP-1559 tx (b"" for a creation), read without decoding
    the rest: the 4th field of a legacy tx, the 5th of type 1, the 6th of type 2."""
    if raw[0] >= 0xC0:
        body, skip = raw, 3
    else:
        body, skip = raw[1:], 4 if raw[0] == 1 else 5
    pos = rlpcodec.payload_bounds(body, 0)[0]
    for _ in range(skip):
        pos = rlpcodec.payload_bounds(body, pos)[1]
    start, end = rlpcodec.payload_bounds(body, pos)
    return body[start:end]


def tx_fields(payload: bytes) -> list:
    """The RLP list of a tx's fields (a tx the chain accepted is always a list)."""
    f = rlpcodec.decode(payload)
    if not isinstance(f, list):
        raise ValueError("tx payload is not an RLP list")
    return f


def _int(b: bytes) -> int:
    return int.from_bytes(b, "big")


def log_transfers(topics: list[bytes], data: bytes) -> list[tuple[int, bytes, bytes, int, bytes]]:
    """The token transfers one log states: (standard, from, to, amount, token ID); the ID is b""
    for ERC-20 and the amount 1 for ERC-721. Logs of any other shape state none."""
    if not topics:
        return []
    t0 = topics[0]
    if t0 == TRANSFER_TOPIC:
        if len(topics) == 3 and len(data) == 32:
            return [(ERC20, topics[1][12:], topics[2][12:], _int(data), b"")]
        if len(topics) == 4 and not data:
            return [(ERC721, topics[1][12:], topics[2][12:], 1, topics[3])]
    elif t0 == TRANSFER_SINGLE_TOPIC and len(topics) == 4 and len(data) == 64:
        return [(ERC1155, topics[2][12:], topics[3][12:], _int(data[32:]), data[:32])]
    elif t0 == TRANSFER_BATCH_TOPIC and len(topics) == 4:
        ids, amounts = _uint_array(data, 0), _uint_array(data, 32)
        if ids is not None and amounts is not None and len(ids) == len(amounts):
            return [(ERC1155, topics[2][12:], topics[3][12:], _int(a), i) for i, a in zip(ids, amounts)]
    return []


def _uint_array(data: bytes, head: int) -> list[bytes] | None:
    """The 32-byte items of the uint256[] whose offset is at `head` of ABI-encoded `data`."""
    if head + 32 > len(data):
        return None
    offset = _int(data[head:head + 32])
    if offset + 32 > len(data):
        return None
    n = _int(data[offset:offset + 32])
    start = offset + 32
    if start + 32 * n > len(data):
        return None
    return [data[start + 32 * k:start + 32 * k + 32] for k in range(n)]


class _Block:
    """One block's indexing: the batch, the chain's tables and what the block's txs share."""

    __slots__ = ("batch", "ch", "cid", "ms", "number", "n8", "row", "source", "sp", "standards", "log_index")

    def __init__(self, source: Source, row: dict, batch: Batch, number: int) -> None:
        self.source = source
        self.row = row
        self.batch = batch
        self.ch = batch.changes
        self.sp: Space = space(source.chain_id)
        self.cid: bytes = source.chain_id
        self.ms: int = row["ms"]
        self.number = number
        self.n8 = u64(number)
        self.standards: dict[bytes, bool] = {}  # token contracts looked at in this block
        self.log_index = 0

    def call(self, to: bytes, data: bytes) -> bytes | None:
        return self.source.static_call(self.row, to, data)

    # ------------------------------------------------------------------ tokens

    def token(self, token: bytes, standard: int | None) -> None:
        """Record the token's standard and metadata unless known: from its log's shape, or by
        probing when it was just created (`standard` None)."""
        known = self.standards.get(token)  # True: it has a row; False: probed, not a token
        if known or (known is False and standard is None):
            return
        key = self.sp.tm + token
        if self.batch.get(key) is not None:
            self.standards[token] = True
            return
        if standard is None:
            standard = probe_standard(self.call, token)
            if standard is None:
                self.standards[token] = False
                return
        name, symbol, decimals = metadata(self.call, token, standard)
        self.ch[key] = pack([standard, name, symbol, decimals, self.number])
        self.standards[token] = True

    def nft(self, token: bytes, standard: int, token_id: bytes) -> None:
        key = self.sp.nt + token + token_id
        if self.batch.get(key) is None:
            self.ch[key] = pack([token_uri(self.call, token, standard, token_id), self.number])

    def balance(self, current: bytes, history: bytes, delta: int) -> None:
        """Add `delta` to the balance at `current` (deleted at zero) and log it at `history`."""
        old = self.batch.get(current)
        new = (from_sbig(old) if old is not None else 0) + delta
        self.ch[current] = sbig(new) if new else None
        self.ch[history] = sbig(new)

    def transfer(self, pos: bytes, sub: int, item: tuple[int, bytes, bytes, int, bytes], token: bytes,
                 tx_hash: bytes) -> None:
        standard, frm, to, amount, token_id = item
        sp, ch, n8 = self.sp, self.ch, self.n8
        tail = pos + u32(self.log_index) + u16(sub)
        ch[sp.tr + tail] = pack([standard, token, frm, to, big(amount), token_id, tx_hash])
        by = sp.e2 if standard == ERC20 else sp.e7 if standard == ERC721 else sp.e1
        ch[by + frm + tail] = b""
        ch[by + to + tail] = b""
        ch[sp.tk + token + tail] = b""
        self.token(token, standard)
        if standard == ERC20:
            if frm != ZERO_ADDRESS:
                self.balance(sp.c2 + frm + token, sp.h2 + frm + token + n8, -amount)
            if to != ZERO_ADDRESS:
                self.balance(sp.c2 + to + token, sp.h2 + to + token + n8, amount)
        elif standard == ERC721:
            self.nft(token, standard, token_id)
            ch[sp.o7 + token + token_id] = to if to != ZERO_ADDRESS else None
            if frm != ZERO_ADDRESS:
                ch[sp.n7 + frm + token + token_id] = None
            if to != ZERO_ADDRESS:
                ch[sp.n7 + to + token + token_id] = b""
        else:
            self.nft(token, standard, token_id)
            if frm != ZERO_ADDRESS:
                self.balance(sp.c1 + frm + token + token_id, sp.h1 + frm + token + token_id + n8, -amount)
            if to != ZERO_ADDRESS:
                self.balance(sp.c1 + to + token + token_id, sp.h1 + to + token + token_id + n8, amount)

    # ------------------------------------------------------------------ creations and frames

    def created(self, contract: bytes, pos: bytes, idx: int, frame: int, tx_hash: bytes, deployer: bytes,
                creator: bytes, kind: int) -> None:
        sp, ch = self.sp, self.ch
        ch[sp.cc + contract] = pack([self.number, idx, frame, tx_hash, deployer, creator, kind])
        ch[sp.cd + creator + pos + u16(frame)] = contract
        if deployer != creator:
            ch[sp.cd + deployer + pos + u16(frame)] = contract
        self.token(contract, None)

    def frames(self, pos: bytes, idx: int, frames: list[list], tx_hash: bytes, sender: bytes,
               touched: set[bytes]) -> None:
        """The tx's frames with their effective outcome (a frame inside a failed one was undone
        with it); internal txs by address; internal creations that took effect."""
        sp, ch = self.sp, self.ch
        out = []
        failed_above: list[bool] = []  # by depth, for the frames enclosing the current one
        for fi, (kind, frm, to, value, gas, used, depth, failed) in enumerate(frames):
            del failed_above[depth:]
            reverted = failed or (bool(failed_above) and failed_above[-1])
            failed_above.append(reverted)
            rec = [kind, frm, to, value, gas, used, depth, failed, reverted]
            out.append(rec)
            if is_listed_internal(FRAME_KINDS[kind], bool(value), depth):
                packed = pack(rec)
                key = pos + u16(fi)
                ch[sp.ia + frm + key] = packed
                ch[sp.ia + to + key] = packed
                touched.add(frm)
                touched.add(to)
            if depth > 0 and kind in _CREATES and not reverted:
                self.created(to, pos, idx, fi, tx_hash, sender, frm, kind)
        ch[sp.tf + pos] = pack(out)

    # ------------------------------------------------------------------ txs

    def tx(self, idx: int, raw: bytes, sender: bytes, receipt: ReceiptRow, frames: list[list] | None) -> int:
        """Index one tx; returns the fees it paid."""
        sp, ch, cid = self.sp, self.ch, self.cid
        to = tx_to(raw)
        status, _, used, price, contract, logs = receipt
        h = keccak256(raw)
        pos = self.n8 + u32(idx)
        ch[sp.tx + pos] = b""  # the record is the block row's (chain_rows.py)
        ch[sp.ts + u8(status) + pos] = b""
        at = u64(self.ms) + cid + pos
        ch[GLOBAL_TXS + at] = b""
        ch[GLOBAL_TX_STATUS + u8(status) + at] = b""
        receiver = to or contract or b""
        native = {sender, receiver} if receiver else {sender}
        touched = set(native)
        if not to and contract and status:
            self.created(contract, pos, idx, 0, h, sender, sender, F_CREATE)
        for lg in logs:
            for sub, item in enumerate(log_transfers(lg.topics, lg.data)):
                self.transfer(pos, sub, item, lg.address, h)
                touched.add(item[1])
                touched.add(item[2])
            self.log_index += 1
        if frames:
            self.frames(pos, idx, frames, h, sender, touched)
        for a in native:
            ch[sp.na + a + pos] = b""
        for a in touched - native:  # the address's txs are its na rows and these (query.py merges them)
            ch[sp.ta + a + pos] = b""
        return used * price


def index_block(source: Source, row: dict, batch: Batch) -> int:
    """Stage every EVM index row of block `row` in `batch`; returns the block number."""
    number = header_number(row["hdr"])
    b = _Block(source, row, batch, number)
    sp = b.sp
    prev = batch.get(sp.bk + u64(number - 1)) if number else None
    cumulative = unpack(prev)[-1] if prev is not None else 0
    txs = row["txs"]
    senders = row["from"]
    receipts = [ReceiptRow.decode(rc) for rc in row["rc"]]
    traces = row.get("ct")
    fees = 0
    for i, raw in enumerate(txs):
        fees += b.tx(i, raw, senders[i], receipts[i], traces[i] if traces else None)
    b.ch[sp.bk + b.n8] = pack([big(fees), cumulative + len(txs)])  # the rest is the block row's
    if batch.get(sp.rp) is None:
        b.ch[sp.rp] = pack([source.prefix, source.header_rules.coreth])
    b.ch[GLOBAL_BLOCKS + u64(b.ms) + b.cid + b.n8] = b""
    return number
