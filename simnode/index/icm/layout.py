"""The ICM tables, across chains under keys.GLOBAL (`id` a 32-byte message ID, `cid` a 32-byte
blockchain ID, `at` = ms u64 | cid | block u64 | log index u32 | side u8, the position of the log
that put a message on a list; side 0 = sent, 1 = received):

    Im/<id>                 the sent message, written by its source chain: [destination cid,
                            nonce big, from, to, data, receipts [[nonce big, relayer]], fee token,
                            fee amount big, tx hash, ms, gas used, source cid]
    Ir/<id>                 the received message, written by its destination chain: [source cid,
                            nonce big, from, to, data, receipts, tx hash, ms, gas used, deliverer,
                            reward redeemer, executed, destination cid]
    Ik/<id>                 its receipt came back to the source chain (ReceiptReceived)
    It/<at>                 every message, by time              -> id
    Is/<cid><at>            by source chain                     -> id
    Id/<cid><at>            by destination chain                -> id
    Ic/<cid><at>            by either chain                     -> id
    Ia/<address><at>        by sender or receiver address       -> id
    Iu/<interval u8><bucket start u64><source cid><destination cid>
                            messages sent in the bucket         -> count u64
    Ip/<source cid><destination cid>
                            messages sent from one chain to another so far -> count u64
    Iq/<source cid><destination cid><at>
                            the same count just after each message (a rolling window is the
                            difference of two seeks)        -> count u64

Each row is written by one chain only (the sent side by the source, the received side by the
destination), so the rows do not depend on which chain is indexed first (`simnode reindex`
rebuilds them byte for byte). A message is on the lists twice, once per side it was seen on; a
list shows the sent entry, and the received entry only when the source chain is not indexed here
(status delivered_source_not_indexed).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..keys import GLOBAL, table

SENT = table(GLOBAL, b"Im")
RECEIVED = table(GLOBAL, b"Ir")
RECEIPT = table(GLOBAL, b"Ik")
BY_TIME = table(GLOBAL, b"It")
BY_SOURCE = table(GLOBAL, b"Is")
BY_DESTINATION = table(GLOBAL, b"Id")
BY_CHAIN = table(GLOBAL, b"Ic")
BY_ADDRESS = table(GLOBAL, b"Ia")
COUNTS = table(GLOBAL, b"Iu")
PAIR_TOTALS = table(GLOBAL, b"Ip")
PAIR_RUNNING = table(GLOBAL, b"Iq")



class SentRow(NamedTuple):
    """An Im/<id> row (stored as a msgpack array in this order)."""
    destination: bytes
    nonce: bytes
    sender: bytes
    receiver: bytes
    message: bytes
    receipts: list[Any]
    fee_token: bytes
    fee_amount: bytes
    tx_hash: bytes
    ms: int
    gas_used: int
    source: bytes


class ReceivedRow(NamedTuple):
    """An Ir/<id> row (stored as a msgpack array in this order)."""
    source: bytes
    nonce: bytes
    sender: bytes
    receiver: bytes
    message: bytes
    receipts: list[Any]
    tx_hash: bytes
    ms: int
    gas_used: int
    deliverer: bytes
    reward_redeemer: bytes
    executed: bool
    destination: bytes


SENT_FEE_AMOUNT = SentRow._fields.index("fee_amount")
RECEIVED_EXECUTED = ReceivedRow._fields.index("executed")

SIDE_SENT, SIDE_RECEIVED = 0, 1
AT_WIDTH = 8 + 32 + 8 + 4 + 1
