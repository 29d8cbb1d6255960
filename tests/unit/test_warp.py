"""The Warp library: known answers (real Fuji messages), round trips of every message type,
canonical validator sets, bitsets, quorum, and signatures checked by py_ecc (the oracle)."""

from __future__ import annotations

import json
from pathlib import Path

import py_ecc.optimized_bls12_381 as curve
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from py_ecc.bls import G2ProofOfPossession as oracle
from py_ecc.bls.point_compression import decompress_G1

from simnode.codec import CodecError, VerifyError
from simnode.crypto import bls, sha256
from simnode.formats import id_to_str
from simnode.warp import acp77, signatures
from simnode.warp.errors import WarpError
from simnode.warp.justification import SubnetIDIndex, decode_justification, encode_justification
from simnode.warp.keystore import Keystore, derived_secret_key
from simnode.warp.message import (
    BitSetSignature,
    SignedMessage,
    UnsignedMessage,
    parse_signed_message,
    parse_unsigned_message,
)
from simnode.warp.payload import AddressedCall, Hash, parse_addressed_call, parse_hash, parse_payload
from simnode.warp.validators import (
    bitset_bytes,
    bitset_indices,
    canonical_set,
    meets_quorum,
    verify_weight,
)

VECTORS = Path(__file__).resolve().parent.parent / "vectors"
MAX_U64 = (1 << 64) - 1

# Real signed Fuji messages consumed by P-Chain txs, as avalanchejs' examples quote them
# (examples/p-chain/etna/…: RegisterL1Validator of tx qKx5qy1zriGsWGhnRfHibE9kuDSUMfQV7gPQVCQ8iBKT5ZriV,
# L1ValidatorWeight of tx zphUhqvXtj8dkYxg2BqCdTPDUPWBJUQkb1XTp38u8zDZ9VjMW).
FUJI_REGISTER = (
    "0000000000057f78fe8ca06cefa186ef29c15231e45e1056cd8319ceca0695ca61099e610355000000d80000000000010000001433b9"
    "785e20ec582d5009965fb3346f1716e8a423000000b60000000000015e8b6e2e8155e93739f2fa6a7f8a32c6bb2e1dce2e471b56dcc6"
    "0aac49bf34350000001447b37278e32917ffc6d2861b50dd9751b4016dd1b0d305fd70c376b0f5d4e6b9184728dcacb7390f47701569"
    "0133a5632affab5701e9ebe61038d2e41373de53f4569fd60000000067d1ac310000000100000001380c1fb1db38f176b50e77eca240"
    "258e31a5b5e80000000100000001380c1fb1db38f176b50e77eca240258e31a5b5e80000000000004e200000000000000003c4411899"
    "be0450aee4dcc1be90a8802bdbd12821a5025a74cb094ff0033982e7f3951d6c4b882a6ce39bd2aa835b31accd09c60f26bc75308af4"
    "e05c4237df9b72b04c2697c5a0a7fb0f05f7b09358743a4a2df8cd4eda61f0dea0312a7014baa8a5c1")
FUJI_WEIGHT = (
    "0000000000056b804f574b890cf9e0cb0f0f68591a394bba1696cf62b4e576e793d8509cc88600000058000000000001000000140fee"
    "dc0de0000000000000000000000000000000000000360000000000038ccf9ef520784d2fa5d97fbf098b8b4e82ff19408ec423c2970a"
    "522ab04b3a0400000000000000040000000000000029000000000000000106a8206d76cf3fa7d65fec8464b0311dce9283d05bcf0ca7"
    "987cdf03a3a2f764691e01df4f6aaa3ff6b52e5b92fd3291e519f3fb50bad5d9697a39e34e2c3e99ea585f0332e9d13b4b6db7ecc58e"
    "ee44c7f96e64371b1eebaa6f7c45bbf0937e68")


def _hex(value: str) -> bytes:
    return bytes.fromhex(value.removeprefix("0x"))


def _key(i: int) -> bls.SecretKey:
    return bls.secret_key_from_seed(sha256(f"warp-test-key-{i}".encode()))


