"""Two behaviour-preserving speed-ups for py-trie, applied once when the EVM package loads.

* `bytes_to_nibbles` through bytes.hex() and a lookup table (the generator version is one of
  the top costs of every account/storage access);
* `HexaryTrie.get_node` remembers decoded nodes by hash (nodes are content-addressed, so a hash
  always decodes to the same node). py-trie mutates decoded branch nodes in place while
  updating, so the cache hands out a fresh copy each time.
"""

from __future__ import annotations

from typing import Any

import rlp
import trie.hexary as _hexary
import trie.iter as _iter
import trie.utils.nibbles as _nibbles
from trie.constants import BLANK_NODE, BLANK_NODE_HASH

_HEX = {c: int(c, 16) for c in "0123456789abcdef"}
_CACHE_LIMIT = 10_000
_node_cache: dict[bytes, Any] = {}


def fast_bytes_to_nibbles(value: bytes) -> tuple[int, ...]:
    return tuple(map(_HEX.__getitem__, value.hex()))


def _clone(node: Any) -> Any:
    if isinstance(node, list):
        return [_clone(x) if isinstance(x, list) else x for x in node]
    return node


def cached_get_node(self: Any, node_hash: bytes) -> Any:
    if node_hash == BLANK_NODE or node_hash == BLANK_NODE_HASH:
        return BLANK_NODE
    if len(node_hash) < 32:
        return rlp.decode(node_hash)
    node = _node_cache.get(node_hash)
    if node is None:
        encoded = self.db[node_hash]
        node = rlp.decode(encoded)
        if len(_node_cache) >= _CACHE_LIMIT:
            _node_cache.clear()
        _node_cache[node_hash] = node
    return _clone(node)


_applied = False


def apply() -> None:
    global _applied
    if _applied:
        return
    _applied = True
    _nibbles.bytes_to_nibbles = fast_bytes_to_nibbles
    _hexary.bytes_to_nibbles = fast_bytes_to_nibbles
    _iter.bytes_to_nibbles = fast_bytes_to_nibbles
    _hexary.HexaryTrie.get_node = cached_get_node
