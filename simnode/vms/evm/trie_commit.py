"""Batched Merkle-Patricia updates: apply a whole block's writes to a trie in one pass.

py-trie sets keys one at a time, and every set re-encodes, re-hashes and re-stores each node on
the key's path; with dozens of accounts per block the top branch nodes are rebuilt dozens of
times. `commit_updates` walks the old trie once along the changed keys, builds the new nodes in
memory, and encodes, hashes and stores each node of the result exactly once (bottom-up).

The output is py-trie's, byte for byte: the trie is canonical for its key set, a node whose RLP
is shorter than 32 bytes is embedded in its parent instead of stored, and the root is always
stored under its hash (unless the trie is empty). Old nodes are never deleted (old roots stay
readable). Keys must all be 32 bytes (account and storage tries: keccak keys), so no key is a
prefix of another and branch nodes never carry a value.

Nodes are handled in py-trie's decoded form: a branch is a list of 17 items, a leaf or an
extension a list [hex-prefix path, value or child]; a child is b"" (none), a 32-byte hash, or an
embedded node (a list). Inside the walk, key paths are hex strings: one character per nibble.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Literal

from ...crypto.hashing import keccak256
from .db import StoreKV
from .rlpcodec import decode, encode

Node = list  # a decoded trie node (see the module docstring)
Ref = bytes | list  # how a parent points at a child: b"", a 32-byte hash, or an embedded node
MaybeNode = Node | Literal[b""]  # a subtree as the walk builds it: b"" when it holds no key

BLANK_ROOT = bytes.fromhex("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")
HEX = "0123456789abcdef"
_NIBBLE = {c: i for i, c in enumerate(HEX)}

# ------------------------------------------------------------------------------------ node reads

# Decoded nodes by hash, shared with speedups.cached_get_node. Nodes are content-addressed, so a
# hash always decodes to the same node; entries are shared, never mutated. Each chain's store
# (StoreKV) holds its own cache, found under py-evm's db wrappers: a node never reads another
# node's trie nodes (which would hide a node missing from its own db, a fork's upstream read).
_CACHE_LIMIT = 10_000
_COMMITS_KEPT = 4096  # root pairs a StoreKV keeps until its next flush
NodeCache = dict[bytes, Node]


def store_kv_of(db: object) -> StoreKV | None:
    """The StoreKV under py-evm's wrappers of it (each keeps the db it wraps as `wrapped_db`);
    None for any other db (a plain dict)."""
    while type(db) is not StoreKV:
        db = getattr(db, "wrapped_db", None)
        if db is None:
            return None
    return db


def node_cache_of(db: object) -> NodeCache | None:
    """The decoded-node cache of the StoreKV under `db` (None: nothing is cached). A walk of a
    few wrappers: callers look it up once per trie read or commit."""
    kv = store_kv_of(db)
    return None if kv is None else kv.decoded_nodes


def _remember(cache: NodeCache | None, node_hash: bytes, node: Node) -> None:
    if cache is not None:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[node_hash] = node


def read_node(db: Mapping[bytes, bytes], node_hash: bytes) -> Node:
    """The decoded node stored under `node_hash` (shared: the caller must not mutate it)."""
    return cached_node(db, node_cache_of(db), node_hash)


def cached_node(db: Mapping[bytes, bytes], cache: NodeCache | None, node_hash: bytes) -> Node:
    """read_node with the db's cache (node_cache_of) looked up by the caller."""
    if cache is None:
        return decode(db[node_hash])
    node = cache.get(node_hash)
    if node is None:
        node = decode(db[node_hash])
        _remember(cache, node_hash, node)
    return node


class _MissingNode(Exception):
    """A node body absent from the db, with the key whose path needed it."""

    def __init__(self, node_hash: bytes, key: str, depth: int) -> None:
        super().__init__(node_hash)
        self.node_hash, self.key, self.depth = node_hash, key, depth


def _child(db: Mapping[bytes, bytes], cache: NodeCache | None, ref: Ref, key: str,
           depth: int) -> MaybeNode:
    if type(ref) is not bytes or not ref:  # an embedded node or none (a ref is a list or bytes)
        return ref
    try:
        return cached_node(db, cache, ref)
    except KeyError:
        raise _MissingNode(ref, key, depth) from None