def _node(i: int) -> bytes:
    return sha256(f"warp-test-node-{i}".encode())[:20]


# ------------------------------------------------------------------------------ known answers


def test_fuji_teleporter_message_vector() -> None:
    (v,) = json.loads((VECTORS / "warp-vectors.json").read_text())
    raw = _hex(v["signedMessageHex"])
    msg = parse_signed_message(raw)
    assert msg.encoded == raw
    assert msg.unsigned.encoded == _hex(v["unsignedMessageHex"]) == parse_unsigned_message(msg.unsigned.encoded).encoded
    assert raw.startswith(msg.unsigned.encoded)
    p = v["parsed"]
    assert msg.unsigned.network_id == p["networkID"] == 5
    assert id_to_str(msg.unsigned.source_chain_id) == p["sourceChainID"]
    assert msg.unsigned.id.hex() == v["messageIDHex"][2:]
    assert id_to_str(msg.unsigned.id) == v["messageID"]
    call = parse_addressed_call(msg.unsigned.payload)
    assert call.source_address.hex() == p["payload"]["sourceAddress"][2:]
    assert call.payload == _hex(p["payload"]["innerPayloadHex"])
    assert call.encode() == msg.unsigned.payload
    sig = msg.signature
    assert sig.signers == _hex(p["signature"]["signersHex"])
    assert bitset_indices(sig.signer_bits(), 2) == p["signature"]["signerIndices"]
    assert sig.num_signers() == p["signature"]["numSigners"]
    assert sig.signature == _hex(p["signature"]["aggregateSignatureHex"])
    # The Fuji validator set is not available offline, so the aggregate is checked as far as it can
    # be: a valid G2 point in the subgroup, as bls.SignatureFromBytes requires.
    assert bls.signature_error(sig.signature) is None


def test_fuji_register_l1_validator_message() -> None:
    raw = _hex(FUJI_REGISTER)
    msg = parse_signed_message(raw)
    assert msg.encoded == raw and msg.unsigned.network_id == 5
    call = parse_addressed_call(msg.unsigned.payload)
    assert call.source_address.hex() == "33b9785e20ec582d5009965fb3346f1716e8a423"  # the validator manager
    reg = acp77.parse_register_l1_validator(call.payload)
    assert reg.encode() == call.payload
    assert reg.node_id.hex() == "47b37278e32917ffc6d2861b50dd9751b4016dd1"
    assert reg.expiry == 0x67D1AC31 and reg.weight == 20_000
    assert reg.remaining_balance_owner == reg.disable_owner == acp77.PChainOwner(
        1, (bytes.fromhex("380c1fb1db38f176b50e77eca240258e31a5b5e8"),))
    assert bls.is_valid_public_key(reg.bls_public_key)
    reg.verify()
    assert reg.validation_id == sha256(call.payload)
    assert msg.signature.signers == bytes.fromhex("c44118") and msg.signature.num_signers() == 7
    assert bls.signature_error(msg.signature.signature) is None


def test_fuji_l1_validator_weight_message() -> None:
    raw = _hex(FUJI_WEIGHT)
    msg = parse_signed_message(raw)
    assert msg.encoded == raw
    call = parse_addressed_call(msg.unsigned.payload)
    assert call.source_address == bytes.fromhex("0feedc0de0") + bytes(15)
    weight = acp77.parse_l1_validator_weight(call.payload)
    # avalanchejs' example rebuilds it from these values
    assert (id_to_str(weight.validation_id), weight.nonce, weight.weight) == (
        "251q44yFiimeVSHaQbBk69TzoeYqKu9VagGtLVqo92LphUxjmR", 4, 41)
    assert weight.encode() == call.payload
    assert bitset_indices(msg.signature.signer_bits(), 3) == [1, 2]


