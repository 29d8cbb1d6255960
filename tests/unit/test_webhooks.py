"""The webhooks' pure parts: the signature (a known HMAC-SHA256 answer), stable message IDs, amounts
with decimals, the back-off, the outbox order in one batch, records round trips, and a matcher
failure never costing a block."""

from __future__ import annotations

import base64
import uuid

from simnode.store import Store
from simnode.webhooks import records as r
from simnode.webhooks.delivery import Policy, signature
from simnode.webhooks.engine import BlockFeed, Webhooks
from simnode.webhooks.evm_events import checksum, with_decimals


def test_signature_is_base64_hmac_sha256_of_the_body_keyed_with_the_utf8_secret():
    # HMAC-SHA256("key", "The quick brown fox jumps over the lazy dog"), a published answer
    want = bytes.fromhex("f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8")
    assert signature("key", b"The quick brown fox jumps over the lazy dog") == base64.b64encode(want).decode()
    assert signature("clé", b"{}") != signature("cle", b"{}")


def test_message_ids_are_stable_uuids_per_webhook_tx_and_event():
    a = r.message_id("w1", b"\x01" * 32, b"\x02" * 32, "address_activity")
    assert a == r.message_id("w1", b"\x01" * 32, b"\x02" * 32, "address_activity")
    assert str(uuid.UUID(a)) == a
    others = {r.message_id("w2", b"\x01" * 32, b"\x02" * 32, "address_activity"),
              r.message_id("w1", b"\x01" * 32, b"\x03" * 32, "address_activity"),
              r.message_id("w1", b"\x01" * 32, b"\x02" * 32, "balance_change")}
    assert a not in others and len(others) == 3
    h = uuid.uuid5(uuid.NAMESPACE_URL, "w1")  # what the IDs are: nested uuid5s (records.message_id)
    for part in ((b"\x01" * 32).hex(), (b"\x02" * 32).hex(), "address_activity"):
        h = uuid.uuid5(h, part)
    assert a == str(h)
    assert r.message_id("wébhook", "é") == str(uuid.uuid5(uuid.uuid5(uuid.NAMESPACE_URL, "wébhook"), "é"))


def test_amounts_with_decimals_and_checksums():
    assert with_decimals(5, 18) == "0.000000000000000005"
    assert with_decimals(3331009129, 6) == "3331.009129"
    assert with_decimals(10**18, 18) == "1"
    assert with_decimals(7, 0) == "7"
    assert checksum(bytes.fromhex("8db97c7cece249c2b98bdc0226cc4c2a57bf52fc")) == \
        "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"


def test_back_off_doubles_up_to_its_cap():
    p = Policy(first_retry=0.25, max_retry_delay=2.0)
    assert [p.delay(n) for n in range(1, 7)] == [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]


def test_outbox_keeps_staging_order_across_blocks_in_one_batch():
    store = Store.memory()
    batch = store.batch()
    ids = [str(uuid.UUID(int=i)) for i in (9, 3, 7)]
    keys = [r.stage_message(batch, "w", mid, mid.encode(), 1, "x") for mid in ids]
    batch.commit()
    later = store.batch()
    keys.append(r.stage_message(later, "w", str(uuid.UUID(int=1)), b"b", 2, "y"))
    later.commit()
    assert [m.key for m in r.outbox(store)] == keys
    assert [m.message_id for m in r.outbox(store)] == [*ids, str(uuid.UUID(int=1))]


def test_outbox_rows_with_a_body_and_with_a_ref_both_give_their_body():
    store = Store.memory()
    engine = Webhooks(store, lambda: 0, 12345, b"\x00" * 32, lambda chain: None)
    batch = store.batch()
    full, compact = str(uuid.UUID(int=1)), str(uuid.UUID(int=2))
    r.stage_message(batch, "w", full, b'{"body":1}', 1, "staged with its body")  # a row as older nodes wrote it
    ref = [b"\x07" * 32, 5, 0, True, False, []]
    r.stage_message(batch, "w", compact, b"", 1, "tx", ref)
    batch.commit()
    old, new = r.outbox(store)
    assert (old.body, old.ref) == (b'{"body":1}', None)
    assert engine.body(old) == b'{"body":1}'
    assert (new.body, new.ref) == (b"", ref)
    assert engine.body(new) is None  # its chain is unknown (still loading): the worker waits


def test_records_round_trip():
    store = Store.memory()
    w = r.Webhook("id-1", "http://127.0.0.1:1/x", "43112", b"\x05" * 32, r.ADDRESS_ACTIVITY, "fuji",
                  {"addresses": ["0x" + "ab" * 20]}, "n", "d", "active", 7, True, False)
    r.save_webhook(store, w)
    r.save_secret(store, "s3cret")
    assert r.load_webhooks(store) == {"id-1": w}
    assert r.read_secret(store) == "s3cret"
    assert w.addresses == ["0x" + "ab" * 20]


class _Index:
    def __init__(self) -> None:
        self.blocks = 0

    def block_accepted(self, chain, row, batch) -> None:
        self.blocks += 1

    def chain_opened(self, chain, *args) -> int:
        return 0


class _Broken:
    def watches_primary(self, chain) -> bool:
        return False

    def block_accepted(self, chain, row, batch, before) -> None:
        raise RuntimeError("a matcher bug")


def test_a_matcher_failure_never_costs_the_block():
    index = _Index()
    feed = BlockFeed(index, _Broken())  # type: ignore[arg-type]
    feed.block_accepted(object(), {}, Store.memory().batch())
    assert index.blocks == 1
