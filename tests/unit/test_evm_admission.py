"""C-Chain tx admission: the one-pass tx reader (raw_tx.read_tx) against py-evm's own decoder and
the earlier decode-twice path on random valid and malformed raw txs; the fee memo; the
eth_sendRawTransaction handler answering without a coroutine."""

from __future__ import annotations

import asyncio

import coincurve
import orjson
import pytest
import rlp
from eth_account import Account
from eth_utils import to_checksum_address
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from simnode.vms.evm.endpoints import build_endpoints
from simnode.crypto.hashing import keccak256
from simnode.rpc.jsonrpc import DueReply
from simnode.vms.evm.evm_chain import EVMChain
from simnode.vms.evm.raw_tx import decode_raw, read_tx, recover_sender
from simnode.vms.evm.vmerrors import ChainError
from simnode.vms.evm.rules import AvalancheVM

from .test_evm_engine import EWOQ, make_chain, signed

BUILDER = AvalancheVM.get_transaction_builder()
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


@pytest.fixture(scope="module")
def chain() -> EVMChain:
    return make_chain()


# ------------------------------------------------------------------ the previous path, as reference


def reference(raw: bytes) -> tuple[object, bytes] | str:
    """What admission did before read_tx: py-evm's decoder, then the signing payload rebuilt from a
    second rlp.decode; (tx, sender) or the ChainError text."""
    if not raw:
        return "typed transaction too short"
    if raw[0] == 3 or (raw[0] < 0x7f and raw[0] not in (1, 2)):
        return "transaction type not supported"
    try:
        tx = BUILDER.decode(raw)
    except Exception as exc:  # noqa: BLE001
        return f"rlp: {exc}"
    try:
        if raw[0] >= 0x80:
            fields = rlp.decode(raw)
            v, r, s = tx.v, tx.r, tx.s
            if v in (27, 28):
                rec, msg = v - 27, rlp.encode(fields[:6])
            else:
                cid = (v - 35) // 2
                rec = (v - 35) % 2
                msg = rlp.encode(fields[:6] + [cid.to_bytes((cid.bit_length() + 7) // 8, "big") if cid else b"",
                                               b"", b""])
        else:
            fields = rlp.decode(raw[1:])
            rec, r, s = tx.y_parity, tx.r, tx.s
            msg = raw[:1] + rlp.encode(fields[:-3])
        if not (0 < r < N and 0 < s <= N // 2) or rec not in (0, 1):
            return "invalid transaction v, r, s values"
        sig = r.to_bytes(32, "big") + s.to_bytes(32, "big") + bytes([rec])
        pub = coincurve.PublicKey.from_signature_and_message(sig, keccak256(msg), hasher=None)
        return tx, keccak256(pub.format(compressed=False)[1:])[12:]
    except Exception:  # noqa: BLE001
        return "invalid sender"


def current(chain: EVMChain, raw: bytes) -> tuple[object, bytes] | str:
    try:
        tx, unsigned = decode_raw(raw)
        return tx, recover_sender(raw, tx, unsigned)
    except ChainError as exc:
        return str(exc)


def same_tx(a: object, b: object) -> bool:
    if type(a) is not type(b) or a.type_id != b.type_id or rlp.encode(a) != rlp.encode(b):
        return False
    ia, ib = getattr(a, "_inner", a), getattr(b, "_inner", b)
    return (type(ia) is type(ib) and tuple(ia) == tuple(ib) and ia._cached_rlp == ib._cached_rlp
            and all(type(x) is type(y) for x, y in zip(ia, ib, strict=True)))


def assert_same(chain: EVMChain, raw: bytes) -> None:
    want, got = reference(raw), current(chain, raw)
    if isinstance(want, str):
        assert got == want
    else:
        assert not isinstance(got, str), got
        assert same_tx(got[0], want[0]) and got[1] == want[1]


# ------------------------------------------------------------------ random txs

ints = st.one_of(st.integers(0, 3), st.integers(0, 2**64), st.integers(0, 2**256 - 1))
addrs = st.one_of(st.just(b""), st.binary(min_size=20, max_size=20))
access_lists = st.lists(st.tuples(st.binary(min_size=20, max_size=20),
                                  st.lists(st.integers(0, 2**256 - 1), max_size=3)), max_size=3)
keys = st.integers(1, N - 1).map(lambda k: k.to_bytes(32, "big"))


@st.composite
def signed_txs(draw: st.DrawFn) -> bytes:
    key = draw(keys)
    kind = draw(st.sampled_from(["legacy155", "legacy", "type1", "type2"]))
    tx = {"nonce": draw(ints), "gas": draw(ints), "value": draw(ints), "data": draw(st.binary(max_size=80))}
    to = draw(addrs)
    if to:
        tx["to"] = to_checksum_address(to)
    if kind.startswith("legacy"):
        tx["gasPrice"] = draw(ints)
        if kind == "legacy155":
            tx["chainId"] = draw(st.sampled_from([43112, 1, 43114, 2**40]))
    else:
        tx["chainId"] = draw(st.sampled_from([43112, 1]))
        tx["accessList"] = [{"address": to_checksum_address(a), "storageKeys": ["0x%064x" % k for k in ks]}
                            for a, ks in draw(access_lists)]
        if kind == "type1":
            tx["gasPrice"] = draw(ints)
        else:
            tx["maxFeePerGas"] = draw(ints)
            tx["maxPriorityFeePerGas"] = draw(ints)
    try:
        return bytes(Account.from_key(key).sign_transaction(tx).raw_transaction)
    except Exception:  # noqa: BLE001 - eth-account refuses some random field combinations
        assume(False)
        raise


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=signed_txs())
def test_read_tx_matches_pyevm_on_valid_txs(chain: EVMChain, raw: bytes) -> None:
    parsed = read_tx(raw)
    assert parsed is not None
    tx, unsigned = parsed
    want = BUILDER.decode(raw)
    assert same_tx(tx, want)
    assert recover_sender(raw, tx, unsigned) == want.sender  # py-evm's own ecrecover
    assert_same(chain, raw)


def _mutate(raw: bytes, data: st.DataObject) -> bytes:
    op = data.draw(st.sampled_from(["flip", "insert", "delete", "truncate", "append", "splice"]))
    i = data.draw(st.integers(0, len(raw)))
    if op == "flip" and i < len(raw):
        return raw[:i] + bytes([data.draw(st.integers(0, 255))]) + raw[i + 1:]
    if op == "insert":
        return raw[:i] + data.draw(st.binary(min_size=1, max_size=3)) + raw[i:]
    if op == "delete":
        return raw[:i] + raw[i + 1:]
    if op == "truncate":
        return raw[:i]
    if op == "append":
        return raw + data.draw(st.binary(min_size=1, max_size=3))
    return raw[:i] + data.draw(st.binary(max_size=4)) + raw[i + data.draw(st.integers(0, 4)):]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=signed_txs(), data=st.data())
