"""The TeleporterMessenger's events (warp-icm.md §3.3): topic0 constants and a decoder from a log's
topics and data to one frozen dataclass per event.

Indexed parameters sit in topics 1..3 (an address left-padded to 32 bytes); the others are the ABI
encoding of the remaining parameters, in order, in the log data.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..crypto.hashing import keccak256
from .errors import ICMError
from .messages import (
    FEE_INFO_ABI,
    MESSAGE_ABI,
    TeleporterFeeInfo,
    TeleporterMessage,
    abi_decode_checked,
    fee_info_from_abi,
    message_from_abi,
)


def topic(signature: str) -> bytes:
    return keccak256(signature.encode())


BLOCKCHAIN_ID_INITIALIZED = topic("BlockchainIDInitialized(bytes32)")
SEND_CROSS_CHAIN_MESSAGE = topic(f"SendCrossChainMessage(bytes32,bytes32,{MESSAGE_ABI},{FEE_INFO_ABI})")
ADD_FEE_AMOUNT = topic(f"AddFeeAmount(bytes32,{FEE_INFO_ABI})")
RECEIVE_CROSS_CHAIN_MESSAGE = topic(f"ReceiveCrossChainMessage(bytes32,bytes32,address,address,{MESSAGE_ABI})")
MESSAGE_EXECUTED = topic("MessageExecuted(bytes32,bytes32)")
MESSAGE_EXECUTION_FAILED = topic(f"MessageExecutionFailed(bytes32,bytes32,{MESSAGE_ABI})")
RECEIPT_RECEIVED = topic(f"ReceiptReceived(bytes32,bytes32,address,{FEE_INFO_ABI})")
RELAYER_REWARDS_REDEEMED = topic("RelayerRewardsRedeemed(address,address,uint256)")


@dataclass(frozen=True, slots=True)
class BlockchainIDInitialized:
    blockchain_id: bytes


@dataclass(frozen=True, slots=True)
class SendCrossChainMessage:
    message_id: bytes
    destination_blockchain_id: bytes
    message: TeleporterMessage
    fee_info: TeleporterFeeInfo


@dataclass(frozen=True, slots=True)
class AddFeeAmount:
    message_id: bytes
    updated_fee_info: TeleporterFeeInfo


@dataclass(frozen=True, slots=True)
class ReceiveCrossChainMessage:
    message_id: bytes
    source_blockchain_id: bytes
    deliverer: bytes
    reward_redeemer: bytes
    message: TeleporterMessage


@dataclass(frozen=True, slots=True)
class MessageExecuted:
    message_id: bytes
    source_blockchain_id: bytes


@dataclass(frozen=True, slots=True)
class MessageExecutionFailed:
    message_id: bytes
    source_blockchain_id: bytes
    message: TeleporterMessage


@dataclass(frozen=True, slots=True)
class ReceiptReceived:
    message_id: bytes
    destination_blockchain_id: bytes
    relayer_reward_address: bytes
    fee_info: TeleporterFeeInfo


@dataclass(frozen=True, slots=True)
class RelayerRewardsRedeemed:
    redeemer: bytes
    asset: bytes
    amount: int


TeleporterEvent = (BlockchainIDInitialized | SendCrossChainMessage | AddFeeAmount | ReceiveCrossChainMessage
                   | MessageExecuted | MessageExecutionFailed | ReceiptReceived | RelayerRewardsRedeemed)


def _topic_address(word: bytes) -> bytes:
    if any(word[:12]):
        raise ICMError("an indexed address topic has non-zero padding")
    return word[12:]


def _data(types: list[str], data: bytes, name: str) -> tuple:
    return abi_decode_checked(types, data, f"{name} log data")


def _send(t: list[bytes], data: bytes) -> SendCrossChainMessage:
    msg, fee = _data([MESSAGE_ABI, FEE_INFO_ABI], data, "SendCrossChainMessage")
    return SendCrossChainMessage(t[0], t[1], message_from_abi(msg), fee_info_from_abi(fee))


def _add_fee(t: list[bytes], data: bytes) -> AddFeeAmount:
    (fee,) = _data([FEE_INFO_ABI], data, "AddFeeAmount")
    return AddFeeAmount(t[0], fee_info_from_abi(fee))


def _receive(t: list[bytes], data: bytes) -> ReceiveCrossChainMessage:
    redeemer, msg = _data(["address", MESSAGE_ABI], data, "ReceiveCrossChainMessage")
    return ReceiveCrossChainMessage(t[0], t[1], _topic_address(t[2]), bytes.fromhex(redeemer[2:]),
                                    message_from_abi(msg))


def _failed(t: list[bytes], data: bytes) -> MessageExecutionFailed:
    (msg,) = _data([MESSAGE_ABI], data, "MessageExecutionFailed")
    return MessageExecutionFailed(t[0], t[1], message_from_abi(msg))


def _receipt(t: list[bytes], data: bytes) -> ReceiptReceived:
    (fee,) = _data([FEE_INFO_ABI], data, "ReceiptReceived")
    return ReceiptReceived(t[0], t[1], _topic_address(t[2]), fee_info_from_abi(fee))


def _redeemed(t: list[bytes], data: bytes) -> RelayerRewardsRedeemed:
    (amount,) = _data(["uint256"], data, "RelayerRewardsRedeemed")
    return RelayerRewardsRedeemed(_topic_address(t[0]), _topic_address(t[1]), amount)


# topic0 -> (event name, number of indexed parameters, decoder of (topics 1.., data))
_EVENTS: dict[bytes, tuple[str, int, Callable[[list[bytes], bytes], TeleporterEvent]]] = {
    BLOCKCHAIN_ID_INITIALIZED: ("BlockchainIDInitialized", 1, lambda t, _data: BlockchainIDInitialized(t[0])),
    SEND_CROSS_CHAIN_MESSAGE: ("SendCrossChainMessage", 2, _send),
    ADD_FEE_AMOUNT: ("AddFeeAmount", 1, _add_fee),
    RECEIVE_CROSS_CHAIN_MESSAGE: ("ReceiveCrossChainMessage", 3, _receive),
    MESSAGE_EXECUTED: ("MessageExecuted", 2, lambda t, _data: MessageExecuted(t[0], t[1])),
    MESSAGE_EXECUTION_FAILED: ("MessageExecutionFailed", 2, _failed),
    RECEIPT_RECEIVED: ("ReceiptReceived", 3, _receipt),
    RELAYER_REWARDS_REDEEMED: ("RelayerRewardsRedeemed", 2, _redeemed),
}


def decode_event(topics: Sequence[bytes], data: bytes) -> TeleporterEvent | None:
    """The event a TeleporterMessenger log carries; None when topic0 is none of its events. A log with
    a known topic0 but the wrong topics or undecodable data raises ICMError."""
    if not topics:
        return None
    kind = _EVENTS.get(bytes(topics[0]))
    if kind is None:
        return None
    name, indexed, decode = kind
    if len(topics) != 1 + indexed or any(len(t) != 32 for t in topics):
        raise ICMError(f"{name} log needs {1 + indexed} topics of 32 bytes, got {len(topics)}")
    return decode([bytes(t) for t in topics[1:]], bytes(data))
