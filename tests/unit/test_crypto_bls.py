import json
from pathlib import Path

import py_ecc.optimized_bls12_381 as curve
import pytest
from py_ecc.bls import G2ProofOfPossession as oracle
from py_ecc.bls.point_compression import decompress_G1, modular_squareroot_in_FQ2

from simnode.crypto import CryptoError, bls, sha256

VECTORS = Path(__file__).resolve().parent.parent / "vectors"

P = curve.field_modulus
MSG = b"simnode warp message"
G1_IDENTITY = b"\xc0" + b"\x00" * 47
G2_IDENTITY = b"\xc0" + b"\x00" * 95


def _hex(value: str) -> bytes:
    return bytes.fromhex(value.removeprefix("0x"))


def _vector_secret_key(i: int) -> bls.SecretKey:
    """keys.json's B<i>: int(sha256("simnode-vector-bls-<i>")) mod r."""
    scalar = int.from_bytes(sha256(f"simnode-vector-bls-{i}".encode()), "big") % bls.CURVE_ORDER
    return bls.secret_key_from_bytes(scalar.to_bytes(32, "big"))


def _negate_public_key(pk48: bytes) -> bytes:
    # Flipping the compressed sign flag gives (x, -y).
    return bytes((pk48[0] ^ 0x20,)) + pk48[1:]


