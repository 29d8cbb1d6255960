"""ICM index rows from hand-made block rows of two chains: a message's life (pending, delivered,
executed, its receipt back, a fee added), the lists and their filters, pages, a message whose
source is not indexed, the per-bucket and rolling counts, and rows that do not depend on which
chain is indexed first."""

from __future__ import annotations

import pytest
from eth_abi import encode

from simnode.icm import events as ev
from simnode.icm.messages import (FEE_INFO_ABI, MESSAGE_ABI, MESSENGER_ADDRESS, TeleporterFeeInfo, TeleporterMessage,
                                  TeleporterMessageReceipt, message_id)
from simnode.index.icm.query import counts, message, messages, sent_between
from simnode.index.keys import NS
from simnode.index.metrics.buckets import DAY, HOUR
from simnode.index.page import CursorError
from simnode.store import Store

from .test_index_evm_rows import FakeChain, index_all, receipt, signed

SRC, DST, ELSEWHERE = b"\x11" * 32, b"\x22" * 32, b"\x33" * 32
ALICE, BOB, RELAYER, FEE_TOKEN = b"\xa1" * 20, b"\xb0" * 20, b"\x5e" * 20, b"\xfe" * 20


def word(b: bytes) -> bytes:
    return b.rjust(32, b"\x00")


def teleporter(nonce: int, destination: bytes, sender: bytes = ALICE, receiver: bytes = BOB,
               receipts: tuple = ()) -> TeleporterMessage:
    return TeleporterMessage(nonce, sender, destination, receiver, 100_000, (), receipts, b"ping %d" % nonce)


def sent_log(source: bytes, m: TeleporterMessage, fee: int = 0) -> list:
    mid = message_id(source, m.destination_blockchain_id, m.message_nonce)
    data = encode([MESSAGE_ABI, FEE_INFO_ABI], [m.abi_value(), TeleporterFeeInfo(FEE_TOKEN, fee).abi_value()])
    return [MESSENGER_ADDRESS, [ev.SEND_CROSS_CHAIN_MESSAGE, mid, m.destination_blockchain_id], data]


def received_logs(source: bytes, m: TeleporterMessage, executed: bool = True) -> list:
    mid = message_id(source, m.destination_blockchain_id, m.message_nonce)
    logs = [[MESSENGER_ADDRESS, [ev.RECEIVE_CROSS_CHAIN_MESSAGE, mid, source, word(RELAYER)],
             encode(["address", MESSAGE_ABI], [RELAYER, m.abi_value()])]]
    if executed:
        logs.append([MESSENGER_ADDRESS, [ev.MESSAGE_EXECUTED, mid, source], b""])
    else:
        logs.append([MESSENGER_ADDRESS, [ev.MESSAGE_EXECUTION_FAILED, mid, source],
                     encode([MESSAGE_ABI], [m.abi_value()])])
    return logs


def block(chain: FakeChain, logs: list, used: int = 90_000) -> None:
    chain.add([(signed(len(chain.rows)), ALICE, receipt(logs, used=used))])


def chains() -> tuple[FakeChain, FakeChain]:
    src, dst = FakeChain(chain_id=SRC, name="src"), FakeChain(chain_id=DST, name="dst")
    for chain in (src, dst):
        block(chain, [])  # block 0
    return src, dst


def test_a_message_from_sent_to_delivered_and_its_receipt(tmp_path):
    store = Store.open(tmp_path / "db")
    src, dst = chains()
    m1 = teleporter(1, DST)
    block(src, [sent_log(SRC, m1, fee=5)])
    index_all(store, src)
    mid = message_id(SRC, DST, 1)
    got = message(store, mid)
    assert (got.source, got.destination, got.nonce, got.sender, got.receiver, got.data) == (
        SRC, DST, 1, ALICE, BOB, b"ping 1")
    assert got.sent.tx_hash and got.sent.gas_used == 90_000 and got.delivered is None
    assert (got.fee_token, got.fee_amount, got.receipt_delivered) == (FEE_TOKEN, 5, False)
    # the destination receives it; a fee is added and the receipt comes back later on the source
    block(dst, received_logs(SRC, m1))
    block(src, [[MESSENGER_ADDRESS, [ev.ADD_FEE_AMOUNT, mid], encode([FEE_INFO_ABI], [(FEE_TOKEN, 7)])]])
    m2 = teleporter(2, DST, receipts=(TeleporterMessageReceipt(1, RELAYER),))
    block(src, [sent_log(SRC, m2),
                [MESSENGER_ADDRESS, [ev.RECEIPT_RECEIVED, mid, DST, word(RELAYER)], encode([FEE_INFO_ABI],
                                                                                          [(FEE_TOKEN, 7)])]])
    store2 = Store.open(tmp_path / "db2")
    index_all(store2, src)
    index_all(store2, dst)
    got = message(store2, mid)
    assert got.delivered.executed and got.delivered.deliverer == RELAYER == got.delivered.reward_redeemer
    assert (got.fee_amount, got.receipt_delivered) == (7, True)
    assert message(store2, message_id(SRC, DST, 2)).receipts == ((1, RELAYER),)
    assert message(store2, b"\x00" * 32) is None