def test_acp77_layouts() -> None:
    vid = bytes(range(32))
    assert acp77.SubnetToL1Conversion(vid).encode() == b"\0\0" + b"\0\0\0\0" + vid
    assert acp77.L1ValidatorRegistration(vid, True).encode() == b"\0\0" + b"\0\0\0\2" + vid + b"\1"
    assert acp77.L1ValidatorWeight(vid, 3, 7).encode() == (
        b"\0\0\0\0\0\3" + vid + (3).to_bytes(8, "big") + (7).to_bytes(8, "big"))
    assert acp77.ValidatorUptime(vid, 9).encode() == b"\0\0\0\0\0\0" + vid + (9).to_bytes(8, "big")
    assert Hash(vid).encode() == b"\0\0\0\0\0\0" + vid
    assert len(AddressedCall(b"", acp77.L1ValidatorRegistration(vid, False).encode()).encode()) == 14 + 39
    assert acp77.subnet_validation_id(vid, 1) == sha256(vid + b"\0\0\0\1")


def test_justification_known_encoding() -> None:
    """Go's proto.Marshal of L1ValidatorRegistrationJustification (field 1 = SubnetIDIndex)."""
    subnet = bytes(range(32))
    assert encode_justification(SubnetIDIndex(subnet, 1)) == bytes([0x0A, 0x24, 0x0A, 0x20]) + subnet + b"\x10\x01"
    assert encode_justification(SubnetIDIndex(subnet, 0)) == bytes([0x0A, 0x22, 0x0A, 0x20]) + subnet
    assert encode_justification(b"\x01\x02") == b"\x12\x02\x01\x02"
    assert decode_justification(b"") is None
    assert decode_justification(b"\x18\x05" + b"\x12\x00") == b""  # unknown field skipped, empty bytes set
    for bad in (b"\x0a", b"\x0a\x05\x00", b"\x08\x01", b"\x0f"):
        with pytest.raises(WarpError, match="invalid wire-format"):
            decode_justification(bad)


# ------------------------------------------------------------------------------ round trips

ids32 = st.binary(min_size=32, max_size=32)
u32 = st.integers(0, 2**32 - 1)
u64 = st.integers(0, MAX_U64)
owners = st.builds(acp77.PChainOwner, u32, st.lists(st.binary(min_size=20, max_size=20), max_size=3).map(tuple))
pchain_messages = st.one_of(
    st.builds(acp77.SubnetToL1Conversion, ids32),
    st.builds(acp77.RegisterL1Validator, ids32, st.binary(max_size=24), st.binary(min_size=48, max_size=48),
              u64, owners, owners, u64),
    st.builds(acp77.L1ValidatorRegistration, ids32, st.booleans()),
    st.builds(acp77.L1ValidatorWeight, ids32, u64, u64),
)


@given(u32, ids32, st.binary(max_size=300), st.binary(max_size=6), st.binary(min_size=96, max_size=96))
def test_message_round_trips(network_id, chain, payload, signers, signature) -> None:
    unsigned = UnsignedMessage(network_id, chain, payload)
    assert len(unsigned.encoded) == 42 + len(payload)
    assert parse_unsigned_message(unsigned.encoded) == unsigned
    assert unsigned.id == sha256(unsigned.encoded)
    signed = SignedMessage(unsigned, BitSetSignature(signers, signature))
    again = parse_signed_message(signed.encoded)
    assert again == signed and again.encoded == signed.encoded
    with pytest.raises(CodecError):
        parse_signed_message(signed.encoded + b"\0")
    with pytest.raises(CodecError):
        parse_signed_message(signed.encoded[:-1])


@given(st.one_of(st.builds(Hash, ids32), st.builds(AddressedCall, st.binary(max_size=32), st.binary(max_size=200))))
def test_payload_round_trips(payload) -> None:
    assert parse_payload(payload.encode()) == payload


@given(pchain_messages)
def test_pchain_message_round_trips(msg) -> None:
    data = msg.encode()
    assert acp77.parse_pchain_message(data) == msg
    assert acp77.parse_pchain_message(data).encode() == data


@given(ids32, u64)
def test_validator_uptime_round_trips(vid, uptime) -> None:
    msg = acp77.ValidatorUptime(vid, uptime)
    assert acp77.parse_validator_uptime(msg.encode()) == msg


@given(st.one_of(st.builds(SubnetIDIndex, st.binary(max_size=40), u32), st.binary(max_size=200)))
def test_justification_round_trips(preimage) -> None:
    assert decode_justification(encode_justification(preimage)) == preimage


