"""secp256k1 keys, recoverable signatures and addresses, verified by AvalancheGo's rules.

Signatures are 65 bytes `r ‖ s ‖ v` (v = recovery id) over a 32-byte digest; for X/P/C atomic
txs the digest is sha256(unsigned tx bytes). Recovery mirrors AvalancheGo's
`utils/crypto/secp256k1.RecoverPublicKeyFromHash` (decred `ecdsa.RecoverCompact`), including
its error texts, which surface verbatim in API errors.
"""

from functools import lru_cache
from typing import NamedTuple

from coincurve import PrivateKey, PublicKey

from simnode.crypto.errors import CryptoError
from simnode.crypto.hashing import keccak256, ripemd160, sha256

__all__ = [
    "CURVE_ORDER",
    "PRIVATE_KEY_LEN",
    "PUBLIC_KEY_LEN",
    "SIGNATURE_LEN",
    "eth_address",
    "eth_address_from_public_key",
    "public_key",
    "recover_address",
    "recover_eth_address",
    "recover_public_key",
    "short_address",
    "sign_hash",
]

PRIVATE_KEY_LEN = 32
PUBLIC_KEY_LEN = 33
SIGNATURE_LEN = 65
DIGEST_LEN = 32
CURVE_ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
_HALF_ORDER = CURVE_ORDER // 2

# AvalancheGo's error texts (utils/crypto/secp256k1).
ERR_INVALID_SIG_LEN = "invalid signature length"
ERR_MUTATED_SIG = "signature was mutated from its original format"
ERR_INVALID_SIG = "invalid signature"
ERR_COMPRESSED = "wasn't expecting a compressed key"

# decred's RecoverCompact accepts recovery codes 27..34, i.e. v in 0..7: bit 2 flags a compressed
# key (which AvalancheGo then refuses), bits 0-1 are the recovery id proper.
_MAX_V = 7
_V_COMPRESSED_FLAG = 4


def _to_bytes(value: bytes, what: str, length: int) -> bytes:
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise CryptoError(f"{what} must be bytes, got {type(value).__name__}")
    value = bytes(value)
    if len(value) != length:
        raise CryptoError(f"{what} must be {length} bytes, got {len(value)}")
    return value


@lru_cache(maxsize=256)
def _private_key(secret: bytes) -> PrivateKey:
    # Cached because building a coincurve key derives its public key (one EC multiplication),
    # and wallets/tests sign with the same few keys over and over.
    try:
        return PrivateKey(secret)
    except ValueError:
        raise CryptoError("private key must be in [1, n-1]") from None


def _checked_private_key(private_key: bytes) -> PrivateKey:
    return _private_key(_to_bytes(private_key, "private key", PRIVATE_KEY_LEN))


def sign_hash(private_key: bytes, digest32: bytes) -> bytes:
    """Deterministic (RFC 6979) low-S signature `r ‖ s ‖ v`, v in {0, 1}.

    libsecp256k1 always emits low-S with the matching recovery id, so no normalisation (and no
    v flip) is needed here.
    """
    digest = _to_bytes(digest32, "digest", DIGEST_LEN)
    return _checked_private_key(private_key).sign_recoverable(digest, hasher=None)


class _Recovered(NamedTuple):
    key: PublicKey
    short_address: bytes


@lru_cache(maxsize=8192)
def _recover(digest: bytes, signature: bytes) -> _Recovered:
    # Cached like AvalancheGo's RecoverCache: the same credential is verified on issuance, on
    # block building and on acceptance. Failures raise and are therefore not cached.
    if len(digest) != DIGEST_LEN:
        raise CryptoError(f"digest must be {DIGEST_LEN} bytes, got {len(digest)}")
    if len(signature) != SIGNATURE_LEN:
        raise CryptoError(ERR_INVALID_SIG_LEN)
    # AvalancheGo reduces s mod n before its half-order check (ModNScalar.SetByteSlice); an
    # s >= n that survives it is then rejected by the recovery itself.
    if int.from_bytes(signature[32:64], "big") % CURVE_ORDER > _HALF_ORDER:
        raise CryptoError(ERR_MUTATED_SIG)
    v = signature[64]
    if v > _MAX_V:
        raise CryptoError(ERR_INVALID_SIG)
    try:
        # coincurve rejects r or s >= n (parse) and r or s == 0 (recover), as decred does.
        key = PublicKey.from_signature_and_message(
            signature[:64] + bytes((v & 3,)), digest, hasher=None
        )
    except ValueError:
        raise CryptoError(ERR_INVALID_SIG) from None
    if v & _V_COMPRESSED_FLAG:
        raise CryptoError(ERR_COMPRESSED)
    return _Recovered(key, ripemd160(sha256(key.format(compressed=True))))


def _checked_recover(digest32: bytes, sig65: bytes) -> _Recovered:
    if not isinstance(digest32, (bytes, bytearray, memoryview)) or not isinstance(
        sig65, (bytes, bytearray, memoryview)
    ):
        raise CryptoError("digest and signature must be bytes")
    return _recover(bytes(digest32), bytes(sig65))


def recover_public_key(digest32: bytes, sig65: bytes) -> bytes:
    """The 33-byte compressed public key that made `sig65` over `digest32`."""
    return _checked_recover(digest32, sig65).key.format(compressed=True)


def recover_address(digest32: bytes, sig65: bytes) -> bytes:
    """The 20-byte short address (X/P/C-bech32 payload) that made `sig65` over `digest32`."""
    return _checked_recover(digest32, sig65).short_address


def recover_eth_address(digest32: bytes, sig65: bytes) -> bytes:
    """The 20-byte EVM address that made `sig65`: what C-Chain ExportTx EVMInputs are checked
    against."""
    return _eth_address_of(_checked_recover(digest32, sig65).key)


def public_key(private_key: bytes) -> bytes:
    """The 33-byte compressed public key."""
    return _checked_private_key(private_key).public_key.format(compressed=True)


def short_address(pubkey33: bytes) -> bytes:
    """AvalancheGo's address bytes: ripemd160(sha256(compressed public key))."""
    pubkey = _to_bytes(pubkey33, "compressed public key", PUBLIC_KEY_LEN)
    if pubkey[0] not in (2, 3):
        raise CryptoError("compressed public key must start with 0x02 or 0x03")
    return ripemd160(sha256(pubkey))


def _eth_address_of(key: PublicKey) -> bytes:
    return keccak256(key.format(compressed=False)[1:])[-20:]


def eth_address(private_key: bytes) -> bytes:
    """The 20-byte EVM address: keccak256(uncompressed x ‖ y)[-20:]."""
    return _eth_address_of(_checked_private_key(private_key).public_key)


def eth_address_from_public_key(pubkey: bytes) -> bytes:
    """The 20-byte EVM address of a 33-byte compressed or 65-byte uncompressed public key."""
    if not isinstance(pubkey, (bytes, bytearray, memoryview)) or len(pubkey) not in (33, 65):
        raise CryptoError("public key must be 33 (compressed) or 65 (uncompressed) bytes")
    try:
        key = PublicKey(bytes(pubkey))
    except ValueError:
        raise CryptoError("public key is not a point on secp256k1") from None
    return _eth_address_of(key)
