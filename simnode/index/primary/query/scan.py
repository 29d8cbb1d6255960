"""Range scans of the primary-network index tables and the keyset pages cut from them."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ...page import CursorError, Page, Readable

SCAN_BUDGET = 2000
Row = tuple[bytes, Any]


def stream(db: Readable, prefix: bytes, cursor: bytes | None = None, reverse: bool = False,
           lo: bytes | None = None, hi: bytes | None = None) -> Iterator[Row]:
    """(suffix, value) of the keys under `prefix`, in order, strictly after `cursor`, in [lo, hi)."""
    n = len(prefix)
    if reverse:
        stop = hi if cursor is None else (cursor if hi is None else min(cursor, hi))
        rows = db.iterate(prefix, prefix + stop, reverse=True) if stop is not None else db.iterate(prefix, reverse=True)
        for k, v in rows:
            s = k[n:]
            if stop is not None and s >= stop:
                continue
            if lo is not None and s < lo:
                return
            yield s, v
        return
    start = cursor if lo is None else (lo if cursor is None else max(cursor, lo))
    rows = db.iterate(prefix, prefix + start) if start is not None else db.iterate(prefix)
    for k, v in rows:
        s = k[n:]
        if cursor is not None and s <= cursor:
            continue
        if hi is not None and s >= hi:
            return
        yield s, v


def merged(streams: list[Iterator[Row]], reverse: bool) -> Iterator[Row]:
    """Several streams of one suffix shape as one, each suffix once."""
    if len(streams) == 1:
        yield from streams[0]
        return
    last = None
    for s, v in heapq.merge(*streams, key=lambda r: r[0], reverse=reverse):
        if s != last:
            last = s
            yield s, v


def collect(rows: Iterable[Row], limit: int, keep: Callable[[bytes, Any], Any] | None = None,
            budget: int = SCAN_BUDGET) -> Page:
    """Up to `limit` items (keep(suffix, value), None to skip) and the next page's cursor."""
    if limit < 1:
        raise ValueError("a page holds at least one row")
    items: list[Any] = []
    last: bytes | None = None
    skipped = 0
    for s, v in rows:
        item = v if keep is None else keep(s, v)
        if item is None:
            skipped += 1
            if skipped >= budget:
                return Page(tuple(items), s)
            continue
        if len(items) == limit:
            return Page(tuple(items), last)
        items.append(item)
        last = s
    return Page(tuple(items), None)


def check(cursor: bytes | None, width: int) -> None:
    if cursor is not None and (not isinstance(cursor, bytes) or len(cursor) != width):
        raise CursorError("page cursor of the wrong shape")

