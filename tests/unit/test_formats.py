"""simnode.formats: known answers from node-api.md §2/§3, round trips, and every malformed-input error."""

import hashlib

import coincurve
import pytest
from Crypto.Hash import RIPEMD160
from hypothesis import given
from hypothesis import strategies as st

from simnode.formats import (
    AVM_VM_ID,
    EVM_VM_ID,
    NFTFX_ID,
    PLATFORM_VM_ID,
    PROPERTYFX_ID,
    SECP256K1FX_ID,
    SUBNET_EVM_VM_ID,
    ZERO_ID,
    ZERO_SHORT_ID,
    FormatError,
    cb58_decode,
    cb58_encode,
    decode_bytes,
    encode_bytes,
    format_address,
    format_float4,
    format_rfc3339,
    format_rfc3339_nano,
    format_uint,
    hrp_for_network,
    id_from_str,
    id_to_str,
    network_id_from_name,
    network_name,
    node_id_from_str,
    node_id_to_str,
    normalize_encoding,
    parse_address,
    parse_address_arg,
    parse_address_arg_with_alias,
    parse_amount,
    parse_duration,
    parse_uint,
    private_key_from_str,
    private_key_to_str,
    short_id_from_str,
    short_id_to_str,
    utxo_id,
    vm_id_from_name,
)
from simnode.formats.bech32 import bech32_decode, bech32_encode

