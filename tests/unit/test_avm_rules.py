"""X-Chain verification rules, one test per rule: each bad tx is rejected with AvalancheGo's text
and leaves the state (and the mempool) exactly as it was."""

from __future__ import annotations

import hashlib

import pytest

from simnode.codec import UTXO, BaseTxFields, Credential, TransferableOutput, TransferOutput
from simnode.formats.ids import id_to_str, short_id_to_str
from simnode.vms.avm.blocks import build_block
from simnode.vms.avm.wallet import XContext, XWallet
from simnode.vms.avm.service import AVMService
from simnode.vms.avm.txs import TxError, encode_tx, sign_tx

from .avm_support import (
    ADDR1,
    ADDR2,
    AVAX,
    C_ID,
    EWOQ,
    EWOQ_KEY,
    FEE,
    K1,
    X_ID,
    base_tx,
    dump_state,
    genesis_ewoq_utxo,
    make_vm,
    owners,
    seed_utxos,
)


def _utxo(n: int, amount: int, own, asset: bytes = AVAX) -> UTXO:
    return UTXO(hashlib.sha256(b"rules-%d" % n).digest(), 0, asset, TransferOutput(amount, own))


def _rejects(vm, tx, prefix: str) -> str:
    before = dump_state(vm)
    pool = len(vm.mempool)
    with pytest.raises(TxError) as err:
        vm.issue_tx(tx.bytes)
    msg = str(err.value)
    assert msg.startswith(prefix), msg
    assert dump_state(vm) == before
    assert len(vm.mempool) == pool
    return msg


@pytest.fixture()
def vm():
    return make_vm()


def test_valid_send_is_accepted(vm):
    g = genesis_ewoq_utxo(vm)
    tx = base_tx([(g, [EWOQ_KEY])], [(10**9, owners(ADDR1)), (g.out.amount - 10**9 - FEE, owners(EWOQ))])
    assert vm.issue_tx(tx.bytes) == tx.id
    blk = vm.build_block()
    assert blk is not None and blk.txs[0].id == tx.id
    svc = AVMService(vm)
    assert svc.get_balance({"address": short_id_to_str(ADDR1), "assetID": "AVAX"})["balance"] == str(10**9)


def test_forged_signature(vm):
    g = genesis_ewoq_utxo(vm)
    tx = base_tx([(g, [EWOQ_KEY])], [(g.out.amount - FEE, owners(EWOQ))])
    sig = bytearray(tx.creds[0].signatures[0])
    sig[5] ^= 0x01  # a different r: recovers some other key (or none)
    forged = encode_tx(tx.unsigned, [Credential((bytes(sig),))])
    msg = _rejects(vm, forged, "failed to verify transfer: ")
    assert "wrong signature" in msg or "invalid signature" in msg


def test_wrong_owner(vm):
    u = _utxo(1, 5 * 10**9, owners(ADDR1))
    seed_utxos(vm, [u])
    tx = base_tx([(u, [EWOQ_KEY])], [(u.out.amount - FEE, owners(EWOQ))])
    _rejects(vm, tx, f"failed to verify transfer: wrong signature: expected signature from {short_id_to_str(ADDR1)} "
                     f"but got from {short_id_to_str(EWOQ)}")


def test_locked_utxo_then_unlocked(vm):
    now = vm.clock.now()
    u = _utxo(2, 5 * 10**9, owners(EWOQ, locktime=now + 100))
    seed_utxos(vm, [u])
    tx = base_tx([(u, [EWOQ_KEY])], [(u.out.amount - FEE, owners(ADDR1))])
    _rejects(vm, tx, "failed to verify transfer: output is time locked")
    # The drop reason is remembered (as AvalancheGo's mempool does) until a new tx is tried.
    vm.mempool.dropped.clear()
    vm.clock.advance(100)
    assert vm.issue_tx(tx.bytes) == tx.id
    assert vm.build_block() is not None


def test_threshold(vm):
    own = owners(EWOQ, ADDR1, threshold=2)
    u = _utxo(3, 5 * 10**9, own)
    seed_utxos(vm, [u])
    keys_in_address_order = [EWOQ_KEY if a == EWOQ else K1 for a in own.addresses]
    one = base_tx([(u, keys_in_address_order[:1])], [(u.out.amount - FEE, owners(ADDR2))])
    _rejects(vm, one, "failed to verify transfer: input has less signers than expected")
    both = base_tx([(u, keys_in_address_order)], [(u.out.amount - FEE, owners(ADDR2))])
    assert vm.issue_tx(both.bytes) == both.id


