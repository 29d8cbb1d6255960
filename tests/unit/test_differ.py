"""The differ absorbs only the live nondeterminism the real node has, and nothing more: the outputs
of one tx in Go's map order (with the page's endIndex naming each side's own last UTXO), and values
that follow from a block's time within a bound. Shapes from a live run against AvalancheGo v1.14.2."""

from __future__ import annotations

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
