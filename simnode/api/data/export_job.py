"""Transaction export jobs (`POST /v1/operations/transactions:export`): a CSV of the requested
chains' and addresses' transactions over [firstDate, lastDate] (UTC days, both included), made in
the background and kept in the node's LevelDB.

A job is a record under `dataops/op/<operation ID>` and its CSV, in chunks of CHUNK_ROWS rows,
under `dataops/csv/<operation ID><chunk number>`. Both are written outside the chains' batches
(Store.put_unversioned): an export is not chain state, so a snapshot revert keeps it. The job runs
as an asyncio task that reads READ_PAGE rows of the index at a time (a date range becomes a block
range first) and yields to the event loop between them, so requests and blocks go on while it runs.
Its status moves as the hosted API's does:
RUNNING, then COMPLETED, COMPLETED_WITH_WARNING (WarnTruncatedExport: more than MAX_ROWS rows; the
CSV stops at a day boundary and `nextDate` is the firstDate of a follow-up request) or FAILED
(ErrInvalidRequest: a chain this node does not have; ErrInternal: anything else, logged). A job
still RUNNING when the node stopped starts again (from the beginning) when it is next read.

Rows, oldest first across all requested chains and addresses (a tx of two requested addresses
appears once per address):
* TRANSACTION_EXPORT_EVM: per address, one `native` row per transaction it sent, received or
  created, plus one row per ERC-20/721/1155 transfer (`erc20`, …) and listed internal transaction
  (`internal`) of that transaction it is part of. Amounts are integers of the smallest unit
  (wei; token units), as the Data API writes them.
* TRANSACTION_EXPORT_PRIMARY_NETWORK(_SIMPLE): the P-, X- and C-Chain (atomic) transactions of the
  addresses (bech32, with or without a chain letter; `cChainEvmAddresses` count on the C-Chain);
  _STAKING: only the P-Chain's staking transactions.
"""

from __future__ import annotations

import asyncio
import csv
import heapq
import io
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from ...formats.ids import id_to_str
from ...index.evm.query import EvmIndex
from ...index.primary import query
from ...store.store import pack, unpack
from .errors import ApiError
from .evm_json import checksum, hex0x
from .primary import address as bech32_address
from .primary import chain_id
from .resolve import C_CHAIN, P_CHAIN, X_CHAIN, evm_chain, evm_chain_id_of, primary_chain_name

log = logging.getLogger("simnode.dataapi.export")

OP_PREFIX = b"dataops/op/"
CSV_PREFIX = b"dataops/csv/"
CHUNK_ROWS = 500  # rows per stored CSV chunk
READ_PAGE = 100  # index rows read between two yields to the event loop
MAX_ROWS = 100_000
EVM = "TRANSACTION_EXPORT_EVM"
PRIMARY_STAKING = "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING"
RUNNING, COMPLETED, WARNED, FAILED = "RUNNING", "COMPLETED", "COMPLETED_WITH_WARNING", "FAILED"
EVM_COLUMNS = ("chainId", "address", "blockNumber", "blockTimestamp", "date", "txHash", "txStatus", "kind", "from",
               "to", "value", "tokenAddress", "tokenSymbol", "tokenDecimals", "tokenId", "gasUsed", "gasPrice")
PRIMARY_COLUMNS = ("chainName", "blockchainId", "address", "blockHeight", "blockTimestamp", "date", "txHash",
                   "txType")
STAKING_TYPES = frozenset({"AddValidatorTx", "AddDelegatorTx", "AddPermissionlessValidatorTx",
                           "AddPermissionlessDelegatorTx", "AddSubnetValidatorTx", "RemoveSubnetValidatorTx",
                           "RewardValidatorTx"})


@dataclass(frozen=True, slots=True)
class ExportRequest:
    type: str
    first: date
    last: date
    addresses: tuple[bytes, ...]       # 20-byte addresses (EVM, or the primary network's)
    chains: tuple[str, ...]            # includeChains as sent
    c_addresses: tuple[bytes, ...] = ()  # cChainEvmAddresses (primary network exports)

    def record(self) -> list[Any]:
        return [self.type, self.first.isoformat(), self.last.isoformat(), list(self.addresses), list(self.chains),
                list(self.c_addresses)]

    @classmethod
    def of_record(cls, r: list[Any]) -> ExportRequest:
        return cls(r[0], date.fromisoformat(r[1]), date.fromisoformat(r[2]), tuple(r[3]), tuple(r[4]), tuple(r[5]))


