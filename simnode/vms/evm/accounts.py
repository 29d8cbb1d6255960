"""Unlocked developer accounts: the ewoq key plus Anvil's mnemonic accounts (BIP39/BIP32/BIP44).

Decision: the mnemonic accounts are *listed and unlocked* (eth_accounts, eth_sendTransaction,
eth_sign) but not funded, because the C-Chain genesis is the network's real genesis and only
ewoq is allocated there. Fund them with anvil_setBalance or a transfer from ewoq.
"""

from __future__ import annotations

import hashlib
import hmac
import unicodedata

import coincurve

from ...crypto.hashing import keccak256

EWOQ_KEY = bytes.fromhex("56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
ANVIL_MNEMONIC = "test test test test test test test test test test test junk"
_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
_HARDENED = 0x80000000


def mnemonic_to_seed(mnemonic: str, passphrase: str = "") -> bytes:
    m = unicodedata.normalize("NFKD", mnemonic).encode()
    salt = unicodedata.normalize("NFKD", "mnemonic" + passphrase).encode()
    return hashlib.pbkdf2_hmac("sha512", m, salt, 2048)


def _derive(seed: bytes, path: str) -> bytes:
    digest = hmac.new(b"Bitcoin seed", seed, hashlib.sha512).digest()
    key, chain = digest[:32], digest[32:]
    for part in path.split("/")[1:]:
        hardened = part.endswith("'")
        index = int(part.rstrip("'")) + (_HARDENED if hardened else 0)
        if hardened:
            data = b"\x00" + key + index.to_bytes(4, "big")
        else:
            data = coincurve.PrivateKey(key).public_key.format(compressed=True) + index.to_bytes(4, "big")
        digest = hmac.new(chain, data, hashlib.sha512).digest()
        key = ((int.from_bytes(digest[:32], "big") + int.from_bytes(key, "big")) % _N).to_bytes(32, "big")
        chain = digest[32:]
    return key


def address_of(key: bytes) -> bytes:
    pub = coincurve.PrivateKey(key).public_key.format(compressed=False)[1:]
    return keccak256(pub)[12:]


def dev_keys(count: int = 10, mnemonic: str = ANVIL_MNEMONIC) -> list[bytes]:
    """ewoq first, then m/44'/60'/0'/0/i for i < count."""
    seed = mnemonic_to_seed(mnemonic)
    return [EWOQ_KEY] + [_derive(seed, f"m/44'/60'/0'/0/{i}") for i in range(count)]


def sign_hash(key: bytes, digest: bytes) -> bytes:
    """65-byte r|s|v with v in {27, 28} (eth_sign)."""
    sig = coincurve.PrivateKey(key).sign_recoverable(digest, hasher=None)
    return sig[:64] + bytes([sig[64] + 27])
