"""Staker removals as AvalancheGo builds them: a BanffProposalBlock (RewardValidatorTx) + BanffCommitBlock.

Byte layouts from vms/platformvm/block (serialization_test.go's known answers), pair order from
builder.getNextStakerToReward, one store batch per pair from block/executor/acceptor.go.
"""

from __future__ import annotations

import hashlib

import pytest

from simnode.codec import CodecError
from simnode.crypto import bls
from simnode.formats import encode_bytes, id_to_str, node_id_to_str
from simnode.store import Store
from simnode.vms.platform import blocks
from simnode.vms.platform import txs as t
from simnode.vms.platform.wallet import PBuilder, address_of
from simnode.vms.platform.json_forms import block_json
from simnode.vms.platform.state import PRIMARY

from .platform_helpers import EWOQ, new_vm
from .test_platform_restart import _vm

DAY = 24 * 3600
AVAX = 10**9
PARENT = hashlib.sha256(b"parent").digest()
STAKER = hashlib.sha256(b"staker").digest()


def node(i: int) -> bytes:
    return hashlib.sha256(f"pair-node-{i}".encode()).digest()[:20]


def blskey(i: int) -> bls.SecretKey:
    return bls.secret_key_from_seed(hashlib.sha256(f"pair-bls-{i}".encode()).digest())


def addr(x: bytes) -> str:
    return "P-local1" + x.hex()


# ------------------------------------------------------------------ byte layouts


def test_commit_block_bytes_match_avalanchego():
    # serialization_test.go: an all-zero BanffCommitBlock
    assert blocks.encode_commit_block(0, bytes(32), 0) == bytes.fromhex("0000" "0000001f") + bytes(48)
    raw = blocks.encode_commit_block(1234, PARENT, 7)
    assert raw == bytes.fromhex("0000" "0000001f") + (1234).to_bytes(8, "big") + PARENT + (7).to_bytes(8, "big")
    b = blocks.decode_block(raw)
    assert (b.type_id, b.time, b.parent_id, b.height, b.txs, b.proposal_tx) == (31, 1234, PARENT, 7, (), None)


def test_proposal_block_bytes_layout_and_round_trip():
    reward = t.sign_tx(t.RewardValidatorTx(STAKER), [])
    assert reward.tx_bytes == bytes.fromhex("0000" "00000014") + STAKER + bytes(4)
    raw = blocks.encode_proposal_block(1234, PARENT, 7, reward.tx_bytes)
    # Time, Transactions (decision txs), then the embedded ApricotProposalBlock: CommonBlock, Tx
    assert raw == (bytes.fromhex("0000" "0000001d") + (1234).to_bytes(8, "big") + bytes(4) + PARENT
                   + (7).to_bytes(8, "big") + bytes.fromhex("00000014") + STAKER + bytes(4))
    b = blocks.decode_block(raw)
    assert (b.type_id, b.time, b.parent_id, b.height, b.txs) == (29, 1234, PARENT, 7, ())
    assert b.proposal_tx.tx_bytes == reward.tx_bytes and b.proposal_tx.tx_id == reward.tx_id
    # decision txs sit between the time and the parent ID
    decision = t.sign_tx(t.RewardValidatorTx(PARENT), [])
    with_decision = (raw[:14] + (1).to_bytes(4, "big") + decision.tx_bytes[2:] + raw[18:])
    b = blocks.decode_block(with_decision)
    assert [s.tx_id for s in b.txs] == [decision.tx_id] and b.proposal_tx.tx_id == reward.tx_id
    assert (b.parent_id, b.height) == (PARENT, 7)
    with pytest.raises(CodecError, match="trailing buffer space"):
        blocks.decode_block(raw + b"\x00")


def test_pair_block_json():
    reward = t.sign_tx(t.RewardValidatorTx(STAKER), [])
    raw = blocks.encode_proposal_block(1234, PARENT, 7, reward.tx_bytes)
    pid = id_to_str(blocks.block_id(raw))
    j = block_json(raw, addr)
    # BanffProposalBlockJSON's key order: time, txs, parentID, height, id, tx
    assert list(j) == ["time", "txs", "parentID", "height", "id", "tx"]
    assert j == {"time": 1234, "txs": [], "parentID": id_to_str(PARENT), "height": 7, "id": pid,
                 "tx": {"unsignedTx": {"txID": id_to_str(STAKER)}, "credentials": [], "id": id_to_str(reward.tx_id)}}
    commit = blocks.encode_commit_block(1234, blocks.block_id(raw), 8)
    assert block_json(commit, addr) == {"time": 1234, "parentID": pid, "height": 8,
                                        "id": id_to_str(blocks.block_id(commit))}


# ------------------------------------------------------------------ pairs built by the VM


