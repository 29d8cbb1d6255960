"""Receipts as the block builder makes them, from what execution left: the logs bloom and the
consensus RLP that goes into the receipt trie (py-evm's Receipt / TypedReceipt encoding, byte
for byte: [status, cumulative gas, bloom, logs], typed ones behind their type byte), without
building py-evm's receipt and log objects.

Logs are block_rows.py's receipt-row form: [address, [topic as 32 bytes, ...], data]. ReceiptRow and
LogRow name the fields of a stored receipt where it is read; the stored bytes stay msgpack arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from eth_bloom import BloomFilter

from .rlpcodec import encode

STATUS_SUCCESS, STATUS_FAILURE = b"\x01", b""  # EIP-658


class LogRow(NamedTuple):
    """A log as a block row stores it."""
    address: bytes
    topics: list[bytes]
    data: bytes


class ReceiptRow(NamedTuple):
    """A receipt as a block row stores it (block_rows.receipt_row writes the array in this order)."""
    status: int
    cumulative_gas: int
    gas_used: int
    effective_gas_price: int
    contract: bytes | None
    logs: list[LogRow]

    @classmethod
    def decode(cls, stored: Sequence[Any]) -> ReceiptRow:
        status, cumulative_gas, gas_used, price, contract, logs = stored
        return cls(status, cumulative_gas, gas_used, price, contract, [LogRow(*lg) for lg in logs])


def logs_bloom(logs: list) -> int:
    """The 2048-bit bloom of the logs' addresses and topics."""
    if not logs:
        return 0
    bloom = BloomFilter()
    for address, topics, _ in logs:
        bloom.add(address)
        for topic in topics:
            bloom.add(topic)
    return int(bloom)


def receipt_rlp(type_id: int, success: bool, cumulative_gas: int, bloom: int, logs: list) -> bytes:
    body = encode([STATUS_SUCCESS if success else STATUS_FAILURE,
                   cumulative_gas.to_bytes((cumulative_gas.bit_length() + 7) // 8, "big"),
                   bloom.to_bytes(256, "big"), logs])
    return bytes((type_id,)) + body if type_id else body
