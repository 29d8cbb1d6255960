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



def subnets(db: Readable, pid: bytes, limit: int, cursor: bytes | None, reverse: bool) -> Page:
    check(cursor, 10)
    return collect(stream(db, space(pid).nb, cursor, reverse), limit, lambda s, v: Record(s, "n", unpack(v)))


def subnet(db: Readable, pid: bytes, subnet_id: bytes) -> Record | None:
    sp = space(pid)
    key = db.get(sp.ni + subnet_id)
    raw = None if key is None else db.get(sp.nb + key)
    return None if raw is None else Record(key, "n", unpack(raw))


def blockchains(db: Readable, pid: bytes, limit: int, cursor: bytes | None, reverse: bool) -> Page:
    check(cursor, 10)
    return collect(stream(db, space(pid).cb, cursor, reverse), limit, lambda s, v: Record(s, "c", unpack(v)))


def blockchain(db: Readable, pid: bytes, chain_id: bytes) -> Record | None:
    sp = space(pid)
    key = db.get(sp.ci + chain_id)
    raw = None if key is None else db.get(sp.cb + key)
    return None if raw is None else Record(key, "c", unpack(raw))


def subnet_chains(db: Readable, pid: bytes, subnet_id: bytes) -> list[Record]:
    out = []
    for _, chain_id in stream(db, space(pid).cs + subnet_id):
        r = blockchain(db, pid, chain_id)
        if r is not None:
            out.append(r)
    return out
