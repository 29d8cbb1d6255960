"""Trie branch nodes stored as the few children they change in the node they replace.

A block that moves value rewrites every branch node on the paths of the accounts it touches
(the sender, the receiver, the fee recipient): the root and the branches below it, each up to
16 child hashes (~530 bytes), of which one to three differ from the node it replaces. Hashes do
not compress, so storing each of them whole was most of what a one-tx block cost on disk.

A new branch node whose predecessor (the node at the same path in the trie the commit started
from) is a branch too is stored as a DELTA, under its own hash in a table of its own:

    depth u8 | rlp([base hash, [[slot, child], ...]])

`slot` is the one-byte index of a child that differs from the base's (0..15; 16 is a branch's
value, never set in 32-byte-key tries), `child` the new one as the node holds it (b"", a hash
or an embedded node). `depth` counts the deltas down to a whole node: past MAX_DEPTH the node is
stored whole again (a node rewritten every block: whole every 17th block), so reading any node
takes at most MAX_DEPTH + 1 reads; the node asked for is cached once rebuilt, its bases are not
(db.StoreKV._base). Rebuilding gives the node's RLP byte for byte (RLP is canonical), so its
hash, proofs and every answer built on it are unchanged; every trie, old or new, stays readable
(an archive node's).

The pairs of roots come from trie_commit.commit_updates (the root it started from and the one it
made); the walk follows only the nodes the commit wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from .rlpcodec import decode, encode

# A deep chain is cheap on disk and dear to read: 64 saved ~64 bytes per one-tx block over 16, but a
# node read cold (an account under a branch rewritten now and then) took up to 65 reads, and the
# one-hour soak's send latency grew with the chain (3.6 -> 12 ms p50 in 47 minutes) as branches
# deepened toward it.
MAX_DEPTH = 16
Read = Callable[[bytes], bytes]  # a node's whole RLP by hash (KeyError when absent)


def _is_extension(node: object) -> bool:
    return type(node) is list and len(node) == 2 and type(node[0]) is bytes and bool(node[0]) and node[0][0] < 0x20


def deltas(pending: Mapping[bytes, bytes | None], roots: Iterable[tuple[bytes, bytes]], read: Read,
           depth_of: Callable[[bytes], int], stored: Callable[[bytes], bool],
           decoded: Mapping[bytes, list]) -> dict[bytes, bytes]:
    """DELTA records (by node hash) for the branch nodes in `pending` that a commit from the
    first root of a pair to the second made out of a branch at the same path. `depth_of` gives a
    stored node's depth (0: whole); `read` its RLP; `stored` whether the db holds it already;
    `decoded` the nodes the commits decoded or made (trie_commit's cache: no decoding again).

    A node's form is decided once: a node already stored keeps its form, and a node becomes a
    base only once its own form is fixed. So every base was fixed before the deltas on it, and no
    chain of bases loops back (a trie that returns to an earlier state re-makes nodes it holds)."""
    out: dict[bytes, bytes] = {}
    depths: dict[bytes, int] = {}
    fixed: set[bytes] = set()

    def depth(h: bytes) -> int:
        return depths[h] if h in depths else depth_of(h)

    def walk(old_ref: object, new_ref: object) -> None:
        if type(new_ref) is not bytes or len(new_ref) != 32 or new_ref == old_ref or new_ref in fixed:
            return
        enc = pending.get(new_ref)
        if enc is None or type(old_ref) is not bytes or len(old_ref) != 32:
            return
        fixed.add(new_ref)
        if stored(new_ref):
            return
        old: bytes | list | None = decoded.get(old_ref)
        if old is None:
            try:
                old = decode(read(old_ref))
            except KeyError:  # a fork's trie the upstream holds: nothing to build on
                return
        new: bytes | list | None = decoded.get(new_ref)
        if new is None:
            new = decode(enc)
        if type(new) is list and type(old) is list and len(new) == 17 and len(old) == 17:  # branches
            base_depth = depth(old_ref)
            changed = [i for i in range(17) if new[i] != old[i]]
            if base_depth < MAX_DEPTH:
                fixed.add(old_ref)
                out[new_ref] = bytes((base_depth + 1,)) + encode([old_ref, [[bytes((i,)), new[i]] for i in changed]])
                depths[new_ref] = base_depth + 1
            for i in changed:
                walk(old[i], new[i])
        elif _is_extension(new) and _is_extension(old) and new[0] == old[0]:
            walk(old[1], new[1])  # the same extension over a changed child

    for old_root, new_root in roots:
        walk(old_root, new_root)
    return out


def depth_of_record(record: bytes) -> int:
    return record[0]


def rebuild(record: bytes, read: Read) -> bytes:
    """The whole RLP of the node a DELTA record stands for (`read` gives its base's)."""
    base_hash, changes = decode(record[1:])
    node = decode(read(base_hash))  # type: ignore[arg-type]
    assert type(node) is list
    node = list(node)
    for slot, child in changes:  # type: ignore[union-attr]
        node[slot[0]] = child
    return encode(node)
