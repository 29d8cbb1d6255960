"""Reading the ICM tables (layout.py). Values are raw (ints, 20-byte addresses, 32-byte IDs, ms
timestamps); the REST layer formats them.

    message(db, message_id) -> IcmMessage | None
    messages(db, limit, cursor, source=, destination=, chain=, sender=, receiver=, address=)
        -> Page[IcmMessage], newest first; `address` matches sender or receiver
    counts(db, interval, start_s, end_s) -> [(bucket start s, source, destination, count)],
        newest bucket first, buckets in [start_s, end_s)
    sent_between(db, since_ms, until_ms) -> {(source, destination): messages sent in
        [since_ms, until_ms)} (since_ms None: from the first), two seeks per chain pair
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...store import unpack
from ..keys import num, u8, u64
from ..page import CursorError, Page, Readable
from .layout import (AT_WIDTH, BY_ADDRESS, BY_CHAIN, BY_DESTINATION, BY_SOURCE, BY_TIME, COUNTS, PAIR_RUNNING,
                     PAIR_TOTALS, RECEIPT, RECEIVED, SENT, SIDE_RECEIVED, ReceivedRow, SentRow)


@dataclass(frozen=True, slots=True)
class IcmTx:
    tx_hash: bytes
    ms: int
    gas_used: int


@dataclass(frozen=True, slots=True)
class IcmDelivery:
    tx: IcmTx
    deliverer: bytes
    reward_redeemer: bytes
    executed: bool


@dataclass(frozen=True, slots=True)
class IcmMessage:
    message_id: bytes
    source: bytes
    destination: bytes
    nonce: int
    sender: bytes
    receiver: bytes
    data: bytes
    receipts: tuple[tuple[int, bytes], ...]  # (receivedMessageNonce, relayerRewardAddress)
    fee_token: bytes | None  # None: the source chain is not indexed here
    fee_amount: int
    sent: IcmTx | None
    delivered: IcmDelivery | None
    receipt_delivered: bool


def message(db: Readable, message_id: bytes) -> IcmMessage | None:
    sent_raw, received_raw = db.get(SENT + message_id), db.get(RECEIVED + message_id)
    if sent_raw is None and received_raw is None:
        return None
    sent = SentRow(*unpack(sent_raw)) if sent_raw is not None else None
    received = ReceivedRow(*unpack(received_raw)) if received_raw is not None else None
    delivery = None
    if received is not None:
        delivery = IcmDelivery(IcmTx(received.tx_hash, received.ms, received.gas_used), received.deliverer,
                               received.reward_redeemer, received.executed)
    base: SentRow | ReceivedRow
    if sent is not None:
        base = sent
        fee_token, fee_amount, sent_tx = sent.fee_token, num(sent.fee_amount), IcmTx(sent.tx_hash, sent.ms,
                                                                                     sent.gas_used)
    else:
        assert received is not None
        base = received
        fee_token, fee_amount, sent_tx = None, 0, None
    return IcmMessage(message_id, base.source, base.destination, num(base.nonce), base.sender, base.receiver,
                      base.message, tuple((num(n), relayer) for n, relayer in base.receipts), fee_token, fee_amount,
                      sent_tx, delivery,
                      db.get(RECEIPT + message_id) is not None)


def messages(db: Readable, limit: int, cursor: bytes | None = None, *, source: bytes | None = None,
             destination: bytes | None = None, chain: bytes | None = None, sender: bytes | None = None,
             receiver: bytes | None = None, address: bytes | None = None) -> Page[IcmMessage]:
    """Messages newest first (by the time the list first saw them), every given filter applied;
    the table scanned is the narrowest one a filter names."""
    party = address if address is not None else sender if sender is not None else receiver
    if party is not None:
        prefix = BY_ADDRESS + party
    elif source is not None:
        prefix = BY_SOURCE + source
    elif destination is not None:
        prefix = BY_DESTINATION + destination
    elif chain is not None:
        prefix = BY_CHAIN + chain
    else:
        prefix = BY_TIME

    def keep(m: IcmMessage) -> bool:
        return ((source is None or m.source == source) and (destination is None or m.destination == destination)
                and (chain is None or chain in (m.source, m.destination))
                and (sender is None or m.sender == sender) and (receiver is None or m.receiver == receiver)
                and (address is None or address in (m.sender, m.receiver)))

    return _walk(db, prefix, limit, cursor, keep)


def _walk(db: Readable, prefix: bytes, limit: int, cursor: bytes | None,
          keep: Callable[[IcmMessage], bool]) -> Page[IcmMessage]:
    if cursor is not None and len(cursor) != AT_WIDTH:
        raise CursorError("not a cursor of an ICM message list")
    rows = db.iterate(prefix, prefix + cursor, reverse=True) if cursor is not None else db.iterate(prefix, reverse=True)
    out: list[IcmMessage] = []
    last = None
    for key, message_id in rows:
        at = key[len(prefix):]
        if cursor is not None and at >= cursor:
            continue
        # a received entry stands for the message only when its source chain is not indexed here
        if at[-1] == SIDE_RECEIVED and db.get(SENT + message_id) is not None:
            continue
        m = message(db, message_id)
        if m is None or not keep(m):
            continue
        if len(out) == limit:
            return Page(tuple(out), last)
        out.append(m)
        last = at
    return Page(tuple(out), None)


def counts(db: Readable, interval: int, start_s: int, end_s: int) -> list[tuple[int, bytes, bytes, int]]:
    """Messages sent per (bucket, source, destination) for buckets starting in [start_s, end_s)."""
    prefix = COUNTS + u8(interval)
    out = []
    for key, value in db.iterate(prefix, prefix + u64(max(0, end_s - 1)) + b"\xff" * 64, reverse=True):
        rest = key[len(prefix):]
        start = num(rest[:8])
        if start >= end_s:
            continue
        if start < start_s:
            break
        out.append((start, rest[8:40], rest[40:72], num(value)))
    return out


def _running(db: Readable, pair: bytes, before_ms: int) -> int:
    """Messages of the chain pair sent before `before_ms`."""
    for _, value in db.iterate(PAIR_RUNNING + pair, PAIR_RUNNING + pair + u64(before_ms), reverse=True):
        return num(value)
    return 0


def sent_between(db: Readable, since_ms: int | None, until_ms: int) -> dict[tuple[bytes, bytes], int]:
    out = {}
    for key, _ in db.iterate(PAIR_TOTALS):
        pair = key[len(PAIR_TOTALS):]
        count = _running(db, pair, until_ms) - (0 if since_ms is None else _running(db, pair, since_ms))
        out[(pair[:32], pair[32:])] = count
    return out
