"""Canonical Warp validator sets (snow/validators.FlattenValidatorSet), signer bitsets and quorum.

- The total weight counts every validator of the subnet, those without a BLS key too: they make
  quorum harder but can never sign.
- Validators sharing a BLS key are one entry (weights summed, node IDs collected).
- Entries are ordered by the 96-byte UNCOMPRESSED public key (blst Serialize); an entry's index in
  that order is its bit in a signature's bitset.
- A bitset is a big-endian integer in minimal bytes: bit i set = canonical validator i signed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from simnode.crypto import bls

from .errors import WarpError

MAX_U64 = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class WarpValidator:
    public_key: bytes  # 48-byte compressed
    uncompressed_key: bytes  # 96 bytes, the sort key
    weight: int
    node_ids: tuple[bytes, ...]  # sorted


@dataclass(frozen=True, slots=True)
class WarpSet:
    validators: tuple[WarpValidator, ...]
    total_weight: int

    def index_of(self, public_key: bytes) -> int | None:
        for i, v in enumerate(self.validators):
            if v.public_key == public_key:
                return i
        return None


def canonical_set(entries: Iterable[tuple[bytes, int, bytes | None]]) -> WarpSet:
    """The canonical set of (node ID, weight, compressed BLS key or None) entries."""
    total = 0
    merged: dict[bytes, tuple[int, list[bytes]]] = {}
    for node_id, weight, public_key in entries:
        total += weight
        if total > MAX_U64:
            raise WarpError("overflow")
        if public_key is None:
            continue
        w, nodes = merged.get(public_key, (0, []))
        nodes.append(node_id)
        merged[public_key] = (w + weight, nodes)
    validators = sorted(
        (WarpValidator(pk, bls.public_key_to_uncompressed(pk), w, tuple(sorted(nodes)))
         for pk, (w, nodes) in merged.items()),
        key=lambda v: v.uncompressed_key)
    return WarpSet(tuple(validators), total)


def bitset_bytes(indices: Iterable[int]) -> bytes:
    """Minimal big-endian bytes of the bitset with these bits set (empty for no bit)."""
    bits = 0
    for i in indices:
        bits |= 1 << i
    return bits.to_bytes((bits.bit_length() + 7) // 8, "big")


def bitset_indices(bits: int, num_validators: int) -> list[int]:
    """The canonical indices a bitset names (warp.FilterValidators)."""
    if bits.bit_length() > num_validators:
        raise WarpError(f"unknown validator: NumIndices ({bits.bit_length() - 1}) >= "
                        f"NumFilteredValidators ({num_validators})")
    return [i for i in range(bits.bit_length()) if bits >> i & 1]


def meets_quorum(sig_weight: int, total_weight: int, quorum_num: int, quorum_den: int) -> bool:
    return sig_weight * quorum_den >= total_weight * quorum_num


def verify_weight(sig_weight: int, total_weight: int, quorum_num: int, quorum_den: int) -> None:
    if not meets_quorum(sig_weight, total_weight, quorum_num, quorum_den):
        raise WarpError(f"signature weight is insufficient: {quorum_num}*{total_weight} > "
                        f"{quorum_den}*{sig_weight}")
