"""The plain-transfer fast path (simnode/vms/evm/transfer.py) against py-evm's full path: random
transaction sequences, valid or not, must leave identical outcomes (same exception, or same
receipt and computation results), the same warm set and the same state root."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from types import SimpleNamespace

from eth.abc import SignedTransactionAPI
from eth.constants import BLANK_ROOT_HASH, EMPTY_UNCLE_HASH, SECPK1_N
from eth.db.account import AccountDB
from eth.vm.chain_context import ChainContext
from eth.vm.forks.cancun.headers import CancunBlockHeader
from eth_keys import keys
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from simnode.vms.evm import transfer
from simnode.vms.evm.evm_chain import EVMChain
from simnode.vms.evm.vmerrors import ChainError
from simnode.vms.evm.execution import CallArgs, Executor
from simnode.vms.evm.rules import BLACKHOLE, ZERO_HASH, AvalancheVM
from simnode.vms.evm.tracing.hooks import tracing_vm
from simnode.vms.evm.transfer import TransferComputation, is_plain_transfer

from .test_evm_engine import EWOQ, KEYS, make_chain, signed

CHAIN_ID = 43112
BASE_FEE = 7
PRIVATE_KEYS = [keys.PrivateKey((i + 1).to_bytes(32, "big")) for i in range(3)]
SENDERS = [k.public_key.to_canonical_address() for k in PRIVATE_KEYS]
RICH, POOR = 10**18, 10**6
FRESH = [bytes.fromhex("a1" * 20), bytes.fromhex("a2" * 20)]  # no account
EMPTY = bytes.fromhex("e0" * 20)  # an account in the trie with nonce 0, balance 0, no code
EMPTY_WITH_STORAGE = bytes.fromhex("e5" * 20)  # the same, with storage
CONTRACT = bytes.fromhex("c0" * 20)  # stores CALLVALUE at slot 0 (runs out of gas on 21000)
NEARLY_FULL = bytes.fromhex("ff" * 20)  # a balance a few wei short of 2**256
PRECOMPILES = [i.to_bytes(20, "big") for i in range(1, 11)]
# weighted towards accounts without code, so that most sequences take the fast path somewhere
RECIPIENTS = [*SENDERS, *FRESH, EMPTY, EMPTY_WITH_STORAGE, NEARLY_FULL, BLACKHOLE] * 3 + [CONTRACT, *PRECOMPILES]


@contextmanager
def fast_path(enabled: bool) -> Iterator[None]:
    transfer.FAST_TRANSFERS = enabled
    try:
        yield
    finally:
        transfer.FAST_TRANSFERS = True


@cache
def _base() -> tuple[EVMChain, bytes, bytes]:
    """A chain and two state roots to start from: the second with an almost full coinbase
    (so that fees overflow it)."""
    c = make_chain()
    c.automine = False

    def setup(s: AccountDB) -> None:
        for a, balance in zip(SENDERS, (RICH, RICH, POOR)):
            s.set_balance(a, balance)
        s.set_balance(EMPTY, 0)
        s.set_storage(EMPTY_WITH_STORAGE, 1, 42)
        s.set_code(CONTRACT, bytes.fromhex("34600055"))
        s.set_balance(NEARLY_FULL, 2**256 - 1 - 10)
    c.edit_state(setup)
    root = c.state_root
    c.edit_state(lambda s: s.set_balance(BLACKHOLE, 2**256 - 1 - 21000 * 50))
    return c, root, c.state_root


def _vm(chain: EVMChain, root: bytes, gas_limit: int) -> AvalancheVM:
    header = CancunBlockHeader(
        parent_hash=chain.head.hash, uncles_hash=EMPTY_UNCLE_HASH, coinbase=BLACKHOLE, state_root=root,
        transaction_root=BLANK_ROOT_HASH, receipt_root=BLANK_ROOT_HASH, bloom=0, difficulty=1,
        block_number=chain.head.number + 1, gas_limit=gas_limit, gas_used=0, timestamp=chain.head.header.timestamp,
        extra_data=b"", mix_hash=ZERO_HASH, nonce=b"\x00" * 8, base_fee_per_gas=BASE_FEE,
        withdrawals_root=BLANK_ROOT_HASH, blob_gas_used=0, excess_blob_gas=0, parent_beacon_block_root=ZERO_HASH)
    return chain.evm.get_vm(header)


def _sign(kind: str, key: keys.PrivateKey, nonce: int, to: bytes, value: int, gas: int, fee: int, tip: int,
          data: bytes, access_list: tuple) -> SignedTransactionAPI:
    builder = AvalancheVM.get_transaction_builder()
    if kind == "legacy":
        utx = builder.create_unsigned_transaction(nonce=nonce, gas_price=fee, gas=gas, to=to, value=value, data=data)
        return utx.as_signed_transaction(key, chain_id=CHAIN_ID)
    if kind == "access_list":
        utx = builder.new_unsigned_access_list_transaction(CHAIN_ID, nonce, fee, gas, to, value, data, access_list)
    elif kind == "dynamic":
        utx = builder.new_unsigned_dynamic_fee_transaction(CHAIN_ID, nonce, tip, fee, gas, to, value, data,
                                                            access_list)
    else:
        utx = builder.new_unsigned_blob_transaction(CHAIN_ID, nonce, tip, fee, gas, to, value, data, access_list,
                                                     1, [b"\x01" + b"\x00" * 31])
    return utx.as_signed_transaction(key)


def _apply(vm: AvalancheVM, cursor: SimpleNamespace, tx: SignedTransactionAPI, fast: bool) -> tuple[tuple, bool]:
    """What build_block and the next tx can observe of one application."""
    with fast_path(fast):
        try:
            receipt, comp = vm.apply_transaction(cursor, tx)
        except Exception as exc:  # noqa: BLE001 - both paths must fail the same way
            return ("refused", type(exc).__name__, str(exc)), False
    cursor.gas_used = receipt.gas_used
    state = vm.state
    warm = (state.is_address_warm(tx.sender), state.is_address_warm(tx.to), state.is_address_warm(CONTRACT),
            state.is_address_warm(FRESH[0]), state.is_storage_warm(CONTRACT, 0), state.is_storage_warm(CONTRACT, 1))
    outcome = ("applied", receipt.encode(), receipt.bloom, comp.is_error, comp.get_gas_remaining(),
               comp.get_gas_refund(), comp.output, tuple(comp.get_log_entries()), warm)
    return outcome, isinstance(comp, TransferComputation)


tx_specs = st.tuples(
    st.sampled_from(["legacy", "legacy", "dynamic", "dynamic", "dynamic", "access_list", "blob"]),
    st.integers(0, 2),  # sender
    st.sampled_from(RECIPIENTS),
    st.one_of(st.just(0), st.integers(1, 10**6), st.integers(10**17, 2 * 10**18)),  # value
    st.sampled_from([0] * 8 + [1, -1]),  # nonce offset
    st.sampled_from([21000, 21000, 21000, 20999, 26000, 100_000]),  # gas
    st.sampled_from([BASE_FEE, BASE_FEE + 1, BASE_FEE + 2, 10**9, BASE_FEE - 1, 0]),  # max fee (legacy: price)
    st.sampled_from([0, 1, 3, 10**9 + 1]),  # tip
    st.sampled_from([b""] * 8 + [b"\x00", b"\x01\x02"]),  # data
    st.sampled_from([(), ((CONTRACT, ()),), ((CONTRACT, (0, 1)), (FRESH[0], ()))]),  # access list
    st.sampled_from([False] * 9 + [True]),  # a high s: refused by tx.validate() or by the state
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(tx_specs, min_size=1, max_size=10), st.booleans(), st.sampled_from([10**7, 70_000]))
def test_fast_path_matches_full_execution(specs, full_coinbase, gas_limit):
    chain, root, root_full_coinbase = _base()
    start = root_full_coinbase if full_coinbase else root
    fast_vm, full_vm = _vm(chain, start, gas_limit), _vm(chain, start, gas_limit)
    fast_cursor = SimpleNamespace(gas_used=0, gas_limit=gas_limit)
    full_cursor = SimpleNamespace(gas_used=0, gas_limit=gas_limit)
    for kind, sender, to, value, nonce_offset, gas, fee, tip, data, access_list, high_s in specs:
        nonce = max(0, full_vm.state.get_nonce(SENDERS[sender]) + nonce_offset)
        tx = _sign(kind, PRIVATE_KEYS[sender], nonce, to, value, gas, fee, tip, data, access_list)
        if high_s:
            tx = tx.copy(s=SECPK1_N - tx.s)
        fast_outcome, took_fast_path = _apply(fast_vm, fast_cursor, tx, True)
        full_outcome, _ = _apply(full_vm, full_cursor, tx, False)
        assert fast_outcome == full_outcome
        event(f"fast path taken: {took_fast_path}")
    assert fast_vm.state.make_state_root() == full_vm.state.make_state_root()


def test_fast_path_edge_cases():
    chain, root, _ = _base()
    vm = _vm(chain, root, 10**7)
    cursor = SimpleNamespace(gas_used=0, gas_limit=10**7)
    state = vm.state
    key, sender = PRIVATE_KEYS[0], SENDERS[0]
    coinbase_before = state.get_balance(BLACKHOLE)

    def send(to: bytes, value: int, tip: int = 0, fee: int = BASE_FEE) -> TransferComputation:
        tx = _sign("dynamic", key, state.get_nonce(sender), to, value, 21000, fee, tip, b"", ())
        receipt, comp = vm.apply_transaction(cursor, tx)
        cursor.gas_used = receipt.gas_used
        assert isinstance(comp, TransferComputation) and not comp.is_error and receipt.logs == ()
        return comp

    send(FRESH[0], 0)  # EIP-161: a zero transfer does not create the account
    assert not state.account_exists(FRESH[0])
    send(EMPTY, 0)  # ... and removes a touched empty one, storage and all
    send(EMPTY_WITH_STORAGE, 0)
    assert not state.account_exists(EMPTY) and not state.account_exists(EMPTY_WITH_STORAGE)
    before = state.get_balance(sender)
    send(sender, 5, tip=2, fee=BASE_FEE + 2)  # to self: pays only gas
    assert state.get_balance(sender) == before - 21000 * (BASE_FEE + 2)
    # the whole fee of all four, base fee included (coreth burns nothing: it goes to the blackhole)
    assert state.get_balance(BLACKHOLE) == coinbase_before + 21000 * (3 * BASE_FEE + BASE_FEE + 2)
    send(FRESH[1], 1)
    assert state.get_balance(FRESH[1]) == 1 and cursor.gas_used == 5 * 21000


def test_other_transactions_take_the_full_path():
    chain, root, _ = _base()
    state = _vm(chain, root, 10**7).state
    key = PRIVATE_KEYS[0]

    def plain(to: bytes, data: bytes = b"", kind: str = "dynamic", gas: int = 21000, value: int = 1) -> bool:
        return is_plain_transfer(state, _sign(kind, key, 0, to, value, gas, BASE_FEE, 0, data, ()))

    assert plain(FRESH[0]) and plain(SENDERS[1]) and plain(BLACKHOLE) and plain(FRESH[0], kind="legacy")
    assert not plain(CONTRACT)
    assert not any(plain(p) for p in PRECOMPILES)
    assert not plain(FRESH[0], data=b"\x00") and not plain(FRESH[0], kind="blob")
    assert not plain(FRESH[0], gas=20999)
    assert plain(NEARLY_FULL, value=10) and not plain(NEARLY_FULL, value=11)  # the credit would overflow
    # debug tracing's computation class must see every message
    header = _vm(chain, root, 10**7).get_header()
    traced = tracing_vm(chain.vm_class)(header=header, chaindb=chain.evm.chaindb, chain_context=ChainContext(chain.evm_chain_id),
                                        consensus_context=chain.evm.consensus_context).state
    assert not is_plain_transfer(traced, _sign("dynamic", key, 0, FRESH[0], 1, 21000, BASE_FEE, 0, b"", ()))


def _chain_run(seq: list[tuple[int, int, int, int, int]], fast: bool) -> tuple:
    c = make_chain()
    c.automine = False
    for i in range(3):
        c.edit_state(lambda s, i=i: s.set_balance(bytes.fromhex(KEYS[i].address[2:]), 10**18 if i < 2 else 10**14))
    nonces = [0, 0, 0]
    for src, dst, value, nonce_offset, tip in seq:
        to = bytes.fromhex(KEYS[dst].address[2:]) if dst < 3 else FRESH[dst - 3]
        try:
            c.submit_raw(signed(KEYS[src], max(0, nonces[src] + nonce_offset), to, value, 10**9, tip))
            nonces[src] += 1
        except ChainError:
            pass
    with fast_path(fast):
        c.mine_pending()
    return c.head.hash, c.state_root, [c.block(n).receipts for n in range(1, c.head.number + 1)]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 4), st.sampled_from([0, 1, 10**14, 9 * 10**17]),
                          st.sampled_from([0, 0, 1]), st.sampled_from([0, 1, 10**9])), min_size=1, max_size=8))
def test_blocks_are_identical_with_and_without_fast_path(seq):
    assert _chain_run(seq, True) == _chain_run(seq, False)


def test_eth_call_and_estimate_unchanged():
    c = make_chain()
    ewoq = bytes.fromhex(EWOQ.address[2:])
    c.submit_raw(signed(EWOQ, 0, to=FRESH[0], value=3))
    ex = Executor(c)
    results = []
    for fast in (True, False):
        with fast_path(fast):
            for to, value, price in ((FRESH[0], 0, None), (FRESH[1], 10**9, None), (FRESH[1], 1, 10**9),
                                     (PRECOMPILES[1], 1, None)):
                args = CallArgs(sender=ewoq, to=to, gas=None, gas_price=price, max_fee=None, tip=None,
                                value=value, data=b"", nonce=None, access_list=None)
                results.append((ex.call_detailed(args, None), ex.estimate(args, None)))
    assert results[:4] == results[4:]
    assert results[0] == ({"gas": 21000, "errCode": 0, "err": "", "returnData": "0x"}, 21000)
