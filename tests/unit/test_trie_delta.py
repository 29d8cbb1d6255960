"""Trie branch nodes stored as DELTA records (vms/evm/trie_delta.py): every root ever committed
reads back the same values and node bytes, whole-node data dirs (the old layout) read as before,
and chains of deltas stop at MAX_DEPTH."""

from __future__ import annotations

import random

import pytest

from trie import HexaryTrie

from simnode.crypto.hashing import keccak256
from simnode.store import Store
from simnode.vms.evm import trie_delta
from simnode.vms.evm.db import StoreKV
from simnode.vms.evm.trie_commit import BLANK_ROOT, commit_updates


def grow(kv: StoreKV, store: Store, blocks: int, seed: int = 1, keys: int = 300) -> list[tuple[bytes, dict]]:
    """Commit `blocks` batches of updates (a few keys each, some deleted), one store batch each;
    returns every root with the trie's contents then."""
    rnd = random.Random(seed)
    pool = [rnd.randbytes(32) for _ in range(keys)]
    root, contents, history = BLANK_ROOT, {}, []
    for n in range(blocks):
        updates: dict[bytes, bytes | None] = {k: rnd.randbytes(rnd.randint(1, 90))
                                              for k in rnd.sample(pool, 60 if n == 0 else 3)}
        if n % 7 == 3:
            updates[rnd.choice(sorted(contents))] = None
        root = commit_updates(kv, root, updates)
        for k, v in updates.items():
            if v:
                contents[k] = v
            else:
                contents.pop(k, None)
        batch = store.batch()
        kv.flush_into(batch)
        batch.commit()
        history.append((root, dict(contents)))
    return history


def test_every_root_reads_back_after_deltas() -> None:
    store = Store.memory()
    kv = StoreKV(store, b"C/s/")
    history = grow(kv, store, 80)
    deltas = list(store.iterate(b"C/sd/"))
    assert len(deltas) > 80  # the root and the branches under it, block after block
    fresh = StoreKV(store, b"C/s/")  # nothing cached: every read rebuilds from the store
    for root, contents in history:
        t = HexaryTrie(fresh, root)
        for k, v in contents.items():
            assert t[k] == v
    for key, record in deltas:
        h = key[len(b"C/sd/"):]
        assert keccak256(fresh[h]) == h  # the node's own bytes, byte for byte
        assert store.get(b"C/s/" + h) is None
        depth = record[0]
        assert 1 <= depth <= trie_delta.MAX_DEPTH


def test_deltas_take_fewer_bytes_than_whole_nodes() -> None:
    store, whole = Store.memory(), Store.memory()
    grow(StoreKV(store, b"C/s/"), store, 60)
    grow(WholeKV(whole, b"C/s/"), whole, 60)
    size = sum(len(k) + len(v) for k, v in store.iterate(b"C/"))
    old = sum(len(k) + len(v) for k, v in whole.iterate(b"C/"))
    assert not list(whole.iterate(b"C/sd/"))
    assert size < 0.75 * old


class WholeKV(StoreKV):
    """The layout before deltas: flush_into writes every node whole."""

    def flush_into(self, batch) -> None:  # type: ignore[no-untyped-def]
        self.commits = []
        super().flush_into(batch)


def test_old_layout_then_deltas_on_top() -> None:
    """A data dir of whole nodes (written before deltas) opened by the new code: old roots read,
    new commits build deltas on the old whole nodes."""
    store = Store.memory()
    history = grow(WholeKV(store, b"C/s/"), store, 20, seed=3)
    kv = StoreKV(store, b"C/s/")
    root, contents = history[-1][0], dict(history[-1][1])
    rnd = random.Random(9)
    for _ in range(10):
        updates = {rnd.choice(sorted(contents)): rnd.randbytes(40)}
        root = commit_updates(kv, root, updates)
        contents.update(updates)
        batch = store.batch()
        kv.flush_into(batch)
        batch.commit()
        history.append((root, dict(contents)))
    assert list(store.iterate(b"C/sd/"))
    fresh = StoreKV(store, b"C/s/")
    for r, c in history:
        t = HexaryTrie(fresh, r)
        assert all(t[k] == v for k, v in c.items())


def test_depth_is_bounded() -> None:
    """One key rewritten block after block: the root's deltas restart from a whole node every
    MAX_DEPTH + 1 versions."""
    store = Store.memory()
    kv = StoreKV(store, b"C/s/")
    rnd = random.Random(5)
    keys = [rnd.randbytes(32) for _ in range(40)]
    root = commit_updates(kv, BLANK_ROOT, {k: b"v" * 40 for k in keys})
    roots = []
    for n in range(3 * trie_delta.MAX_DEPTH):
        root = commit_updates(kv, root, {keys[0]: n.to_bytes(2, "big") * 20})
        batch = store.batch()
        kv.flush_into(batch)
        batch.commit()
        roots.append(root)
    whole = [r for r in roots if store.get(b"C/s/" + r) is not None]
    assert len(whole) == 2  # versions MAX_DEPTH + 1 and 2 * (MAX_DEPTH + 1)
    fresh = StoreKV(store, b"C/s/")
    for n, r in enumerate(roots):
        assert HexaryTrie(fresh, r)[keys[0]] == n.to_bytes(2, "big") * 20


def test_discarded_commits_write_no_deltas() -> None:
    store = Store.memory()
    kv = StoreKV(store, b"C/s/")
    root = commit_updates(kv, BLANK_ROOT, {bytes([i]) * 32: b"x" * 40 for i in range(30)})
    kv.discard()
    assert kv.commits == [] and kv.pending == {}
    commit_updates(kv, BLANK_ROOT, {bytes([i]) * 32: b"y" * 40 for i in range(30)})
    batch = store.batch()
    kv.flush_into(batch)
    batch.commit()
    assert store.get(b"C/s/" + root) is None and not list(store.iterate(b"C/sd/"))


@pytest.mark.parametrize("flush_each", [True, False])
def test_a_trie_back_in_an_earlier_state_makes_no_loop_of_bases(flush_each: bool) -> None:
    """A key set to a value, another, then the first again re-makes nodes the db holds (or that
    this flush made): none becomes a delta on a node that is (or becomes) a delta on it."""
    store = Store.memory()
    kv = StoreKV(store, b"C/s/")
    rnd = random.Random(11)
    keys = [rnd.randbytes(32) for _ in range(60)]
    root = commit_updates(kv, BLANK_ROOT, {k: b"v" * 40 for k in keys})
    batch = store.batch()
    kv.flush_into(batch)
    batch.commit()
    roots = []
    for n in range(8):
        root = commit_updates(kv, root, {keys[0]: (b"a" if n % 2 else b"b") * 40, keys[1]: bytes([n % 3]) * 40})
        roots.append(root)
        if flush_each:
            batch = store.batch()
            kv.flush_into(batch)
            batch.commit()
    batch = store.batch()
    kv.flush_into(batch)
    batch.commit()
    fresh = StoreKV(store, b"C/s/")
    for r in roots:
        assert keccak256(fresh[r]) == r
        assert HexaryTrie(fresh, r)[keys[2]] == b"v" * 40