EWOQ_KEY_STR = "PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN"
EWOQ_KEY = bytes.fromhex("56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
EWOQ_PUBKEY = bytes.fromhex("0327448e78ffa8cdb24cf19be0204ad954b1bdb4db8c51183534c1eecf2ebd094e")
EWOQ_SHORT = bytes.fromhex("3cb7d3842e8cee6a0ebd09f1fe884f6861e1b29c")
EWOQ_X_LOCAL = "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
LOCAL_AVAX = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"

ids32 = st.binary(min_size=32, max_size=32)
ids20 = st.binary(min_size=20, max_size=20)


# --- known answers ---------------------------------------------------------------------------


def test_ewoq_private_key_round_trip() -> None:
    assert private_key_from_str(EWOQ_KEY_STR) == EWOQ_KEY
    assert private_key_to_str(EWOQ_KEY) == EWOQ_KEY_STR


def test_ewoq_address_derivation() -> None:
    pubkey = coincurve.PrivateKey(EWOQ_KEY).public_key.format(compressed=True)
    assert pubkey == EWOQ_PUBKEY
    short = RIPEMD160.new(hashlib.sha256(pubkey).digest()).digest()
    assert short == EWOQ_SHORT
    assert short_id_to_str(short) == "6Y3kysjF9jnHnYkdS9yGAuoHyae2eNmeV"
    assert format_address("X", "local", short) == EWOQ_X_LOCAL
    assert format_address("P", "local", short) == "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
    assert format_address("X", "avax", short) == "X-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5"
    assert format_address("X", "fuji", short) == "X-fuji18jma8ppw3nhx5r4ap8clazz0dps7rv5u6wmu4t"
    assert format_address("X", "custom", short) == "X-custom18jma8ppw3nhx5r4ap8clazz0dps7rv5u9xde7p"


def test_zero_values() -> None:
    assert id_to_str(ZERO_ID) == "11111111111111111111111111111111LpoYY"
    assert short_id_to_str(ZERO_SHORT_ID) == "111111111111111111116DBWJs"
    assert format_address("X", "local", ZERO_SHORT_ID) == "X-local1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqljssag"
    assert id_from_str("11111111111111111111111111111111LpoYY") == ZERO_ID


def test_parse_address() -> None:
    assert parse_address(EWOQ_X_LOCAL) == ("X", "local", EWOQ_SHORT)
    assert parse_address(EWOQ_X_LOCAL.upper()) == ("X", "local", EWOQ_SHORT)


def test_well_known_ids() -> None:
    assert id_to_str(AVM_VM_ID) == "jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq"
    assert id_to_str(EVM_VM_ID) == "mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6"
    assert id_to_str(PLATFORM_VM_ID) == "rWhpuQPF1kb72esV2momhMuTYGkEb1oL29pt2EBXWmSy4kxnT"
    assert id_to_str(SUBNET_EVM_VM_ID) == "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"
    assert id_to_str(SECP256K1FX_ID) == "spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ"
    assert id_to_str(NFTFX_ID) == "qd2U4HDWUvMrVUeTcCHp6xH3Qpnn1XbU5MDdnBoiifFqvgXwT"
    assert id_to_str(PROPERTYFX_ID) == "rXJsCSEYXg2TehWxCEEGj6JU2PWKTkd6cBdNLjoe2SpsKD9cy"
    assert vm_id_from_name("avm") == b"avm" + bytes(29)


def test_utxo_id_known_answer() -> None:
    assert id_to_str(utxo_id(id_from_str(LOCAL_AVAX), 0)) == "poAkNdHbbY1vtHWvs9TYKLzuLMMkVFDe6ERXRE6VtVZdDLiGZ"
    assert id_to_str(utxo_id(id_from_str(LOCAL_AVAX), 1)) == "Gqdc55Wu2egMkQABwJb74h6UydveDxHCMo1uEEUKeEVvPeoUc"


def test_node_id() -> None:
    node_id = node_id_from_str("NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg")
    assert len(node_id) == 20
    assert node_id_to_str(node_id) == "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"


def test_hex_known_answer() -> None:
    assert encode_bytes(bytes.fromhex("00010203"), "hex") == "0x00010203f0c990d8"
    assert encode_bytes(bytes.fromhex("00010203"), "hexc") == "0x00010203f0c990d8"
    assert encode_bytes(bytes.fromhex("00010203"), "hexnc") == "0x00010203"
    assert decode_bytes("0x00010203f0c990d8", "hex") == bytes.fromhex("00010203")
    assert decode_bytes("0x00010203F0C990D8", "hex") == bytes.fromhex("00010203")
    assert decode_bytes("0x00010203", "hexnc") == bytes.fromhex("00010203")
    assert decode_bytes("", "hex") == b""
    assert encode_bytes(b"", "hex") == "0x" + hashlib.sha256(b"").digest()[-4:].hex()


def test_network_tables() -> None:
    table = {
        1: ("mainnet", "avax"),
        2: ("cascade", "cascade"),
        3: ("denali", "denali"),
        4: ("everest", "everest"),
        5: ("fuji", "fuji"),
        10: ("testing", "testing"),
        12345: ("local", "local"),
        1337: ("network-1337", "custom"),
    }
    for network_id, (name, hrp) in table.items():
        assert network_name(network_id) == name
        assert hrp_for_network(network_id) == hrp
        assert network_id_from_name(name) == network_id
    assert network_id_from_name("testnet") == 5
    assert network_id_from_name("Fuji") == 5
    assert network_id_from_name("LOCAL") == 12345
    assert network_id_from_name("777") == 777
    for bad in ("nowhere", "network-", "network-x", "-1", "4294967296", ""):
        with pytest.raises(FormatError, match="failed to parse network name"):
            network_id_from_name(bad)


def test_rfc3339_and_numbers() -> None:
    assert format_rfc3339(1607144400) == "2020-12-05T05:00:00Z"
    assert format_rfc3339_nano(1607144400 * 10**9) == "2020-12-05T05:00:00Z"
    assert format_rfc3339_nano(1607144400 * 10**9 + 5) == "2020-12-05T05:00:00.000000005Z"
    assert format_rfc3339_nano(1607144400 * 10**9 + 120_000_000) == "2020-12-05T05:00:00.12Z"
    assert format_float4(100) == "100.0000"
    assert format_float4(0.12345) == "0.1235"
    assert format_uint(2**64 - 1) == "18446744073709551615"


# --- round trips ------------------------------------------------------------------------------


@given(st.binary(max_size=80))
def test_cb58_round_trip(data: bytes) -> None:
    assert cb58_decode(cb58_encode(data)) == data


@given(ids32)
def test_id_round_trip(value: bytes) -> None:
    assert id_from_str(id_to_str(value)) == value


@given(ids20)
def test_short_and_node_id_round_trip(value: bytes) -> None:
    assert short_id_from_str(short_id_to_str(value)) == value
    assert node_id_from_str(node_id_to_str(value)) == value


@given(ids32)
def test_private_key_round_trip(value: bytes) -> None:
    assert private_key_from_str(private_key_to_str(value)) == value


@given(ids20, st.sampled_from(["X", "P", "C"]), st.sampled_from(["local", "avax", "fuji", "custom", "testing"]))
def test_address_round_trip(payload: bytes, alias: str, hrp: str) -> None:
    text = format_address(alias, hrp, payload)
    assert parse_address(text) == (alias, hrp, payload)
    assert parse_address_arg(text, expected_chain_aliases={alias}, expected_hrp=hrp) == payload
    assert parse_address_arg(short_id_to_str(payload), expected_chain_aliases={alias}, expected_hrp=hrp) == payload


@given(st.binary(max_size=64), st.sampled_from(["hex", "hexc", "hexnc"]))
def test_hex_round_trip(data: bytes, encoding: str) -> None:
    assert decode_bytes(encode_bytes(data, encoding), encoding) == data


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_uint_round_trip(n: int) -> None:
    assert parse_uint(format_uint(n)) == n
    assert parse_uint(n) == n


# --- malformed input --------------------------------------------------------------------------


def test_cb58_errors() -> None:
    with pytest.raises(FormatError, match="base58 decoding error"):
        cb58_decode("0OIl")
    with pytest.raises(FormatError, match="smaller than the checksum size"):
        cb58_decode("1")
    with pytest.raises(FormatError, match="invalid input checksum"):
        cb58_decode("11111111111111111111111111111111LpoYZ")
    with pytest.raises(FormatError):
        cb58_decode(None)  # type: ignore[arg-type]


def test_id_length_errors() -> None:
    with pytest.raises(FormatError, match="expected 32 bytes but got 20"):
        id_from_str("111111111111111111116DBWJs")
    with pytest.raises(FormatError, match="expected 20 bytes but got 32"):
        short_id_from_str("11111111111111111111111111111111LpoYY")
    with pytest.raises(FormatError, match="expected 32 bytes"):
        id_to_str(b"\0" * 31)
    with pytest.raises(FormatError, match="missing the prefix: NodeID-"):
        node_id_from_str("7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg")
    with pytest.raises(FormatError, match="private key missing PrivateKey- prefix"):
        private_key_from_str("ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN")
    with pytest.raises(FormatError, match="expected 32 bytes but got 20"):
        private_key_from_str("PrivateKey-111111111111111111116DBWJs")
    with pytest.raises(FormatError, match="not a uint32"):
        utxo_id(ZERO_ID, 2**32)
    with pytest.raises(FormatError, match="longer than 32"):
        vm_id_from_name("x" * 33)


def test_address_errors() -> None:
    with pytest.raises(FormatError, match="no separator found in address"):
        parse_address("local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u")
    with pytest.raises(FormatError, match="invalid checksum"):
        parse_address("X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96v")
    with pytest.raises(FormatError, match="not all lowercase or all uppercase"):
        parse_address("X-Local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u")
    with pytest.raises(FormatError, match="invalid character not part of charset"):
        parse_address("X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96b")
    with pytest.raises(FormatError, match="invalid separator index"):
        parse_address("X-localqqqqqqqqq")
    with pytest.raises(FormatError, match="invalid bech32 string length"):
        parse_address("X-a1q")
    with pytest.raises(FormatError, match="invalid character in string"):
        parse_address("X-local1 qqqqqqqqq")
    with pytest.raises(FormatError, match="invalid bech32 string length 97"):
        parse_address("X-" + bech32_encode("local", bytes(53)))
    wrong_length = "X-" + bech32_encode("local", bytes(19))
    with pytest.raises(FormatError, match="expected 20 bytes but got 19"):
        parse_address(wrong_length)
    with pytest.raises(FormatError):
        parse_address(12)  # type: ignore[arg-type]


def test_address_arg_errors() -> None:
    with pytest.raises(FormatError, match='^expected hrp "local" but got "avax"$'):
        parse_address_arg(
            "X-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5", expected_chain_aliases={"X"}, expected_hrp="local"
        )
    with pytest.raises(FormatError, match="mismatched chainIDs"):
        parse_address_arg(EWOQ_X_LOCAL, expected_chain_aliases={"P"}, expected_hrp="local")
    with pytest.raises(FormatError, match="no separator found in address"):
        parse_address_arg("nonsense", expected_chain_aliases=None, expected_hrp="local")
    with pytest.raises(FormatError, match="expected 20 bytes but got 19"):
        parse_address_arg("X-" + bech32_encode("local", bytes(19)), expected_chain_aliases=None, expected_hrp="local")
    assert parse_address_arg_with_alias(EWOQ_X_LOCAL, expected_hrp="local") == ("X", EWOQ_SHORT)
    assert parse_address_arg_with_alias("6Y3kysjF9jnHnYkdS9yGAuoHyae2eNmeV", expected_hrp="local") == (None, EWOQ_SHORT)


def test_bech32_rejects_bech32m_checksum() -> None:
    # The same data with a bech32m constant must not pass as classic bech32.
    assert bech32_decode(EWOQ_X_LOCAL[2:]) == ("local", EWOQ_SHORT)
    with pytest.raises(FormatError, match="invalid checksum"):
        bech32_decode("a1lqfn3a")  # a valid bech32m test vector (BIP 350)


def test_hex_errors() -> None:
    with pytest.raises(FormatError, match="^missing 0x prefix to hex encoding$"):
        decode_bytes("00010203f0c990d8", "hex")
    with pytest.raises(FormatError, match="^invalid input checksum$"):
        decode_bytes("0x00010203f0c990d9", "hex")
    with pytest.raises(FormatError, match="smaller than the checksum size"):
        decode_bytes("0x0001", "hex")
    with pytest.raises(FormatError, match="odd length hex string"):
        decode_bytes("0x000", "hexnc")
    with pytest.raises(FormatError, match="invalid byte"):
        decode_bytes("0xzz", "hexnc")
    with pytest.raises(FormatError, match="unsupported encoding in method"):
        decode_bytes("0x00", "json")
    with pytest.raises(FormatError, match="unsupported encoding in method"):
        encode_bytes(b"", "json")
    with pytest.raises(FormatError, match="invalid encoding"):
        encode_bytes(b"", "base64")


def test_normalize_encoding() -> None:
    assert normalize_encoding(None) == "hex"
    assert normalize_encoding("") == "hex"
    assert normalize_encoding("HEX") == "hex"
    assert normalize_encoding("HexNC") == "hexnc"
    assert normalize_encoding("hexc") == "hexc"
    assert normalize_encoding("JSON") == "json"
    for bad in ("cb58", "base58", 1, ["hex"]):
        with pytest.raises(FormatError, match="^invalid encoding$"):
            normalize_encoding(bad)


def test_parse_uint_rules() -> None:
    assert parse_uint("007") == 7
    assert parse_uint(None) == 0
    assert parse_uint("4294967295", bits=32) == 2**32 - 1
    for bad in ("-1", -1, "1.5", 1.5, 1.0, True, False, "", "0x10", " 1", "1e3", "+1", [], {}):
        with pytest.raises(FormatError, match="invalid syntax"):
            parse_uint(bad)
    with pytest.raises(FormatError, match="value out of range"):
        parse_uint("18446744073709551616")
    with pytest.raises(FormatError, match="value out of range"):
        parse_uint(2**32, bits=32)
    with pytest.raises(FormatError):
        format_uint(-1)
    with pytest.raises(FormatError):
        format_float4(float("nan"))


def test_parse_amount() -> None:
    assert parse_amount("1.5 AVAX") == (1_500_000_000, "avax")
    assert parse_amount("1.5AVAX") == (1_500_000_000, "avax")
    assert parse_amount("200 nAVAX") == (200, "avax")
    assert parse_amount("3 mAVAX") == (3_000_000, "avax")
    assert parse_amount("0.000000001 avax") == (1, "avax")
    assert parse_amount("3 gwei") == (3_000_000_000, "wei")
    assert parse_amount("10 wei") == (10, "wei")
    assert parse_amount("2 ether") == (2 * 10**18, "wei")
    assert parse_amount("1e18 wei") == (10**18, "wei")
    assert parse_amount("300_000_000 AVAX") == (300_000_000 * 10**9, "avax")
    assert parse_amount("42") == (42, "")
    # exactness far beyond float precision
    assert parse_amount("123456789.123456789123456789 ether") == (123456789123456789123456789, "wei")
    for bad in ("", "AVAX", "-1 AVAX", "1.5", "1.0000000001 AVAX", "0.5 wei", "1 dollars", "1 AVAX extra", "1..2 AVAX"):
        with pytest.raises(FormatError):
            parse_amount(bad)
    with pytest.raises(FormatError):
        parse_amount(5)  # type: ignore[arg-type]


def test_parse_duration() -> None:
    assert parse_duration("14d") == 14 * 86400
    assert parse_duration("90m") == 5400
    assert parse_duration("1h30m") == 5400
    assert parse_duration("45s") == 45
    assert parse_duration("2w") == 14 * 86400
    assert parse_duration("1d 12h") == 129600
    assert parse_duration("3600") == 3600
    for bad in ("", "h", "1x", "1.5h", "d1", "-1h", "1h-"):
        with pytest.raises(FormatError):
            parse_duration(bad)
    with pytest.raises(FormatError):
        parse_duration(60)  # type: ignore[arg-type]