def test_insufficient_funds(vm):
    g = genesis_ewoq_utxo(vm)
    no_fee = base_tx([(g, [EWOQ_KEY])], [(g.out.amount, owners(EWOQ))])
    _rejects(vm, no_fee, "insufficient funds")
    too_much = base_tx([(g, [EWOQ_KEY])], [(g.out.amount - FEE + 1, owners(EWOQ))])
    _rejects(vm, too_much, "insufficient funds")


def test_burning_more_than_the_fee_is_allowed(vm):
    g = genesis_ewoq_utxo(vm)
    tx = base_tx([(g, [EWOQ_KEY])], [(g.out.amount - 5 * FEE, owners(EWOQ))])
    assert vm.issue_tx(tx.bytes) == tx.id


def test_unsorted_inputs(vm):
    a, b = _utxo(4, 10**9, owners(EWOQ)), _utxo(5, 10**9, owners(EWOQ))
    seed_utxos(vm, [a, b])
    hi, lo = sorted([a, b], key=lambda u: u.tx_id, reverse=True)
    tx = base_tx([(hi, [EWOQ_KEY]), (lo, [EWOQ_KEY])], [(2 * 10**9 - FEE, owners(ADDR1))], keep_order=True)
    _rejects(vm, tx, "inputs not sorted and unique")


def test_unsorted_outputs(vm):
    g = genesis_ewoq_utxo(vm)
    outs = [(10**9, owners(ADDR1)), (g.out.amount - 10**9 - FEE, owners(EWOQ))]
    ordered = base_tx([(g, [EWOQ_KEY])], outs)
    rev = [(o.out.amount, o.out.owners) for o in reversed(ordered.unsigned.base.outs)]
    tx = base_tx([(g, [EWOQ_KEY])], rev, keep_order=True)
    _rejects(vm, tx, "outputs not sorted")


def test_wrong_network_and_chain_id(vm):
    g = genesis_ewoq_utxo(vm)
    outs = [(g.out.amount - FEE, owners(EWOQ))]
    _rejects(vm, base_tx([(g, [EWOQ_KEY])], outs, network_id=1), "tx has wrong network ID")
    _rejects(vm, base_tx([(g, [EWOQ_KEY])], outs, chain_id=C_ID), "tx has wrong chain ID")


def test_memo_limit(vm):
    g = genesis_ewoq_utxo(vm)
    outs = [(g.out.amount - FEE, owners(EWOQ))]
    _rejects(vm, base_tx([(g, [EWOQ_KEY])], outs, memo=b"m" * 257), "memo exceeds maximum length: 257 > 256")
    ok = base_tx([(g, [EWOQ_KEY])], outs, memo=b"m" * 256)
    assert vm.issue_tx(ok.bytes) == ok.id


def test_credential_count_and_zero_outputs(vm):
    g = genesis_ewoq_utxo(vm)
    tx = base_tx([(g, [EWOQ_KEY])], [(g.out.amount - FEE, owners(EWOQ))])
    _rejects(vm, encode_tx(tx.unsigned, []), "wrong number of credentials: 0 != 1")
    zero = base_tx([(g, [EWOQ_KEY])], [(0, owners(EWOQ))])
    _rejects(vm, zero, "output has no value")


def test_unknown_utxo(vm):
    u = _utxo(6, 10**9, owners(EWOQ))  # never seeded
    tx = base_tx([(u, [EWOQ_KEY])], [(10**9 - FEE, owners(EWOQ))])
    _rejects(vm, tx, f"failed to verify transfer: failed to get utxo {id_to_str(u.id)}: not found")


def test_double_spend_against_the_mempool(vm):
    g = genesis_ewoq_utxo(vm)
    tx1 = base_tx([(g, [EWOQ_KEY])], [(g.out.amount - FEE, owners(ADDR1))])
    tx2 = base_tx([(g, [EWOQ_KEY])], [(g.out.amount - FEE, owners(ADDR2))])
    vm.issue_tx(tx1.bytes)
    assert vm.issue_tx(tx1.bytes) == tx1.id  # the same tx again: silently accepted
    _rejects(vm, tx2, f"tx conflicts with other tx: {id_to_str(tx2.id)}")
    blk = vm.build_block()
    assert blk is not None and [t.id for t in blk.txs] == [tx1.id]
    # After acceptance the UTXO is gone.
    vm.mempool.dropped.clear()
    _rejects(vm, tx2, f"failed to verify transfer: failed to get utxo {id_to_str(g.id)}: not found")


