"""trieroot.ordered_trie_root (a block's tx/receipt trie root in one pass) against py-trie's
HexaryTrie filled key by key: rlp(i) -> values[i]."""

from __future__ import annotations

import rlp
from hypothesis import given, settings
from hypothesis import strategies as st
from trie import HexaryTrie

from simnode.vms.evm.trieroot import BLANK_ROOT, ordered_trie_root


def reference_root(values: list[bytes]) -> bytes:
    t = HexaryTrie({})
    for i, v in enumerate(values):
        t[rlp.encode(i)] = v
    return t.root_hash


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=90), max_size=300))
def test_matches_py_trie(values: list[bytes]) -> None:
    assert ordered_trie_root(values) == reference_root(values)


def test_known_sizes() -> None:
    assert ordered_trie_root([]) == BLANK_ROOT == reference_root([])
    for n in (1, 2, 16, 17, 127, 128, 129, 256, 1000):
        values = [bytes([i % 251]) * (1 + i % 40) for i in range(n)]
        assert ordered_trie_root(values) == reference_root(values), n