def test_mutated_txs_give_the_same_verdict(chain: EVMChain, raw: bytes, data: st.DataObject) -> None:
    for _ in range(data.draw(st.integers(1, 3))):
        raw = _mutate(raw, data)
    assert_same(chain, raw)


# non-canonical or mistyped RLP items, each a (raw item bytes) that pyrlp refuses or reads otherwise
odd_items = st.sampled_from([
    b"\x81\x05",  # single byte in short-string form
    b"\xb8\x01\x05",  # long form for a short string
    b"\x00",  # an int with a leading zero
    b"\x82\x00\x01",
    b"\xc0",  # a list where bytes are expected
    b"\xc1\x80",
    b"\xb9\x00\x38" + b"\x01" * 56,  # length with a leading zero
    b"\x94" + b"\x11" * 19 + b"\x11",  # 20 bytes: fine as `to`, other widths are not
    b"\x93" + b"\x11" * 19,
    b"\xf8\x01\x80",  # long-form list for a short one
])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=signed_txs(), data=st.data())
def test_odd_encodings_give_the_same_verdict(chain: EVMChain, raw: bytes, data: st.DataObject) -> None:
    typed = raw[0] < 0x80
    fields = rlp.decode(raw[1:] if typed else raw)
    items = [rlp.encode(f) for f in fields]
    i = data.draw(st.integers(0, len(items)))
    op = data.draw(st.sampled_from(["replace", "insert", "drop"]))
    if op == "replace" and i < len(items):
        items[i] = data.draw(odd_items)
    elif op == "insert":
        items.insert(i, data.draw(odd_items))
    elif i < len(items):
        del items[i]
    body = b"".join(items)
    out = rlp.codec.length_prefix(len(body), 0xc0) + body
    assert_same(chain, (raw[:1] if typed else b"") + out)


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=40), first=st.sampled_from([None, 1, 2, 3, 0x7f, 0x80, 0xc5, 0xf8]))
def test_random_bytes_give_the_same_verdict(chain: EVMChain, raw: bytes, first: int | None) -> None:
    assert_same(chain, raw if first is None else bytes([first]) + raw)


