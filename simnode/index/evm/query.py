"""Reading the EVM index: frozen records with raw values (ints, bytes) and keyset pages.

`EvmIndex(db, chain_id)` reads one chain's tables (db: the node's Store); `all_blocks`,
`all_transactions` and `address_chains` read the tables across chains. Every list returns a
`Page` (items, next cursor bytes or None) from a range scan: pass `page.next` back as `cursor`.
Lists run newest first unless `reverse=False`; `start_block` (inclusive) and `end_block`
(exclusive) bound the scan itself. A cursor of the wrong shape raises CursorError.
See the package docstring (simnode/index/__init__.py) for which call serves which route.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ...store import unpack
from ..keys import NS, from_sbig, num, parts, u8, u64
from ..page import CursorError, Page, Readable, check_cursor, first, merged_page, page
from .chain_rows import ChainRows
from .layout import (ERC721, ERC1155, FRAME_KINDS, GLOBAL_BLOCKS, GLOBAL_TX_STATUS, GLOBAL_TXS, STANDARD_NAMES,
                     W_FRAME, W_TRANSFER, W_TX, is_listed_internal, space)

__all__ = ["AddressTx", "Block", "Contract", "CursorError", "Erc20Balance", "EvmIndex", "Frame", "Nft",
           "NftBalance", "Page", "Token", "Transfer", "Tx", "TxDetails", "address_chains", "all_blocks",
           "all_transactions", "indexed_chains"]


@dataclass(frozen=True, slots=True)
class Block:
    chain_id: bytes
    number: int
    hash: bytes
    parent_hash: bytes
    timestamp_ms: int
    tx_count: int
    gas_used: int
    gas_limit: int
    base_fee: int
    gas_cost: int  # the header's blockGasCost (0 where the block has none)
    min_delay_excess: int | None  # the header's minDelayExcess (Granite on), else None
    fees_spent: int  # sum of gas used x effective gas price of its txs
    cumulative_txs: int  # txs of the chain up to and including this block

    @property
    def timestamp(self) -> int:
        return self.timestamp_ms // 1000


@dataclass(frozen=True, slots=True)
class Tx:
    chain_id: bytes
    block_number: int
    block_hash: bytes
    timestamp_ms: int
    index: int  # position in the block
    hash: bytes
    sender: bytes
    to: bytes  # b"" for a contract creation
    contract: bytes | None  # the address a creation made (or would have made, if it failed)
    value: int
    nonce: int
    gas_limit: int
    gas_used: int
    gas_price: int  # the effective price paid
    status: int  # 1 success, 0 failed
    type: int  # 0 legacy, 1 EIP-2930, 2 EIP-1559
    max_fee: int | None  # type 2 only
    tip: int | None  # type 2 only
    input: bytes

    @property
    def receiver(self) -> bytes:
        """`to`, or the created contract for a creation."""
        return self.to or self.contract or b""

    @property
    def method_id(self) -> bytes:
        return self.input[:4] if len(self.input) >= 4 else b""

    @property
    def call_type(self) -> str:
        """TransactionMethodType: CONTRACT_CREATION, CONTRACT_CALL (has input) or NATIVE_TRANSFER."""
        if not self.to:
            return "CONTRACT_CREATION"
        return "CONTRACT_CALL" if self.input else "NATIVE_TRANSFER"


@dataclass(frozen=True, slots=True)
class Token:
    address: bytes
    standard: str  # "ERC-20" | "ERC-721" | "ERC-1155"
    name: str | None
    symbol: str | None
    decimals: int | None  # ERC-20 only
    first_block: int  # the block whose state the metadata was read at


@dataclass(frozen=True, slots=True)
class Transfer:
    standard: str  # "ERC-20" | "ERC-721" | "ERC-1155"
    token: bytes
    sender: bytes
    to: bytes
    amount: int  # 1 for ERC-721
    token_id: int | None  # None for ERC-20
    log_index: int  # in the block
    block_number: int
    tx_index: int
    tx_hash: bytes
    block_hash: bytes
    timestamp_ms: int
    meta: Token | None  # the token contract's standard and metadata, when detected
    uri: str | None  # tokenURI / uri of the NFT (read once, when the ID first appeared)


@dataclass(frozen=True, slots=True)
class Frame:
    """A call frame of a tx (an internal transaction below depth 0). At depth 0, the tx's own
    call: gas_limit is what its intrinsic gas left, gas_used leaves out intrinsic gas and refunds
    (Tx.gas_limit and Tx.gas_used are the tx's totals)."""

    kind: str  # CALL CALLCODE DELEGATECALL STATICCALL CREATE CREATE2 SELFDESTRUCT
    sender: bytes
    to: bytes  # callee (code address for DELEGATECALL/CALLCODE), created contract, beneficiary
    value: int
    gas_limit: int
    gas_used: int
    depth: int
    failed: bool  # the frame itself ended in an error
    reverted: bool  # its effects were undone (it failed, or a frame around it did)
    index: int  # position among the tx's frames (pre-order)
    block_number: int
    tx_index: int
    tx_hash: bytes
    block_hash: bytes
    timestamp_ms: int


@dataclass(frozen=True, slots=True)
class AddressTx:
    """A tx of an address, with only the transfers and internal txs the address is part of."""

    tx: Tx
    transfers: tuple[Transfer, ...]
    internals: tuple[Frame, ...]


@dataclass(frozen=True, slots=True)
class TxDetails:
    tx: Tx
    block: Block
    transfers: tuple[Transfer, ...]
    frames: tuple[Frame, ...]  # every recorded frame, the tx's own call (depth 0) first; none for
    # a plain value transfer, which runs no code


@dataclass(frozen=True, slots=True)
class Contract:
    address: bytes
    block_number: int
    tx_index: int
    tx_hash: bytes
    deployer: bytes  # the sender of the tx
    creator: bytes  # the account that ran CREATE/CREATE2 (the deployer for a top-level creation)
    kind: str  # CREATE | CREATE2
    internal: bool  # created by a contract, not by the tx itself
    token: Token | None


@dataclass(frozen=True, slots=True)
class Erc20Balance:
    token: bytes
    balance: int
    meta: Token | None


@dataclass(frozen=True, slots=True)
class NftBalance:
    token: bytes
    token_id: int
    standard: str  # "ERC-721" | "ERC-1155"
    balance: int  # 1 for ERC-721
    uri: str | None
    meta: Token | None


@dataclass(frozen=True, slots=True)
class Nft:
    token: bytes
    token_id: int
    standard: str
    uri: str | None
    owner: bytes | None  # ERC-721: the current owner (None once burned); ERC-1155: None
    first_block: int
    meta: Token | None


def _bounds(start_block: int | None, end_block: int | None) -> tuple[bytes | None, bytes | None]:
    return (None if start_block is None else u64(start_block)), (None if end_block is None else u64(end_block))


class EvmIndex:
    """One EVM chain's index, read from `db` (a Store)."""

    def __init__(self, db: Readable, chain_id: bytes) -> None:
        self.db = db
        self.chain_id = chain_id
        self.sp = space(chain_id)
        self.rows = ChainRows(db, self.sp)

    # ------------------------------------------------------------------ blocks

    def head(self) -> int | None:
        """The last block indexed (None: none yet)."""
        raw = self.db.get(self.sp.marker)
        return None if raw is None else num(raw)

    def block(self, number: int) -> Block | None:
        raw = self.db.get(self.sp.bk + u64(number))
        return None if raw is None else self._block(number, raw)

    def block_by_hash(self, block_hash: bytes) -> Block | None:
        n = self.rows.block_number(block_hash)
        return None if n is None else self.block(num(n))  # None for a block not indexed (yet)

    def blocks(self, limit: int, cursor: bytes | None = None, reverse: bool = True) -> Page[Block]:
        check_cursor(cursor, 8)
        rows, nxt = page(self.db, self.sp.bk, limit, cursor, reverse)
        return Page(tuple(self._block(num(s), v) for s, v in rows), nxt)

    def _block(self, number: int, raw: bytes) -> Block:
        rec = unpack(raw)
        if len(rec) == 2:  # fees and cumulative txs: the rest is the chain's block row
            rec = self.rows.block_record(number, *rec)
        h, parent, ms, count, used, limit, base, gas_cost, delay, fees, cumulative = rec
        return Block(self.chain_id, number, h, parent, ms, count, used, limit, base, gas_cost, delay, num(fees),
                     cumulative)

    def block_transactions(self, number: int, limit: int, cursor: bytes | None = None,
                           reverse: bool = False) -> Page[Tx]:
        """The block's txs, in block order unless `reverse`."""
        check_cursor(cursor, 4)
        rows, nxt = page(self.db, self.sp.tx + u64(number), limit, cursor, reverse)
        return Page(tuple(self._tx(u64(number) + s, v) for s, v in rows), nxt)

    # ------------------------------------------------------------------ transactions

    def _tx_position(self, tx_hash: bytes) -> bytes | None:
        """Where the indexed tx `tx_hash` is (None: not a tx of the chain, or not indexed yet)."""
        pos = self.rows.tx_position(tx_hash)
        return pos if pos is not None and self.db.get(self.sp.tx + pos) is not None else None

    def tx(self, tx_hash: bytes) -> Tx | None:
        pos = self._tx_position(tx_hash)
        return None if pos is None else self._tx_at(pos)

    def tx_details(self, tx_hash: bytes) -> TxDetails | None:
        """The tx with its block, all its token transfers and all its call frames."""
        pos = self._tx_position(tx_hash)
        if pos is None:
            return None
        tx = self._tx_at(pos)
        block = self.block(tx.block_number)
        assert block is not None
        return TxDetails(tx, block, tuple(self._transfers_of(pos, tx)), tuple(self._frames_of(pos, tx)))

    def transactions(self, limit: int, cursor: bytes | None = None, status: int | None = None,
                     reverse: bool = True) -> Page[Tx]:
        """The chain's txs, newest first; `status` 1 or 0 keeps only successful or failed ones."""
        check_cursor(cursor, W_TX)
        prefix = self.sp.tx if status is None else self.sp.ts + u8(status)
        rows, nxt = page(self.db, prefix, limit, cursor, reverse)
        if status is None:
            return Page(tuple(self._tx(s, v) for s, v in rows), nxt)
        return Page(tuple(self._tx_at(s) for s, _ in rows), nxt)

    def _cached_tx(self, txs: dict[bytes, Tx], pos: bytes) -> Tx:
        tx = txs.get(pos)
        if tx is None:
            tx = txs[pos] = self._tx_at(pos)
        return tx

    def _tx_at(self, pos: bytes) -> Tx:
        raw = self.db.get(self.sp.tx + pos)
        assert raw is not None, "an index pointer to a missing tx row"
        return self._tx(pos, raw)

    def _tx(self, pos: bytes, raw: bytes) -> Tx:
        rec = unpack(raw) if raw else self.rows.tx_record(pos)  # b"": the record is the block row's
        (h, block_hash, ms, sender, to, contract, value, nonce, gas, used, price, status, type_id, max_fee, tip,
         data) = rec
        n, i = parts(pos, 8, 4)
        return Tx(self.chain_id, num(n), block_hash, ms, num(i), h, sender, to, contract or None, num(value), nonce,
                  gas, used, price, status, type_id, max_fee, tip, data)

    # ------------------------------------------------------------------ per address

    def address_transactions(self, address: bytes, limit: int, cursor: bytes | None = None, reverse: bool = True,
                             start_block: int | None = None, end_block: int | None = None) -> Page[AddressTx]:
        """Txs the address is part of: as sender, receiver (or created contract), either end of a
        token transfer or of a listed internal tx."""
        check_cursor(cursor, W_TX)
        lo, hi = _bounds(start_block, end_block)
        rows, nxt = merged_page(self.db, [self.sp.na + address, self.sp.ta + address], limit, cursor, reverse, lo, hi)
        items = []
        for pos, _ in rows:
            tx = self._tx_at(pos)
            transfers = tuple(t for t in self._transfers_of(pos, tx) if address in (t.sender, t.to))
            internals = tuple(f for f in self._frames_of(pos, tx)
                              if address in (f.sender, f.to) and is_listed_internal(f.kind, f.value > 0, f.depth))
            items.append(AddressTx(tx, transfers, internals))
        return Page(tuple(items), nxt)

    def native_transactions(self, address: bytes, limit: int, cursor: bytes | None = None, reverse: bool = True,
                            start_block: int | None = None, end_block: int | None = None) -> Page[Tx]:
        """Txs the address sent or received (or created as a contract)."""
        check_cursor(cursor, W_TX)
        lo, hi = _bounds(start_block, end_block)
        rows, nxt = page(self.db, self.sp.na + address, limit, cursor, reverse, lo, hi)
        return Page(tuple(self._tx_at(pos) for pos, _ in rows), nxt)

    def erc20_transfers(self, address: bytes, limit: int, cursor: bytes | None = None, reverse: bool = True,
                        start_block: int | None = None, end_block: int | None = None) -> Page[Transfer]:
        return self._transfer_page(self.sp.e2 + address, limit, cursor, reverse, start_block, end_block)

    def erc721_transfers(self, address: bytes, limit: int, cursor: bytes | None = None, reverse: bool = True,
                         start_block: int | None = None, end_block: int | None = None) -> Page[Transfer]:
        return self._transfer_page(self.sp.e7 + address, limit, cursor, reverse, start_block, end_block)

    def erc1155_transfers(self, address: bytes, limit: int, cursor: bytes | None = None, reverse: bool = True,
                          start_block: int | None = None, end_block: int | None = None) -> Page[Transfer]:
        return self._transfer_page(self.sp.e1 + address, limit, cursor, reverse, start_block, end_block)

    def token_transfers(self, token: bytes, limit: int, cursor: bytes | None = None, reverse: bool = True,
                        start_block: int | None = None, end_block: int | None = None) -> Page[Transfer]:
        """Every transfer a token contract logged (any standard)."""
        return self._transfer_page(self.sp.tk + token, limit, cursor, reverse, start_block, end_block)

    def _transfer_page(self, prefix: bytes, limit: int, cursor: bytes | None, reverse: bool,
                       start_block: int | None, end_block: int | None) -> Page[Transfer]:
        check_cursor(cursor, W_TRANSFER)
        lo, hi = _bounds(start_block, end_block)
        rows, nxt = page(self.db, prefix, limit, cursor, reverse, lo, hi)
        txs: dict[bytes, Tx] = {}
        metas: dict[bytes, Token | None] = {}
        items = []
        for tail, _ in rows:
            tx = self._cached_tx(txs, tail[:W_TX])
            raw = self.db.get(self.sp.tr + tail)
            assert raw is not None
            items.append(self._transfer(tail, raw, tx, metas))
        return Page(tuple(items), nxt)

    def _transfers_of(self, pos: bytes, tx: Tx) -> list[Transfer]:
        metas: dict[bytes, Token | None] = {}
        cut = len(self.sp.tr)
        return [self._transfer(key[cut:], raw, tx, metas) for key, raw in self.db.iterate(self.sp.tr + pos)]

    def _transfer(self, tail: bytes, raw: bytes, tx: Tx, metas: dict[bytes, Token | None]) -> Transfer:
        standard, token, sender, to, amount, token_id, tx_hash = unpack(raw)
        if token not in metas:
            metas[token] = self.token(token)
        uri = None
        if standard in (ERC721, ERC1155):
            nft = self.db.get(self.sp.nt + token + token_id)
            uri = unpack(nft)[0] if nft is not None else None
        return Transfer(STANDARD_NAMES[standard], token, sender, to, num(amount), num(token_id) if token_id else None,
                        num(tail[12:16]), tx.block_number, tx.index, tx_hash, tx.block_hash, tx.timestamp_ms,
                        metas[token], uri)

    def internal_transactions(self, address: bytes, limit: int, cursor: bytes | None = None, reverse: bool = True,
                              start_block: int | None = None, end_block: int | None = None) -> Page[Frame]:
        """Listed internal txs (value-moving CALL/CALLCODE, CREATE/CREATE2 below the
        tx itself) the address is either end of, reverted ones included."""
        check_cursor(cursor, W_FRAME)
        lo, hi = _bounds(start_block, end_block)
        rows, nxt = page(self.db, self.sp.ia + address, limit, cursor, reverse, lo, hi)
        txs: dict[bytes, Tx] = {}
        items = []
        for key, raw in rows:
            tx = self._cached_tx(txs, key[:W_TX])
            items.append(self._frame(num(key[W_TX:]), unpack(raw), tx))
        return Page(tuple(items), nxt)

    def _frames_of(self, pos: bytes, tx: Tx) -> list[Frame]:
        raw = self.db.get(self.sp.tf + pos)
        return [] if raw is None else [self._frame(i, rec, tx) for i, rec in enumerate(unpack(raw))]

    @staticmethod
    def _frame(index: int, rec: list, tx: Tx) -> Frame:
        kind, sender, to, value, gas, used, depth, failed, reverted = rec
        return Frame(FRAME_KINDS[kind], sender, to, num(value), gas, used, depth, failed, reverted, index,
                     tx.block_number, tx.index, tx.hash, tx.block_hash, tx.timestamp_ms)

    # ------------------------------------------------------------------ balances

    def erc20_balance(self, owner: bytes, token: bytes, block: int | None = None) -> int:
        """Derived from Transfer logs: what balanceOf answers for a standard token (at `block`)."""
        if block is None:
            raw = self.db.get(self.sp.c2 + owner + token)
            return from_sbig(raw) if raw is not None else 0
        hit = first(self.db, self.sp.h2 + owner + token, u64(block))
        return from_sbig(hit[1]) if hit is not None else 0

    def erc20_balances(self, owner: bytes, limit: int, cursor: bytes | None = None, block: int | None = None,
                       tokens: Sequence[bytes] | None = None) -> Page[Erc20Balance]:
        """The owner's non-zero ERC-20 balances by token address, now or after `block`; `tokens`
        restricts them to those contracts."""
        check_cursor(cursor, 20)
        if block is None and tokens is None:
            rows, nxt = page(self.db, self.sp.c2 + owner, limit, cursor, False)
            return Page(tuple(Erc20Balance(t, from_sbig(v), self.token(t)) for t, v in rows), nxt)
        candidates = (sorted(t for t in set(tokens) if cursor is None or t > cursor) if tokens is not None
                      else self._distinct(self.sp.h2 + owner, 20, cursor))
        found: list[Erc20Balance] = []
        for token in candidates:
            balance = self.erc20_balance(owner, token, block)
            if balance:
                if len(found) == limit:
                    return Page(tuple(found), found[-1].token)
                found.append(Erc20Balance(token, balance, self.token(token)))
        return Page(tuple(found), None)

    def _distinct(self, prefix: bytes, width: int, after: bytes | None) -> Iterable[bytes]:
        """The distinct leading `width` bytes of the suffixes under `prefix`, ascending, after
        `after`: one seek each, however many history rows each has."""
        while True:
            start = None if after is None else prefix + after + b"\xff" * 9
            hit = next(iter(self.db.iterate(prefix, start) if start is not None else self.db.iterate(prefix)), None)
            if hit is None:
                return
            after = hit[0][len(prefix):len(prefix) + width]
            yield after

    def erc1155_balance(self, owner: bytes, token: bytes, token_id: int, block: int | None = None) -> int:
        tid = token_id.to_bytes(32, "big")
        if block is None:
            raw = self.db.get(self.sp.c1 + owner + token + tid)
            return from_sbig(raw) if raw is not None else 0
        hit = first(self.db, self.sp.h1 + owner + token + tid, u64(block))
        return from_sbig(hit[1]) if hit is not None else 0

    def erc1155_balances(self, owner: bytes, limit: int, cursor: bytes | None = None, block: int | None = None,
                         token: bytes | None = None) -> Page[NftBalance]:
        """The owner's non-zero ERC-1155 balances by (token, ID), now or after `block`."""
        check_cursor(cursor, 52)
        if token is not None and cursor is not None and not cursor.startswith(token):
            raise CursorError("page cursor of another contract")
        scope = owner + (token or b"")
        cut = len(token or b"")
        if block is None:
            rows, nxt = page(self.db, self.sp.c1 + scope, limit, None if cursor is None else cursor[cut:], False)
            return Page(tuple(self._nft_balance(ERC1155, (token or b"") + k, from_sbig(v)) for k, v in rows),
                        None if nxt is None else (token or b"") + nxt)
        found: list[NftBalance] = []
        after = None if cursor is None else cursor[cut:]
        for key in self._distinct(self.sp.h1 + scope, 52 - cut, after):
            full = (token or b"") + key
            hit = first(self.db, self.sp.h1 + owner + full, u64(block))
            balance = from_sbig(hit[1]) if hit is not None else 0
            if balance:
                if len(found) == limit:
                    return Page(tuple(found), found[-1].token + found[-1].token_id.to_bytes(32, "big"))
                found.append(self._nft_balance(ERC1155, full, balance))
        return Page(tuple(found), None)

    def erc721_holdings(self, owner: bytes, limit: int, cursor: bytes | None = None,
                        token: bytes | None = None) -> Page[NftBalance]:
        """The ERC-721 tokens the owner holds now, by (token, ID)."""
        check_cursor(cursor, 52)
        if token is not None and cursor is not None and not cursor.startswith(token):
            raise CursorError("page cursor of another contract")
        prefix = self.sp.n7 + owner + (token or b"")
        cut = len(token or b"")
        rows, nxt = page(self.db, prefix, limit, None if cursor is None else cursor[cut:], False)
        return Page(tuple(self._nft_balance(ERC721, (token or b"") + k, 1) for k, _ in rows),
                    None if nxt is None else (token or b"") + nxt)

    def collectibles(self, owner: bytes, limit: int, cursor: bytes | None = None,
                     token: bytes | None = None) -> Page[NftBalance]:
        """ERC-721 holdings and non-zero ERC-1155 balances together, by (token, ID)."""
        a = self.erc721_holdings(owner, limit, cursor, token)
        b = self.erc1155_balances(owner, limit, cursor, None, token)
        merged = sorted(a.items + b.items, key=lambda x: (x.token, x.token_id))
        more = len(merged) > limit or a.next is not None or b.next is not None
        items = tuple(merged[:limit])
        return Page(items, items[-1].token + items[-1].token_id.to_bytes(32, "big") if more and items else None)

    def _nft_balance(self, standard: int, key: bytes, balance: int) -> NftBalance:
        token, token_id = key[:20], key[20:52]
        nft = self.db.get(self.sp.nt + token + token_id)
        uri = unpack(nft)[0] if nft is not None else None
        return NftBalance(token, num(token_id), STANDARD_NAMES[standard], balance, uri, self.token(token))

    # ------------------------------------------------------------------ contracts, tokens, NFTs

    def token(self, address: bytes) -> Token | None:
        raw = self.db.get(self.sp.tm + address)
        if raw is None:
            return None
        standard, name, symbol, decimals, first_block = unpack(raw)
        return Token(address, STANDARD_NAMES[standard], name, symbol, decimals, first_block)

    def contract(self, address: bytes) -> Contract | None:
        """How the contract was created (None for an address no creation made)."""
        raw = self.db.get(self.sp.cc + address)
        if raw is None:
            return None
        number, idx, frame, tx_hash, deployer, creator, kind = unpack(raw)
        return Contract(address, number, idx, tx_hash, deployer, creator, FRAME_KINDS[kind], frame > 0,
                        self.token(address))

    def deployments(self, deployer: bytes, limit: int, cursor: bytes | None = None,
                    reverse: bool = True) -> Page[Contract]:
        """Contracts created by the address: directly (CREATE/CREATE2 it ran) or by its txs."""
        check_cursor(cursor, W_FRAME)
        rows, nxt = page(self.db, self.sp.cd + deployer, limit, cursor, reverse)
        items = tuple(self.contract(address) for _, address in rows)
        return Page(tuple(c for c in items if c is not None), nxt)

    def nft(self, token: bytes, token_id: int) -> Nft | None:
        tid = token_id.to_bytes(32, "big")
        raw = self.db.get(self.sp.nt + token + tid)
        return None if raw is None else self._nft(token + tid, raw)

    def nft_tokens(self, token: bytes, limit: int, cursor: bytes | None = None) -> Page[Nft]:
        """The token IDs a collection has minted (ERC-721 burned ones included), by ID."""
        check_cursor(cursor, 32)
        rows, nxt = page(self.db, self.sp.nt + token, limit, cursor, False)
        return Page(tuple(self._nft(token + k, v) for k, v in rows), nxt)

    def _nft(self, key: bytes, raw: bytes) -> Nft:
        uri, first_block = unpack(raw)
        token, tid = key[:20], key[20:]
        meta = self.token(token)
        standard = meta.standard if meta is not None else STANDARD_NAMES[ERC721]
        owner = self.db.get(self.sp.o7 + key) if standard == STANDARD_NAMES[ERC721] else None
        return Nft(token, num(tid), standard, uri, owner, first_block, meta)


# ---------------------------------------------------------------------- across chains


def indexed_chains(db: Readable) -> list[bytes]:
    """IDs of the chains with index rows, ascending: one seek each."""
    prefix = NS + b"c/"
    out: list[bytes] = []
    while True:
        start = prefix + out[-1] + b"\xff" if out else None
        hit = next(iter(db.iterate(prefix, start) if start is not None else db.iterate(prefix)), None)
        if hit is None:
            return out
        out.append(hit[0][len(prefix):len(prefix) + 32])


def address_chains(db: Readable, address: bytes) -> list[bytes]:
    """IDs of the chains the address has activity on (any row in their txs by address), ascending."""
    return [cid for cid in indexed_chains(db)
            if any(next(iter(db.iterate(t + address)), None) is not None for t in (space(cid).na, space(cid).ta))]


def all_blocks(db: Readable, limit: int, cursor: bytes | None = None, reverse: bool = True) -> Page[Block]:
    """Blocks of every indexed chain by time, newest first."""
    check_cursor(cursor, 48)
    rows, nxt = page(db, GLOBAL_BLOCKS, limit, cursor, reverse)
    items = []
    for key, _ in rows:
        _, cid, n = parts(key, 8, 32, 8)
        block = EvmIndex(db, cid).block(num(n))
        assert block is not None
        items.append(block)
    return Page(tuple(items), nxt)


def all_transactions(db: Readable, limit: int, cursor: bytes | None = None, status: int | None = None,
                     reverse: bool = True) -> Page[Tx]:
    """Txs of every indexed chain by time, newest first; `status` as for EvmIndex.transactions."""
    check_cursor(cursor, 52)
    prefix = GLOBAL_TXS if status is None else GLOBAL_TX_STATUS + u8(status)
    rows, nxt = page(db, prefix, limit, cursor, reverse)
    return Page(tuple(EvmIndex(db, key[8:40])._tx_at(key[40:]) for key, _ in rows), nxt)
