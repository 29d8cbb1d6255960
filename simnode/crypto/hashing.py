"""Hash functions used across the node: sha256, keccak256, ripemd160."""

import hashlib
from collections.abc import Callable

# safe-pysha3's C keccak is the fastest keccak available (~1.4M hashes/s for 32 B, against ~0.2M
# through eth_hash's pycryptodome backend). Calling it directly sidesteps eth_hash's backend
# auto-selection, which picks pycryptodome unless ETH_HASH_BACKEND=pysha3 is set before import.
from sha3 import keccak_256 as _keccak_256

__all__ = ["keccak256", "ripemd160", "sha256"]


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def keccak256(data: bytes) -> bytes:
    """Ethereum's keccak-256 (original Keccak padding, not hashlib.sha3_256)."""
    return _keccak_256(data).digest()


def _select_ripemd160() -> Callable[[bytes], bytes]:
    # OpenSSL 3 moved ripemd160 to its legacy provider, so hashlib may lack it.
    try:
        hashlib.new("ripemd160", b"")
    except ValueError:
        from Crypto.Hash import RIPEMD160

        return lambda data: RIPEMD160.new(data).digest()
    return lambda data: hashlib.new("ripemd160", data).digest()


ripemd160: Callable[[bytes], bytes] = _select_ripemd160()
