"""secp256r1 (P-256) ECDSA verification over a given digest, as the P256VERIFY precompile needs it
(EIP-7951 / RIP-7212): the public key must be a point of the curve, r and s in [1, n-1]."""

from __future__ import annotations

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, encode_dss_signature

N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551  # the group's order

_PREHASHED = ec.ECDSA(Prehashed(hashes.SHA256()))


def verify(digest: bytes, r: int, s: int, x: int, y: int) -> bool:
    """Whether (r, s) signs the 32-byte `digest` for the public key (x, y)."""
    if not (0 < r < N and 0 < s < N):
        return False
    try:
        key = ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1()).public_key()
    except ValueError:  # not a point of the curve (the point at infinity included)
        return False
    try:
        key.verify(encode_dss_signature(r, s), digest, _PREHASHED)
    except InvalidSignature:
        return False
    return True
