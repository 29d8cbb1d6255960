"""L1 validators, subnets and chains in the primary-network index."""

from __future__ import annotations

from typing import Any

from ....store import unpack
from ...page import Page, Readable
from ..layout import space
from .scan import check, collect, stream
from .staker_rows import Record


def l1_validator(db: Readable, pid: bytes, vid: bytes) -> Record | None:
    raw = db.get(space(pid).lv + vid)
    if raw is None:
        return None
    rec = unpack(raw)
    return Record(vid, "l", rec)


def l1_validators(db: Readable, pid: bytes, limit: int, cursor: bytes | None, reverse: bool,
                  include_inactive: bool, node: bytes | None = None, subnet: bytes | None = None) -> Page:
    """L1 validators by creation; only the active ones (weight and balance left) unless asked."""
    check(cursor, 12)
    sp = space(pid)
    if node is not None:
        rows = stream(db, sp.lN + node, cursor, reverse)
    elif subnet is not None:
        rows = stream(db, sp.lS + subnet, cursor, reverse)
    else:
        rows = stream(db, sp.lb if include_inactive else sp.la, cursor, reverse)

    def keep(_: bytes, vid: Any) -> Record | None:
        r = l1_validator(db, pid, vid)
        if r is None:
            return None
        if subnet is not None and r.rec["subnet"] != subnet:
            return None
        if not include_inactive and not (r.rec["w"] > 0 and r.rec["end"] != 0):
            return None
        return r
    return collect(rows, limit, keep)



def _by_creation(db: Readable, table: bytes, kind: str, limit: int, cursor: bytes | None, reverse: bool) -> Page:
    check(cursor, 10)
    return collect(stream(db, table, cursor, reverse), limit, lambda s, v: Record(s, kind, unpack(v)))


def _by_id(db: Readable, ids: bytes, table: bytes, kind: str, record_id: bytes) -> Record | None:
    key = db.get(ids + record_id)
    raw = None if key is None else db.get(table + key)
    return None if raw is None else Record(key, kind, unpack(raw))


def subnets(db: Readable, pid: bytes, limit: int, cursor: bytes | None, reverse: bool) -> Page:
    return _by_creation(db, space(pid).nb, "n", limit, cursor, reverse)


def subnet(db: Readable, pid: bytes, subnet_id: bytes) -> Record | None:
    sp = space(pid)
    return _by_id(db, sp.ni, sp.nb, "n", subnet_id)


def blockchains(db: Readable, pid: bytes, limit: int, cursor: bytes | None, reverse: bool) -> Page:
    return _by_creation(db, space(pid).cb, "c", limit, cursor, reverse)


def blockchain(db: Readable, pid: bytes, chain_id: bytes) -> Record | None:
    sp = space(pid)
    return _by_id(db, sp.ci, sp.cb, "c", chain_id)


def subnet_chains(db: Readable, pid: bytes, subnet_id: bytes) -> list[Record]:
    out = []
    for _, chain_id in stream(db, space(pid).cs + subnet_id):
        r = blockchain(db, pid, chain_id)
        if r is not None:
            out.append(r)
    return out
