"""Root hash of an "index → item" Merkle-Patricia trie (transactions / receipts of a block),
computed in one recursive pass over the sorted keys instead of N inserts into a HexaryTrie.

Only the root is needed: the node keeps block bodies and receipts in its own rows, so the trie
nodes are never stored.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...crypto.hashing import keccak256
from . import rlpcodec

BLANK_ROOT = bytes.fromhex("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")


def _nibbles(key: bytes) -> bytes:
    out = bytearray()
    for b in key:
        out.append(b >> 4)
        out.append(b & 15)
    return bytes(out)


def _hp(nibbles: bytes, leaf: bool) -> bytes:
    flag = 2 if leaf else 0
    if len(nibbles) % 2:
        nib = bytes([flag + 1]) + nibbles
    else:
        nib = bytes([flag, 0]) + nibbles
    return bytes((nib[i] << 4) | nib[i + 1] for i in range(0, len(nib), 2))


def _ref(node: list) -> object:
    enc = rlpcodec.encode(node)
    return node if len(enc) < 32 else keccak256(enc)


def _build(items: list[tuple[bytes, bytes]], depth: int) -> list:
    if len(items) == 1:
        k, v = items[0]
        return [_hp(k[depth:], True), v]
    first, last = items[0][0], items[-1][0]  # sorted: the common prefix of all = that of first/last
    p = depth
    lim = min(len(first), len(last))
    while p < lim and first[p] == last[p]:
        p += 1
    if p > depth:
        return [_hp(first[depth:p], False), _ref(_build(items, p))]
    branch: list = [b""] * 17
    i, n = 0, len(items)
    if len(items[0][0]) == depth:
        branch[16] = items[0][1]
        i = 1
    while i < n:
        nib = items[i][0][depth]
        j = i
        while j < n and items[j][0][depth] == nib:
            j += 1
        branch[nib] = _ref(_build(items[i:j], depth + 1))
        i = j
    return branch


def ordered_trie_root(values: Sequence[bytes]) -> bytes:
    """Root of the trie mapping rlp(i) -> values[i] (the tx/receipt trie of a block)."""
    if not values:
        return BLANK_ROOT
    items = sorted((_nibbles(rlpcodec.encode(i.to_bytes((i.bit_length() + 7) // 8, "big"))), bytes(v))
                   for i, v in enumerate(values))
    return keccak256(rlpcodec.encode(_build(items, 0)))