def test_double_spend_across_two_txs_in_one_block(vm):
    g = genesis_ewoq_utxo(vm)
    tx1 = base_tx([(g, [EWOQ_KEY])], [(g.out.amount - FEE, owners(ADDR1))])
    tx2 = base_tx([(g, [EWOQ_KEY])], [(g.out.amount - FEE, owners(ADDR2))])
    parent = vm.last_accepted_block()
    blk = build_block(parent.id, parent.height + 1, vm.clock.now(), [tx1, tx2])
    before = dump_state(vm)
    with pytest.raises(TxError) as err:
        vm.accept_block(blk)
    assert str(err.value) == (f"failed to semantically verify tx {id_to_str(tx2.id)}: failed to verify transfer: "
                              f"failed to get utxo {id_to_str(g.id)}: not found")
    assert dump_state(vm) == before
    # Each alone is a valid block.
    vm.accept_block(build_block(parent.id, parent.height + 1, vm.clock.now(), [tx1]))
    assert vm.height() == 1


def test_builder_drops_a_conflict_issued_without_verification(vm):
    """wallet.issueTx skips verification; the builder then drops the double spend."""
    g = genesis_ewoq_utxo(vm)
    tx1 = base_tx([(g, [EWOQ_KEY])], [(g.out.amount - FEE, owners(ADDR1))])
    change = UTXO(tx1.id, 0, AVAX, tx1.unsigned.base.outs[0].out)
    # A chained spend of tx1's output, in the same block.
    tx2 = base_tx([(change, [K1])], [(change.out.amount - FEE, owners(ADDR2))])
    vm.issue_tx_unverified(tx1.bytes)
    vm.issue_tx_unverified(tx2.bytes)
    blk = vm.build_block()
    assert blk is not None and [t.id for t in blk.txs] == [tx1.id, tx2.id]
    svc = AVMService(vm)
    assert svc.get_balance({"address": short_id_to_str(ADDR2), "assetID": "AVAX"})["balance"] == str(
        g.out.amount - 2 * FEE)


def test_chained_spend_before_the_parent_is_accepted_is_refused(vm):
    g = genesis_ewoq_utxo(vm)
    tx1 = base_tx([(g, [EWOQ_KEY])], [(g.out.amount - FEE, owners(ADDR1))])
    change = UTXO(tx1.id, 0, AVAX, tx1.unsigned.base.outs[0].out)
    tx2 = base_tx([(change, [K1])], [(change.out.amount - FEE, owners(ADDR2))])
    vm.issue_tx(tx1.bytes)
    _rejects(vm, tx2, "failed to verify transfer: failed to get utxo")
    vm.build_block()
    vm.mempool.dropped.clear()
    assert vm.issue_tx(tx2.bytes) == tx2.id


def test_export_destination_rules(vm):
    g = genesis_ewoq_utxo(vm)
    exported = [TransferableOutput(AVAX, TransferOutput(10**9, owners(EWOQ)))]
    wallet = XWallet(XContext.of_vm(vm), (EWOQ_KEY,), (g,))

    def export_to(dest: bytes):
        return wallet.export_tx(dest, exported)

    _rejects(vm, export_to(X_ID), "same chainID")
    unknown = hashlib.sha256(b"no such chain").digest()
    _rejects(vm, export_to(unknown), f'failed to get subnet of "{id_to_str(unknown)}": not found')
    ok = export_to(C_ID)
    assert vm.issue_tx(ok.bytes) == ok.id


def test_wrong_key_sig_index_out_of_range(vm):
    u = _utxo(7, 10**9, owners(EWOQ))
    seed_utxos(vm, [u])
    from simnode.codec import Input, TransferableInput, TransferInput
    from simnode.vms.avm.txs import BaseTx

    ins = (TransferableInput(u.tx_id, 0, AVAX, TransferInput(u.out.amount, Input((1,)))),)
    outs = (TransferableOutput(AVAX, TransferOutput(u.out.amount - FEE, owners(EWOQ))),)
    tx = sign_tx(BaseTx(BaseTxFields(12345, X_ID, outs, ins, b"")), [[EWOQ_KEY]])
    _rejects(vm, tx, "failed to verify transfer: input referenced a nonexistent address in the output")



def test_revert_restores_x_state(vm):
    g = genesis_ewoq_utxo(vm)
    before = dump_state(vm)
    seq = vm.store.seq
    vm.store.keep_undo_since(seq)
    tx = base_tx([(g, [EWOQ_KEY])], [(g.out.amount - FEE, owners(ADDR1))])
    vm.issue_tx(tx.bytes)
    vm.build_block()
    assert vm.height() == 1
    vm.store.revert_to(seq)
    vm.reload()
    assert vm.height() == 0 and dump_state(vm) == before
    assert vm.issue_tx(tx.bytes) == tx.id and vm.build_block() is not None
