"""Index core: key parts sort as their tuples, amounts round-trip, and keyset page walks (any
interleaving of appends and reads, one row per page) give every pre-existing row exactly once."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simnode.index.keys import big, chain_space, from_sbig, marker, num, parts, sbig, table, u32, u64
from simnode.index.page import CursorError, check_cursor, first, merged_page, page
from simnode.store import Store

U64 = st.integers(0, 2**64 - 1)
U32 = st.integers(0, 2**32 - 1)
ADDR = st.binary(min_size=20, max_size=20)


@given(st.tuples(ADDR, U64, U32), st.tuples(ADDR, U64, U32))
def test_key_order_is_tuple_order(a, b):
    ka = a[0] + u64(a[1]) + u32(a[2])
    kb = b[0] + u64(b[1]) + u32(b[2])
    assert (ka < kb) == (a < b)
    assert parts(ka, 20, 8, 4) == (a[0], u64(a[1]), u32(a[2]))
    assert num(parts(ka, 20, 8, 4)[1]) == a[1]


@given(st.integers(0, 2**256 - 1))
def test_amounts_round_trip(n):
    assert int.from_bytes(big(n), "big") == n
    assert big(0) == b""
    assert from_sbig(sbig(n)) == n
    assert from_sbig(sbig(-n)) == -n


def test_parts_width_is_checked():
    with pytest.raises(ValueError):
        parts(b"\x00" * 11, 8, 4)


def test_namespaces_do_not_overlap():
    cid = bytes(range(32))
    space = chain_space(cid)
    tags = [table(space, t) for t in (b"tx", b"ta", b"bk")] + [marker(cid)]
    for x in tags:
        for y in tags:
            assert x == y or not y.startswith(x)


def _store_with(rows: list[tuple[int, int]]) -> Store:
    store = Store.memory()
    batch = store.batch()
    for blk, idx in rows:
        batch.put(b"t/" + u64(blk) + u32(idx), b"%d" % blk)
    batch.commit()
    return store


def _walk(store: Store, reverse: bool, limit: int, lo=None, hi=None) -> list[bytes]:
    seen, cursor = [], None
    while True:
        rows, cursor = page(store, b"t/", limit, cursor, reverse, lo, hi)
        seen += [s for s, _ in rows]
        if cursor is None:
            return seen


ROWS = st.lists(st.tuples(st.integers(0, 50), st.integers(0, 3)), unique=True, max_size=40)


@given(ROWS, st.booleans(), st.integers(1, 5))
def test_page_walk_is_a_sorted_scan(rows, reverse, limit):
    store = _store_with(rows)
    want = sorted(u64(b) + u32(i) for b, i in rows)
    assert _walk(store, reverse, limit) == (want[::-1] if reverse else want)


@given(ROWS, st.booleans(), st.integers(0, 52), st.integers(0, 52))
def test_block_bounds_are_start_inclusive_end_exclusive(rows, reverse, start, end):
    store = _store_with(rows)
    want = sorted(u64(b) + u32(i) for b, i in rows if start <= b < end)
    assert _walk(store, reverse, 2, u64(start), u64(end)) == (want[::-1] if reverse else want)


@settings(max_examples=200)
@given(ROWS, st.booleans(), st.lists(st.one_of(st.just("read"), st.tuples(st.integers(0, 60), st.integers(0, 3))),
                                     max_size=80))
def test_walk_while_rows_arrive_sees_each_old_row_once(rows, reverse, steps):
    """pageSize=1 with appends anywhere (the time tables take rows out of order) between reads."""
    store = _store_with(rows)
    old = {u64(b) + u32(i) for b, i in rows}
    seen: list[bytes] = []
    cursor = None
    done = False
    for step in [*steps, *["read"] * (len(old) + len(steps) + 1)]:
        if step == "read":
            if done:
                continue
            got, cursor = page(store, b"t/", 1, cursor, reverse)
            seen += [s for s, _ in got]
            done = cursor is None
        else:
            batch = store.batch()
            batch.put(b"t/" + u64(step[0]) + u32(step[1]), b"new")
            batch.commit()
    assert done
    assert len(seen) == len(set(seen))
    assert old <= set(seen)
    assert seen == sorted(seen, reverse=reverse)


@given(ROWS, ROWS, st.booleans(), st.integers(1, 5), st.integers(0, 52), st.integers(0, 52))
def test_merged_page_walks_two_tables_as_one(a, b, reverse, limit, start, end):
    """Two tables of one suffix shape (rows in both once), page by page, within block bounds."""
    store = Store.memory()
    batch = store.batch()
    for prefix, rows in ((b"t/", a), (b"u/", b)):
        for blk, idx in rows:
            batch.put(prefix + u64(blk) + u32(idx), b"")
    batch.commit()
    want = sorted({u64(blk) + u32(idx) for blk, idx in a + b if start <= blk < end}, reverse=reverse)
    seen, cursor = [], None
    while True:
        rows, cursor = merged_page(store, [b"t/", b"u/"], limit, cursor, reverse, u64(start), u64(end))
        assert len(rows) <= limit
        seen += [s for s, _ in rows]
        if cursor is None:
            break
    assert seen == want


def test_page_on_leveldb(tmp_path):
    store = Store.open(tmp_path / "db")
    try:
        batch = store.batch()
        for b in range(10):
            batch.put(b"t/" + u64(b), b"")
            batch.put(b"u/" + u64(b), b"")  # a neighbouring table is never reached
        batch.commit()
        assert [s for s, _ in page(store, b"t/", 3)[0]] == [u64(0), u64(1), u64(2)]
        assert page(store, b"t/", 3, u64(2))[0][0][0] == u64(3)
        assert [s for s, _ in page(store, b"t/", 20, reverse=True)[0]][0] == u64(9)
        assert page(store, b"t/", 10)[1] is None
        assert page(store, b"t/", 9)[1] == u64(8)
        assert first(store, b"t/", u64(4) + b"\xff") == (u64(4), b"")
        assert first(store, b"t/") == (u64(9), b"")
    finally:
        store.close()


def test_first_is_the_greatest_at_most():
    store = _store_with([(3, 0), (7, 0)])
    assert first(store, b"t/", u64(5) + u32(0)) == (u64(3) + u32(0), b"3")
    assert first(store, b"t/", u64(7) + u32(0)) == (u64(7) + u32(0), b"7")
    assert first(store, b"t/", u64(2) + u32(0)) is None


def test_cursor_shape_is_checked():
    check_cursor(None, 12)
    check_cursor(b"\x00" * 12, 12)
    with pytest.raises(CursorError):
        check_cursor(b"\x00" * 11, 12)
    with pytest.raises(ValueError):
        page(Store.memory(), b"t/", 0)
