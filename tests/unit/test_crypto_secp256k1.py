import json
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simnode.crypto import CryptoError, secp256k1, sha256
from simnode.crypto.secp256k1 import (
    CURVE_ORDER,
    ERR_COMPRESSED,
    ERR_INVALID_SIG,
    ERR_INVALID_SIG_LEN,
    ERR_MUTATED_SIG,
)

VECTORS = Path(__file__).resolve().parent.parent / "vectors"

EWOQ = bytes.fromhex("56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
DIGEST = sha256(b"simnode")


def _load(name: str) -> list | dict:
    return json.loads((VECTORS / name).read_text())


def _hex(value: str) -> bytes:
    return bytes.fromhex(value.removeprefix("0x"))


def _private_keys_by_name() -> dict[str, bytes]:
    return {k["privateKey"]: _hex(k["privateKeyHex"]) for k in _load("keys.json")["secp256k1"]}


def _credential_signatures(signed: bytes, unsigned: bytes) -> list[bytes]:
    """Signatures in `u32 nCreds | (u32 typeID=9 | u32 k | k x 65B)…` after the unsigned bytes."""
    creds = signed[len(unsigned) :]
    (count,), offset = struct.unpack_from(">I", creds), 4
    signatures = []
    for _ in range(count):
        type_id, k = struct.unpack_from(">II", creds, offset)
        assert type_id == 9
        offset += 8
        signatures += [creds[offset + 65 * i : offset + 65 * (i + 1)] for i in range(k)]
        offset += 65 * k
    assert offset == len(creds)
    return signatures


def _with(sig: bytes, r: int | None = None, s: int | None = None, v: int | None = None) -> bytes:
    return (
        (sig[:32] if r is None else r.to_bytes(32, "big"))
        + (sig[32:64] if s is None else s.to_bytes(32, "big"))
        + (sig[64:] if v is None else bytes((v,)))
    )


def test_ewoq_known_answers() -> None:
    pubkey = secp256k1.public_key(EWOQ)
    assert pubkey.hex() == "0327448e78ffa8cdb24cf19be0204ad954b1bdb4db8c51183534c1eecf2ebd094e"
    assert secp256k1.short_address(pubkey).hex() == "3cb7d3842e8cee6a0ebd09f1fe884f6861e1b29c"
    assert secp256k1.eth_address(EWOQ) == bytes.fromhex("8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC")


def test_keys_json_addresses() -> None:
    for key in _load("keys.json")["secp256k1"]:
        private_key = _hex(key["privateKeyHex"])
        pubkey = secp256k1.public_key(private_key)
        assert pubkey == _hex(key["publicKeyCompressed"]), key["label"]
        assert secp256k1.short_address(pubkey) == _hex(key["shortAddressHex"]), key["label"]
        assert secp256k1.eth_address(private_key) == _hex(key["evmAddress"]), key["label"]


def test_every_tx_vector_signature_recovers_a_signing_key_and_re_signs_identically() -> None:
    keys = _private_keys_by_name()
    checked = 0
    for vector in _load("tx-vectors.json"):
        unsigned, signed = _hex(vector["unsignedTxHex"]), _hex(vector["signedTxHex"])
        digest = sha256(unsigned)
        assert digest == _hex(vector["unsignedTxSha256"])
        signers = [keys[name] for name in vector["signingKeys"]]
        addresses = {secp256k1.short_address(secp256k1.public_key(k)): k for k in signers}
        for sig in _credential_signatures(signed, unsigned):
            signer = addresses[secp256k1.recover_address(digest, sig)]
            # RFC 6979 is deterministic, so libsecp256k1 reproduces @noble/secp256k1's bytes.
            assert secp256k1.sign_hash(signer, digest) == sig, vector["name"]
            checked += 1
    assert checked == 17  # the count the vectors' README states


def test_c_chain_export_credential_recovers_the_evm_input_address() -> None:
    vector = next(v for v in _load("tx-vectors.json") if v["name"].startswith("C.ExportTx"))
    unsigned = _hex(vector["unsignedTxHex"])
    (sig,) = _credential_signatures(_hex(vector["signedTxHex"]), unsigned)
    evm_address = _hex(vector["details"]["evmInputs"][0]["address"])
    assert secp256k1.recover_eth_address(sha256(unsigned), sig) == evm_address


def test_negative_vectors_high_s_rejected_and_wrong_key_recovers_someone_else() -> None:
    ewoq_address = secp256k1.short_address(secp256k1.public_key(EWOQ))
    variants = {"high_s_signature": 0, "wrong_key": 0}
    for vector in _load("negative-vectors.json"):
        if vector["variant"] not in variants:
            continue
        unsigned = _hex(vector["unsignedTxHex"])
        digest = sha256(unsigned)
        for sig in _credential_signatures(_hex(vector["signedTxHex"]), unsigned):
            if vector["variant"] == "high_s_signature":
                with pytest.raises(CryptoError, match=ERR_MUTATED_SIG):
                    secp256k1.recover_address(digest, sig)
                # Its low-S twin is the valid ewoq signature.
                s = int.from_bytes(sig[32:64], "big")
                twin = _with(sig, s=CURVE_ORDER - s, v=sig[64] ^ 1)
                assert secp256k1.recover_address(digest, twin) == ewoq_address
            else:
                assert secp256k1.recover_address(digest, sig) != ewoq_address
            variants[vector["variant"]] += 1
    assert variants == {"high_s_signature": 2, "wrong_key": 2}


@settings(max_examples=50, deadline=None)
@given(
    private_key=st.integers(min_value=1, max_value=CURVE_ORDER - 1),
    digest=st.binary(min_size=32, max_size=32),
)
def test_sign_recover_roundtrip_is_low_s(private_key: int, digest: bytes) -> None:
    key = private_key.to_bytes(32, "big")
    sig = secp256k1.sign_hash(key, digest)
    assert len(sig) == 65 and sig[64] in (0, 1)
    assert int.from_bytes(sig[32:64], "big") <= CURVE_ORDER // 2
    assert secp256k1.recover_public_key(digest, sig) == secp256k1.public_key(key)
    assert secp256k1.recover_address(digest, sig) == secp256k1.short_address(
        secp256k1.public_key(key)
    )
    assert secp256k1.recover_eth_address(digest, sig) == secp256k1.eth_address(key)


def test_recover_accepts_bytes_like_inputs() -> None:
    sig = secp256k1.sign_hash(EWOQ, DIGEST)
    expected = secp256k1.recover_address(DIGEST, sig)
    assert secp256k1.recover_address(bytearray(DIGEST), memoryview(sig)) == expected


def test_half_order_boundary() -> None:
    # s = floor(n/2) is the largest accepted value (r is a real R's x, so it still recovers);
    # one more is "mutated".
    sig = secp256k1.sign_hash(EWOQ, DIGEST)
    assert len(secp256k1.recover_public_key(DIGEST, _with(sig, s=CURVE_ORDER // 2))) == 33
    with pytest.raises(CryptoError, match=ERR_MUTATED_SIG):
        secp256k1.recover_address(DIGEST, _with(sig, s=CURVE_ORDER // 2 + 1))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda sig: sig[:64], ERR_INVALID_SIG_LEN),
        (lambda sig: sig + b"\x00", ERR_INVALID_SIG_LEN),
        (lambda sig: _with(sig, s=CURVE_ORDER - 1), ERR_MUTATED_SIG),
        # s >= n passes AvalancheGo's mod-n half-order check, then fails recovery.
        (lambda sig: _with(sig, s=CURVE_ORDER + 1), ERR_INVALID_SIG),
        (lambda sig: _with(sig, r=0), ERR_INVALID_SIG),
        (lambda sig: _with(sig, s=0), ERR_INVALID_SIG),
        (lambda sig: _with(sig, r=CURVE_ORDER), ERR_INVALID_SIG),
        # v = 2/3 need r + n < p, which real signatures never satisfy.
        (lambda sig: _with(sig, v=sig[64] | 2), ERR_INVALID_SIG),
        (lambda sig: _with(sig, v=sig[64] | 4), ERR_COMPRESSED),
        (lambda sig: _with(sig, v=8), ERR_INVALID_SIG),
        (lambda sig: _with(sig, v=27), ERR_INVALID_SIG),
        (lambda sig: _with(sig, v=255), ERR_INVALID_SIG),
    ],
)
def test_recover_rejects_malformed_signatures(mutate, message: str) -> None:
    sig = mutate(secp256k1.sign_hash(EWOQ, DIGEST))
    with pytest.raises(CryptoError) as excinfo:
        secp256k1.recover_public_key(DIGEST, sig)
    assert str(excinfo.value) == message


def test_recover_rejects_bad_digest() -> None:
    sig = secp256k1.sign_hash(EWOQ, DIGEST)
    with pytest.raises(CryptoError):
        secp256k1.recover_address(DIGEST[:31], sig)
    with pytest.raises(CryptoError):
        secp256k1.recover_address(DIGEST.hex(), sig)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "private_key",
    [b"\x00" * 32, CURVE_ORDER.to_bytes(32, "big"), b"\xff" * 32, EWOQ[:31], EWOQ + b"\x00"],
)
def test_invalid_private_keys(private_key: bytes) -> None:
    with pytest.raises(CryptoError):
        secp256k1.public_key(private_key)
    with pytest.raises(CryptoError):
        secp256k1.sign_hash(private_key, DIGEST)
    with pytest.raises(CryptoError):
        secp256k1.eth_address(private_key)


def test_sign_rejects_bad_digest() -> None:
    with pytest.raises(CryptoError):
        secp256k1.sign_hash(EWOQ, b"\x00" * 31)


def test_short_address_rejects_non_compressed_keys() -> None:
    compressed = secp256k1.public_key(EWOQ)
    with pytest.raises(CryptoError):
        secp256k1.short_address(compressed[1:])
    with pytest.raises(CryptoError):
        secp256k1.short_address(b"\x04" + compressed[1:])


def test_eth_address_from_either_public_key_form() -> None:
    from coincurve import PublicKey

    compressed = secp256k1.public_key(EWOQ)
    uncompressed = PublicKey(compressed).format(compressed=False)
    assert secp256k1.eth_address_from_public_key(compressed) == secp256k1.eth_address(EWOQ)
    assert secp256k1.eth_address_from_public_key(uncompressed) == secp256k1.eth_address(EWOQ)
    with pytest.raises(CryptoError):
        secp256k1.eth_address_from_public_key(b"\x02" + b"\xff" * 32)  # x >= p: not a point
    with pytest.raises(CryptoError):
        secp256k1.eth_address_from_public_key(uncompressed[1:])
