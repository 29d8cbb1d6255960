"""ICM rows of one accepted EVM block, staged in the block's own batch: the TeleporterMessenger's
logs (at icm.messages.MESSENGER_ADDRESS) decoded with icm.events. Tables: layout.py.

SendCrossChainMessage writes the sent row and its list entries; AddFeeAmount raises its fee;
ReceiptReceived marks its receipt delivered; ReceiveCrossChainMessage writes the received row
(not executed until a MessageExecuted follows: in the same tx, or a later retryMessageExecution;
after MessageExecutionFailed it stays not executed). A log the codec cannot decode
is not the messenger's event and is skipped.
"""

from __future__ import annotations

from typing import Any

from ...crypto.hashing import keccak256
from ...icm import events
from ...icm.errors import ICMError
from ...icm.messages import MESSENGER_ADDRESS, TeleporterMessage
from ...store import Batch, pack, unpack
from ...vms.evm.headers import header_number
from ...vms.evm.receipts import ReceiptRow
from ..keys import big, u8, u32, u64
from ..metrics.buckets import INTERVALS, bucket_start
from .layout import (BY_ADDRESS, BY_CHAIN, BY_DESTINATION, BY_SOURCE, BY_TIME, COUNTS, PAIR_RUNNING, PAIR_TOTALS,
                     RECEIPT, RECEIVED, RECEIVED_EXECUTED, SENT, SENT_FEE_AMOUNT, SIDE_RECEIVED, SIDE_SENT,
                     ReceivedRow, SentRow)


def _message_fields(m: TeleporterMessage) -> tuple[bytes, bytes, bytes, bytes, list[Any]]:
    return (big(m.message_nonce), m.origin_sender_address, m.destination_address, m.message,
            [[big(r.received_message_nonce), r.relayer_reward_address] for r in m.receipts])


def _list(batch: Batch, at: bytes, message_id: bytes, source: bytes, destination: bytes,
          m: TeleporterMessage) -> None:
    ch = batch.changes
    ch[BY_TIME + at] = message_id
    ch[BY_SOURCE + source + at] = message_id
    ch[BY_DESTINATION + destination + at] = message_id
    for chain in {source, destination}:
        ch[BY_CHAIN + chain + at] = message_id
    for address in {m.origin_sender_address, m.destination_address}:
        ch[BY_ADDRESS + address + at] = message_id


def _count(batch: Batch, key: bytes) -> bytes:
    """Add one to the counter at `key`; returns its new value."""
    old = batch.get(key)
    new = u64((int.from_bytes(old, "big") if old else 0) + 1)
    batch.changes[key] = new
    return new


def _update(batch: Batch, key: bytes, field: int, value: Any) -> None:
    raw = batch.get(key)
    if raw is not None:
        rec = unpack(raw)
        rec[field] = value
        batch.changes[key] = pack(rec)


def index_block(chain: Any, row: dict, batch: Batch) -> int | None:
    """Stage the ICM rows of block `row` in `batch`; returns the block number, or None (without
    decoding the header) when no log of the block is the messenger's."""
    receipts = [ReceiptRow.decode(rc) for rc in row["rc"]]
    if not any(lg.address == MESSENGER_ADDRESS for receipt in receipts for lg in receipt.logs):
        return None
    number = header_number(row["hdr"])
    ms = row["ms"]
    cid = chain.chain_id
    log_index = 0
    for raw, receipt in zip(row["txs"], receipts):
        logs = receipt.logs
        tx_hash = None
        for address, topics, data in logs:
            log_index += 1
            if address != MESSENGER_ADDRESS:
                continue
            try:
                ev = events.decode_event(topics, data)
            except ICMError:
                continue
            if ev is None:
                continue
            if tx_hash is None:
                tx_hash = keccak256(raw)
            at_base = u64(ms) + cid + u64(number) + u32(log_index - 1)
            gas_used = receipt.gas_used
            if isinstance(ev, events.SendCrossChainMessage):
                m = ev.message
                batch.changes[SENT + ev.message_id] = pack(
                    SentRow(ev.destination_blockchain_id, *_message_fields(m), ev.fee_info.fee_token_address,
                            big(ev.fee_info.amount), tx_hash, ms, gas_used, cid))
                _list(batch, at_base + u8(SIDE_SENT), ev.message_id, cid, ev.destination_blockchain_id, m)
                pair = cid + ev.destination_blockchain_id
                for interval in INTERVALS:
                    _count(batch, COUNTS + u8(interval) + u64(bucket_start(interval, ms // 1000)) + pair)
                batch.changes[PAIR_RUNNING + pair + at_base + u8(SIDE_SENT)] = _count(batch, PAIR_TOTALS + pair)
            elif isinstance(ev, events.AddFeeAmount):
                _update(batch, SENT + ev.message_id, SENT_FEE_AMOUNT, big(ev.updated_fee_info.amount))
            elif isinstance(ev, events.ReceiptReceived):
                batch.changes[RECEIPT + ev.message_id] = b""
            elif isinstance(ev, events.ReceiveCrossChainMessage):
                m = ev.message
                batch.changes[RECEIVED + ev.message_id] = pack(
                    ReceivedRow(ev.source_blockchain_id, *_message_fields(m), tx_hash, ms, gas_used, ev.deliverer,
                                ev.reward_redeemer, False, cid))
                _list(batch, at_base + u8(SIDE_RECEIVED), ev.message_id, ev.source_blockchain_id, cid, m)
            elif isinstance(ev, events.MessageExecuted):
                _update(batch, RECEIVED + ev.message_id, RECEIVED_EXECUTED, True)
    return number
