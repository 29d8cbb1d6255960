"""BLS12-381 signatures with AvalancheGo's ciphersuite (`utils/crypto/bls`), over pyblst.

pyblst binds blst, the library AvalancheGo itself uses, but only at the group level (points,
hash-to-curve, Miller loop, final exponentiation), so the IETF scheme is assembled here:
- min-pubkey-size: public keys are 48-byte compressed G1 points, signatures 96-byte compressed
  G2 points;
- Sign/Verify hash with SIGNATURE_DST; proof of possession signs the 48-byte compressed public
  key with POP_DST (IETF PopProve/PopVerify);
- aggregate verification is IETF FastAggregateVerify: sum the public keys, then one Verify.

Decoding follows AvalancheGo: a public key must decode, be in G1 and not be the identity
(blst KeyValidate); a signature must decode and be in G2 (identity allowed, it just never
verifies). pyblst's `uncompress` already checks encoding, curve and subgroup.
"""

import hashlib
import hmac
from dataclasses import dataclass, field
from functools import lru_cache

from pyblst import BlstP1Element, BlstP2Element, final_verify, miller_loop

from simnode.crypto.errors import CryptoError

__all__ = [
    "CURVE_ORDER",
    "POP_DST",
    "PUBLIC_KEY_LEN",
    "SECRET_KEY_LEN",
    "SIGNATURE_DST",
    "SIGNATURE_LEN",
    "SecretKey",
    "aggregate_public_keys",
    "aggregate_signatures",
    "fast_aggregate_verify",
    "is_valid_public_key",
    "prove_possession",
    "public_key",
    "public_key_to_uncompressed",
    "secret_key_from_bytes",
    "secret_key_from_seed",
    "sign",
    "sign_and_aggregate",
    "sign_many",
    "signature_error",
    "verify",
    "verify_possession",
]

SECRET_KEY_LEN = 32
PUBLIC_KEY_LEN = 48
SIGNATURE_LEN = 96
SIGNATURE_DST = b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"
POP_DST = b"BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"
CURVE_ORDER = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
# Base field modulus, only needed to rebuild y for the uncompressed form.
_FIELD_MODULUS = int(
    "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf"
    "6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab",
    16,
)

_G1_GENERATOR = BlstP1Element.uncompress(
    bytes.fromhex(
        "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905"
        "a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
    )
)
_G1_IDENTITY = BlstP1Element()


@dataclass(frozen=True, slots=True)
class SecretKey:
    """A BLS secret scalar in [1, r-1]. Kept out of repr so it never lands in logs."""

    scalar: int = field(repr=False)

    def to_bytes(self) -> bytes:
        """32-byte big-endian, as AvalancheGo serialises secret keys."""
        return self.scalar.to_bytes(SECRET_KEY_LEN, "big")


def _require_bytes(value: bytes, what: str) -> bytes:
    # pyblst only accepts `bytes` (not bytearray/memoryview) and would raise TypeError otherwise.
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise CryptoError(f"{what} must be bytes, got {type(value).__name__}")
    return bytes(value)


def secret_key_from_bytes(b32: bytes) -> SecretKey:
    """Parse a 32-byte big-endian secret key; zero and values >= r are rejected, as blst does."""
    raw = _require_bytes(b32, "BLS secret key")
    if len(raw) != SECRET_KEY_LEN:
        raise CryptoError(f"BLS secret key must be {SECRET_KEY_LEN} bytes, got {len(raw)}")
    scalar = int.from_bytes(raw, "big")
    if not 0 < scalar < CURVE_ORDER:
        raise CryptoError("BLS secret key must be in [1, r-1]")
    return SecretKey(scalar)


