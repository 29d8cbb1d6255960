"""utxo_order: an address's UTXOs newest first with AvalancheGo's linked-list cursor rules, and the
one-time ordering of rows a data dir written before kept no order (vms/utxo_order.py)."""

from __future__ import annotations

from simnode.store import Store
from simnode.vms import utxo_order

BASE = b"T/"
A, B = b"\xaa" * 20, b"\xbb" * 20


def uid(n: int) -> bytes:
    return bytes([n]) * 32


def add_all(store: Store, *items: tuple[int, tuple[bytes, ...]]) -> None:
    for n, owners in items:
        batch = store.batch()
        utxo_order.add(batch, BASE, owners, uid(n))
        batch.commit()


def listing(db, address: bytes, after: bytes | None = None, inclusive: bool = False) -> list[int]:
    return [u[0] for u in utxo_order.ids_of(db, BASE, address, after, inclusive)]


def test_newest_first_whatever_the_ids():
    store = Store.memory()
    add_all(store, (9, (A,)), (3, (A, B)), (7, (A,)), (1, (B,)))
    assert listing(store, A) == [7, 3, 9]
    assert listing(store, B) == [1, 3]


def test_a_cursor_resumes_after_itself_or_at_the_head_when_it_is_gone():
    store = Store.memory()
    add_all(store, (9, (A,)), (3, (A,)), (7, (A,)), (5, (A,)))
    assert listing(store, A, uid(7)) == [3, 9]
    # shared memory's Indexed starts with the cursor itself
    assert listing(store, A, uid(7), inclusive=True) == [7, 3, 9]
    # linkeddb.NewIteratorWithStart: a key not in the list starts at the head
    assert listing(store, A, uid(42)) == [5, 7, 3, 9]
    batch = store.batch()
    utxo_order.remove(batch, BASE, (A,), uid(7))
    batch.commit()
    assert listing(store, A) == [5, 3, 9]
    assert listing(store, A, uid(7)) == [5, 3, 9]


def test_a_pending_batch_sees_its_own_rows():
    store = Store.memory()
    add_all(store, (1, (A,)))
    batch = store.batch()
    utxo_order.add(batch, BASE, (A,), uid(2))
    utxo_order.remove(batch, BASE, (A,), uid(1))
    assert listing(batch, A) == [2]
    assert listing(store, A) == [1]


def test_rows_of_an_old_data_dir_get_their_order_once():
    store = Store.memory()
    batch = store.batch()
    for n, owners in ((4, (A,)), (8, (A, B)), (2, (A,))):
        for addr in owners:  # the layout before: one empty row per owner, no order
            batch.put(BASE + b"a" + addr + uid(n), b"")
    batch.commit()
    made = {uid(8): (1, 0, 0), uid(2): (2, 0, 0), uid(4): (2, 1, 0)}  # when each was made
    assert utxo_order.migrate(store, [BASE], lambda base, u: made[u]) == 3
    assert listing(store, A) == [4, 2, 8]
    assert listing(store, B) == [8]
    add_all(store, (6, (A,)))
    assert listing(store, A) == [6, 4, 2, 8]
    assert utxo_order.migrate(store, [BASE], lambda base, u: made[u]) == 0  # marked: never again