def test_odd_signature_values(chain: EVMChain) -> None:
    raw = signed(EWOQ, 0)
    fields = rlp.decode(raw[1:])
    for y, r, s in [(2, 1, 1), (0, 0, 1), (0, 1, 0), (0, 1, N // 2 + 1), (0, N, 1), (1, 1, 1)]:
        bad = b"\x02" + rlp.encode(fields[:-3] + [y, r, s])
        assert_same(chain, bad)
    assert isinstance(current(chain, b"\x02" + rlp.encode(fields[:-3] + [2, 1, 1])), str)


def test_submit_raw_hash_and_sender(chain: EVMChain) -> None:
    chain.automine = False
    raw = signed(EWOQ, 0, value=7)
    h = chain.submit_raw(raw)
    p = chain.pool.get(h)
    assert h == keccak256(raw) == p.tx.hash
    assert p.sender == bytes.fromhex(EWOQ.address[2:]) and p.tx.sender == p.sender
    with pytest.raises(ChainError, match="already known"):
        chain.submit_raw(raw)


# ------------------------------------------------------------------ fee memo


def test_next_fees_follows_clock_and_head() -> None:
    c = make_chain()
    c.automine = False

    def fresh() -> tuple:
        now = c.clock.now_ms()
        return c.fee_rules.next_block_fees(c.head.fee, c.head.ms, max(now, c.head.ms))

    assert c.next_fees() == fresh()
    c.clock.set_ms(c.clock.now_ms() + 1500)
    assert c.next_fees() == fresh()
    for n in range(40):
        c.submit_raw(signed(EWOQ, n))
    before = c.next_fees()
    c.mine_pending()
    assert c.next_fees() == fresh() != before  # the block's gas moved the fee state
    assert c.next_fees(c.head.ms + 10_000) == c.fee_rules.next_block_fees(c.head.fee, c.head.ms, c.head.ms + 10_000)


# ------------------------------------------------------------------ the JSON-RPC handler


def _send_body(raw: bytes, rid: int = 1) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": rid, "method": "eth_sendRawTransaction", "params": ["0x" + raw.hex()]})


def test_send_raw_answers_at_once() -> None:
    c = make_chain()
    svc = build_endpoints(c)["/rpc"]
    c.automine = False
    raw = signed(EWOQ, 0)
    out = svc.handle_body_now(_send_body(raw))
    assert isinstance(out, bytes) and orjson.loads(out)["result"] == "0x" + keccak256(raw).hex()
    # refusals: the same reply the coroutine path gives
    for bad in (raw, signed(EWOQ, 5, gas=20_000), b"\x03\xc0", b"\x02\xc0"):
        now = svc.handle_body_now(_send_body(bad, 2))
        assert isinstance(now, bytes) and now == asyncio.run(svc.handle_body(_send_body(bad, 2)))
        assert "error" in orjson.loads(now)

    async def automine() -> bytes:
        c.set_automine(True)
        await asyncio.sleep(0)  # the pending tx from above gets mined
        raw1 = signed(EWOQ, 1)
        out = svc.handle_body_now(_send_body(raw1, 3))
        assert isinstance(out, DueReply) and c.tx_location(keccak256(raw1)) is None  # the block is queued
        out = await out  # the reply waits for it: an acknowledged tx is in a block
        assert c.tx_location(keccak256(raw1)) is not None
        return out

    assert orjson.loads(asyncio.run(automine()))["result"] == "0x" + keccak256(signed(EWOQ, 1)).hex()