@given(ids32, ids32, st.binary(max_size=32),
       st.lists(st.builds(acp77.ConversionValidator, st.binary(min_size=20, max_size=20),
                          st.binary(min_size=48, max_size=48), u64), max_size=4).map(tuple))
def test_conversion_data_hashes_its_encoding(subnet, chain, address, validators) -> None:
    data = acp77.SubnetToL1ConversionData(subnet, chain, address, validators)
    encoded = data.encode()
    assert len(encoded) == 2 + 32 + 32 + 4 + len(address) + 4 + sum(4 + 20 + 48 + 8 for _ in validators)
    assert data.conversion_id == sha256(encoded)


def test_wrong_types_and_limits() -> None:
    vid = bytes(32)
    with pytest.raises(CodecError, match=r"wrong payload type: \*payload.Hash"):
        parse_addressed_call(Hash(vid).encode())
    with pytest.raises(CodecError, match=r"wrong payload type: \*payload.AddressedCall"):
        parse_hash(AddressedCall(b"", b"").encode())
    with pytest.raises(CodecError, match=r"wrong payload type: \*message.L1ValidatorWeight"):
        acp77.parse_register_l1_validator(acp77.L1ValidatorWeight(vid, 0, 1).encode())
    with pytest.raises(CodecError, match="unknown type ID 4"):
        acp77.parse_pchain_message(b"\0\0\0\0\0\4" + vid)
    with pytest.raises(CodecError, match="exceeds maximum length"):
        parse_payload(AddressedCall(b"", bytes(24 * 1024)).encode())
    with pytest.raises(CodecError, match="unknown type ID 1"):
        parse_signed_message(UnsignedMessage(1, vid, b"").encoded + b"\0\0\0\1")


def test_register_l1_validator_verify_texts() -> None:
    po = acp77.PChainOwner(1, (b"\1" * 20,))

    def reg(**kw):
        fields = dict(subnet_id=b"\1" * 32, node_id=b"\2" * 20, bls_public_key=bytes(48), expiry=1,
                      remaining_balance_owner=po, disable_owner=po, weight=1)
        return acp77.RegisterL1Validator(**(fields | kw))

    reg().verify()
    cases = [(dict(subnet_id=bytes(32)), "invalid subnet ID"), (dict(weight=0), "invalid weight"),
             (dict(node_id=b"\2" * 19), "invalid node ID: invalid hash length: expected 20 bytes but got 19"),
             (dict(node_id=bytes(20)), "invalid node ID: empty nodeID is disallowed"),
             (dict(disable_owner=acp77.PChainOwner(2, po.addresses)), "invalid owner: output is unspendable")]
    for kw, text in cases:
        with pytest.raises(VerifyError) as err:
            reg(**kw).verify()
        assert str(err.value) == text
    with pytest.raises(VerifyError, match="maxUint64 nonce is reserved for removal"):
        acp77.L1ValidatorWeight(bytes(32), MAX_U64, 1).verify()
    acp77.L1ValidatorWeight(bytes(32), MAX_U64, 0).verify()


# ------------------------------------------------------------------------------ validator sets, bitsets


def test_bitsets() -> None:
    assert bitset_bytes([0, 1]) == b"\x03"
    assert bitset_bytes([8]) == b"\x01\x00"
    assert bitset_bytes([]) == b""
    assert bitset_indices(0x0100, 9) == [8]
    with pytest.raises(WarpError, match=r"unknown validator: NumIndices \(8\) >= NumFilteredValidators \(8\)"):
        bitset_indices(0x0100, 8)
    assert BitSetSignature(b"\x01\x00", bytes(96)).num_signers() == 1
    for padded in (b"\x00\x03", b"\x00"):
        with pytest.raises(WarpError, match="bitset is invalid"):
            BitSetSignature(padded, bytes(96)).num_signers()


@given(st.sets(st.integers(0, 200)))
def test_bitset_round_trip(indices) -> None:
    raw = bitset_bytes(indices)
    assert BitSetSignature(raw, bytes(96)).num_signers() == len(indices)
    assert bitset_indices(int.from_bytes(raw, "big"), 201) == sorted(indices)


