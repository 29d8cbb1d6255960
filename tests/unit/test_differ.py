"""The differ absorbs only the live nondeterminism the real node has, and nothing more: the outputs
of one tx in Go's map order (with the page's endIndex naming each side's own last UTXO), and values
that follow from a block's time within a bound. Shapes from a live run against AvalancheGo v1.14.2."""

from __future__ import annotations

import hashlib
import json

from simnode.formats.ids import id_to_str, utxo_id
from simnode.testing.differ import Call, Differ, Reply

TX_A = bytes(range(32))
TX_B = bytes(range(32, 64))


def utxo(tx: bytes, index: int, amount: int = 1) -> str:
    return "0x0000" + tx.hex() + index.to_bytes(4, "big").hex() + amount.to_bytes(8, "big").hex()


def end_of(items: list[str]) -> str:
    raw = bytes.fromhex(items[-1][2:])
    return id_to_str(utxo_id(raw[2:34], int.from_bytes(raw[34:38], "big")))


def divergences(method: str, real: dict, sim: dict) -> list[str]:
    differ = Differ("http://real", "http://sim")
    call = Call("/ext/bc/X", {"jsonrpc": "2.0", "id": 1, "method": method, "params": {}})
    reply = [Reply(200, "application/json", json.dumps({"jsonrpc": "2.0", "result": r, "id": 1}).encode())
             for r in (real, sim)]
    differ.compare_replies(call, reply[0], reply[1])
    return [d.where for d in differ.divergences]


def page(items: list[str]) -> dict:
    return {"numFetched": str(len(items)), "utxos": items, "endIndex": {"address": "X-a", "utxo": end_of(items)},
            "encoding": "hex"}


def test_one_txs_outputs_in_any_order_and_the_page_end_of_each_side():
    real = [utxo(TX_B, 0), utxo(TX_A, 0), utxo(TX_A, 2), utxo(TX_A, 1)]
    sim = [utxo(TX_B, 0), utxo(TX_A, 0), utxo(TX_A, 1), utxo(TX_A, 2)]
    assert divergences("avm.getUTXOs", page(real), page(sim)) == []


def test_the_order_of_txs_and_the_outputs_themselves_still_count():
    real = [utxo(TX_B, 0), utxo(TX_A, 0)]
    assert divergences("avm.getUTXOs", page(real), page(real[::-1])) != []
    assert divergences("platform.getUTXOs", page([utxo(TX_A, 0, 5)]), page([utxo(TX_A, 0, 6)])) != []
    wrong_end = page(real) | {"endIndex": {"address": "X-a", "utxo": end_of([real[0]])}}
    assert divergences("avm.getUTXOs", page(real), wrong_end) == ["$.result.endIndex.utxo"]


def test_utxo_ids_of_one_tx_in_any_order():
    a, b = TX_A.hex(), TX_B.hex()
    real = {"utxoIDs": [{"txID": a, "outputIndex": 0}, {"txID": a, "outputIndex": 1}, {"txID": b, "outputIndex": 0}]}
    sim = {"utxoIDs": [{"txID": a, "outputIndex": 1}, {"txID": a, "outputIndex": 0}, {"txID": b, "outputIndex": 0}]}
    assert divergences("platform.getBalance", real, sim) == []
    swapped = {"utxoIDs": [real["utxoIDs"][2], real["utxoIDs"][0], real["utxoIDs"][1]]}
    assert divergences("platform.getBalance", real, swapped) != []


def test_values_that_follow_from_a_block_time_within_the_bound_only():
    real = {"validators": [{"startTime": "1795908474", "potentialReward": "11005604784", "balance": "999999769",
                            "delegators": [{"startTime": "1795908475", "potentialReward": "68412167"}]}]}
    sim = {"validators": [{"startTime": "1795908473", "potentialReward": "11005611222", "balance": "999999770",
                           "delegators": [{"startTime": "1795908474", "potentialReward": "68412247"}]}]}
    assert divergences("platform.getCurrentValidators", real, sim) == []
    assert divergences("platform.getCurrentSupply", {"supply": "361196344756356933"},
                       {"supply": "361196344756363371"}) == []
    far = {"validators": [{"startTime": "1795908484", "potentialReward": "11105611222", "balance": "989999770",
                           "delegators": [{"startTime": "1795908474", "potentialReward": "68412247"}]}]}
    assert sorted(divergences("platform.getCurrentValidators", real, far)) == [
        "$.result.validators[0].balance", "$.result.validators[0].potentialReward", "$.result.validators[0].startTime"]
    assert divergences("platform.getCurrentValidators", {"validators": [{"weight": "2000"}]},
                       {"validators": [{"weight": "2001"}]}) == ["$.result.validators[0].weight"]


def limited(method: str, limit: int) -> Call:
    return Call("/ext/bc/X", {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"limit": limit}})


def page_divergences(call: Call, real: dict, sim: dict) -> list[str]:
    differ = Differ("http://real", "http://sim")
    reply = [Reply(200, "application/json", json.dumps({"jsonrpc": "2.0", "result": r, "id": 1}).encode())
             for r in (real, sim)]
    differ.compare_replies(call, reply[0], reply[1])
    return [d.where for d in differ.divergences]