def _g1_point_outside_subgroup() -> bytes:
    x = 1
    while pow((x**3 + 4) % P, (P - 1) // 2, P) != 1:
        x += 1
    y = pow((x**3 + 4) % P, (P + 1) // 4, P)
    point = (curve.FQ(x), curve.FQ(y), curve.FQ.one())
    assert not curve.is_inf(curve.multiply(point, curve.curve_order))
    return (x | (0x80 << 376)).to_bytes(48, "big")


def _g2_point_outside_subgroup() -> bytes:
    x_real = 1
    while (y := modular_squareroot_in_FQ2(curve.FQ2([x_real, 0]) ** 3 + curve.b2)) is None:
        x_real += 1
    x = curve.FQ2([x_real, 0])
    assert not curve.is_inf(curve.multiply((x, y, curve.FQ2.one()), curve.curve_order))
    # Compressed G2 = flags | x.imaginary ‖ x.real.
    return (0x80 << 376).to_bytes(48, "big") + x_real.to_bytes(48, "big")


@pytest.fixture(scope="module")
def keys() -> list[bls.SecretKey]:
    return [bls.secret_key_from_seed(sha256(f"test-key-{i}".encode())) for i in range(3)]


def test_vector_keys_reproduce_public_keys_and_proofs_of_possession() -> None:
    by_label = {k["label"]: k for k in json.loads((VECTORS / "keys.json").read_text())["bls"]}
    tx_vectors = {v["name"]: v for v in json.loads((VECTORS / "tx-vectors.json").read_text())}
    in_txs = {
        "B0": tx_vectors["P.AddPermissionlessValidatorTx.primary_bls"]["details"]["signer"],
        "B1": tx_vectors["P.ConvertSubnetToL1Tx.one_validator"]["details"]["validators"][0],
    }
    for i, label in enumerate(("B0", "B1")):
        sk = _vector_secret_key(i)
        assert sk.to_bytes() == _hex(by_label[label]["secretKeyHex"])
        pk, pop = bls.public_key(sk), bls.prove_possession(sk)
        assert pk == _hex(by_label[label]["publicKey"]) == _hex(in_txs[label]["blsPublicKey"])
        assert pop == _hex(by_label[label]["proofOfPossession"])
        assert pop == _hex(in_txs[label]["proofOfPossession"])
        assert bls.verify_possession(pk, pop)
        assert bls.is_valid_public_key(pk)


def test_tampered_or_foreign_proof_of_possession_fails() -> None:
    sk0, sk1 = _vector_secret_key(0), _vector_secret_key(1)
    pk0, pop0 = bls.public_key(sk0), bls.prove_possession(sk0)
    # One flipped bit: either undecodable or a different point, never a valid PoP.
    assert not bls.verify_possession(pk0, pop0[:-1] + bytes((pop0[-1] ^ 1,)))
    assert not bls.verify_possession(pk0, bls.prove_possession(sk1))
    assert not bls.verify_possession(bls.public_key(sk1), pop0)
    # A PoP is not a message signature of the same bytes: the DSTs differ.
    assert not bls.verify_possession(pk0, bls.sign(sk0, pk0))
    assert not bls.verify(pk0, pop0, pk0)


def test_matches_py_ecc_oracle(keys: list[bls.SecretKey]) -> None:
    # py_ecc is ~0.1-0.5 s per operation, so only a handful of oracle calls.
    for sk in (keys[0], _vector_secret_key(0)):
        assert bls.public_key(sk) == oracle.SkToPk(sk.scalar)
        assert bls.sign(sk, MSG) == oracle.Sign(sk.scalar, MSG)
        assert bls.prove_possession(sk) == oracle.PopProve(sk.scalar)
    signatures = [bls.sign(sk, MSG) for sk in keys]
    aggregate = bls.aggregate_signatures(signatures)
    assert aggregate == oracle.Aggregate(signatures)
    assert oracle.FastAggregateVerify([bls.public_key(sk) for sk in keys], MSG, aggregate)


def test_secret_key_from_seed_is_ietf_keygen() -> None:
    for seed in (b"\x00" * 32, sha256(b"node-1"), bytes(range(64))):
        assert bls.secret_key_from_seed(seed).scalar == oracle.KeyGen(seed)


def test_public_key_to_uncompressed_matches_py_ecc(keys: list[bls.SecretKey]) -> None:
    for sk in keys:
        pk = bls.public_key(sk)
        x, y = curve.normalize(decompress_G1(int.from_bytes(pk, "big")))
        expected = x.n.to_bytes(48, "big") + y.n.to_bytes(48, "big")
        assert bls.public_key_to_uncompressed(pk) == expected
    with pytest.raises(CryptoError):
        bls.public_key_to_uncompressed(G1_IDENTITY)


def test_sign_verify(keys: list[bls.SecretKey]) -> None:
    sk, other = keys[0], keys[1]
    pk, sig = bls.public_key(sk), bls.sign(sk, MSG)
    assert len(pk) == 48 and len(sig) == 96
    assert bls.verify(pk, sig, MSG)
    assert bls.verify(bytearray(pk), memoryview(sig), bytearray(MSG))
    assert not bls.verify(pk, sig, MSG + b"!")
    assert not bls.verify(bls.public_key(other), sig, MSG)
    assert bls.verify(pk, bls.sign(sk, b""), b"")


def test_fast_aggregate_verify(keys: list[bls.SecretKey]) -> None:
    pks = [bls.public_key(sk) for sk in keys]
    aggregate = bls.aggregate_signatures([bls.sign(sk, MSG) for sk in keys])
    assert bls.fast_aggregate_verify(pks, aggregate, MSG)
    assert bls.fast_aggregate_verify(list(reversed(pks)), aggregate, MSG)
    assert bls.verify(bls.aggregate_public_keys(pks), aggregate, MSG)
    assert not bls.fast_aggregate_verify(pks[:2], aggregate, MSG)
    assert not bls.fast_aggregate_verify([*pks, pks[0]], aggregate, MSG)
    assert not bls.fast_aggregate_verify(pks, aggregate, b"other")
    assert not bls.fast_aggregate_verify([], aggregate, MSG)
    assert not bls.fast_aggregate_verify([*pks, G1_IDENTITY], aggregate, MSG)
    # pk + (-pk) aggregates to the identity, which blst refuses whatever the signature.
    assert not bls.fast_aggregate_verify([pks[0], _negate_public_key(pks[0])], G2_IDENTITY, MSG)


def test_aggregate_rejects_empty_and_invalid_inputs(keys: list[bls.SecretKey]) -> None:
    pk, sig = bls.public_key(keys[0]), bls.sign(keys[0], MSG)
    with pytest.raises(CryptoError):
        bls.aggregate_public_keys([])
    with pytest.raises(CryptoError):
        bls.aggregate_signatures([])
    for bad_pk in (G1_IDENTITY, pk[:47], _g1_point_outside_subgroup()):
        with pytest.raises(CryptoError):
            bls.aggregate_public_keys([pk, bad_pk])
    for bad_sig in (sig[:95], _g2_point_outside_subgroup()):
        with pytest.raises(CryptoError):
            bls.aggregate_signatures([sig, bad_sig])
    assert bls.aggregate_public_keys([pk]) == pk
    assert bls.aggregate_signatures([sig, G2_IDENTITY]) == sig


def test_public_key_validity(keys: list[bls.SecretKey]) -> None:
    pk = bls.public_key(keys[0])
    assert bls.is_valid_public_key(pk)
    assert not bls.is_valid_public_key(G1_IDENTITY)
    assert not bls.is_valid_public_key(_g1_point_outside_subgroup())
    assert not bls.is_valid_public_key(pk[:47])
    assert not bls.is_valid_public_key(pk + b"\x00")
    assert not bls.is_valid_public_key(bytes((pk[0] & 0x7F,)) + pk[1:])  # compression flag cleared
    assert not bls.is_valid_public_key(b"\x9f" + b"\xff" * 47)  # x >= p
    with pytest.raises(CryptoError):
        bls.is_valid_public_key(pk.hex())  # type: ignore[arg-type]


def test_verify_returns_false_on_bad_encodings(keys: list[bls.SecretKey]) -> None:
    pk, sig = bls.public_key(keys[0]), bls.sign(keys[0], MSG)
    assert not bls.verify(G1_IDENTITY, G2_IDENTITY, MSG)
    assert not bls.verify(pk, G2_IDENTITY, MSG)
    assert not bls.verify(pk, sig[:95], MSG)
    assert not bls.verify(pk, _g2_point_outside_subgroup(), MSG)
    assert not bls.verify(_g1_point_outside_subgroup(), sig, MSG)
    assert not bls.verify_possession(pk[:47], sig)
    with pytest.raises(CryptoError):
        bls.verify(pk, sig, MSG.decode())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "raw",
    [
        b"\x00" * 32,
        bls.CURVE_ORDER.to_bytes(32, "big"),
        (bls.CURVE_ORDER + 1).to_bytes(32, "big"),
        b"\x01" * 31,
    ],
)
def test_secret_key_from_bytes_rejects_out_of_range(raw: bytes) -> None:
    with pytest.raises(CryptoError):
        bls.secret_key_from_bytes(raw)


def test_secret_key_roundtrip_seed_rules_and_hidden_repr() -> None:
    sk = bls.secret_key_from_seed(b"\x07" * 32)
    assert bls.secret_key_from_bytes(sk.to_bytes()) == sk
    assert bls.secret_key_from_seed(b"\x07" * 32) == sk
    assert str(sk.scalar) not in repr(sk)
    with pytest.raises(CryptoError):
        bls.secret_key_from_seed(b"short seed")