def _stake(vm, t0: int) -> tuple[int, list, list]:
    """Two validators and two delegators ending at `end`, a permissioned subnet validator ending with them
    and another one ending a day earlier (alone). Returns (end, the stakers' txs, the subnet validators' txs)."""
    end = t0 + 10 * DAY
    txs_ = []
    for i in (1, 2):
        stx = PBuilder(vm, [EWOQ]).add_validator(node(i), end, 2000 * AVAX, blskey(i), 20_000 * i,
                                                 address_of(hashlib.sha256(b"vr%d" % i).digest()))
        vm.issue_tx(stx.tx_bytes)
        txs_.append(stx)
    for i in (1, 2):
        stx = PBuilder(vm, [EWOQ]).add_delegator(node(i), end, 30 * AVAX,
                                                 address_of(hashlib.sha256(b"dr%d" % i).digest()))
        vm.issue_tx(stx.tx_bytes)
        txs_.append(stx)
    sub = PBuilder(vm, [EWOQ]).create_subnet()
    vm.issue_tx(sub.tx_bytes)
    subnet_txs = []
    for i, e in ((1, end), (2, end - DAY)):
        stx = PBuilder(vm, [EWOQ]).add_subnet_validator(sub.tx_id, node(i), e, 5)
        vm.issue_tx(stx.tx_bytes)
        subnet_txs.append(stx)
    return end, txs_, subnet_txs


def _expected_order(vm, txs_) -> list[bytes]:
    """getNextStakerToReward, repeatedly: the current staker order (end, priority, txID)."""
    return [s.tx_id for s in sorted((vm.state.stakers[x.tx_id] for x in txs_),
                                    key=lambda s: (s.end, s.priority, s.tx_id))]


def test_each_staker_leaves_in_a_proposal_and_commit_pair():
    vm, svc, clock = new_vm()
    end, txs_, subnet_txs = _stake(vm, vm.next_block_time())
    order = _expected_order(vm, txs_)
    assert [vm.state.stakers[x].priority for x in order] == [10, 10, 11, 11]  # delegators first
    h0 = vm.height
    seen: list[tuple[int, bytes, list[bytes]]] = []
    vm.listeners.append(lambda h, bid, ids: seen.append((h, bid, ids)))

    clock.advance(end - clock.now() + 5)

    # the lone permissioned subnet validator: an empty standard block that advances time
    first = blocks.decode_block(vm.state.block_by_id(vm.state.block_id_at(h0 + 1)))
    assert (first.type_id, first.time, first.txs) == (t.BANFF_STANDARD_BLOCK, end - DAY, ())
    assert vm.height == h0 + 1 + 2 * len(order)
    parent = vm.state.block_id_at(h0 + 1)
    for k, staker_tx_id in enumerate(order):
        n = h0 + 2 + 2 * k
        pid, cid = vm.state.block_id_at(n), vm.state.block_id_at(n + 1)
        p, c = (blocks.decode_block(vm.state.block_by_id(x)) for x in (pid, cid))
        assert pid == blocks.block_id(vm.state.block_by_id(pid))
        assert (p.type_id, p.time, p.parent_id, p.height, p.txs) == (t.BANFF_PROPOSAL_BLOCK, end, parent, n, ())
        assert (c.type_id, c.time, c.parent_id, c.height) == (t.BANFF_COMMIT_BLOCK, end, pid, n + 1)
        assert p.proposal_tx.unsigned == t.RewardValidatorTx(staker_tx_id) and p.proposal_tx.credentials == ()
        reward_id = p.proposal_tx.tx_id
        hist = vm.state.get_history(staker_tx_id)
        assert hist["status"] == "completed" and hist["rewardTxID"] == reward_id and hist["endHeight"] == n
        assert vm.tx_status(reward_id) == ("Committed", None) and vm.state.get_tx(reward_id)[2] == n
        assert (n, pid, [reward_id]) in seen and (n + 1, cid, []) in seen
        parent = cid
    assert [h for h, _, _ in seen] == list(range(h0 + 1, vm.height + 1))
    # permissioned subnet validators leave in AdvanceTimeTo: the one ending with the others in the first
    # proposal's time advance (written with its commit), the lone one in the standard block
    ends = [vm.state.get_history(x.tx_id) for x in subnet_txs]
    assert [(e["status"], e["rewardTxID"], e["endHeight"]) for e in ends] == [("completed", None, h0 + 2),
                                                                              ("completed", None, h0 + 1)]
    assert not any(x.tx_id in vm.state.stakers for x in txs_ + subnet_txs)
    # validator sets change at the commit heights (where AvalancheGo writes the diff), not at the proposals
    n = vm.height - 1
    nid = node_id_to_str(vm.state.get_history(order[3])["nodeID"])
    at = svc["getValidatorsAt"]
    assert nid in at({"height": n}) and nid not in at({"height": n + 1})
    assert at({"height": n}) == at({"height": n - 1})