class InvalidExport(Exception):
    """What makes a job FAILED with ErrInvalidRequest."""


# ------------------------------------------------------------------------------ records


def load(store: Any, op_id: bytes) -> dict[str, Any] | None:
    raw = store.get(OP_PREFIX + op_id)
    return None if raw is None else unpack(raw)


def save(store: Any, op_id: bytes, rec: dict[str, Any]) -> None:
    store.put_unversioned({OP_PREFIX + op_id: pack(rec)})


def csv_chunks(store: Any, op_id: bytes) -> Iterator[bytes]:
    for _, value in store.iterate(CSV_PREFIX + op_id):
        yield value


# ------------------------------------------------------------------------------ rows


def _day_bounds_ms(req: ExportRequest) -> tuple[int, int]:
    lo = datetime(req.first.year, req.first.month, req.first.day, tzinfo=UTC)
    hi = datetime(req.last.year, req.last.month, req.last.day, tzinfo=UTC) + timedelta(days=1)
    return int(lo.timestamp() * 1000), int(hi.timestamp() * 1000)


def _day(ms: int) -> str:
    return datetime.fromtimestamp(ms // 1000, UTC).date().isoformat()


def _first_block_at(ix: EvmIndex, ms: int) -> int:
    """The first block of the chain made at or after `ms` (the head + 1 when none is): block
    times never go down, so a binary search over the index's blocks."""
    head = ix.head()
    lo, hi = 0, (head + 1) if head is not None else 0
    while lo < hi:
        mid = (lo + hi) // 2
        block = ix.block(mid)
        if block is not None and block.timestamp_ms < ms:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _evm_rows(ix: EvmIndex, evm_id: str, address: bytes, lo_ms: int, hi_ms: int) -> Iterator[tuple[Any, ...]]:
    """(sort key, row) of one address on one chain, oldest first."""
    cursor = None
    mine = checksum(address)
    first, end = _first_block_at(ix, lo_ms), _first_block_at(ix, hi_ms)
    if first >= end:
        return
    while True:
        page = ix.address_transactions(address, READ_PAGE, cursor, reverse=False, start_block=first, end_block=end)
        for item in page.items:
            tx = item.tx
            when = [evm_id, mine, str(tx.block_number), str(tx.timestamp_ms // 1000), _day(tx.timestamp_ms),
                    hex0x(tx.hash), str(tx.status)]
            key = (tx.timestamp_ms, evm_id, tx.block_number, tx.index, mine)
            yield key, [*when, "native", checksum(tx.sender), checksum(tx.receiver) if tx.receiver else "",
                        str(tx.value), "", "", "", "", str(tx.gas_used), str(tx.gas_price)]
            for t in item.transfers:
                meta = t.meta
                yield key, [*when, t.standard.lower().replace("-", ""), checksum(t.sender), checksum(t.to),
                            str(t.amount), checksum(t.token), (meta.symbol or "") if meta else "",
                            "" if meta is None or meta.decimals is None else str(meta.decimals),
                            "" if t.token_id is None else str(t.token_id), "", ""]
            for f in item.internals:
                yield key, [*when, "internal", checksum(f.sender), checksum(f.to) if f.to else "", str(f.value),
                            "", "", "", "", str(f.gas_used), ""]
        if page.next is None:
            return
        cursor = page.next


def _primary_rows(node: Any, name: str, address: bytes, shown: str, lo_ms: int, hi_ms: int,
                  types: frozenset[str] | None) -> Iterator[tuple[Any, ...]]:
    cid = chain_id(node, name)
    cursor = None
    lo, hi = lo_ms // 1000, hi_ms // 1000 - 1
    while True:
        page = query.txs(node.store, cid, READ_PAGE, cursor, reverse=False, addresses=[address], start=lo, end=hi,
                         types=set(types) if types else None)
        for row in page.items:
            ms = row.time * 1000
            yield (ms, name, row.height, row.index, shown), [
                name, id_to_str(cid), shown, str(row.height), str(row.time), _day(ms), id_to_str(row.id), row.type]
        if page.next is None:
            return
        cursor = page.next


def _primary_chain(node: Any, ref: str) -> str:
    name = primary_chain_name(node, ref)
    if name is None:
        raise InvalidExport(f"includeChains: {ref} is not a chain of the primary network")
    return name


def rows(node: Any, req: ExportRequest) -> tuple[tuple[str, ...], Iterator[tuple[Any, ...]]]:
    """The CSV's columns and its rows as (sort key, row), oldest first (InvalidExport for a chain
    this node does not have)."""
    lo_ms, hi_ms = _day_bounds_ms(req)
    streams: list[Iterator[tuple[Any, ...]]] = []
    if req.type == EVM:
        for ref in req.chains:
            try:
                chain = evm_chain(node, ref)
            except ApiError as exc:
                raise InvalidExport(f"includeChains: {exc}") from None
            ix, evm_id = EvmIndex(node.store, chain.chain_id), str(evm_chain_id_of(node, chain))
            streams += [_evm_rows(ix, evm_id, a, lo_ms, hi_ms) for a in req.addresses]
        return EVM_COLUMNS, heapq.merge(*streams, key=lambda r: r[0])
    names = sorted({_primary_chain(node, ref) for ref in req.chains})
    types = STAKING_TYPES if req.type == PRIMARY_STAKING else None
    for name in names:
        if types is not None and name != P_CHAIN:
            continue
        letter = {P_CHAIN: "P", X_CHAIN: "X", C_CHAIN: "C"}[name]
        for a in req.addresses:
            streams.append(_primary_rows(node, name, a, bech32_address(node, a, letter), lo_ms, hi_ms, types))
        if name == C_CHAIN:
            streams += [_primary_rows(node, name, a, checksum(a), lo_ms, hi_ms, types) for a in req.c_addresses]
    return PRIMARY_COLUMNS, heapq.merge(*streams, key=lambda r: r[0])


def _csv_text(lines: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(lines)
    return out.getvalue().encode()


# ------------------------------------------------------------------------------ the job


async def run(node: Any, op_id: bytes, now_s: Any) -> None:
    """Make the CSV of the operation and record how it ended."""
    store = node.store
    rec = load(store, op_id)
    if rec is None:
        return
    store.put_unversioned({k: None for k, _ in store.iterate(CSV_PREFIX + op_id)})  # a restart's leftovers
    try:
        columns, stream = rows(node, ExportRequest.of_record(rec["request"]))
        out = _Chunks(store, op_id, list(columns))
        day_rows: list[list[str]] = []  # the current day's rows: the CSV ends at a day boundary
        current, next_day, seen = None, None, 0
        for key, row in stream:
            day = _day(key[0])
            if day != current:
                out.add(day_rows)
                day_rows, current = [], day
            if out.rows + len(day_rows) >= MAX_ROWS:
                if out.rows == 0:  # one day alone is over the bound: its first MAX_ROWS rows
                    out.add(day_rows)
                    next_day = (date.fromisoformat(day) + timedelta(days=1)).isoformat()
                else:
                    next_day = day
                day_rows = []
                break
            day_rows.append(row)
            seen += 1
            if seen % READ_PAGE == 0:
                await asyncio.sleep(0)  # let requests and blocks run between chunks
        out.add(day_rows)
        out.close()
        rec.update(status=WARNED if next_day else COMPLETED, rows=out.rows, chunks=out.number, updated=now_s())
        if next_day:
            rec.update(code="WarnTruncatedExport", next=next_day,
                       message=f"the export has more than {MAX_ROWS} rows: it stops before {next_day}")
    except InvalidExport as exc:
        rec.update(status=FAILED, code="ErrInvalidRequest", message=str(exc), updated=now_s())
    except Exception:
        log.exception("transaction export %s failed", op_id.hex())
        rec.update(status=FAILED, code="ErrInternal", message="the export failed (see the node's log)",
                   updated=now_s())
    save(store, op_id, rec)


class _Chunks:
    """The CSV's rows, stored CHUNK_ROWS at a time (the header first)."""

    def __init__(self, store: Any, op_id: bytes, header: list[str]) -> None:
        self.store, self.op_id = store, op_id
        self.lines: list[list[str]] = [header]
        self.rows = self.number = 0

    def add(self, lines: list[list[str]]) -> None:
        self.rows += len(lines)
        self.lines += lines
        while len(self.lines) >= CHUNK_ROWS:
            self._write(self.lines[:CHUNK_ROWS])
            self.lines = self.lines[CHUNK_ROWS:]

    def close(self) -> None:
        if self.lines:
            self._write(self.lines)
            self.lines = []

    def _write(self, lines: list[list[str]]) -> None:
        self.store.put_unversioned({CSV_PREFIX + self.op_id + self.number.to_bytes(4, "big"): _csv_text(lines)})
        self.number += 1
