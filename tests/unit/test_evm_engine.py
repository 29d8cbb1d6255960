"""C-Chain engine without HTTP: ACP-176 fee math, dev-account derivation, mempool rules, block
building, persistence, snapshot/revert, and hypothesis properties on random transfer sequences."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import rlp

import pytest
from eth_account import Account
from eth_utils import to_checksum_address
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simnode.clock import VirtualClock
from simnode.config import NodeConfig
from simnode.genesis import load_network_genesis
from simnode.vms.chain_context import ChainContext
from simnode.store import Store
from simnode.vms.evm.accounts import ANVIL_MNEMONIC, address_of, dev_keys
from simnode.vms.evm.evm_chain import EVMChain
from simnode.vms.evm.vmerrors import ChainError
from simnode.vms.evm.fees import FeeState, fake_exponential, next_block_fees
from simnode.vms.evm.mempool import Mempool, PoolError, PoolTx

EWOQ_KEY = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
EWOQ = Account.from_key(EWOQ_KEY)
EWOQ_ADDR = bytes.fromhex(EWOQ.address[2:])
GENESIS_BALANCE = 0x295BE96E64066972000000
START_MS = 1_767_225_600_000
GENESIS = load_network_genesis(12345)


def make_chain(store: Store | None = None, block_time: float = 0, clock: VirtualClock | None = None) -> EVMChain:
    ctx = ChainContext(NodeConfig(block_time=block_time), GENESIS, store or Store.memory(),
                       clock or VirtualClock(START_MS), b"\x01" * 32)
    chain = EVMChain(ctx)
    ctx.snapshots.on_revert.append(chain.reload)  # what the node does for all its chains
    return chain


def signed(acct, nonce: int, to: bytes = b"\x11" * 20, value: int = 1, fee: int = 10**9, tip: int = 1,
           gas: int = 21000) -> bytes:
    tx = {"chainId": 43112, "nonce": nonce, "to": to_checksum_address(to), "value": value, "gas": gas,
          "maxFeePerGas": fee, "maxPriorityFeePerGas": tip, "type": 2}
    return bytes(acct.sign_transaction(tx).raw_transaction)


# ------------------------------------------------------------------------------------ fees


def test_fake_exponential_matches_known_values():
    assert fake_exponential(1, 0, 87_000_000) == 1
    assert fake_exponential(1_000_000, 0, 1 << 25) == 1_000_000
    # e^1 ~ 2.718: with factor 10^6 the integer series gives 2718281
    assert fake_exponential(10**6, 10**6, 10**6) == 2718281


def test_acp176_fresh_chain_and_growth():
    st0 = FeeState()
    assert st0.target() == 1_000_000 and st0.max_capacity() == 10_000_000 and st0.gas_price() == 1
    st1, price, limit = next_block_fees(st0, 0, 10_000)
    assert (price, limit, st1.capacity) == (1, 10_000_000, 10_000_000)
    # excess of 87·T·ln(2)·... : price doubles roughly every 60.3M gas of excess
    hot = FeeState(0, 87_000_000, 0)
    assert hot.gas_price() == 2  # floor(e^1)
    assert FeeState(0, 87_000_000 * 10, 0).gas_price() == 22026
    # time drains excess at T per second, capacity refills at 2T per second
    later = hot.advance_ms(1000)
    assert later.excess == 86_000_000 and later.capacity == 2_000_000
    assert FeeState.decode(hot.encode()) == hot


# ------------------------------------------------------------------------------------ accounts


def test_dev_accounts_match_anvil():
    keys = dev_keys(3, ANVIL_MNEMONIC)
    assert address_of(keys[0]) == EWOQ_ADDR
    Account.enable_unaudited_hdwallet_features()
    for i in range(3):
        assert "0x" + address_of(keys[i + 1]).hex() == Account.from_mnemonic(
            ANVIL_MNEMONIC, account_path=f"m/44'/60'/0'/0/{i}").address.lower()


# ------------------------------------------------------------------------------------ mempool


def _ptx(sender: bytes, nonce: int, fee: int, tip: int, h: bytes | None = None) -> PoolTx:
    return PoolTx(tx=None, raw=b"", hash=h or bytes([nonce, fee % 256, tip % 256]) + sender[:3], sender=sender,
                  nonce=nonce, gas=21000, max_fee=fee, tip=tip, value=0)


def test_mempool_order_replacement_and_gaps():
    pool = Mempool()
    a, b = b"a" * 20, b"b" * 20
    pool.add(_ptx(a, 0, 100, 1))
    pool.add(_ptx(a, 1, 100, 50))
    pool.add(_ptx(b, 0, 100, 10))
    pool.add(_ptx(b, 2, 100, 99))  # gap: queued
    with pytest.raises(PoolError, match="replacement transaction underpriced"):
        pool.add(_ptx(a, 0, 109, 1, h=b"x" * 32))
    old = pool.add(_ptx(a, 0, 110, 2, h=b"y" * 32))
    assert old is not None and old.max_fee == 100
    nonces = {a: 0, b: 0}
    order = [(p.sender, p.nonce) for p in pool.iter_for_block(1, lambda s: nonces[s])]
    assert order == [(b, 0), (a, 0), (a, 1)]
    pending, queued = pool.split(lambda s: nonces[s])
    assert [p.nonce for p in queued[b]] == [2] and len(pending[a]) == 2
    assert pool.pending_nonce(b, 0) == 1


# ------------------------------------------------------------------------------------ chain


def test_genesis_block_and_first_block():
    c = make_chain()
    g = c.head
    assert g.number == 0 and g.header.difficulty == 0 and g.header.gas_limit == 0x5F5E100
    assert g.header.base_fee_per_gas == 225 * 10**9 and g.header.timestamp == 0x5FCB13D0
    assert c.view().get_balance(EWOQ_ADDR) == GENESIS_BALANCE
    assert c.next_base_fee() == 1
    h = c.submit_raw(signed(EWOQ, 0))
    b1 = c.head
    assert b1.number == 1 and b1.header.difficulty == 1 and b1.header.gas_limit == 10_000_000
    assert b1.header.coinbase == bytes.fromhex("0100000000000000000000000000000000000000")
    assert c.tx_location(h)[1] == 0
    assert b1.ms == START_MS and b1.header.timestamp == START_MS // 1000


def test_block_packs_to_gas_limit_and_restart_resumes(tmp_path):
    store = Store.open(tmp_path / "db")
    c = make_chain(store)
    c.automine = False
    for n in range(600):
        c.submit_raw(signed(EWOQ, n))
    assert c.mine_pending() == 2
    assert len(c.block(1).raws) == 476 and len(c.block(2).raws) == 124
    head, root = c.head.hash, c.state_root
    store.close()
    store2 = Store.open(tmp_path / "db")
    c2 = make_chain(store2)
    assert c2.head.hash == head and c2.state_root == root
    assert c2.view().get_nonce(EWOQ_ADDR) == 600
    c2.submit_raw(signed(EWOQ, 600))
    assert c2.head.number == 3
    store2.close()


def test_snapshot_revert_restores_everything():
    c = make_chain()
    sid = c.snapshot()
    h = c.submit_raw(signed(EWOQ, 0, value=5))
    c.edit_state(lambda st: st.set_balance(b"\x22" * 20, 99))
    c.mine_empty(10)
    assert c.head.number == 11
    assert c.revert(sid)
    assert c.head.number == 0 and c.tx_location(h) is None
    assert c.view().get_balance(b"\x22" * 20) == 0 and c.view().get_nonce(EWOQ_ADDR) == 0
    c.submit_raw(signed(EWOQ, 0, value=5))
    assert c.head.number == 1


def test_interval_mining_on_virtual_clock():
    clock = VirtualClock(START_MS)
    c = make_chain(block_time=2, clock=clock)
    for n in range(3):
        c.submit_raw(signed(EWOQ, n))
    assert c.head.number == 0
    clock.advance(1)
    assert c.head.number == 0
    clock.advance(1)
    assert c.head.number == 1 and len(c.head.raws) == 3 and c.head.ms == START_MS + 2000
    clock.advance(10)  # no txs: no empty blocks
    assert c.head.number == 1


def test_future_nonce_is_promoted_by_automine():
    c = make_chain()
    c.submit_raw(signed(EWOQ, 1))
    assert c.head.number == 0 and len(c.pool) == 1
    c.submit_raw(signed(EWOQ, 0))
    assert c.head.number >= 1 and len(c.pool) == 0 and c.view().get_nonce(EWOQ_ADDR) == 2


# ------------------------------------------------------------------------------------ properties

KEYS = [Account.from_key((i + 1).to_bytes(32, "big")) for i in range(4)]
ADDRS = [bytes.fromhex(k.address[2:]) for k in KEYS]


def _funded_chain() -> EVMChain:
    c = make_chain()
    c.automine = False
    for a in ADDRS:
        c.edit_state(lambda st, a=a: st.set_balance(a, 10**18))
    return c


def _total(c: EVMChain) -> int:
    v = c.view()
    return sum(v.get_balance(a) for a in ADDRS)


transfers = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 10**17),
                               st.integers(1, 5 * 10**9), st.integers(0, 10**9)), min_size=1, max_size=12)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(transfers)
def test_transfers_conserve_supply_fees_to_blackhole(seq):
    """coreth: nothing is burned; the whole fee, gas used × effective gas price (base fee
    included), goes to the coinbase, BlackholeAddr."""
    c = _funded_chain()
    blackhole = bytes.fromhex("0100000000000000000000000000000000000000")
    before = _total(c) + c.view().get_balance(blackhole)
    blackhole_before = c.view().get_balance(blackhole)
    nonces = [0, 0, 0, 0]
    for src, dst, value, fee, tip in seq:
        tip = min(tip, fee)
        try:
            c.submit_raw(signed(KEYS[src], nonces[src], ADDRS[dst], value, fee, tip))
            nonces[src] += 1
        except ChainError:
            pass
    c.mine_pending()
    fees = 0
    for n in range(1, c.head.number + 1):
        fees += sum(rc[2] * rc[3] for rc in c.block(n).receipts)  # gas used × effective gas price
    blackhole_after = c.view().get_balance(blackhole)
    assert blackhole_after - blackhole_before == fees
    assert _total(c) + blackhole_after == before
    assert [c.view().get_nonce(a) for a in ADDRS] == nonces


def test_no_gas_refund_for_storage_clears_and_selfdestruct():
    """coreth after Apricot Phase 1 (state_transition.go refundGas): the SSTORE-clear refund
    counter is never paid out; gasUsed is all the gas the tx consumed, and sender and blackhole
    balances move by gasUsed × effective gas price."""
    c = make_chain()
    clearer, destructor = b"\xc1" * 20, b"\xd1" * 20
    beneficiary = b"\xbe" * 20
    # SSTORE(0, CALLDATALOAD(0)); STOP   and   SELFDESTRUCT(beneficiary)
    c.edit_state(lambda st: (st.set_code(clearer, bytes.fromhex("60003560005500")), st.set_storage(clearer, 0, 7),
                             st.set_code(destructor, bytes.fromhex("73" + beneficiary.hex() + "ff")),
                             st.set_balance(destructor, 5), st.set_balance(beneficiary, 1)))
    blackhole = bytes.fromhex("0100000000000000000000000000000000000000")
    # intrinsic 21000 + 32 zero calldata bytes × 4; PUSH1, CALLDATALOAD, PUSH1: 9; SSTORE of a cold
    # slot, 7 -> 0: 2100 + 2900 (Cancun would refund 4800 of it)
    clear_gas = 21000 + 128 + 9 + 5000
    # intrinsic 21000; PUSH20 3; SELFDESTRUCT 5000 + 2600 for the cold beneficiary
    destruct_gas = 21000 + 3 + 5000 + 2600
    for to, data, expected in ((clearer, b"\x00" * 32, clear_gas), (destructor, b"", destruct_gas)):
        v = c.view()
        sender_before, blackhole_before = v.get_balance(EWOQ_ADDR), v.get_balance(blackhole)
        raw = bytes(EWOQ.sign_transaction({
            "chainId": 43112, "nonce": v.get_nonce(EWOQ_ADDR), "to": to_checksum_address(to), "value": 0,
            "gas": expected, "data": data, "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 3, "type": 2,
        }).raw_transaction)
        c.submit_raw(raw)
        c.mine_pending()
        status, _, used, price, _, _ = c.block(c.head.number).receipts[0]
        assert (status, used) == (1, expected)  # exactly the gas limit: nothing refunded, nothing left
        assert price == c.head.header.base_fee_per_gas + 3
        v = c.view()
        assert sender_before - v.get_balance(EWOQ_ADDR) == used * price
        assert v.get_balance(blackhole) - blackhole_before == used * price
    v = c.view()
    assert v.get_storage(clearer, 0) == 0 and v.get_balance(beneficiary) == 6


bad_txs = st.sampled_from(["nonce_low", "poor", "fee_low", "intrinsic", "wrong_chain"])


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(bad_txs, min_size=1, max_size=5))
def test_invalid_txs_change_nothing(kinds):
    c = _funded_chain()
    c.automine = True
    c.submit_raw(signed(KEYS[0], 0))
    root, head, pool = c.state_root, c.head.hash, len(c.pool)
    poor = Account.from_key((99).to_bytes(32, "big"))
    for kind in kinds:
        raw = {
            "nonce_low": lambda: signed(KEYS[0], 0),
            "poor": lambda: signed(poor, 0, value=1),
            "fee_low": lambda: signed(KEYS[1], 0, fee=0, tip=0),
            "intrinsic": lambda: signed(KEYS[1], 0, gas=20_000),
            "wrong_chain": lambda: bytes(KEYS[1].sign_transaction({
                "chainId": 1, "nonce": 0, "to": "0x" + "11" * 20, "value": 1, "gas": 21000,
                "maxFeePerGas": 10**9, "maxPriorityFeePerGas": 1}).raw_transaction),
        }[kind]()
        with pytest.raises(ChainError):
            c.submit_raw(raw)
    assert (c.state_root, c.head.hash, len(c.pool)) == (root, head, pool)


# ------------------------------------------------------------------------------------ determinism


def _replay() -> tuple[bytes, bytes]:
    c = make_chain()
    c.automine = False
    for n in range(30):
        c.submit_raw(signed(EWOQ, n, to=(n * 7919 % 997).to_bytes(20, "big"), value=n + 1))
    c.mine_pending()
    c.mine_empty(3)
    return c.head.hash, c.state_root


def test_same_inputs_same_chain():
    assert _replay() == _replay()


def test_static_calls_on_one_block_share_a_state_and_keep_nothing():
    """static_call keeps its state for the next calls on the same block: each call's writes are
    reverted, a failing call leaves it usable, and another block reads its own state."""
    c = make_chain()
    counter = b"\xc3" * 20  # SSTORE(0, SLOAD(0) + 1), returns the new value
    c.edit_state(lambda s: s.set_code(counter, bytes.fromhex("6000546001018060005560005260206000f3")))
    row = c.block_row(c.build_block().number)
    one = (1).to_bytes(32, "big")
    assert c.static_call(row, counter, b"") == one
    assert c.static_call(row, counter, b"") == one
    assert c.static_call(row, counter, b"", gas=20_000) is None  # below the intrinsic gas
    assert c.static_call(row, counter, b"") == one
    c.edit_state(lambda s: s.set_storage(counter, 0, 41))
    later = c.block_row(c.build_block().number)
    assert c.static_call(later, counter, b"") == (42).to_bytes(32, "big")
    assert c.static_call(row, counter, b"") == one


def test_node_cache_returns_private_copies():
    from trie import HexaryTrie

    from simnode.store import Store
    from simnode.vms.evm import speedups
    from simnode.vms.evm.db import StoreKV
    db = StoreKV(Store.memory(), b"t/")
    t = HexaryTrie(db)
    for i in range(50):
        t[bytes([i]) * 32] = b"v" * (i + 1)
    root = t.root_hash
    n1 = speedups.cached_get_node(t, root)
    assert root in db.decoded_nodes  # the chain's own cache
    n1[0] = b"mutated"
    assert speedups.cached_get_node(t, root)[0] != b"mutated"
    assert speedups.fast_bytes_to_nibbles(b"\x12\xab") == (1, 2, 10, 11)
    assert HexaryTrie(db, root)[bytes([7]) * 32] == b"v" * 8


def test_dump_and_load_state_round_trip():
    from simnode.vms.evm.dev import dump_state, load_state

    c = make_chain()
    c.submit_raw(signed(EWOQ, 0, value=123))
    c.edit_state(lambda st: (st.set_code(b"\x33" * 20, b"\x60\x00"), st.set_storage(b"\x33" * 20, 5, 9)))
    api = SimpleNamespace(chain=c)
    doc = dump_state(api)
    c2 = make_chain()
    load_state(SimpleNamespace(chain=c2), doc)
    assert c2.state_root == c.state_root
    assert c2.view().get_storage(b"\x33" * 20, 5) == 9 and c2.view().get_balance(b"\x11" * 20) == 123


def test_block_size_is_the_length_of_the_block_rlp():
    """coreth's block RLP is [header, txs, uncles, version u32, extData]; subnet-EVM's has no
    version or extData (and no withdrawals)."""
    chain = make_chain()
    legacy = bytes(EWOQ.sign_transaction({"chainId": 43112, "nonce": 0, "to": to_checksum_address(b"\x22" * 20),
                                          "value": 1, "gas": 21000, "gasPrice": 10**9}).raw_transaction)
    typed = signed(EWOQ, 1)
    big = signed(EWOQ, 2, gas=200_000)
    header_rlp = chain.head.header.encode()
    for raws in ([], [legacy], [typed], [legacy, typed, big] * 40):
        txs = [r if r[0] < 0x80 else rlp.decode(r) for r in raws]
        for ext in (b"", b"\x00" * 300):
            coreth_block = [rlp.decode(header_rlp), txs, [], 0, ext]
            assert chain._block_size(header_rlp, raws, ext) == len(rlp.encode(coreth_block))
        chain.header_rules = replace(chain.header_rules, coreth=False)
        assert chain._block_size(header_rlp, raws, b"") == len(rlp.encode([rlp.decode(header_rlp), txs, []]))
        chain.header_rules = replace(chain.header_rules, coreth=True)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**256 - 1), st.binary(min_size=32, max_size=32),
       st.binary(min_size=32, max_size=32))
def test_account_rlp_matches_pyevm(nonce, balance, storage_root, code_hash):
    from eth.rlp.accounts import Account as PyEvmAccount

    from simnode.vms.evm.rules import account_from_rlp, account_rlp

    acct = PyEvmAccount(nonce, balance, storage_root, code_hash)
    encoded = rlp.encode(acct, sedes=PyEvmAccount)
    assert account_rlp(acct) == encoded
    assert account_from_rlp(encoded) == acct


def test_blockhash_is_read_from_the_block_rows():
    """BLOCKHASH answers the block rows' hashes (py-evm's number -> hash entries are not stored),
    after a restart too; a data dir written before, with those entries, reads them as stored."""
    store = Store.memory()
    c = make_chain(store)
    reader = b"\xb1" * 20  # returns BLOCKHASH(calldata word 0)
    c.edit_state(lambda s: s.set_code(reader, bytes.fromhex("600035406000526020600" + "0f3")))
    for n in range(3):
        c.submit_raw(signed(EWOQ, n))
    head = c.head.number
    assert not list(store.iterate(b"C/s/block-number-to-hash:"))
    again = make_chain(store)
    row = again.block_row(head)
    for chain in (c, again):
        assert [chain.static_call(row, reader, n.to_bytes(32, "big")) for n in range(head + 2)] == [
            c.block(n).hash for n in range(head)] + [bytes(32)] * 2  # BLOCKHASH(n) for n >= the block: 0
    old = b"\x0b" * 32  # an old data dir's stored entry answers as stored
    batch = store.batch()
    batch.changes[b"C/s/block-number-to-hash:1"] = rlp.encode(old)
    batch.commit()
    assert make_chain(store).static_call(row, reader, (1).to_bytes(32, "big")) == old
