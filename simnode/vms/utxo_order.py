"""An address's UTXOs in the order AvalancheGo lists them: newest first.

AvalancheGo indexes an address's UTXOs in a linked list (database/linkeddb): vms/components/avax's
utxo_state.go keeps one per address for the X- and P-Chain, chains/atomic's shared memory one per
trait (address) for each pair of chains. A Put makes the key the list's head, a Delete unlinks it,
iteration walks from the head; getUTXOs and getBalance read them that way (GetPaginatedUTXOs,
GetAtomicUTXOs). So the newest UTXO comes first. Within one block the X- and P-Chain write their
UTXOs in Go's map order (`writeUTXOs` ranges over `modifiedUTXOs`: random on every run); shared
memory in the order of the block's put requests. simnode lists them as if each was put in the order
the block made them (txs in block order, outputs in index order): the last made comes first.

A page's cursor (`startIndex.utxo`) that is in the address's list resumes there (the X- and
P-Chain's UTXOIDs skip the cursor itself; shared memory's appendTraitKeys does not, so a page of
atomic UTXOs starts with the last one of the page before); one that is not (spent since, or never
there) starts again at the head (linkeddb.NewIteratorWithStart).

Rows under a chain's base prefix (`X/`, `P/`, `atomic/<dest><source>`):

    a<address 20><utxoID 32>            -> u64 seq: when the UTXO came (b"" in data dirs written
                                           before the order was kept: `migrate` fills them in)
    o<address 20><~seq 8><utxoID 32>    -> b""   ascending = newest first
    N                                   -> u64 the next seq
    O                                   -> b""   the o rows are complete (`migrate` ran)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol

from simnode.store import Batch, Store

ADDRESS = b"a"
ORDER = b"o"
NEXT = b"N"
ORDERED = b"O"
_MAX = (1 << 64) - 1
ADDR_LEN = 20
ID_LEN = 32


class Writer(Protocol):
    def get(self, key: bytes) -> bytes | None: ...

    def put(self, key: bytes, value: bytes) -> None: ...

    def delete(self, key: bytes) -> None: ...


def _newest_first(seq: bytes) -> bytes:
    return (_MAX - int.from_bytes(seq, "big")).to_bytes(8, "big")


def add(w: Writer, base: bytes, addresses: tuple[bytes, ...], utxo_id: bytes) -> None:
    """Index a new UTXO of `addresses` as their newest."""
    if not addresses:
        return
    raw = w.get(base + NEXT)
    seq = int.from_bytes(raw, "big") if raw else 0
    w.put(base + NEXT, (seq + 1).to_bytes(8, "big"))
    packed = seq.to_bytes(8, "big")
    for addr in addresses:
        w.put(base + ADDRESS + addr + utxo_id, packed)
        w.put(base + ORDER + addr + _newest_first(packed) + utxo_id, b"")


def remove(w: Writer, base: bytes, addresses: tuple[bytes, ...], utxo_id: bytes) -> None:
    for addr in addresses:
        key = base + ADDRESS + addr + utxo_id
        seq = w.get(key)
        w.delete(key)
        if seq:
            w.delete(base + ORDER + addr + _newest_first(seq) + utxo_id)


def ids_of(db: Store | Batch, base: bytes, address: bytes, after: bytes | None = None,
           inclusive: bool = False) -> Iterator[bytes]:
    """`address`'s UTXO IDs, newest first; from `after` when it is one of them (itself only if
    `inclusive`), else from the newest."""
    prefix = base + ORDER + address
    start = None
    if after is not None:
        seq = db.get(base + ADDRESS + address + after)
        if seq:
            start = prefix + _newest_first(seq) + after
    for key, _ in db.iterate(prefix, start):
        utxo_id = key[-ID_LEN:]
        if inclusive or utxo_id != after:
            yield utxo_id


def ordered(db: Store | Batch, base: bytes) -> bool:
    return db.get(base + ORDERED) is not None


def migrate(store: Store, bases: list[bytes], rank: Callable[[bytes, bytes], tuple[int, ...]]) -> int:
    """Give the address rows of a data dir written before the order was kept their order, once:
    each base's UTXOs by `rank(base, utxo ID)` (when the UTXO was made, from the chain's history).
    Returns how many UTXOs were ordered."""
    todo = [b for b in bases if not ordered(store, b)]
    if not todo:
        return 0
    batch = store.batch()
    count = 0
    for base in todo:
        rows: dict[bytes, list[bytes]] = {}
        cut = len(base) + 1
        for key, value in store.iterate(base + ADDRESS):
            if len(key) != cut + ADDR_LEN + ID_LEN or value:
                continue
            rows.setdefault(key[cut + ADDR_LEN:], []).append(key[cut:cut + ADDR_LEN])
        raw = store.get(base + NEXT)
        seq = int.from_bytes(raw, "big") if raw else 0
        for utxo_id in sorted(rows, key=lambda u: (rank(base, u), u)):
            packed = seq.to_bytes(8, "big")
            for addr in rows[utxo_id]:
                batch.put(base + ADDRESS + addr + utxo_id, packed)
                batch.put(base + ORDER + addr + _newest_first(packed) + utxo_id, b"")
            seq += 1
        count += len(rows)
        batch.put(base + NEXT, seq.to_bytes(8, "big"))
        batch.put(base + ORDERED, b"")
    batch.commit()
    return count
