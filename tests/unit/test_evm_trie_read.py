"""speedups.fast_get (HexaryTrie.get over the node cache of a chain's StoreKV) against py-trie's
own get: the same answer or the same exception for keys present, absent, shorter or longer than
the stored ones, on tries with embedded (short) nodes, and with nodes missing from the db."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trie import HexaryTrie

from simnode.store import Store
from simnode.vms.evm import speedups
from simnode.vms.evm.db import StoreKV

KEYS = st.binary(min_size=0, max_size=5)
ITEMS = st.dictionaries(KEYS, st.binary(min_size=1, max_size=40), max_size=40)


def _outcome(fn: Any, trie: HexaryTrie, key: bytes) -> tuple[str, Any]:
    try:
        return ("value", fn(trie, key))
    except Exception as exc:  # noqa: BLE001 - the exception's type and text are the answer compared
        return (type(exc).__name__, str(exc))


def _trie(items: dict[bytes, bytes]) -> tuple[StoreKV, HexaryTrie]:
    db = StoreKV(Store.memory(), b"t/")
    t = HexaryTrie(db)
    for k, v in items.items():
        t[k] = v
    return db, t


@settings(max_examples=300, deadline=None)
@given(ITEMS, st.lists(KEYS, max_size=20))
def test_fast_get_answers_as_py_trie(items: dict[bytes, bytes], probes: list[bytes]) -> None:
    _, t = _trie(items)
    for key in [*items, *probes, b"", *(k + b"\x00" for k in items), *(k[:-1] for k in items)]:
        assert _outcome(speedups.fast_get, t, key) == _outcome(speedups._ORIGINAL_GET, t, key)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.binary(min_size=32, max_size=32), st.binary(min_size=1, max_size=40), min_size=1,
                       max_size=30), st.data())
def test_fast_get_with_a_missing_node_raises_as_py_trie(items: dict[bytes, bytes], data: st.DataObject) -> None:
    db, t = _trie(items)
    victim = data.draw(st.sampled_from(sorted(k for k, v in db.pending.items() if v is not None)))
    del db[victim]
    for key in items:
        db.decoded_nodes.pop(victim, None)  # both read nodes through this cache
        assert _outcome(speedups.fast_get, t, key) == _outcome(speedups._ORIGINAL_GET, t, key)


def test_fast_get_is_the_patched_get() -> None:
    assert HexaryTrie.get is speedups.fast_get
    _, t = _trie({b"\x01" * 32: b"v"})
    assert t[b"\x01" * 32] == b"v" and t[b"\x02" * 32] == b""
    with pytest.raises(Exception):  # noqa: B017 - py-trie's validation of a non-bytes key
        t.get("not bytes")  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.binary(min_size=32, max_size=32).map(lambda b: b[:1] * 32),
                          st.binary(max_size=40)), min_size=1, max_size=30))
def test_answers_kept_by_root_follow_every_root(writes: list[tuple[bytes, bytes]]) -> None:
    """fast_get keeps its answers by (root, key) (StoreKV.trie_values): after each write the
    trie's new root answers as py-trie does, and so does every earlier root, read again."""
    db, t = _trie({})
    keys = sorted({k for k, _ in writes})
    roots: list[tuple[bytes, dict[bytes, bytes]]] = []
    state: dict[bytes, bytes] = {}
    for k, v in writes:
        if v:
            t[k] = v
            state[k] = v
        else:
            t.delete(k)
            state.pop(k, None)
        roots.append((t.root_hash, dict(state)))
        for root, expected in roots:
            old = HexaryTrie(db, root)
            for key in keys:
                assert speedups.fast_get(old, key) == speedups._ORIGINAL_GET(old, key) == expected.get(key, b"")
    assert db.trie_values