def test_a_full_page_may_stop_at_a_different_output_of_the_same_tx():
    # live, v1.14.2: a page of limit 1 held output 0 of the newest tx on the real node, output 2 on simnode
    assert page_divergences(limited("avm.getUTXOs", 1), page([utxo(TX_A, 0)]), page([utxo(TX_A, 2)])) == []
    real = [utxo(TX_B, 0), utxo(TX_A, 2), utxo(TX_A, 0)]
    sim = [utxo(TX_B, 0), utxo(TX_A, 0), utxo(TX_A, 1)]
    assert page_divergences(limited("platform.getUTXOs", 3), page(real), page(sim)) == []


def test_a_page_that_is_not_full_or_ends_in_another_tx_or_count_still_diverges():
    # not full: the whole tx is listed, so its outputs must be the same ones
    assert page_divergences(limited("avm.getUTXOs", 2), page([utxo(TX_A, 0)]), page([utxo(TX_A, 2)])) != []
    assert page_divergences(limited("avm.getUTXOs", 1), page([utxo(TX_A, 0)]), page([utxo(TX_B, 0)])) != []
    real = [utxo(TX_B, 0), utxo(TX_A, 2)]
    assert page_divergences(limited("avm.getUTXOs", 2), page(real), page([utxo(TX_A, 0), utxo(TX_A, 1)])) != []
    assert page_divergences(limited("avm.getUTXOs", 2), page(real), page([utxo(TX_B, 1), utxo(TX_A, 1)])) != []
    # a full page without a limit is 1024 UTXOs; a short one compares its outputs
    assert page_divergences(limited("avm.getUTXOs", 0), page([utxo(TX_A, 0)]), page([utxo(TX_A, 2)])) != []


ASSET = bytes([0x8A]) * 32


def transfer_utxo(tx: bytes, index: int, amount: int) -> str:
    """A P-Chain UTXO as getUTXOs lists it in hex: a secp256k1 transfer output to one address, and
    the 4-byte checksum the hex encoding ends with."""
    body = (b"\0\0" + tx + index.to_bytes(4, "big") + ASSET + (7).to_bytes(4, "big") + amount.to_bytes(8, "big")
            + bytes(8) + (1).to_bytes(4, "big") + (1).to_bytes(4, "big") + bytes(range(20)))
    return "0x" + (body + hashlib.sha256(body).digest()[-4:]).hex()


def refund_divergences(method: str, real: dict, sim: dict, refunds: dict[str, int]) -> list[str]:
    differ = Differ("http://real", "http://sim", refunds=refunds)
    call = Call("/ext/bc/P", {"jsonrpc": "2.0", "id": 1, "method": method, "params": {}})
    reply = [Reply(200, "application/json", json.dumps({"jsonrpc": "2.0", "result": r, "id": 1}).encode())
             for r in (real, sim)]
    differ.compare_replies(call, reply[0], reply[1])
    return [d.where for d in differ.divergences]


def test_an_l1_validators_refund_within_the_fee_of_the_time_skew_only():
    """Live shape (AvalancheGo v1.14.2, SetL1ValidatorWeight to 0): the refund UTXO 999,999,934 on the
    real node and 999,999,935 on simnode, and the owner's balances one apart."""
    refund = {TX_A.hex(): 2}
    real_page = [transfer_utxo(TX_B, 0, 5), transfer_utxo(TX_A, 1, 999_999_934)]
    sim_page = [transfer_utxo(TX_B, 0, 5), transfer_utxo(TX_A, 1, 999_999_935)]
    assert refund_divergences("platform.getUTXOs", page(real_page), page(sim_page), refund) == []
    beyond = [transfer_utxo(TX_B, 0, 5), transfer_utxo(TX_A, 1, 999_999_937)]
    assert refund_divergences("platform.getUTXOs", page(real_page), page(beyond), refund) != []
    assert refund_divergences("platform.getUTXOs", page(real_page), page(sim_page), {}) != []
    other_tx = [transfer_utxo(TX_B, 0, 6), transfer_utxo(TX_A, 1, 999_999_934)]  # another tx's UTXO
    assert refund_divergences("platform.getUTXOs", page(real_page), page(other_tx), refund) != []
    moved = real_page[1][:-16] + "00" * 8  # same amount, other bytes after it (and checksum)
    assert refund_divergences("platform.getUTXOs", page(real_page), page([real_page[0], moved]), refund) != []

    asset = id_to_str(ASSET)
    ids = [{"txID": id_to_str(TX_B), "outputIndex": 0}, {"txID": id_to_str(TX_A), "outputIndex": 1}]

    def balance(total: int) -> dict:
        return {"balance": str(total), "unlocked": str(total), "lockedStakeable": "0", "lockedNotStakeable": "0",
                "balances": {asset: str(total)}, "unlockeds": {asset: str(total)}, "utxoIDs": ids}

    assert refund_divergences("platform.getBalance", balance(999_999_939), balance(999_999_940), refund) == []
    assert refund_divergences("platform.getBalance", balance(999_999_939), balance(999_999_942), refund) != []
    without = balance(999_999_940) | {"utxoIDs": ids[:1]}
    assert refund_divergences("platform.getBalance", balance(999_999_939) | {"utxoIDs": ids[:1]}, without,
                              refund) != []
