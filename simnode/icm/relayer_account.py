"""The in-process relayer's account (simnode/relayer.py): its key, derived from the node's seed, and
the funds every EVM chain credits it at the start of block 1."""

from __future__ import annotations

import coincurve

from ..crypto.hashing import keccak256

RELAYER_FUNDS = 10**6 * 10**18  # 1,000,000 of the chain's native token


def relayer_key(seed: int) -> bytes:
    """The relayer account's secp256k1 key for a node seed."""
    return keccak256(b"simnode ICM relayer" + seed.to_bytes(8, "big", signed=True))


def relayer_address(seed: int) -> bytes:
    return keccak256(coincurve.PrivateKey(relayer_key(seed)).public_key.format(compressed=False)[1:])[12:]