def _py_ecc_uncompressed(pk: bytes) -> bytes:
    x, y = curve.normalize(decompress_G1(int.from_bytes(pk, "big")))
    return x.n.to_bytes(48, "big") + y.n.to_bytes(48, "big")


def test_canonical_order_is_by_uncompressed_key() -> None:
    keys = [bls.public_key(_key(i)) for i in range(8)]
    ws = canonical_set((_node(i), 10 + i, pk) for i, pk in enumerate(keys))
    assert [v.public_key for v in ws.validators] == sorted(keys, key=_py_ecc_uncompressed)
    assert [v.uncompressed_key for v in ws.validators] == sorted(_py_ecc_uncompressed(k) for k in keys)
    # the compressed form's flag bits give another order for these keys
    assert [v.public_key for v in ws.validators] != sorted(keys)


def test_duplicate_keys_merge_and_keyless_validators_count() -> None:
    a, b = bls.public_key(_key(1)), bls.public_key(_key(2))
    ws = canonical_set([(_node(3), 5, a), (_node(1), 7, b), (_node(2), 11, a), (_node(4), 100, None)])
    assert ws.total_weight == 123  # the keyless validator counts...
    assert len(ws.validators) == 2  # ...but is not a signer, and the shared key is one entry
    merged = next(v for v in ws.validators if v.public_key == a)
    assert merged.weight == 16
    assert merged.node_ids == tuple(sorted([_node(2), _node(3)]))
    assert ws.index_of(a) == ws.validators.index(merged)
    # 23 of 123 can sign: no quorum is reachable, whoever signs
    assert signatures.heaviest_signers(ws, range(2), 67) is None
    with pytest.raises(WarpError, match="overflow"):
        canonical_set([(_node(1), MAX_U64, a), (_node(2), 1, b)])


def test_quorum_boundary() -> None:
    assert meets_quorum(67, 100, 67, 100) and not meets_quorum(66, 100, 67, 100)
    assert meets_quorum(201, 300, 67, 100) and not meets_quorum(200, 300, 67, 100)  # 201 = ceil(300 * 0.67)
    with pytest.raises(WarpError) as err:
        verify_weight(66, 100, 67, 100)
    assert str(err.value) == "signature weight is insufficient: 67*100 > 100*66"


def test_heaviest_signers_minimal_and_deterministic() -> None:
    keys = [bls.public_key(_key(i)) for i in range(5)]
    ws = canonical_set((_node(i), w, pk) for i, (w, pk) in enumerate(zip([40, 30, 30, 20, 10], keys)))
    weight = {v.public_key: v.weight for v in ws.validators}
    index = {pk: ws.index_of(pk) for pk in keys}
    chosen = signatures.heaviest_signers(ws, range(5), 67)
    # 40 + 30 = 70 of 130 is not 67%; 40 + 30 + 30 = 100 is: the heaviest three, ties in canonical order
    assert sorted(weight[ws.validators[i].public_key] for i in chosen) == [30, 30, 40]
    assert signatures.heaviest_signers(ws, [index[keys[0]], index[keys[3]], index[keys[4]]], 67) is None  # 70 of 130
    assert signatures.heaviest_signers(ws, range(5), 67) == chosen
    assert signatures.heaviest_signers(ws, range(5), 100) == list(range(5))


# ------------------------------------------------------------------------------ signing and verification


def _signed_set(n: int, weights: list[int] | None = None):
    sks = [_key(i) for i in range(n)]
    weights = weights or [10] * n
    ws = canonical_set((_node(i), weights[i], bls.public_key(sk)) for i, sk in enumerate(sks))
    by_pk = {bls.public_key(sk): sk for sk in sks}
    return ws, [by_pk[v.public_key] for v in ws.validators]