def test_failed_execution_then_a_retry(tmp_path):
    store = Store.open(tmp_path / "db")
    src, dst = chains()
    m1 = teleporter(1, DST)
    mid = message_id(SRC, DST, 1)
    block(src, [sent_log(SRC, m1)])
    block(dst, received_logs(SRC, m1, executed=False))
    index_all(store, src)
    index_all(store, dst)
    assert message(store, mid).delivered.executed is False
    block(dst, [[MESSENGER_ADDRESS, [ev.MESSAGE_EXECUTED, mid, SRC], b""]])
    store2 = Store.open(tmp_path / "db2")
    index_all(store2, src)
    index_all(store2, dst)
    assert message(store2, mid).delivered.executed is True


def test_lists_filters_pages_and_a_source_not_indexed(tmp_path):
    store = Store.open(tmp_path / "db")
    src, dst = chains()
    sent = [teleporter(n, DST if n % 2 else SRC, receiver=BOB if n < 4 else ALICE) for n in range(1, 6)]
    for m in sent:
        block(src, [sent_log(SRC, m)])
    block(dst, received_logs(SRC, sent[0]))
    foreign = teleporter(9, DST, sender=RELAYER)
    block(dst, received_logs(ELSEWHERE, foreign))  # from a chain this node does not index
    index_all(store, src)
    index_all(store, dst)
    everything = messages(store, 100)
    # by time (the foreign message was received in the destination's block 2, after the source's block 2)
    assert [m.nonce for m in everything.items] == [5, 4, 3, 9, 2, 1] and everything.next is None
    assert messages(store, 100, chain=ELSEWHERE).items[0].sent is None
    assert [m.nonce for m in messages(store, 100, source=SRC).items] == [5, 4, 3, 2, 1]
    assert [m.nonce for m in messages(store, 100, destination=DST).items] == [5, 3, 9, 1]
    assert [m.nonce for m in messages(store, 100, destination=SRC, source=SRC).items] == [4, 2]
    assert [m.nonce for m in messages(store, 100, receiver=ALICE).items] == [5, 4]
    assert [m.nonce for m in messages(store, 100, sender=RELAYER).items] == [9]
    assert [m.nonce for m in messages(store, 100, address=BOB).items] == [3, 9, 2, 1]
    walked, cursor = [], None
    while True:
        page = messages(store, 1, cursor, chain=DST)
        walked += [m.nonce for m in page.items]
        if page.next is None:
            break
        cursor = page.next
    assert walked == [5, 3, 9, 1]
    with pytest.raises(CursorError):
        messages(store, 1, b"\x00")


def test_counts_and_rolling_windows(tmp_path):
    store = Store.open(tmp_path / "db")
    src, dst = chains()
    for n in range(1, 4):
        block(src, [sent_log(SRC, teleporter(n, DST if n < 3 else SRC))])
    index_all(store, src)
    ms = [row["ms"] for row in src.rows]  # block n at 1_000_000 + 1000 n ms: all in one hour and day
    hour = (ms[1] // 1000) - (ms[1] // 1000) % 3600
    assert counts(store, HOUR, 0, 2**40) == [(hour, SRC, DST, 2), (hour, SRC, SRC, 1)] or \
        counts(store, HOUR, 0, 2**40) == [(hour, SRC, SRC, 1), (hour, SRC, DST, 2)]
    assert sum(c for *_, c in counts(store, DAY, 0, 2**40)) == 3
    assert counts(store, HOUR, hour + 1, 2**40) == []
    assert sent_between(store, None, ms[3] + 1) == {(SRC, DST): 2, (SRC, SRC): 1}
    assert sent_between(store, ms[2], ms[3] + 1) == {(SRC, DST): 1, (SRC, SRC): 1}
    assert sent_between(store, ms[2], ms[3]) == {(SRC, DST): 1, (SRC, SRC): 0}


def test_rows_do_not_depend_on_which_chain_is_indexed_first(tmp_path):
    src, dst = chains()
    m1 = teleporter(1, DST)
    block(src, [sent_log(SRC, m1, fee=3)])
    block(dst, received_logs(SRC, m1))
    rows = []
    for n, order in enumerate(((src, dst), (dst, src))):
        store = Store.open(tmp_path / f"db{n}")
        for chain in order:
            index_all(store, chain)
        rows.append(dict(store.iterate(NS)))
    assert rows[0] == rows[1]
    assert [m.nonce for m in messages_of(tmp_path / "db0")] == [1]


def messages_of(path) -> list:
    return list(messages(Store.open(path), 10).items)
