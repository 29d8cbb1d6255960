from Crypto.Hash import RIPEMD160

from simnode.crypto import keccak256, ripemd160, sha256


def test_sha256_known_answer() -> None:
    expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert sha256(b"abc").hex() == expected


def test_keccak256_is_ethereum_keccak_not_sha3() -> None:
    expected = "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
    assert keccak256(b"").hex() == expected


def test_ripemd160_known_answer_and_matches_pycryptodome() -> None:
    assert ripemd160(b"").hex() == "9c1185a5c5e9fc54612808977ee8f548b2258d31"
    for data in (b"a", b"abc", bytes(range(256))):
        assert ripemd160(data) == RIPEMD160.new(data).digest()