def secret_key_from_seed(seed: bytes) -> SecretKey:
    """IETF KeyGen (draft-irtf-cfrg-bls-signature-04+, empty key_info), the algorithm of blst's
    KeyGen that AvalancheGo uses, so the same 32+ bytes give the same key as a real node.

    Like blst, seeds shorter than 32 bytes are refused; hash a short label first.
    """
    ikm = _require_bytes(seed, "BLS seed")
    if len(ikm) < 32:
        raise CryptoError("BLS seed must be at least 32 bytes")
    salt = b"BLS-SIG-KEYGEN-SALT-"
    scalar = 0
    while scalar == 0:
        salt = hashlib.sha256(salt).digest()
        # HKDF-Extract(salt, IKM ‖ I2OSP(0, 1)), then HKDF-Expand(PRK, I2OSP(L, 2), L = 48):
        # 48 bytes fit in two SHA-256 blocks.
        prk = hmac.digest(salt, ikm + b"\x00", "sha256")
        info = (48).to_bytes(2, "big")
        t1 = hmac.digest(prk, info + b"\x01", "sha256")
        t2 = hmac.digest(prk, t1 + info + b"\x02", "sha256")
        scalar = int.from_bytes((t1 + t2)[:48], "big") % CURVE_ORDER
    return SecretKey(scalar)


@lru_cache(maxsize=1024)
def public_key(sk: SecretKey) -> bytes:
    """48-byte compressed G1 public key."""
    return _G1_GENERATOR.scalar_mul(sk.scalar).compress()


@lru_cache(maxsize=4096)
def _public_key_point(pk48: bytes) -> BlstP1Element | None:
    # Cached: Warp verification decodes the same validator keys (each with a subgroup check)
    # for every message.
    if len(pk48) != PUBLIC_KEY_LEN:
        return None
    try:
        point = BlstP1Element.uncompress(pk48)
    except ValueError:
        return None
    return None if point == _G1_IDENTITY else point


def _signature_point(sig96: bytes) -> BlstP2Element | None:
    if len(sig96) != SIGNATURE_LEN:
        return None
    try:
        return BlstP2Element.uncompress(sig96)
    except ValueError:
        return None


def signature_error(sig96: bytes) -> str | None:
    """Why `sig96` is not a signature, in AvalancheGo's words (bls.SignatureFromBytes), or None."""
    raw = _require_bytes(sig96, "BLS signature")
    if len(raw) != SIGNATURE_LEN:
        return "couldn't decompress signature"
    try:
        BlstP2Element.uncompress(raw)
    except ValueError as e:
        return "invalid signature" if "NOT_IN_GROUP" in str(e) else "couldn't decompress signature"
    return None


def is_valid_public_key(pk48: bytes) -> bool:
    """True if `pk48` decodes to a G1 point in the subgroup that is not the identity."""
    return _public_key_point(_require_bytes(pk48, "BLS public key")) is not None