def test_signed_messages_verify_under_py_ecc() -> None:
    ws, secrets = _signed_set(4)
    unsigned = UnsignedMessage(12345, b"\7" * 32, AddressedCall(b"\1" * 20, b"hello").encode())
    chosen = signatures.heaviest_signers(ws, range(4), 67)
    assert chosen == [0, 1, 2]
    sigs = dict(zip(chosen, signatures.sign([secrets[i] for i in chosen], unsigned)))
    signed = signatures.aggregate(unsigned, sigs)
    assert signed.signature.signers == b"\x07"
    # signing and summing the points in hand gives the same signatures and bytes
    assert signatures.sign_aggregate({i: secrets[i] for i in chosen}, unsigned) == (sigs, signed)
    signatures.verify(signed, 12345, ws, 67, 100)
    pks = [ws.validators[i].public_key for i in chosen]
    assert oracle.FastAggregateVerify(pks, unsigned.encoded, signed.signature.signature)
    assert oracle.Verify(pks[0], unsigned.encoded, sigs[0])
    assert sigs[0] == oracle.Sign(secrets[0].scalar, unsigned.encoded)


def test_verify_failures_in_avalanchego_order() -> None:
    ws, secrets = _signed_set(3)
    unsigned = UnsignedMessage(12345, b"\7" * 32, b"payload")
    sigs = dict(zip(range(3), signatures.sign(secrets, unsigned)))
    good = signatures.aggregate(unsigned, sigs)
    signatures.verify(good, 12345, ws, 67, 100)

    def fails(msg: SignedMessage, text: str, network: int = 12345) -> None:
        with pytest.raises(WarpError) as err:
            signatures.verify(msg, network, ws, 67, 100)
        assert str(err.value) == text

    fails(good, "wrong networkID", network=1)
    fails(SignedMessage(unsigned, BitSetSignature(b"\x00\x07", good.signature.signature)), "bitset is invalid")
    fails(SignedMessage(unsigned, BitSetSignature(b"\x0f", good.signature.signature)),
          "unknown validator: NumIndices (3) >= NumFilteredValidators (3)")
    fails(signatures.aggregate(unsigned, {0: sigs[0]}), "signature weight is insufficient: 67*30 > 100*10")
    fails(SignedMessage(unsigned, BitSetSignature(b"\x07", b"\xff" * 96)),
          "failed to parse signature: couldn't decompress signature")
    fails(SignedMessage(unsigned, BitSetSignature(b"\x07", sigs[0])), "signature is invalid")
    tampered = UnsignedMessage(12345, b"\7" * 32, b"payloae")
    fails(SignedMessage(tampered, good.signature), "signature is invalid")
    empty = canonical_set([(_node(1), 0, bls.public_key(secrets[0]))])
    with pytest.raises(WarpError, match="no public keys"):
        signatures.verify(SignedMessage(unsigned, BitSetSignature(b"", good.signature.signature)), 12345, empty,
                          67, 100)


def test_keystore_finds_seed_derived_keys_only() -> None:
    store = Keystore(7)
    mine = derived_secret_key(7, _node(1))
    assert store.secret_for(bls.public_key(mine), [_node(2), _node(1)]) == mine
    brought = _key(99)  # a key a user brought: simnode has no secret for it
    assert store.secret_for(bls.public_key(brought), [_node(3)]) is None
    assert store.secret_for(bls.public_key(derived_secret_key(8, _node(1))), [_node(1)]) is None  # other seed
    store.add(brought)
    assert store.secret_for(bls.public_key(brought), []) == brought


@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(1, 1000), min_size=1, max_size=12))
def test_aggregates_verify_for_any_weights(weights) -> None:
    ws, secrets = _signed_set(len(weights), weights)
    unsigned = UnsignedMessage(5, bytes(32), b"")
    chosen = signatures.heaviest_signers(ws, range(len(weights)), 67)
    assert chosen is not None
    signed = signatures.aggregate(unsigned, dict(zip(chosen, signatures.sign([secrets[i] for i in chosen], unsigned))))
    signatures.verify(signed, 5, ws, 67, 100)
    # minimal: dropping the lightest chosen signer loses the quorum
    lightest = min(chosen, key=lambda i: (ws.validators[i].weight, -i))
    rest = sum(ws.validators[i].weight for i in chosen if i != lightest)
    assert not meets_quorum(rest, ws.total_weight, 67, 100)
