"""Cryptography for simnode: hashes, secp256k1 (X/P/C tx credentials, EVM addresses) and BLS
(validator keys, proofs of possession, Warp).

The two signature schemes share function names (`public_key`, `sign`…), so they are used through
their modules: `secp256k1.recover_address(...)`, `bls.verify(...)`.
"""

from simnode.crypto import bls, secp256k1
from simnode.crypto.errors import CryptoError
from simnode.crypto.hashing import keccak256, ripemd160, sha256

__all__ = ["CryptoError", "bls", "keccak256", "ripemd160", "secp256k1", "sha256"]
