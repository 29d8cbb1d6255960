"""The pure-Python ICM codec: a real Fuji Teleporter message (tests/vectors/warp-vectors.json) as a
known answer, hypothesis round trips of messages, calldata and event logs, clear errors for bad
input, and the relayer gas estimate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eth_abi import encode as abi_encode
from hypothesis import given
from hypothesis import strategies as st

from simnode.crypto.hashing import keccak256
from simnode.icm import events as ev
from simnode.icm.errors import ICMError
from simnode.icm.gas import predicate_chunk_count, receive_message_gas_limit
from simnode.icm.messages import (
    FEE_INFO_ABI,
    MESSAGE_ABI,
    MESSENGER_ADDRESS,
    TeleporterFeeInfo,
    TeleporterMessage,
    TeleporterMessageInput,
    TeleporterMessageReceipt,
    add_fee_amount_calldata,
    decode_message,
    decode_receive_cross_chain_message_calldata,
    decode_send_cross_chain_message_calldata,
    encode_message,
    message_hash,
    message_id,
    receive_cross_chain_message_calldata,
    redeem_relayer_rewards_calldata,
    retry_message_execution_calldata,
    retry_send_cross_chain_message_calldata,
    send_cross_chain_message_calldata,
    send_specified_receipts_calldata,
)

VECTOR = json.loads((Path(__file__).parents[1] / "vectors" / "warp-vectors.json").read_text())[0]
SIGNED = bytes.fromhex(VECTOR["signedMessageHex"][2:])
INNER = bytes.fromhex(VECTOR["parsed"]["payload"]["innerPayloadHex"][2:])

addresses = st.binary(min_size=20, max_size=20)
ids = st.binary(min_size=32, max_size=32)
uints = st.integers(0, 2**256 - 1)
receipts = st.builds(TeleporterMessageReceipt, uints, addresses)
fees = st.builds(TeleporterFeeInfo, addresses, uints)
payloads = st.binary(max_size=300)
messages = st.builds(TeleporterMessage, uints, addresses, ids, addresses, uints,
                     st.lists(addresses, max_size=4).map(tuple), st.lists(receipts, max_size=6).map(tuple), payloads)
inputs = st.builds(TeleporterMessageInput, ids, addresses, fees, uints, st.lists(addresses, max_size=4).map(tuple),
                   payloads)


# ------------------------------------------------------------------------------- known answer


def test_real_fuji_teleporter_message():
    assert VECTOR["parsed"]["payload"]["sourceAddress"] == "0x" + MESSENGER_ADDRESS.hex()
    msg = decode_message(INNER)
    assert msg.message_nonce == 277
    assert msg.origin_sender_address.hex() == "8578ae7723751446b196bd5124e1bf57b40eb7bc"
    assert msg.destination_blockchain_id.hex() == "7fc93d85c6d62c5b2ac0b519c87010ea5294012d1e407030d6acd0021cac10d5"
    assert msg.destination_address.hex() == "9660ed66aef60dfba5467afe865f612edbfb5c71"
    assert msg.required_gas_limit == 85_000 and msg.allowed_relayer_addresses == ()
    relayer = bytes.fromhex("7ec2afb0a06a73666adc24983ebdbf2b6f1d7082")
    assert msg.receipts == tuple(TeleporterMessageReceipt(n, relayer) for n in (4512, 4514, 4533, 4584, 4585))
    assert len(msg.message) == 192 and msg.message[-32:] == (10**15).to_bytes(32, "big")
    assert encode_message(msg) == INNER


def test_gas_estimate_of_the_real_message():
    # 2 signers (bitset 0x03); 1,077 signed bytes -> 34 chunks; the AddressedCall payload is 930 bytes
    assert SIGNED[-96 - 1 - 4:-96] == b"\x00\x00\x00\x01\x03"
    got = receive_message_gas_limit(num_signers=2, required_gas_limit=85_000, signed_message_size=len(SIGNED),
                                    warp_payload_size=VECTOR["parsed"]["payloadLength"], receipt_count=5)
    assert got == 85_000 + 34 * 512 * 2 + 930 * 35 + 5 * 2_500 + 2 * 250 + 125_000 + 750 + 250_000 == 541_116


def test_predicate_chunks_and_gas_errors():
    assert [predicate_chunk_count(n) for n in (0, 31, 32, 63, 64)] == [1, 1, 2, 2, 3]
    with pytest.raises(ICMError, match="required gas limit too high"):
        receive_message_gas_limit(num_signers=1, required_gas_limit=2**64, signed_message_size=100,
                                  warp_payload_size=10, receipt_count=0)
    with pytest.raises(ICMError, match="overflow"):
        receive_message_gas_limit(num_signers=1, required_gas_limit=2**64 - 1, signed_message_size=100,
                                  warp_payload_size=10, receipt_count=0)
    with pytest.raises(ICMError, match="negative"):
        receive_message_gas_limit(num_signers=-1, required_gas_limit=1, signed_message_size=100,
                                  warp_payload_size=10, receipt_count=0)


# ------------------------------------------------------------------------------- round trips


@given(messages)
def test_message_round_trip(msg: TeleporterMessage):
    encoded = encode_message(msg)
    assert encoded[:32] == (32).to_bytes(32, "big")  # one dynamic value: abi.encode(struct)
    assert decode_message(encoded) == msg
    assert message_hash(msg) == keccak256(encoded)
    assert retry_send_cross_chain_message_calldata(msg)[4:] == encoded


@given(messages, ids)
def test_retry_execution_calldata(msg: TeleporterMessage, source: bytes):
    data = retry_message_execution_calldata(source, msg)
    assert data[:4].hex() == "fc2d6197" and data[4:36] == source
    assert data[36:] == abi_encode(["bytes32", MESSAGE_ABI], [source, msg.abi_value()])[32:]


@given(inputs)
def test_send_calldata_round_trip(message_input: TeleporterMessageInput):
    data = send_cross_chain_message_calldata(message_input)
    assert data[:4].hex() == "62448850"
    assert decode_send_cross_chain_message_calldata(data) == message_input


@given(st.integers(0, 2**32 - 1), addresses)
def test_receive_calldata_round_trip(index: int, reward: bytes):
    data = receive_cross_chain_message_calldata(index, reward)
    assert len(data) == 4 + 64 and data[:4].hex() == "ccb5f809"
    assert decode_receive_cross_chain_message_calldata(data) == (index, reward)


@given(ids, ids, uints, addresses)
def test_message_id_rule(src: bytes, dst: bytes, nonce: int, messenger: bytes):
    preimage = b"\x00" * 12 + messenger + src + dst + nonce.to_bytes(32, "big")
    assert message_id(src, dst, nonce, messenger) == keccak256(preimage)


def test_other_calldata():
    mid, token, who = b"\x01" * 32, b"\x02" * 20, b"\x03" * 20
    assert add_fee_amount_calldata(mid, token, 5) == bytes.fromhex("8ac0fd04") + abi_encode(
        ["bytes32", "address", "uint256"], [mid, token, 5])
    assert redeem_relayer_rewards_calldata(token) == bytes.fromhex("22296c3a") + b"\x00" * 12 + token
    assert send_specified_receipts_calldata(mid, [mid, mid], TeleporterFeeInfo(token, 7), [who]) == bytes.fromhex(
        "a9a85614") + abi_encode(["bytes32", "bytes32[]", FEE_INFO_ABI, "address[]"],
                                 [mid, [mid, mid], (token, 7), [who]])


# ------------------------------------------------------------------------------- bad input


@given(st.binary(max_size=400))
def test_arbitrary_bytes_decode_or_fail_cleanly(data: bytes):
    try:
        msg = decode_message(data)
    except ICMError:
        return
    assert isinstance(msg, TeleporterMessage)


def test_bad_bytes_and_values_are_icm_errors():
    good = encode_message(decode_message(INNER))
    with pytest.raises(ICMError, match="TeleporterMessage does not decode"):
        decode_message(good[:-40])
    dirty = bytearray(good)
    dirty[32 + 32 + 5] = 1  # a byte of originSenderAddress's padding
    with pytest.raises(ICMError, match="does not decode"):
        decode_message(bytes(dirty))
    with pytest.raises(ICMError, match="not a sendCrossChainMessage call"):
        decode_send_cross_chain_message_calldata(b"\x00" * 100)
    with pytest.raises(ICMError, match="not a receiveCrossChainMessage call"):
        decode_receive_cross_chain_message_calldata(send_cross_chain_message_calldata(
            TeleporterMessageInput(b"\x00" * 32, b"\x00" * 20, TeleporterFeeInfo(b"\x00" * 20, 0), 0, (), b"")))
    with pytest.raises(ICMError, match="receiveCrossChainMessage calldata does not decode"):
        decode_receive_cross_chain_message_calldata(bytes.fromhex("ccb5f809") + b"\x00" * 40)
    with pytest.raises(ICMError, match="relayerRewardAddress must be 20 bytes"):
        TeleporterMessageReceipt(1, b"\x00" * 32)
    with pytest.raises(ICMError, match="amount must be a uint256"):
        TeleporterFeeInfo(b"\x00" * 20, -1)
    with pytest.raises(ICMError, match="destinationBlockchainID must be 32 bytes"):
        message_id(b"\x00" * 32, b"\x00" * 31, 1)
    with pytest.raises(ICMError, match="messageIndex must be a uint32"):
        receive_cross_chain_message_calldata(2**32, b"\x00" * 20)
    with pytest.raises(ICMError, match="receipts must be TeleporterMessageReceipt"):
        TeleporterMessage(1, b"\x00" * 20, b"\x00" * 32, b"\x00" * 20, 0, (), ((1, b"\x00" * 20),), b"")


# ------------------------------------------------------------------------------- event logs


def word(b: bytes) -> bytes:
    return b.rjust(32, b"\x00")


@given(ids, ids, messages, fees, addresses, addresses, uints)
def test_event_logs_round_trip(mid: bytes, chain: bytes, msg: TeleporterMessage, fee: TeleporterFeeInfo,
                               who: bytes, other: bytes, amount: int):
    cases = [
        ([ev.BLOCKCHAIN_ID_INITIALIZED, chain], b"", ev.BlockchainIDInitialized(chain)),
        ([ev.SEND_CROSS_CHAIN_MESSAGE, mid, chain], abi_encode([MESSAGE_ABI, FEE_INFO_ABI],
                                                               [msg.abi_value(), fee.abi_value()]),
         ev.SendCrossChainMessage(mid, chain, msg, fee)),
        ([ev.ADD_FEE_AMOUNT, mid], abi_encode([FEE_INFO_ABI], [fee.abi_value()]), ev.AddFeeAmount(mid, fee)),
        ([ev.RECEIVE_CROSS_CHAIN_MESSAGE, mid, chain, word(who)],
         abi_encode(["address", MESSAGE_ABI], [other, msg.abi_value()]),
         ev.ReceiveCrossChainMessage(mid, chain, who, other, msg)),
        ([ev.MESSAGE_EXECUTED, mid, chain], b"", ev.MessageExecuted(mid, chain)),
        ([ev.MESSAGE_EXECUTION_FAILED, mid, chain], abi_encode([MESSAGE_ABI], [msg.abi_value()]),
         ev.MessageExecutionFailed(mid, chain, msg)),
        ([ev.RECEIPT_RECEIVED, mid, chain, word(who)], abi_encode([FEE_INFO_ABI], [fee.abi_value()]),
         ev.ReceiptReceived(mid, chain, who, fee)),
        ([ev.RELAYER_REWARDS_REDEEMED, word(who), word(other)], abi_encode(["uint256"], [amount]),
         ev.RelayerRewardsRedeemed(who, other, amount)),
    ]
    for topics, data, expected in cases:
        assert ev.decode_event(topics, data) == expected


def test_event_logs_that_do_not_decode():
    assert ev.decode_event([], b"") is None
    assert ev.decode_event([keccak256(b"Transfer(address,address,uint256)"), b"\x00" * 32, b"\x00" * 32], b"") is None
    with pytest.raises(ICMError, match="MessageExecuted log needs 3 topics"):
        ev.decode_event([ev.MESSAGE_EXECUTED, b"\x00" * 32], b"")
    with pytest.raises(ICMError, match="AddFeeAmount log data does not decode"):
        ev.decode_event([ev.ADD_FEE_AMOUNT, b"\x00" * 32], b"\x00" * 40)
    with pytest.raises(ICMError, match="non-zero padding"):
        ev.decode_event([ev.RELAYER_REWARDS_REDEEMED, b"\x01" * 32, b"\x00" * 32], b"\x00" * 32)
