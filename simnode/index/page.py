"""Keyset pages over one table prefix: a seek and at most `limit + 1` steps, whatever the size.

`page(db, prefix, limit, cursor, reverse, lo, hi)` walks the keys `prefix + suffix` with
`lo <= suffix < hi` (bounds optional) upwards, or downwards when `reverse`, starting strictly
after `cursor` (the last suffix of the previous page). It returns the rows and the cursor of the
next page, None when none is left. Because a cursor is a position in key order, not a count, a
walk while rows are added never repeats a row and never skips one that existed when it began.

A bound shorter than the suffixes compares as a prefix: with suffixes `block u64 | tx u32`,
`lo=u64(3), hi=u64(5)` selects blocks 3 and 4 (start inclusive, end exclusive).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar
from simnode.errors import InvalidInput

T = TypeVar("T")


class CursorError(InvalidInput):
    """A page cursor that no page of this list could have produced."""


class Readable(Protocol):
    def get(self, key: bytes) -> bytes | None: ...

    def iterate(self, prefix: bytes, start: bytes | None = None,
                reverse: bool = False) -> Iterator[tuple[bytes, bytes]]: ...


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    items: tuple[T, ...]
    next: bytes | None  # the cursor of the next page; None on the last page


def page(db: Readable, prefix: bytes, limit: int, cursor: bytes | None = None, reverse: bool = False,
         lo: bytes | None = None, hi: bytes | None = None) -> tuple[list[tuple[bytes, bytes]], bytes | None]:
    """Up to `limit` (suffix, value) rows after `cursor`, and the next cursor (None: no more)."""
    if limit < 1:
        raise ValueError("a page holds at least one row")
    cut = len(prefix)
    if reverse:
        # keys <= start, except `stop` and above: cursor and hi are both exclusive
        stop = hi if cursor is None else (cursor if hi is None else min(cursor, hi))
        rows = db.iterate(prefix, prefix + stop, reverse=True) if stop is not None else db.iterate(prefix, reverse=True)
        skip_from, end = stop, lo

        def done(suffix: bytes) -> bool:
            return end is not None and suffix < end
    else:
        start = cursor if lo is None else (lo if cursor is None else max(cursor, lo))
        rows = db.iterate(prefix, prefix + start) if start is not None else db.iterate(prefix)
        end = hi

        def done(suffix: bytes) -> bool:
            return end is not None and suffix >= end
    out: list[tuple[bytes, bytes]] = []
    for key, value in rows:
        suffix = key[cut:]
        if reverse:
            if skip_from is not None and suffix >= skip_from:
                continue
        elif cursor is not None and suffix <= cursor:
            continue
        if done(suffix):
            break
        if len(out) == limit:
            return out, out[-1][0]
        out.append((suffix, value))
    return out, None


def merged_page(db: Readable, prefixes: list[bytes], limit: int, cursor: bytes | None = None, reverse: bool = False,
                lo: bytes | None = None, hi: bytes | None = None) -> tuple[list[tuple[bytes, bytes]], bytes | None]:
    """page() over several tables of one suffix shape as one table, each suffix once: a page of
    each (the first `limit` rows of their union are among them) merged."""
    rows: dict[bytes, bytes] = {}
    more = False
    for prefix in prefixes:
        part, nxt = page(db, prefix, limit, cursor, reverse, lo, hi)
        rows.update(part)
        more = more or nxt is not None
    out = sorted(rows.items(), reverse=reverse)
    if more or len(out) > limit:
        out = out[:limit]
        return out, out[-1][0]
    return out, None


def first(db: Readable, prefix: bytes, at_most: bytes | None = None) -> tuple[bytes, bytes] | None:
    """The row with the greatest suffix <= `at_most` (the greatest of all if None): one seek."""
    rows = (db.iterate(prefix, prefix + at_most, reverse=True) if at_most is not None
            else db.iterate(prefix, reverse=True))
    for key, value in rows:
        return key[len(prefix):], value
    return None


def check_cursor(cursor: bytes | None, width: int) -> None:
    """CursorError unless `cursor` is None or a suffix of `width` bytes."""
    if cursor is not None and len(cursor) != width:
        raise CursorError(f"page cursor of {len(cursor)} bytes, expected {width}")
