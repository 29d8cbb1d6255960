import pytest
from hypothesis import given, settings, strategies as st

from simnode.store import Store, StoreError
from simnode.store.snapshots import Snapshots


@pytest.fixture(params=["memory", "leveldb"])
def store(request, tmp_path):
    s = Store.memory() if request.param == "memory" else Store.open(tmp_path / "db")
    yield s
    s.close()


def test_batch_reads_its_own_writes_and_commits_atomically(store):
    b = store.batch()
    b.put(b"X/a", b"1")
    assert b.get(b"X/a") == b"1"
    assert store.get(b"X/a") is None
    b.commit()
    assert store.get(b"X/a") == b"1"


def test_iterate_prefix_order_and_reverse(store):
    b = store.batch()
    for k in (b"C/3", b"C/1", b"C/2", b"D/0", b"B/9"):
        b.put(k, k)
    b.commit()
    assert [k for k, _ in store.iterate(b"C/")] == [b"C/1", b"C/2", b"C/3"]
    assert [k for k, _ in store.iterate(b"C/", reverse=True)] == [b"C/3", b"C/2", b"C/1"]
    assert [k for k, _ in store.iterate(b"C/", start=b"C/2")] == [b"C/2", b"C/3"]
    assert [k for k, _ in store.iterate(b"C/", start=b"C/2", reverse=True)] == [b"C/2", b"C/1"]


def test_batch_iterate_merges_pending_writes(store):
    b = store.batch()
    b.put(b"P/1", b"a")
    b.put(b"P/3", b"c")
    b.commit()
    b = store.batch()
    b.put(b"P/2", b"b")
    b.delete(b"P/3")
    assert [k for k, _ in b.iterate(b"P/")] == [b"P/1", b"P/2"]


def test_revert_restores_every_key(store):
    b = store.batch()
    b.put_obj(b"X/a", 1)
    b.commit()
    snap = store.seq
    store.keep_undo_since(snap)
    for i in range(3):
        b = store.batch()
        b.put_obj(b"X/a", 10 + i)
        b.put_obj(b"C/new" + bytes([i]), i)
        b.commit()
    store.revert_to(snap)
    assert store.get_obj(b"X/a") == 1
    assert list(store.iterate(b"C/")) == []
    assert store.seq == snap
    with pytest.raises(StoreError):
        store.revert_to(snap + 5)


def test_reopen_resumes(tmp_path):
    s = Store.open(tmp_path / "db")
    b = s.batch()
    b.put_obj(b"X/h", {"height": 7})
    b.commit()
    seq = s.seq
    s.close()
    s = Store.open(tmp_path / "db")
    assert s.get_obj(b"X/h") == {"height": 7}
    assert s.seq == seq
    s.close()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.tuples(st.binary(min_size=1, max_size=3), st.one_of(st.none(), st.binary(max_size=3))),
                         max_size=6), max_size=6), st.integers(min_value=0, max_value=6))
def test_revert_to_any_point_equals_state_then(batches, point):
    s = Store.memory()
    s.keep_undo_since(0)
    states = [dict()]
    for changes in batches:
        b = s.batch()
        for k, v in changes:
            if v is None:
                b.delete(b"k/" + k)
            else:
                b.put(b"k/" + k, v)
        b.commit()
        states.append(dict(s.iterate(b"k/")))
    point = min(point, s.seq)
    s.revert_to(point)
    # batches with no changes don't advance seq: map seq back to the state list
    nonempty = [i + 1 for i, c in enumerate(batches) if c]
    expected = states[nonempty[point - 1]] if point else states[0]
    assert dict(s.iterate(b"k/")) == expected


def test_undo_records_only_while_a_snapshot_is_live(store):
    b = store.batch()
    b.put_obj(b"X/a", 1)
    b.commit()
    assert list(store.iterate(b"undo/")) == []
    with pytest.raises(StoreError, match="no undo records"):
        store.revert_to(0)
    snaps = Snapshots(store)
    sid = snaps.take()
    b = store.batch()
    b.put_obj(b"X/a", 2)
    b.commit()
    assert len(list(store.iterate(b"undo/"))) == 1
    assert snaps.revert(sid)
    assert store.get_obj(b"X/a") == 1
    b = store.batch()  # the snapshot was consumed: nothing is recorded any more
    b.put_obj(b"X/a", 3)
    b.commit()
    assert list(store.iterate(b"undo/")) == []


def test_undo_records_are_deleted_once_no_snapshot_can_use_them(tmp_path):
    def put(value: int) -> None:
        b = store.batch()
        b.put_obj(b"X/a", value)
        b.commit()

    store = Store.open(tmp_path / "db")
    snaps = Snapshots(store)
    first = snaps.take()
    put(1)
    second = snaps.take()
    put(2)
    assert snaps.revert(second)  # the first snapshot is live still: its undo record stays
    assert len(list(store.iterate(b"undo/"))) == 1
    assert snaps.revert(first)  # the last live one: nothing could use the records now
    assert list(store.iterate(b"undo/")) == []
    snaps.take()
    put(3)
    assert len(list(store.iterate(b"undo/"))) == 1
    store.close()  # the process ends with a snapshot live: its records outlive it, until the next open
    store = Store.open(tmp_path / "db")
    assert list(store.iterate(b"undo/")) == [] and store.get_obj(b"X/a") == 3
    with pytest.raises(StoreError, match="no undo records"):
        store.revert_to(store.seq - 1)
    store.close()
