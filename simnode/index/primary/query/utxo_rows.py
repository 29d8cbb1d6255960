"""UTXOs in the primary-network index: one by ID, an address's pages and holdings, activity."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ....store import unpack
from ...keys import num, u64
from ...page import Page, Readable
from ..layout import LOCKED, UA_ALL, UA_UNSPENT, UL, UO, US, UT_ALL, UT_UNSPENT, Out, Spend, counter
from .scan import check, collect, merged, stream


@dataclass(frozen=True, slots=True)
class Utxo:
    out: Out
    spend: Spend | None


def utxo(db: Readable, uid: bytes) -> Utxo | None:
    raw = db.get(UO + uid)
    if raw is None:
        return None
    spent = db.get(US + uid)
    return Utxo(Out.from_record(uid, unpack(raw)), Spend.from_record(unpack(spent)) if spent else None)


def utxos(db: Readable, home: bytes, addresses: list[bytes], limit: int, cursor: bytes | None = None,
          reverse: bool = True, by_amount: bool = False, include_spent: bool = False, asset: bytes | None = None,
          min_amount: int = 0) -> Page:
    """UTXOs spendable on `home` owned (in part) by any of `addresses`, by creation time or amount."""
    check(cursor, 40)
    table = (UA_ALL if include_spent else UA_UNSPENT) if by_amount else (UT_ALL if include_spent else UT_UNSPENT)
    # amounts are u64: a minimum past the last one starts the scan there and `keep` refuses all
    lo = u64(min(min_amount, 2**64 - 1)) if by_amount and min_amount else None
    streams = [stream(db, table + home + a, cursor, reverse, lo) for a in sorted(set(addresses))]

    def keep(s: bytes, _: Any) -> Utxo | None:
        u = utxo(db, s[8:])
        if u is None or (asset is not None and u.out.asset != asset) or u.out.amount < min_amount:
            return None
        return u
    return collect(merged(streams, reverse), limit, keep)


def utxos_at(db: Readable, home: bytes, addresses: list[bytes], time: int | None) -> list[Utxo]:
    """Every UTXO of `addresses` on `home` that existed at `time` (made at or before it, not
    spent at or before it); None: the unspent ones now."""
    if time is None:
        streams = [stream(db, UT_UNSPENT + home + a) for a in sorted(set(addresses))]
        return [u for s, _ in merged(streams, False) if (u := utxo(db, s[8:])) is not None]
    streams = [stream(db, UT_ALL + home + a, hi=u64(time + 1)) for a in sorted(set(addresses))]
    out = []
    for s, spent in merged(streams, False):
        if spent and num(spent) <= time:
            continue
        u = utxo(db, s[8:])
        if u is not None:
            out.append(u)
    return out


def last_activity(db: Readable, chain_id: bytes, addresses: list[bytes]) -> tuple[int, bytes, bool, bytes, int] | None:
    """(time, UTXO ID, consumed?, tx, height) of the latest UTXO made or spent on the chain for any address."""
    best = None
    for a in sorted(set(addresses)):
        for s, v in db.iterate(UL + chain_id + a, reverse=True):
            s = s[len(UL) + 52:]
            tx_id, height = unpack(v)
            found = (num(s[:8]), s[8:40], s[40:] == b"\1", tx_id, height)
            if best is None or found[0] > best[0]:
                best = found
            break
    return best


def has_activity(db: Readable, chain_id: bytes, address: bytes) -> bool:
    for _ in db.iterate(UL + chain_id + address):
        return True
    return False


def locked_utxos(db: Readable, after: int) -> Iterator[Utxo]:
    """Unspent UTXOs whose lock (platform or stakeable) lasts beyond `after`."""
    for s, _ in stream(db, LOCKED, lo=u64(after + 1)):
        u = utxo(db, s[8:])
        if u is not None and u.spend is None:
            yield u


def total(db: Readable, name: str) -> int:
    raw = db.get(counter(name))
    return num(raw) if raw else 0