# ------------------------------------------------------------------------------------ paths


def _leaf_path(path: str) -> bytes:
    """Hex-prefix encoding of a leaf's path (flag 2, +1 when odd)."""
    return bytes.fromhex("3" + path if len(path) & 1 else "20" + path)


def _extension_path(path: str) -> bytes:
    return bytes.fromhex("1" + path if len(path) & 1 else "00" + path)


def _path_of(node: Node) -> str:
    h = node[0].hex()
    return h[1:] if h[0] in "13" else h[2:]


def _is_leaf(node: Node) -> bool:
    return node[0][0] >= 0x20


def _prepend(prefix: str, node: Node) -> Node:
    """A leaf or extension with `prefix` added in front of its path (py-trie's collapse)."""
    path = prefix + _path_of(node)
    return [_leaf_path(path) if _is_leaf(node) else _extension_path(path), node[1]]


# ------------------------------------------------------------------------------------ commit

Items = list[tuple[str, bytes]]  # (hex key, value; b"" = delete), sorted by key


def _ref(db: MutableMapping[bytes, bytes], cache: NodeCache | None, node: Node) -> Ref:
    """How the parent points at a finished node: embedded when its RLP is < 32 bytes, otherwise
    by hash (and the node is stored)."""
    enc = encode(node)
    if len(enc) < 32:
        return node
    h = keccak256(enc)
    db[h] = enc
    _remember(cache, h, node)
    return h


def _groups(items: Items, lo: int, hi: int, depth: int) -> Iterator[tuple[int, int, int]]:
    """(nibble, start, end) of the runs of items sharing the nibble at `depth`."""
    i = lo
    while i < hi:
        c = items[i][0][depth]
        j = i + 1
        while j < hi and items[j][0][depth] == c:
            j += 1
        yield _NIBBLE[c], i, j
        i = j


def _build(db: MutableMapping[bytes, bytes], cache: NodeCache | None, items: Items, lo: int, hi: int,
           depth: int) -> Node:
    """A fresh subtree holding items[lo:hi] (all live values, distinct keys)."""
    if hi - lo == 1:
        key, value = items[lo]
        return [_leaf_path(key[depth:]), value]
    first, last = items[lo][0], items[hi - 1][0]
    p = depth
    while first[p] == last[p]:  # sorted: the common prefix of all is that of first and last
        p += 1
    branch: Node = [b""] * 17
    for nibble, i, j in _groups(items, lo, hi, p):
        branch[nibble] = _ref(db, cache, _build(db, cache, items, i, j, p + 1))
    if p > depth:
        return [_extension_path(first[depth:p]), _ref(db, cache, branch)]
    return branch


def _build_live(db: MutableMapping[bytes, bytes], cache: NodeCache | None, items: Items, lo: int, hi: int,
                depth: int) -> MaybeNode:
    live = [item for item in items[lo:hi] if item[1]]
    return _build(db, cache, live, 0, len(live), depth) if live else b""


def _extend(db: MutableMapping[bytes, bytes], cache: NodeCache | None, path: str,
            child: MaybeNode) -> MaybeNode:
    """An extension `path` over `child`, collapsed the way py-trie does."""
    if not child:
        return b""
    if len(child) == 2:
        return _prepend(path, child)
    return [_extension_path(path), _ref(db, cache, child)]


def _finish_branch(db: MutableMapping[bytes, bytes], cache: NodeCache | None, base: Node,
                   new: dict[int, MaybeNode], key: str, depth: int) -> MaybeNode:
    """The branch `base` with children `new` replaced (not yet referenced); a branch left with one
    child becomes a leaf/extension, one left with none disappears."""
    live = [i for i in range(16) if (new[i] if i in new else base[i])]
    if len(live) >= 2:
        out = list(base)
        for i, child in new.items():
            out[i] = _ref(db, cache, child)
        return out
    if not live:
        return b""
    i = live[0]
    if i in new:
        child = new[i]
        if len(child) == 2:
            return _prepend(HEX[i], child)
        return [_extension_path(HEX[i]), _ref(db, cache, child)]
    child = _child(db, cache, base[i], key, depth + 1)
    if len(child) == 2:
        return _prepend(HEX[i], child)
    return [_extension_path(HEX[i]), base[i]]


