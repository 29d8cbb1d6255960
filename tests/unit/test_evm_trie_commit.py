"""Batched trie commits (trie_commit.py) against py-trie's HexaryTrie: same roots, same node
encodings, every key readable from the new root; and whole blocks (transfers, an ERC-20-like
token) give the same state roots with the batched commit as with py-evm's own."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
import rlp
from eth.db.account import AccountDB
from eth.db.atomic import AtomicDB
from eth.rlp.accounts import Account as StateAccount
from eth_account import Account
from eth_utils import ValidationError, to_checksum_address
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from trie import HexaryTrie
from trie.exceptions import MissingTrieNode

from simnode.crypto.hashing import keccak256
from simnode.vms.evm import trie_commit
from simnode.vms.evm.rules import FastAccountDB, account_from_rlp
from simnode.vms.evm.rlpcodec import decode, encode, item_length, list_header
from simnode.vms.evm.trie_commit import BLANK_ROOT, commit_updates

from .test_evm_engine import EWOQ, KEYS, make_chain, signed

# ------------------------------------------------------------------------------------ helpers


def _stored_items(db: Mapping[bytes, bytes], root: bytes) -> dict[bytes, bytes]:
    """Every key -> value reachable from `root`, read with pyrlp from `db` alone (no caches)."""
    out: dict[bytes, bytes] = {}

    def walk(ref: bytes | list, path: str) -> None:
        if ref == b"":
            return
        node = ref if isinstance(ref, list) else rlp.decode(db[ref])
        if len(node) == 17:
            assert node[16] == b""
            for i in range(16):
                walk(node[i], path + "0123456789abcdef"[i])
            return
        h = node[0].hex()
        path += h[1:] if h[0] in "13" else h[2:]
        if node[0][0] >= 0x20:
            out[bytes.fromhex(path)] = node[1]
        else:
            walk(node[1], path)

    if root != BLANK_ROOT:
        walk(root, "")
    return out


BASE = bytes(range(100, 132))


@st.composite
def trie_keys(draw: st.DrawFn) -> bytes:
    """Random keys, and keys sharing a long prefix (down to the nibble) with one base key."""
    if draw(st.booleans()):
        return draw(st.binary(min_size=32, max_size=32))
    nibbles = draw(st.integers(0, 64))
    tail = draw(st.binary(min_size=32, max_size=32))
    return bytes.fromhex(BASE.hex()[:nibbles] + tail.hex()[nibbles:])


# small values make leaves (and branches deep in shared prefixes) shorter than 32 bytes: embedded
values = st.one_of(st.none(), st.just(b""), st.binary(min_size=1, max_size=3), st.binary(min_size=1, max_size=90))


@st.composite
def batches(draw: st.DrawFn) -> list[list[tuple[bytes, bytes | None]]]:
    out = []
    seen: list[bytes] = []
    for _ in range(draw(st.integers(1, 4))):
        batch = []
        for _ in range(draw(st.integers(0, 25))):
            # overwrite or delete a key written earlier, or a new / missing one
            key = draw(st.sampled_from(seen)) if seen and draw(st.booleans()) else draw(trie_keys())
            seen.append(key)
            batch.append((key, draw(values)))
        out.append(batch)
    return out


# ------------------------------------------------------------------------------------ properties


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches())
def test_batches_match_hexary_trie(batches_):
    ref_db: dict[bytes, bytes] = {}
    ref = HexaryTrie(ref_db)
    db: dict[bytes, bytes] = {}
    root = BLANK_ROOT
    model: dict[bytes, bytes] = {}
    history = []
    for batch in batches_:
        updates = dict(batch)
        for key, value in updates.items():
            ref[key] = value or b""
            if value:
                model[key] = value
            else:
                model.pop(key, None)
        root = commit_updates(db, root, updates)
        assert root == ref.root_hash
        # every node written is one py-trie wrote, with the same encoding
        assert all(ref_db[k] == v for k, v in db.items())
        assert _stored_items(db, root) == model
        trie_commit._node_cache.clear()  # py-trie must read from `db` alone
        reader = HexaryTrie(db, root)
        assert all(reader[k] == v for k, v in model.items())
        history.append((root, dict(model)))
    assert all(_stored_items(db, r) == m for r, m in history)  # old roots stay readable


def test_empty_and_emptied_trie():
    db: dict[bytes, bytes] = {}
    assert commit_updates(db, BLANK_ROOT, {}) == BLANK_ROOT
    assert commit_updates(db, BLANK_ROOT, {b"\x01" * 32: None}) == BLANK_ROOT
    assert db == {}
    ref = HexaryTrie({})
    ref[b"\x01" * 32] = b"\x05"
    root = commit_updates(db, BLANK_ROOT, {b"\x01" * 32: b"\x05"})
    assert root == ref.root_hash
    assert db == {root: encode([bytes.fromhex("20" + "01" * 32), b"\x05"])}  # one leaf, py-trie's encoding
    assert commit_updates(db, root, {b"\x01" * 32: b""}) == BLANK_ROOT


def test_missing_node_raises_missing_trie_node():
    db: dict[bytes, bytes] = {}
    keys = [bytes([16 * i + 3]) * 32 for i in range(16)]  # the root branch holds 16 hashed leaves
    root = commit_updates(db, BLANK_ROOT, {k: b"v" * 40 for k in keys})
    child = rlp.decode(db[root])[5]
    del db[child]
    trie_commit._node_cache.clear()
    with pytest.raises(MissingTrieNode) as info:
        commit_updates(db, root, {keys[5]: b"new"})
    assert info.value.missing_node_hash == child and info.value.requested_key == keys[5]
    assert info.value.root_hash == root and tuple(info.value.prefix) == (5,)


def test_keys_must_be_32_bytes():
    with pytest.raises(ValueError):
        commit_updates({}, BLANK_ROOT, {b"short": b"v"})


rlp_items = st.recursive(st.binary(max_size=70), lambda inner: st.lists(inner, max_size=20), max_leaves=60)


@settings(max_examples=300, deadline=None)
@given(rlp_items)
def test_rlp_codec_matches_pyrlp(item):
    enc = encode(item)
    assert enc == rlp.encode(item)
    assert decode(enc) == item
    if isinstance(item, list):
        assert enc == list_header(len(enc) - _header_len(enc)) + enc[_header_len(enc):]
        assert item_length(len(enc) - _header_len(enc)) == len(enc)


def _header_len(enc: bytes) -> int:
    return 1 if enc[0] < 0xF8 else 1 + enc[0] - 0xF7


@given(st.integers(0, 2**40))
def test_list_header_and_item_length_match_pyrlp(n):
    assert list_header(n) == rlp.codec.length_prefix(n, 0xC0)
    assert item_length(n) == len(rlp.codec.length_prefix(n, 0x80)) + n


def test_py_trie_reads_embedded_nodes():
    # two keys sharing 63 nibbles: their leaves (and the branch holding them) are embedded
    k1, k2 = b"\x00" * 31 + b"\x01", b"\x00" * 31 + b"\x02"
    db: dict[bytes, bytes] = {}
    t = HexaryTrie(db)
    t[k1], t[k2] = b"a", b"b"
    assert HexaryTrie(db, t.root_hash)[k1] == b"a"
    assert commit_updates({}, BLANK_ROOT, {k1: b"a", k2: b"b"}) == t.root_hash


# ------------------------------------------------------------------------------------ AccountDB

ADDRESSES = [bytes([i]) * 20 for i in range(1, 5)]
SLOTS = [0, 1, 2, 2**255 + 7]
addr_i = st.integers(0, len(ADDRESSES) - 1)
account_ops = st.lists(st.one_of(
    st.tuples(st.just("balance"), addr_i, st.integers(0, 10**20)),
    st.tuples(st.just("nonce"), addr_i, st.integers(0, 5)),
    st.tuples(st.just("storage"), addr_i, st.sampled_from(SLOTS), st.sampled_from([0, 0, 1, 2**200])),
    st.tuples(st.just("code"), addr_i, st.binary(max_size=3)),
    st.tuples(st.just("delete_account"), addr_i),
    st.tuples(st.just("delete_storage"), addr_i),
    st.tuples(st.just("touch"), addr_i),
    st.tuples(st.sampled_from(["record", "discard", "commit", "lock", "root", "persist"])),
), max_size=60)


def _apply_op(db: AccountDB, op: tuple, checkpoints: list) -> None:
    kind, args = op[0], op[1:]
    if kind == "record":
        checkpoints.append(db.record())
    elif kind in ("discard", "commit"):
        getattr(db, kind)(checkpoints.pop())
    elif kind == "lock":
        db.lock_changes()
    elif kind == "root":
        db.make_state_root()
    elif kind == "persist":
        db.persist()
    else:
        a = ADDRESSES[args[0]]
        {"balance": lambda: db.set_balance(a, args[1]), "nonce": lambda: db.set_nonce(a, args[1]),
         "storage": lambda: db.set_storage(a, args[1], args[2]), "code": lambda: db.set_code(a, args[1]),
         "delete_account": lambda: db.delete_account(a), "delete_storage": lambda: db.delete_storage(a),
         "touch": lambda: db.touch_account(a)}[kind]()


def _reads(db: AccountDB) -> list:
    return [(db.account_exists(a), db.get_balance(a), db.get_nonce(a), db.get_code(a),
             [db.get_storage(a, s) for s in SLOTS]) for a in ADDRESSES]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(account_ops)
# a slot value cached before the commit must not outlive it
@example([("storage", 0, 1, 1), ("persist",), ("storage", 0, 1, 2), ("root",)])
# storage wiped in the block, then rewritten; and a wipe rolled back
@example([("storage", 0, 1, 1), ("persist",), ("delete_storage", 0), ("storage", 0, 2, 5), ("persist",)])
@example([("storage", 1, 0, 3), ("persist",), ("record",), ("delete_account", 1), ("discard",), ("storage", 1, 2, 4),
          ("persist",)])
def test_account_db_matches_py_evm(ops):
    """FastAccountDB (batched commits) and py-evm's AccountDB go through the same journal,
    checkpoint and commit sequence: same roots, same reads, same nodes persisted."""
    raw = {"batched": AtomicDB(), "py-evm": AtomicDB()}
    dbs = {"batched": FastAccountDB(raw["batched"]), "py-evm": AccountDB(raw["py-evm"])}
    checkpoints: dict[str, list] = {name: [] for name in dbs}
    closing = [("commit",)] * ops.count(("record",))  # whatever is still open, then the block ends
    for op in [*ops, *closing, ("persist",)]:
        if op[0] in ("discard", "commit") and not checkpoints["batched"]:
            continue
        if op[0] in ("lock", "root", "persist") and checkpoints["batched"]:
            continue  # block-level steps run outside transactions
        rejected = []
        for name, db in dbs.items():
            try:
                _apply_op(db, op, checkpoints[name])
            except ValidationError as exc:
                rejected.append(str(exc))
        if rejected:  # a sequence py-evm refuses (e.g. a revert across two storage wipes)
            assert len(rejected) == 2 and rejected[0] == rejected[1]
            return
        if op[0] in ("root", "persist"):
            batched, py_evm = dbs["batched"], dbs["py-evm"]
            assert batched.state_root == py_evm.state_root
            assert batched.has_root(batched.state_root) == py_evm.has_root(py_evm.state_root)
        assert _reads(dbs["batched"]) == _reads(dbs["py-evm"])
    root = dbs["batched"].state_root
    trie_commit._node_cache.clear()
    persisted = {}
    for name, db in raw.items():
        accounts = _stored_items(db, root)
        storage = {k: _stored_items(db, rlp.decode(v, sedes=StateAccount).storage_root) for k, v in accounts.items()}
        persisted[name] = (accounts, storage)
    assert persisted["batched"] == persisted["py-evm"]


# ------------------------------------------------------------------------------------ blocks

TOKEN = b"\x70" * 20
# transfer(to, amount) with calldata = to (32 bytes) ++ amount (32 bytes); balances at
# keccak(holder). A transfer of the whole balance zeroes the slot: a storage delete.
TOKEN_CODE = bytes.fromhex(
    "33600052"  # mstore(0, caller)
    "6020600020"  # keccak(0, 32): the sender's slot
    "8054602035900390" "55"  # sstore(slot, sload(slot) - amount)
    "600035600052"  # mstore(0, to)
    "6020600020"  # the recipient's slot
    "805460203501" "9055"  # sstore(slot, sload(slot) + amount)
    "00"
)
EMPTY = b"\x71" * 20  # in the trie but empty: a 0-value transfer touches it and EIP-161 deletes it
DRAINERS = [Account.from_key((50 + i).to_bytes(32, "big")) for i in range(2)]


def _slot(holder: bytes) -> int:
    return int.from_bytes(keccak256(holder.rjust(32, b"\x00")), "big")


def _token_call(acct, nonce: int, to: bytes, amount: int) -> bytes:
    tx = {"chainId": 43112, "nonce": nonce, "to": to_checksum_address(TOKEN), "value": 0, "gas": 100_000,
          "maxFeePerGas": 10**9, "maxPriorityFeePerGas": 1, "type": 2,
          "data": to.rjust(32, b"\x00") + amount.to_bytes(32, "big")}
    return bytes(acct.sign_transaction(tx).raw_transaction)


def _run_blocks() -> list[bytes]:
    """State roots of a run of blocks: transfers to new accounts, token transfers (new slots,
    updates, deletes), an EIP-161 account deletion."""
    c = make_chain()
    c.automine = False
    senders = [*KEYS, *DRAINERS]
    addr = {a.address: bytes.fromhex(a.address[2:]) for a in senders}
    tokens = {addr[a.address]: 1000 * (i + 1) for i, a in enumerate(senders)}

    def setup(acct_db) -> None:
        acct_db.set_code(TOKEN, TOKEN_CODE)
        for holder, amount in tokens.items():
            acct_db.set_balance(holder, 10**18)
            acct_db.set_storage(TOKEN, _slot(holder), amount)
        acct_db.set_balance(EMPTY, 0)

    c.edit_state(setup)
    nonces = {a.address: 0 for a in [EWOQ, *senders]}

    def send(acct, raw) -> None:
        c.submit_raw(raw(acct, nonces[acct.address]))
        nonces[acct.address] += 1

    def token_transfer(acct, to: bytes, amount: int) -> None:
        send(acct, lambda a, nonce: _token_call(a, nonce, to, amount))
        tokens[addr[acct.address]] -= amount
        tokens[to] = tokens.get(to, 0) + amount

    roots = [c.state_root]
    for block in range(12):
        for n in range(block % 4 + 1):
            to = (block * 31 + n + 1).to_bytes(20, "big")
            send(EWOQ, lambda a, nonce: signed(a, nonce, to=to, value=n + 1))  # noqa: B023 - called at once
        token_transfer(KEYS[block % 4], addr[KEYS[(block + 1) % 4].address], 7 + block)
        if block % 3 == 0:
            token_transfer(KEYS[3], (0xABC0 + block).to_bytes(20, "big"), 1)
        if block in (2, 7):
            drainer = DRAINERS[block // 5]
            token_transfer(drainer, addr[KEYS[0].address], tokens[addr[drainer.address]])
        if block == 6:
            send(EWOQ, lambda a, nonce: signed(a, nonce, to=EMPTY, value=0))
        c.mine_pending()
        roots.append(c.state_root)
    view = c.view()
    assert c.head.number == 12 and not view.account_exists(EMPTY)
    assert all(view.get_storage(TOKEN, _slot(h)) == v for h, v in tokens.items())
    # every node of the final state is in the chain's db (no node cache to help)
    trie_commit._node_cache.clear()
    accounts = _stored_items(c.db, c.state_root)
    token = account_from_rlp(accounts[keccak256(TOKEN)])  # coreth's five-field account
    slots = _stored_items(c.db, token.storage_root)
    assert len(slots) == sum(1 for v in tokens.values() if v)
    return roots


def test_blocks_same_state_roots_as_py_evm(monkeypatch):
    batched = _run_blocks()
    assert len(set(batched)) == 13  # every block changed the state
    monkeypatch.setattr(FastAccountDB, "make_state_root", AccountDB.make_state_root)
    assert _run_blocks() == batched
