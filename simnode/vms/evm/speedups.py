"""Behaviour-preserving speed-ups for py-trie and py-evm's state commit.

Put in place of py-trie's by simnode/patches.py when a node starts:
* `bytes_to_nibbles` through bytes.hex() and a lookup table (the generator version is one of
  the top costs of every account/storage access);
* `get_node_type` / `extract_key` read a node key's hex-prefix flag directly (py-trie decodes the
  key to nibbles through generator helpers, twice per node of every trie read);
* `HexaryTrie.get_node` reads decoded nodes through trie_commit's node cache (nodes are
  content-addressed, so a hash always decodes to the same node). py-trie mutates decoded branch
  nodes in place while updating, so each read hands out a fresh copy;
* `HexaryTrie.get` (every account and storage read) walks the cached nodes themselves, without
  copying them (a read changes no node) or py-trie's generic traversal; any case off the
  common path (a missing node, a key ending inside an extension, a node py-trie would reject)
  goes to py-trie's own get, which answers or raises as before. Its answers are kept by (root,
  key) in the chain's StoreKV (`trie_values`): a root fixes every value under it, and the states
  of one block (its admission view, the block's own, the head's call state) read the same
  accounts at the same root, each with cold caches of its own.

Used by rules.FastAccountDB:
* `batched_make_state_root`: py-evm's AccountDB.make_state_root, but the account trie and each
  storage trie take the block's changes in one trie_commit batch instead of one HexaryTrie set
  per key (each set re-encodes and re-hashes its whole path).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import rlp
import trie.hexary as _hexary
import trie.utils.nodes as _nodes
from eth.constants import BLANK_ROOT_HASH
from eth.db.account import AccountDB
from eth.db.storage import AccountStorageDB
from eth.vm.interrupt import MissingAccountTrieNode, MissingStorageTrieNode
from eth_typing import Address, Hash32
from trie.constants import (BLANK_NODE, BLANK_NODE_HASH, NODE_TYPE_BLANK, NODE_TYPE_BRANCH, NODE_TYPE_EXTENSION,
                            NODE_TYPE_LEAF)
from trie.exceptions import MissingTrieNode

from ...crypto.hashing import keccak256
from .trie_commit import cached_node, commit_updates, read_node, store_kv_of

_HEX = {c: int(c, 16) for c in "0123456789abcdef"}


def fast_bytes_to_nibbles(value: bytes) -> tuple[int, ...]:
    return tuple(map(_HEX.__getitem__, value.hex()))


_ORIGINAL_GET_NODE_TYPE = _nodes.get_node_type
_ORIGINAL_EXTRACT_KEY = _nodes.extract_key


def fast_get_node_type(node: Any) -> int:
    """py-trie's get_node_type, reading the hex-prefix flag (high nibble of the key's first byte:
    2 or 3 for a leaf) instead of decoding the whole key to nibbles."""
    if type(node) is list and len(node) == 2:
        key = node[0]
        if type(key) is bytes and key:
            return NODE_TYPE_LEAF if key[0] >> 4 in (2, 3) else NODE_TYPE_EXTENSION
    elif type(node) is list and len(node) == 17:
        return NODE_TYPE_BRANCH
    elif node == BLANK_NODE:
        return NODE_TYPE_BLANK
    return _ORIGINAL_GET_NODE_TYPE(node)  # malformed nodes raise as py-trie does


def fast_extract_key(node: Any) -> tuple[int, ...]:
    """py-trie's extract_key: the key's nibbles without the hex-prefix flag (and padding nibble
    when even); py-trie adds then strips the leaf terminator, a no-op."""
    if type(node) is list and len(node) == 2:
        key = node[0]
        if type(key) is bytes and key:
            nibbles = fast_bytes_to_nibbles(key)
            return nibbles[1:] if nibbles[0] in (1, 3) else nibbles[2:]
    return _ORIGINAL_EXTRACT_KEY(node)


def _clone(node: Any) -> Any:
    if isinstance(node, list):
        return [_clone(x) if isinstance(x, list) else x for x in node]
    return node


def cached_get_node(self: Any, node_hash: Any) -> Any:
    if node_hash == BLANK_NODE or node_hash == BLANK_NODE_HASH:
        return BLANK_NODE
    if type(node_hash) is list:  # an embedded child is already decoded (py-trie returns it as is)
        return node_hash
    if len(node_hash) < 32:
        return rlp.decode(node_hash)
    return _clone(read_node(self.db, node_hash))


_ORIGINAL_GET = _hexary.HexaryTrie.get


TRIE_VALUES_LIMIT = 4096  # (root, key) answers a StoreKV keeps (cleared when full)


def fast_get(self: Any, key: bytes) -> bytes:
    """HexaryTrie.get over the node cache, its answers kept by (root, key) (see the module
    docstring); what raises is not kept."""
    if type(key) is not bytes:
        return _ORIGINAL_GET(self, key)
    kv = store_kv_of(self.db)
    if kv is None:
        return _walk(self, key, None)
    values = kv.trie_values
    at = (self.root_hash, key)
    value = values.get(at)
    if value is None:
        value = _walk(self, key, kv.decoded_nodes)
        if len(values) >= TRIE_VALUES_LIMIT:
            values.clear()
        values[at] = value
    return value


def _walk(self: Any, key: bytes, cache: dict[bytes, list] | None) -> bytes:
    nibbles = fast_bytes_to_nibbles(key)
    n = len(nibbles)
    i = 0
    ref = self.root_hash
    db = self.db
    try:
        while True:
            if type(ref) is list:  # a node embedded in its parent
                node = ref
            elif ref == BLANK_NODE or ref == BLANK_NODE_HASH:
                return BLANK_NODE
            elif len(ref) == 32:
                node = cached_node(db, cache, ref)
            else:
                return _ORIGINAL_GET(self, key)
            if type(node) is not list:
                return _ORIGINAL_GET(self, key)
            if len(node) == 17:
                if i == n:
                    return node[16]
                ref = node[nibbles[i]]
                i += 1
                continue
            if len(node) != 2 or type(node[0]) is not bytes or not node[0]:
                return _ORIGINAL_GET(self, key)
            path = fast_extract_key(node)
            if node[0][0] >> 4 in (2, 3):  # a leaf
                return node[1] if nibbles[i:] == path else BLANK_NODE
            end = i + len(path)
            if nibbles[i:end] != path:
                # the key leaves the extension's path (no such key); a key ending inside the
                # path py-trie answers or refuses itself
                return BLANK_NODE if end <= n else _ORIGINAL_GET(self, key)
            i = end
            ref = node[1]
    except KeyError:  # a node missing from the db: py-trie's MissingTrieNode with its details
        return _ORIGINAL_GET(self, key)


def _commit_storage(store: AccountStorageDB) -> None:
    """AccountStorageDB.make_storage_root with one batched commit (py-evm persists
    `_locked_changes` through the CacheDB into the StorageLookup's write trie, a set per slot)."""
    store.lock_changes()
    locked = store._locked_changes
    diff = locked.diff()
    lookup = store._storage_lookup
    updates = {lookup._decode_key(slot): value for slot, value in diff.pending_items()}
    for slot in diff.deleted_keys():
        updates[lookup._decode_key(slot)] = b""
    if updates:
        write_trie = lookup._get_write_trie()  # as any write does: marks the storage root changed
        try:
            write_trie.root_hash = commit_updates(lookup._trie_nodes_batch, write_trie.root_hash, updates)
        except MissingTrieNode as exc:
            raise MissingStorageTrieNode(Hash32(exc.missing_node_hash), lookup._starting_root_hash,
                                         Hash32(exc.requested_key), exc.prefix, store._address) from exc
    locked.reset()
    store._storage_cache.reset_cache()  # it may hold slot values read before these writes


def batched_make_state_root(self: AccountDB) -> Hash32:
    """AccountDB.make_state_root with batched trie commits. The new account-trie nodes go where
    py-evm's squashed HexaryTrie puts them, `_batchtrie`, which persist() flushes; storage-trie
    nodes go to each StorageLookup's `_trie_nodes_batch`, which store.persist() flushes."""
    # py-evm declares the stores as AccountStorageDatabaseAPI; AccountDB (and fork_state's
    # subclass) only ever makes AccountStorageDB ones, whose internals _commit_storage batches
    dirty = cast("Iterable[tuple[Address, AccountStorageDB]]", self._dirty_account_stores())
    for _address, store in dirty:
        _commit_storage(store)
    for address, storage_root in self._get_changed_roots():
        if self.account_exists(address) or storage_root != BLANK_ROOT_HASH:
            self._set_storage_root(address, storage_root)
    self._journaldb.persist()
    diff = self._journaltrie.diff()
    updates = {keccak256(address): rlp_account for address, rlp_account in diff.pending_items()}
    for deleted in diff.deleted_keys():
        updates[keccak256(deleted)] = b""
    if updates:
        try:
            self._trie.root_hash = commit_updates(self._batchtrie, self._trie.root_hash, updates)
        except MissingTrieNode as exc:
            raise MissingAccountTrieNode(Hash32(exc.missing_node_hash), self._root_hash_at_last_persist,
                                         exc.requested_key) from exc
    self._journaltrie.reset()
    self._trie_cache.reset_cache()
    return self.state_root