def _update(db: MutableMapping[bytes, bytes], cache: NodeCache | None, node: MaybeNode, items: Items,
            lo: int, hi: int, depth: int) -> MaybeNode:
    """`node` (at `depth` nibbles) with items[lo:hi] applied; the result is not yet referenced
    (its parent decides whether it survives a collapse)."""
    if not node:
        return _build_live(db, cache, items, lo, hi, depth)
    key = items[lo][0]
    new: dict[int, MaybeNode] = {}
    if len(node) == 17:
        for nibble, i, j in _groups(items, lo, hi, depth):
            child = _child(db, cache, node[nibble], items[i][0], depth + 1)
            new[nibble] = _update(db, cache, child, items, i, j, depth + 1)
        return _finish_branch(db, cache, node, new, key, depth)

    path = _path_of(node)
    if _is_leaf(node):
        leaf_key = key[:depth] + path
        live = [item for item in items[lo:hi] if item[1]]
        if all(k != leaf_key for k, _ in items[lo:hi]):
            insort(live, (leaf_key, node[1]))
        return _build(db, cache, live, 0, len(live), depth) if live else b""

    # extension: how much of its path do all the keys follow?
    last = items[hi - 1][0]
    m = len(path)
    c = 0
    while c < m and key[depth + c] == path[c] and last[depth + c] == path[c]:
        c += 1
    if c == m:
        child = _child(db, cache, node[1], key, depth + m)
        return _extend(db, cache, path, _update(db, cache, child, items, lo, hi, depth + m))
    # Some keys leave the path at nibble c: split into a branch there.
    at = depth + c
    base: Node = [b""] * 17
    own = _NIBBLE[path[c]]
    if c + 1 < m:
        new[own] = [_extension_path(path[c + 1 :]), node[1]]
    else:
        base[own] = node[1]
    for nibble, i, j in _groups(items, lo, hi, at):
        if nibble == own:
            below = new[own] if own in new else _child(db, cache, node[1], items[i][0], at + 1)
            new[own] = _update(db, cache, below, items, i, j, at + 1)
        else:
            new[nibble] = _build_live(db, cache, items, i, j, at + 1)
    branch = _finish_branch(db, cache, base, new, key, at)
    return _extend(db, cache, path[:c], branch) if c else branch


def commit_updates(db: MutableMapping[bytes, bytes], root_hash: bytes,
                   updates: Mapping[bytes, bytes | None]) -> bytes:
    """Apply `updates` (32-byte key -> value; b"" or None deletes) to the trie at `root_hash`,
    store the new nodes in `db` and return the new root hash (py-trie's MissingTrieNode for a node
    `db` lacks)."""
    if any(len(k) != 32 for k in updates):
        raise ValueError("trie keys must be 32 bytes")
    items = [(k.hex(), v or b"") for k, v in sorted(updates.items(), key=lambda kv: kv[0])]
    if not items:
        return root_hash
    cache = node_cache_of(db)
    try:
        root = b"" if root_hash == BLANK_ROOT else _child(db, cache, root_hash, items[0][0], 0)
        new_root = _update(db, cache, root, items, 0, len(items), 0)
    except _MissingNode as exc:
        # py-trie's error, as its own trie raises it (imported here: a chain's genesis commits
        # its tries before py-trie is loaded)
        from eth_typing import Hash32
        from trie.exceptions import MissingTrieNode
        from trie.typing import Nibbles

        prefix = tuple(_NIBBLE[c] for c in exc.key[: exc.depth])
        raise MissingTrieNode(Hash32(exc.node_hash), Hash32(root_hash), bytes.fromhex(exc.key),
                              Nibbles(prefix)) from None
    if not new_root:
        return BLANK_ROOT
    enc = encode(new_root)  # the root is stored under its hash even when shorter than 32 bytes
    h = keccak256(enc)
    db[h] = enc
    _remember(cache, h, new_root)
    kv = store_kv_of(db)
    if kv is not None:  # its new branch nodes are stored as deltas (trie_delta.py)
        if len(kv.commits) >= _COMMITS_KEPT:  # commits no block flushes (eth_call's): forget the oldest
            del kv.commits[: _COMMITS_KEPT // 2]
        kv.commits.append((root_hash, h))
    return h