def test_get_block_by_height_for_proposal_and_commit():
    vm, svc, clock = new_vm()
    t0 = vm.next_block_time()
    stx = PBuilder(vm, [EWOQ]).add_validator(node(3), t0 + 2 * DAY, 2000 * AVAX, blskey(3))
    vm.issue_tx(stx.tx_bytes)
    h = vm.height
    clock.advance(2 * DAY + 1)
    assert vm.height == h + 2
    p = svc["getBlockByHeight"]({"height": str(h + 1), "encoding": "json"})
    assert p["encoding"] == "json" and list(p["block"]) == ["time", "txs", "parentID", "height", "id", "tx"]
    reward_id = vm.state.get_history(stx.tx_id)["rewardTxID"]
    assert p["block"]["tx"] == svc["getTx"]({"txID": id_to_str(reward_id), "encoding": "json"})["tx"]
    assert p["block"]["tx"]["unsignedTx"] == {"txID": id_to_str(stx.tx_id)}
    assert p["block"]["parentID"] == id_to_str(vm.state.block_id_at(h)) and p["block"]["height"] == h + 1
    c = svc["getBlockByHeight"]({"height": h + 2, "encoding": "json"})["block"]
    assert c == {"time": t0 + 2 * DAY, "parentID": p["block"]["id"], "height": h + 2,
                 "id": id_to_str(vm.state.meta.last_block_id)}
    for height, bid in ((h + 1, p["block"]["id"]), (h + 2, c["id"])):
        raw = vm.state.block_by_id(vm.state.block_id_at(height))
        hexed = svc["getBlockByHeight"]({"height": height, "encoding": "hex"})
        assert hexed == {"block": encode_bytes(raw, "hex"), "encoding": "hex"}
        assert svc["getBlock"]({"blockID": bid})["block"] == hexed["block"]
        assert svc["getBlock"]({"blockID": bid, "encoding": "json"})["block"]["id"] == bid
    assert svc["getHeight"]({}) == {"height": str(h + 2)}


# ------------------------------------------------------------------ crash and restart


def _run(store, clock, crash_on_commit: int | None = None) -> tuple[object, int, list]:
    vm = _vm(store, clock)
    txs_ = _stake(vm, vm.next_block_time())[1]
    if crash_on_commit is not None:
        real = store.commit
        calls = iter(range(1, 10**6))

        def commit(batch):
            if next(calls) == crash_on_commit:
                raise KeyboardInterrupt("power cut")
            return real(batch)

        store.commit = commit
    return vm, vm.height, txs_


def test_crash_between_pairs_then_catch_up_on_start(tmp_path):
    from simnode.clock import VirtualClock

    from .platform_helpers import VECTOR_TIME

    later = (VECTOR_TIME + 30 * DAY) * 1000
    # the reference: no crash
    ref_store = Store.memory()
    ref, h0, _ = _run(ref_store, VirtualClock(VECTOR_TIME * 1000))
    ref.clock.set_ms(later)
    ref_ids = [ref.state.block_id_at(h) for h in range(ref.height + 1)]
    assert ref.height == h0 + 9  # one standard block + four pairs

    store = Store.open(tmp_path / "db")
    clock = VirtualClock(VECTOR_TIME * 1000)
    vm, h1, txs_ = _run(store, clock, crash_on_commit=3)  # the standard block, one pair, then the crash
    assert h1 == h0
    with pytest.raises(KeyboardInterrupt):
        clock.set_ms(later)
    vm.close()
    store.close()

    store = Store.open(tmp_path / "db")
    st = _vm(store, VirtualClock(VECTOR_TIME * 1000)).state  # a clock before the end: no catch-up yet
    # only whole pairs were written: the last block is the first pair's commit, nothing above it
    assert st.meta.height == h0 + 3 and st.block_id_at(h0 + 4) is None
    assert blocks.decode_block(st.block_by_id(st.meta.last_block_id)).type_id == t.BANFF_COMMIT_BLOCK
    assert sum(x.tx_id in st.stakers for x in txs_) == 3
    vm2 = _vm(store, VirtualClock(later))  # the catch-up on start builds the three pairs still due
    assert [vm2.state.block_id_at(h) for h in range(vm2.height + 1)] == ref_ids
    assert not any(x.tx_id in vm2.state.stakers for x in txs_)
    assert vm2.current_supply() == ref.current_supply()
    assert vm2.state.validators[PRIMARY].keys() == ref.state.validators[PRIMARY].keys()
    store.close()
