"""Teleporter (ICM v1) messages: the structs of warp-icm.md §3.2 as frozen dataclasses, their ABI
encoding, the message ID rule, and the calldata of the messenger's state-changing functions.

The Warp payload of a Teleporter message is ``abi.encode(TeleporterMessage)``: the struct encoded as
one dynamic value (a 0x20 head, then the tuple), exactly what ``encode_message`` gives. Addresses are
20 bytes and IDs 32 bytes here; decoding accepts what Solidity's ``abi.decode`` accepts (trailing
bytes are ignored, dirty padding is not).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..crypto.hashing import keccak256
from .errors import ICMError

MESSENGER_ADDRESS = bytes.fromhex("253b2784c75e510dd0ff1da844684a1ac0aa5fcf")
"""Where TeleporterMessenger v1 lives on every chain (and where simnode places its own)."""

RECEIPT_ABI = "(uint256,address)"
FEE_INFO_ABI = "(address,uint256)"
MESSAGE_ABI = f"(uint256,address,bytes32,address,uint256,address[],{RECEIPT_ABI}[],bytes)"
MESSAGE_INPUT_ABI = f"(bytes32,address,{FEE_INFO_ABI},uint256,address[],bytes)"


def selector(signature: str) -> bytes:
    return keccak256(signature.encode())[:4]


SEND_CROSS_CHAIN_MESSAGE = selector(f"sendCrossChainMessage({MESSAGE_INPUT_ABI})")
RECEIVE_CROSS_CHAIN_MESSAGE = selector("receiveCrossChainMessage(uint32,address)")
RETRY_SEND_CROSS_CHAIN_MESSAGE = selector(f"retrySendCrossChainMessage({MESSAGE_ABI})")
RETRY_MESSAGE_EXECUTION = selector(f"retryMessageExecution(bytes32,{MESSAGE_ABI})")
ADD_FEE_AMOUNT = selector("addFeeAmount(bytes32,address,uint256)")
SEND_SPECIFIED_RECEIPTS = selector(f"sendSpecifiedReceipts(bytes32,bytes32[],{FEE_INFO_ABI},address[])")
REDEEM_RELAYER_REWARDS = selector("redeemRelayerRewards(address)")


# ------------------------------------------------------------------------------------ field checks


def _address(value: bytes, what: str) -> None:
    if not isinstance(value, bytes) or len(value) != 20:
        raise ICMError(f"{what} must be 20 bytes, got {value!r}")


def _id(value: bytes, what: str) -> None:
    if not isinstance(value, bytes) or len(value) != 32:
        raise ICMError(f"{what} must be 32 bytes, got {value!r}")


def _uint(value: int, what: str, bits: int = 256) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << bits:
        raise ICMError(f"{what} must be a uint{bits}, got {value!r}")


def _bytes(value: bytes, what: str) -> None:
    if not isinstance(value, bytes):
        raise ICMError(f"{what} must be bytes, got {type(value).__name__}")


# ------------------------------------------------------------------------------------ structs


@dataclass(frozen=True, slots=True)
class TeleporterMessageReceipt:
    """Acknowledges delivery of the message with this nonce; the reward goes to the address."""

    received_message_nonce: int
    relayer_reward_address: bytes

    def __post_init__(self) -> None:
        _uint(self.received_message_nonce, "receivedMessageNonce")
        _address(self.relayer_reward_address, "relayerRewardAddress")

    def abi_value(self) -> tuple:
        return (self.received_message_nonce, self.relayer_reward_address)


@dataclass(frozen=True, slots=True)
class TeleporterFeeInfo:
    """An ERC-20 relayer fee (token address zero and amount zero: no fee)."""

    fee_token_address: bytes
    amount: int

    def __post_init__(self) -> None:
        _address(self.fee_token_address, "feeTokenAddress")
        _uint(self.amount, "amount")

    def abi_value(self) -> tuple:
        return (self.fee_token_address, self.amount)


NO_FEE = TeleporterFeeInfo(b"\x00" * 20, 0)


@dataclass(frozen=True, slots=True)
class TeleporterMessageInput:
    """The argument of sendCrossChainMessage."""

    destination_blockchain_id: bytes
    destination_address: bytes
    fee_info: TeleporterFeeInfo
    required_gas_limit: int
    allowed_relayer_addresses: tuple[bytes, ...]
    message: bytes

    def __post_init__(self) -> None:
        _id(self.destination_blockchain_id, "destinationBlockchainID")
        _address(self.destination_address, "destinationAddress")
        if not isinstance(self.fee_info, TeleporterFeeInfo):
            raise ICMError("feeInfo must be a TeleporterFeeInfo")
        _uint(self.required_gas_limit, "requiredGasLimit")
        for a in self.allowed_relayer_addresses:
            _address(a, "allowedRelayerAddresses entry")
        _bytes(self.message, "message")

    def abi_value(self) -> tuple:
        return (self.destination_blockchain_id, self.destination_address, self.fee_info.abi_value(),
                self.required_gas_limit, list(self.allowed_relayer_addresses), self.message)


@dataclass(frozen=True, slots=True)
class TeleporterMessage:
    """A message as the messenger sends it; ``message`` is what the receiver gets."""

    message_nonce: int
    origin_sender_address: bytes
    destination_blockchain_id: bytes
    destination_address: bytes
    required_gas_limit: int
    allowed_relayer_addresses: tuple[bytes, ...]
    receipts: tuple[TeleporterMessageReceipt, ...]
    message: bytes

    def __post_init__(self) -> None:
        _uint(self.message_nonce, "messageNonce")
        _address(self.origin_sender_address, "originSenderAddress")
        _id(self.destination_blockchain_id, "destinationBlockchainID")
        _address(self.destination_address, "destinationAddress")
        _uint(self.required_gas_limit, "requiredGasLimit")
        for a in self.allowed_relayer_addresses:
            _address(a, "allowedRelayerAddresses entry")
        if not all(isinstance(r, TeleporterMessageReceipt) for r in self.receipts):
            raise ICMError("receipts must be TeleporterMessageReceipt values")
        _bytes(self.message, "message")

    def abi_value(self) -> tuple:
        return (self.message_nonce, self.origin_sender_address, self.destination_blockchain_id,
                self.destination_address, self.required_gas_limit, list(self.allowed_relayer_addresses),
                [r.abi_value() for r in self.receipts], self.message)


# ------------------------------------------------------------------------------------ from ABI values


def _addr(value: str) -> bytes:
    return bytes.fromhex(value[2:])


def receipt_from_abi(value: Sequence[Any]) -> TeleporterMessageReceipt:
    nonce, reward = value
    return TeleporterMessageReceipt(nonce, _addr(reward))


def fee_info_from_abi(value: Sequence[Any]) -> TeleporterFeeInfo:
    token, amount = value
    return TeleporterFeeInfo(_addr(token), amount)


def message_from_abi(value: Sequence[Any]) -> TeleporterMessage:
    nonce, origin, dst_chain, dst, gas, relayers, receipts, payload = value
    return TeleporterMessage(nonce, _addr(origin), dst_chain, _addr(dst), gas, tuple(_addr(a) for a in relayers),
                             tuple(receipt_from_abi(r) for r in receipts), payload)


def input_from_abi(value: Sequence[Any]) -> TeleporterMessageInput:
    dst_chain, dst, fee, gas, relayers, payload = value
    return TeleporterMessageInput(dst_chain, _addr(dst), fee_info_from_abi(fee), gas,
                                  tuple(_addr(a) for a in relayers), payload)


def abi_decode_checked(types: list[str], data: bytes, what: str) -> tuple:
    """eth-abi decode with every failure (short data, dirty padding, offsets out of range) as ICMError."""
    # imported here: eth-abi takes ~30 ms to import and a node's start-up (the messenger's
    # placement, the aggregator) needs none of it
    from eth_abi import decode as abi_decode
    from eth_abi.exceptions import DecodingError

    try:
        return abi_decode(types, data)
    except (DecodingError, OverflowError, ValueError) as exc:
        raise ICMError(f"{what} does not decode: {exc}") from None


def _encode(types: list[str], values: list[Any]) -> bytes:
    from eth_abi import encode as abi_encode  # see abi_decode_checked
    from eth_abi.exceptions import EncodingError

    try:
        return abi_encode(types, values)
    except EncodingError as exc:  # the dataclasses validate first, so this is a bug guard with a clear text
        raise ICMError(f"cannot ABI-encode {types}: {exc}") from None


# ------------------------------------------------------------------------------------ messages


def encode_message(message: TeleporterMessage) -> bytes:
    """``abi.encode(message)``: the Warp payload, and the preimage of the stored message hash."""
    return _encode([MESSAGE_ABI], [message.abi_value()])


def decode_message(payload: bytes) -> TeleporterMessage:
    (value,) = abi_decode_checked([MESSAGE_ABI], payload, "TeleporterMessage")
    return message_from_abi(value)


def message_hash(message: TeleporterMessage) -> bytes:
    """What the messenger stores for a sent message (until its receipt) and a failed execution."""
    return keccak256(encode_message(message))


def message_id(source_blockchain_id: bytes, destination_blockchain_id: bytes, nonce: int,
               messenger: bytes = MESSENGER_ADDRESS) -> bytes:
    """``keccak256(abi.encode(messenger, source, destination, nonce))``: the ID the messenger gives the
    message with this (global, from 1) nonce."""
    _id(source_blockchain_id, "sourceBlockchainID")
    _id(destination_blockchain_id, "destinationBlockchainID")
    _uint(nonce, "nonce")
    _address(messenger, "messenger")
    return keccak256(_encode(["address", "bytes32", "bytes32", "uint256"],
                             [messenger, source_blockchain_id, destination_blockchain_id, nonce]))


# ------------------------------------------------------------------------------------ calldata


def send_cross_chain_message_calldata(message_input: TeleporterMessageInput) -> bytes:
    return SEND_CROSS_CHAIN_MESSAGE + _encode([MESSAGE_INPUT_ABI], [message_input.abi_value()])


def decode_send_cross_chain_message_calldata(calldata: bytes) -> TeleporterMessageInput:
    if calldata[:4] != SEND_CROSS_CHAIN_MESSAGE:
        raise ICMError("not a sendCrossChainMessage call")
    (value,) = abi_decode_checked([MESSAGE_INPUT_ABI], calldata[4:], "sendCrossChainMessage calldata")
    return input_from_abi(value)


def receive_cross_chain_message_calldata(message_index: int, relayer_reward_address: bytes) -> bytes:
    """What a relayer sends: the signed message rides in the tx's access list as Warp predicate
    number ``message_index``."""
    _uint(message_index, "messageIndex", 32)
    _address(relayer_reward_address, "relayerRewardAddress")
    return RECEIVE_CROSS_CHAIN_MESSAGE + _encode(["uint32", "address"], [message_index, relayer_reward_address])


def decode_receive_cross_chain_message_calldata(calldata: bytes) -> tuple[int, bytes]:
    """(messageIndex, relayerRewardAddress)."""
    if calldata[:4] != RECEIVE_CROSS_CHAIN_MESSAGE:
        raise ICMError("not a receiveCrossChainMessage call")
    index, reward = abi_decode_checked(["uint32", "address"], calldata[4:], "receiveCrossChainMessage calldata")
    return index, _addr(reward)


def retry_send_cross_chain_message_calldata(message: TeleporterMessage) -> bytes:
    return RETRY_SEND_CROSS_CHAIN_MESSAGE + _encode([MESSAGE_ABI], [message.abi_value()])


def retry_message_execution_calldata(source_blockchain_id: bytes, message: TeleporterMessage) -> bytes:
    _id(source_blockchain_id, "sourceBlockchainID")
    return RETRY_MESSAGE_EXECUTION + _encode(["bytes32", MESSAGE_ABI], [source_blockchain_id, message.abi_value()])


def add_fee_amount_calldata(sent_message_id: bytes, fee_token_address: bytes, additional_fee_amount: int) -> bytes:
    _id(sent_message_id, "messageID")
    _address(fee_token_address, "feeTokenAddress")
    _uint(additional_fee_amount, "additionalFeeAmount")
    return ADD_FEE_AMOUNT + _encode(["bytes32", "address", "uint256"],
                                    [sent_message_id, fee_token_address, additional_fee_amount])


def send_specified_receipts_calldata(source_blockchain_id: bytes, message_ids: Sequence[bytes],
                                     fee_info: TeleporterFeeInfo, allowed_relayer_addresses: Sequence[bytes]) -> bytes:
    _id(source_blockchain_id, "sourceBlockchainID")
    for m in message_ids:
        _id(m, "messageIDs entry")
    for a in allowed_relayer_addresses:
        _address(a, "allowedRelayerAddresses entry")
    return SEND_SPECIFIED_RECEIPTS + _encode(
        ["bytes32", "bytes32[]", FEE_INFO_ABI, "address[]"],
        [source_blockchain_id, list(message_ids), fee_info.abi_value(), list(allowed_relayer_addresses)])


def redeem_relayer_rewards_calldata(fee_asset: bytes) -> bytes:
    _address(fee_asset, "feeAsset")
    return REDEEM_RELAYER_REWARDS + _encode(["address"], [fee_asset])
