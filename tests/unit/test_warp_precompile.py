"""The Warp precompile's pure parts: predicate chunks, block results, config, PredicateGas and
predicate verification (which validator set checks a message, quorum, tampering)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simnode.codec import CodecError
from simnode.crypto import bls
from simnode.vms.evm import predicates
from simnode.vms.evm.headers import EMPTY_PREDICATE_RESULTS
from simnode.vms.evm.precompiles import warp
from simnode.vms.evm.precompiles.contract import ConfigError, PrecompileError
from simnode.warp import signatures
from simnode.warp.message import BitSetSignature, SignedMessage, UnsignedMessage
from simnode.warp.payload import AddressedCall
from simnode.warp.validators import WarpSet, canonical_set

NETWORK = 12345
PRIMARY = bytes(32)
L1 = b"\x11" * 32
C_CHAIN = b"\x0c" * 32
L1_CHAIN = b"\x1c" * 32
KEYS = {name: [bls.secret_key_from_seed(f"{name}-{i}".encode().ljust(32, b".")) for i in range(4)]
        for name in ("primary", "l1")}


@dataclass
class Validators:
    """A P-Chain with a Primary Network set and one L1 set, equal weights."""

    def subnet_of_chain(self, chain_id: bytes) -> bytes | None:
        return {bytes(32): PRIMARY, C_CHAIN: PRIMARY, L1_CHAIN: L1}.get(chain_id)

    def warp_set(self, subnet_id: bytes, height: int) -> WarpSet:
        keys = KEYS["primary" if subnet_id == PRIMARY else "l1"]
        return canonical_set((bytes([i]) * 20, 10, bls.public_key(k)) for i, k in enumerate(keys))

    def height(self) -> int:
        return 1


def _signed(source: bytes, signer_set: str, count: int) -> SignedMessage:
    unsigned = UnsignedMessage(NETWORK, source, AddressedCall(b"\x01" * 20, b"hi").encode())
    warp_set = Validators().warp_set(PRIMARY if signer_set == "primary" else L1, 1)
    by_key = {bls.public_key(k): k for k in KEYS[signer_set]}
    chosen = {i: by_key[v.public_key] for i, v in enumerate(warp_set.validators) if i < count}
    return signatures.sign_aggregate(chosen, unsigned)[1]


@given(st.binary(max_size=300))
def test_predicate_chunks_round_trip(data: bytes):
    chunks = predicates.encode(data)
    assert all(len(c) == 32 for c in chunks) and len(chunks) == len(data) // 32 + 1
    assert predicates.decode(chunks) == data


@pytest.mark.parametrize("chunks, reason", [
    ((b"\x00" * 32,), "no delimiter found"),
    ((b"\xab" + b"\xff" + b"\x00" * 30, b"\x00" * 32), "excess padding"),
    ((b"\xab" * 32,), "wrong delimiter"),
])
def test_bad_predicates(chunks, reason):
    with pytest.raises(predicates.PredicateError, match=reason):
        predicates.decode(chunks)


def test_block_results_encoding():
    assert predicates.encode_results({}) == EMPTY_PREDICATE_RESULTS
    results = {b"\x02" * 32: {warp.ADDRESS: b""}, b"\x01" * 32: {warp.ADDRESS: predicates.bits_bytes([0, 9])}}
    encoded = predicates.encode_results(results)
    # codec version, 2 txs in hash order, each: hash, 1 address, the address, the bitset's length and bytes
    assert encoded == (b"\x00\x00" + b"\x00\x00\x00\x02" + b"\x01" * 32 + b"\x00\x00\x00\x01" + warp.ADDRESS
                       + b"\x00\x00\x00\x02\x02\x01" + b"\x02" * 32 + b"\x00\x00\x00\x01" + warp.ADDRESS
                       + b"\x00\x00\x00\x00")
    assert predicates.parse_results(encoded) == results
    with pytest.raises(CodecError):
        predicates.parse_results(encoded + b"\x00")


def test_config():
    assert warp.MODULE.parse({"blockTimestamp": 0}) == warp.Settings(0, False)
    assert warp.MODULE.parse({"quorumNumerator": 67, "requirePrimaryNetworkSigners": True}).quorum == 67
    assert warp.Settings(0, False).quorum == 67
    with pytest.raises(ConfigError, match=r"cannot specify numerator \(101\) > denominator \(100\)"):
        warp.MODULE.parse({"quorumNumerator": 101})
    with pytest.raises(ConfigError, match=r"cannot specify numerator \(20\) < min numerator \(33\)"):
        warp.MODULE.parse({"quorumNumerator": 20})


def test_predicate_gas():
    signed = _signed(C_CHAIN, "primary", 3)
    chunks = predicates.encode(signed.encoded)
    assert warp.predicate_gas(chunks) == 125_000 + 512 * len(chunks) + 250 * 3
    with pytest.raises(PrecompileError, match="cannot unpack warp message"):
        warp.predicate_gas(predicates.encode(b"\x00\x00junk"))


def _verify(signed: SignedMessage, receiver_subnet: bytes, require_primary: bool = False,
            quorum: int = 0) -> str | None:
    identity = warp.Identity(NETWORK, L1_CHAIN if receiver_subnet == L1 else C_CHAIN, receiver_subnet)
    return warp.verify_predicate(warp.Settings(quorum, require_primary), predicates.encode(signed.encoded), identity,
                                 Validators())


def test_which_set_verifies_a_predicate():
    # a C-Chain message on the C-Chain: the Primary Network, 3 of 4 = 75% >= 67%
    assert _verify(_signed(C_CHAIN, "primary", 3), PRIMARY) is None
    # 2 of 4 = 50%: insufficient weight
    assert "insufficient" in _verify(_signed(C_CHAIN, "primary", 2), PRIMARY)
    assert _verify(_signed(C_CHAIN, "primary", 2), PRIMARY, quorum=50) is None
    # a C-Chain message received on the L1: the L1's own set, unless requirePrimaryNetworkSigners
    assert _verify(_signed(C_CHAIN, "l1", 3), L1) is None
    assert _verify(_signed(C_CHAIN, "primary", 3), L1) is not None  # signers from the wrong subnet
    assert _verify(_signed(C_CHAIN, "primary", 3), L1, require_primary=True) is None
    assert _verify(_signed(C_CHAIN, "l1", 3), L1, require_primary=True) is not None
    # a P-Chain message: always the receiver's own set
    assert _verify(_signed(bytes(32), "l1", 3), L1, require_primary=True) is None
    # an L1 message on the C-Chain: the L1's set
    assert _verify(_signed(L1_CHAIN, "l1", 3), PRIMARY) is None
    assert _verify(_signed(L1_CHAIN, "primary", 3), PRIMARY) is not None
    # a message from a chain the P-Chain does not know
    assert "cannot retrieve validator set" in _verify(_signed(b"\x99" * 32, "primary", 3), PRIMARY)


def test_tampered_signature_fails():
    signed = _signed(C_CHAIN, "primary", 4)
    sig = bytearray(signed.signature.signature)
    sig[10] ^= 0x40
    tampered = SignedMessage(signed.unsigned, BitSetSignature(signed.signature.signers, bytes(sig)))
    assert _verify(tampered, PRIMARY).startswith("cannot verify warp signature")
    other = UnsignedMessage(NETWORK, C_CHAIN, AddressedCall(b"\x01" * 20, b"ho").encode())
    assert _verify(SignedMessage(other, signed.signature), PRIMARY) == \
        "cannot verify warp signature: signature is invalid"