@lru_cache(maxsize=4096)
def public_key_to_uncompressed(pk48: bytes) -> bytes:
    """The 96-byte uncompressed form `x ‖ y` (blst `Serialize`), by which Warp orders validators.

    pyblst has no uncompressed serialisation, so y is rebuilt from x: y² = x³ + 4, and the
    compressed encoding's sign flag says whether y is the larger of the two roots.
    """
    pk = _require_bytes(pk48, "BLS public key")
    if _public_key_point(pk) is None:
        raise CryptoError("invalid BLS public key")
    x = int.from_bytes(bytes((pk[0] & 0x1F,)) + pk[1:], "big")
    p = _FIELD_MODULUS
    y = pow((x * x * x + 4) % p, (p + 1) // 4, p)  # p ≡ 3 (mod 4)
    if bool(pk[0] & 0x20) != (y > (p - 1) // 2):
        y = p - y
    return x.to_bytes(48, "big") + y.to_bytes(48, "big")


def _sign(sk: SecretKey, msg: bytes, dst: bytes) -> bytes:
    return BlstP2Element.hash_to_group(msg, dst).scalar_mul(sk.scalar).compress()


def _verify_points(pk: BlstP1Element, sig: BlstP2Element, msg: bytes, dst: bytes) -> bool:
    # e(pk, H(msg)) == e(g1, sig)
    hashed = BlstP2Element.hash_to_group(msg, dst)
    return final_verify(miller_loop(pk, hashed), miller_loop(_G1_GENERATOR, sig))


def _verify(pk48: bytes, sig96: bytes, msg: bytes, dst: bytes) -> bool:
    pk = _public_key_point(_require_bytes(pk48, "BLS public key"))
    sig = _signature_point(_require_bytes(sig96, "BLS signature"))
    if pk is None or sig is None:
        return False
    return _verify_points(pk, sig, _require_bytes(msg, "message"), dst)


def sign(sk: SecretKey, msg: bytes) -> bytes:
    """96-byte compressed G2 signature of `msg` (SIGNATURE_DST)."""
    return _sign(sk, _require_bytes(msg, "message"), SIGNATURE_DST)


def _signature_points(secret_keys: list[SecretKey], msg: bytes) -> list[BlstP2Element]:
    # Every Warp signer signs the same bytes: hash them to G2 once.
    hashed = BlstP2Element.hash_to_group(_require_bytes(msg, "message"), SIGNATURE_DST)
    return [hashed.scalar_mul(sk.scalar) for sk in secret_keys]


def sign_many(secret_keys: list[SecretKey], msg: bytes) -> list[bytes]:
    """`sign` by each key."""
    return [point.compress() for point in _signature_points(secret_keys, msg)]


def sign_and_aggregate(secret_keys: list[SecretKey], msg: bytes) -> tuple[list[bytes], bytes]:
    """`sign` by each key, and the aggregate of those signatures (what `aggregate_signatures` of
    them gives, summed from the points in hand instead of decompressing each signature again)."""
    if not secret_keys:
        raise CryptoError("no signatures")
    points = _signature_points(secret_keys, msg)
    total = BlstP2Element()
    for point in points:
        total = total + point
    return [point.compress() for point in points], total.compress()


def verify(pk48: bytes, sig96: bytes, msg: bytes) -> bool:
    return _verify(pk48, sig96, msg, SIGNATURE_DST)


def prove_possession(sk: SecretKey) -> bytes:
    """Proof of possession: a POP_DST signature of the 48-byte compressed public key."""
    return _sign(sk, public_key(sk), POP_DST)


def verify_possession(pk48: bytes, pop96: bytes) -> bool:
    return _verify(pk48, pop96, pk48, POP_DST)


def _sum_public_keys(public_keys: list[bytes]) -> BlstP1Element | None:
    """The sum of the keys' points, or None if any key is invalid."""
    total = _G1_IDENTITY
    for pk48 in public_keys:
        point = _public_key_point(_require_bytes(pk48, "BLS public key"))
        if point is None:
            return None
        total = total + point
    return total


def aggregate_public_keys(public_keys: list[bytes]) -> bytes:
    """Sum of valid public keys (48-byte compressed). Raises on an empty list or a bad key."""
    if not public_keys:
        raise CryptoError("no public keys")
    total = _sum_public_keys(public_keys)
    if total is None:
        raise CryptoError("invalid BLS public key")
    return total.compress()


def aggregate_signatures(signatures: list[bytes]) -> bytes:
    """Sum of signatures (96-byte compressed). Raises on an empty list or a bad signature."""
    if not signatures:
        raise CryptoError("no signatures")
    total = BlstP2Element()
    for sig96 in signatures:
        point = _signature_point(_require_bytes(sig96, "BLS signature"))
        if point is None:
            raise CryptoError("invalid BLS signature")
        total = total + point
    return total.compress()


def fast_aggregate_verify(public_keys: list[bytes], sig96: bytes, msg: bytes) -> bool:
    """IETF FastAggregateVerify: every signer signed the same `msg` (the Warp case)."""
    if not public_keys:
        return False
    total = _sum_public_keys(public_keys)
    sig = _signature_point(_require_bytes(sig96, "BLS signature"))
    # blst rejects an identity (aggregate) public key, e.g. pk + (-pk).
    if total is None or sig is None or total == _G1_IDENTITY:
        return False
    return _verify_points(total, sig, _require_bytes(msg, "message"), SIGNATURE_DST)
