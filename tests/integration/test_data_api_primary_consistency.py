"""The Data API's primary-network answers agree with the node's own APIs after the primary-network
scenario (primary_scenario.py), on one node the tests only read: UTXO sets equal
`platform.getUTXOs`/`avm.getUTXOs`/`avax.getUTXOs` and `includeSpent` adds exactly the consumed
ones (each consumed by the tx it names); balances equal `platform.getBalance`/`avm.getBalance`
now and, with `blockTimestamp`, what those answered at that earlier moment; validators and
delegators equal `platform.getCurrentValidators` plus the ended ones with their real reward
amounts (`platform.getRewardUTXOs`), through the filters and sorts; L1 validators equal
`platform.getL1Validator`; a `pageSize=1` walk of every list gives what one big page gives. A
second test runs the scenario on a node with a data directory and checks that `simnode reindex`
rebuilds the P/X/C-atomic rows byte for byte; a third that `simnode.revert` takes them back with
the chains."""

from __future__ import annotations

import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from simnode.codec import TransferableOutput, TransferOutput, decode_utxo
from simnode.config import NodeConfig
from simnode.formats import id_from_str, id_to_str, node_id_to_str
from simnode.formats.ids import utxo_id
from simnode.index.keys import chain_space
from simnode.index.primary.layout import UO
from simnode.node import Node
from simnode.vms.avm.wallet import owner
from simnode.vms.avm.txs import X_REGISTRY
from simnode.vms.evm.atomic_txs import C_REGISTRY, parse_tx
from simnode.vms.platform.txs import P_REGISTRY

from . import primary_scenario
from .dataapi import api
from .primary_scenario import Recorded
from .rpc import call
from .test_index_durability import simnode, stored_index

N = "/v1/networks/fuji"
CHAINS = {"P": ("p-chain", "/ext/bc/P", "platform", P_REGISTRY), "X": ("x-chain", "/ext/bc/X", "avm", X_REGISTRY),
          "C": ("c-chain", "/ext/bc/C/avax", "avax", C_REGISTRY)}


@pytest.fixture(scope="module")
def h():
    config = NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", log_level="WARN")
    with Node.start_in_thread(config) as handle:
        yield handle


@pytest.fixture(scope="module")
def rec(h) -> Recorded:
    return primary_scenario.run(h)


def q(**params: object) -> str:
    return "?" + urllib.parse.urlencode(params)


def walk(h, path: str, key: str, big: int) -> tuple[list[Any], list[Any]]:
    """(a pageSize=1 walk, one page of `big`) of a list route."""
    sep = "&" if "?" in path else "?"
    one, token = [], None
    while True:
        page = api(h.url, f"{path}{sep}pageSize=1" + (f"&pageToken={token}" if token else ""))
        one += page[key]
        token = page.get("nextPageToken")
        if token is None:
            break
        assert len(one) < 500, path
    whole = api(h.url, f"{path}{sep}pageSize={big}")
    assert whole.get("nextPageToken") is None, path
    return one, whole[key]


def node_utxo_ids(h, letter: str, address: str, source: bytes | None = None) -> set[str]:
    _, endpoint, ns, registry = CHAINS[letter]
    params: dict[str, Any] = {"addresses": [address], "limit": 1024, "encoding": "hex"}
    if source is not None:
        params["sourceChain"] = id_to_str(source)
    res = call(h.url + endpoint, f"{ns}.getUTXOs", params)
    return {id_to_str(decode_utxo(bytes.fromhex(u[2:])[:-4], registry).id) for u in res["utxos"]}


def consumed_by(h, letter: str, tx_hash: str) -> set[str]:
    """The IDs of the UTXOs a tx spends, from the node's own form of the tx."""
    _, endpoint, ns, _ = CHAINS[letter]
    if letter == "C":
        raw = call(h.url + endpoint, "avax.getAtomicTx", {"txID": tx_hash, "encoding": "hex"})["tx"]
        unsigned = parse_tx(bytes.fromhex(raw[2:])[:-4]).unsigned
        return {id_to_str(i.utxo_id) for i in getattr(unsigned, "imported_inputs", ())}
    tx = call(h.url + endpoint, f"{ns}.getTx", {"txID": tx_hash, "encoding": "json"})["tx"]["unsignedTx"]
    ins = list(tx.get("inputs") or []) + list(tx.get("importedInputs") or [])
    return {id_to_str(utxo_id(id_from_str(i["txID"]), i["outputIndex"])) for i in ins}


def test_utxo_sets_equal_the_nodes_and_include_spent_adds_the_consumed_ones(h, rec):
    g = h.node.genesis
    cases = [("P", rec.ewoq, None), ("P", rec.alice, None), ("X", rec.ewoq, None), ("X", rec.alice, None),
             ("C", rec.ewoq, g.x_chain_id), ("C", rec.ewoq, bytes(32))]
    for letter, payload, source in cases:
        name = CHAINS[letter][0]
        address = rec.addr(letter, payload)
        path = f"{N}/blockchains/{name}/utxos{q(addresses=address)}"
        unspent = api(h.url, path + "&pageSize=100")["utxos"]
        if source is None or letter != "C":
            assert {u["utxoId"] for u in unspent} == node_utxo_ids(h, letter, address), (letter, address)
        else:  # the C-Chain's shared memory, from each source chain
            mine = {u["utxoId"] for u in unspent if u["createdOnChainId"] == id_to_str(source)}
            assert mine == node_utxo_ids(h, letter, address, source)
        every = api(h.url, path + "&pageSize=100&includeSpent=true")["utxos"]
        spent = [u for u in every if u["utxoId"] not in {x["utxoId"] for x in unspent}]
        assert {u["utxoId"] for u in unspent} <= {u["utxoId"] for u in every}
        assert all("consumingTxHash" not in u for u in unspent)
        letters = {id_to_str(bytes(32)): "P", id_to_str(g.x_chain_id): "X", id_to_str(g.c_chain_id): "C"}
        for u in spent:
            assert u["utxoId"] in consumed_by(h, letters[u["consumedOnChainId"]], u["consumingTxHash"]), u
    # the scenario spent UTXOs on each chain: the lists above were not trivially equal
    p_spent = api(h.url, f"{N}/blockchains/p-chain/utxos{q(addresses=rec.addr('P', rec.ewoq), includeSpent='true')}")
    assert any("consumingTxHash" in u for u in p_spent["utxos"])
    c_all = api(h.url, f"{N}/blockchains/c-chain/utxos{q(addresses=rec.addr('C', rec.ewoq), includeSpent='true')}")
    # the X -> C export, imported: consumed on the C-Chain
    assert [(u["createdOnChainId"], u["consumedOnChainId"]) for u in c_all["utxos"]] == [
        (id_to_str(h.node.genesis.x_chain_id), id_to_str(h.node.genesis.c_chain_id))]


def test_utxo_filters_and_sorts(h, rec):
    x = rec.addr("X", rec.ewoq)
    base = f"{N}/blockchains/x-chain/utxos{q(addresses=x, includeSpent='true', pageSize=100)}"
    every = api(h.url, base)["utxos"]
    by_amount = api(h.url, base + "&sortBy=amount&sortOrder=asc")["utxos"]
    amounts = [int(u["asset"]["amount"]) for u in by_amount]
    assert amounts == sorted(amounts) and {u["utxoId"] for u in by_amount} == {u["utxoId"] for u in every}
    times = [u["timestamp"] for u in api(h.url, base + "&sortOrder=desc")["utxos"]]
    assert times == sorted(times, reverse=True)
    asset = api(h.url, base + f"&assetId={id_to_str(rec.asset)}")["utxos"]
    assert asset and {u["asset"]["assetId"] for u in asset} == {id_to_str(rec.asset)}
    assert {u["utxoId"] for u in asset} == {u["utxoId"] for u in every if u["asset"]["assetId"] == id_to_str(rec.asset)}
    big = api(h.url, base + "&minUtxoAmount=1000000000")["utxos"]
    assert {u["utxoId"] for u in big} == {u["utxoId"] for u in every if int(u["asset"]["amount"]) >= 10**9}


def p_sums(answer: dict[str, Any]) -> dict[str, int]:
    return {k: sum(int(a["amount"]) for a in v) for k, v in answer["balances"].items()}


def test_balances_now_and_at_a_past_block_timestamp(h, rec):
    assert len(rec.balances) >= 20
    for when, letter, address, then in rec.balances:
        name = CHAINS[letter][0]
        past = api(h.url, f"{N}/blockchains/{name}/balances{q(addresses=address, blockTimestamp=when)}")
        if letter == "P":
            sums = p_sums(past)
            assert sums["unlockedUnstaked"] == int(then["unlocked"]), (when, address)
            assert sums["lockedStakeable"] == int(then["lockedStakeable"]), (when, address)
            assert sums["lockedPlatform"] == int(then["lockedNotStakeable"]), (when, address)
        else:
            got = {a["assetId"]: int(a["amount"]) for a in past["balances"]["unlocked"]}
            want = {id_to_str(asset): int(b["balance"]) for asset, b in then.items() if int(b["balance"])}
            assert got == want, (when, address)
    # now
    for payload in (rec.ewoq, rec.alice):
        p = rec.addr("P", payload)
        now = call(h.url + "/ext/bc/P", "platform.getBalance", {"addresses": [p]})
        sums = p_sums(api(h.url, f"{N}/blockchains/p-chain/balances{q(addresses=p)}"))
        assert (sums["unlockedUnstaked"], sums["lockedStakeable"]) == (
            int(now["unlocked"]), int(now["lockedStakeable"]))
        x = rec.addr("X", payload)
        got = {a["assetId"]: int(a["amount"]) for a in
               api(h.url, f"{N}/blockchains/x-chain/balances{q(addresses=x)}")["balances"]["unlocked"]}
        for asset in (h.node.genesis.avax_asset_id, rec.asset):
            want = int(call(h.url + "/ext/bc/X", "avm.getBalance",
                            {"address": x, "assetID": id_to_str(asset)})["balance"])
            assert got.get(id_to_str(asset), 0) == want
    # the P -> X export waited in X's shared memory until alice imported it
    exported_at, _, alice_x, _ = rec.balances[7]
    assert alice_x == rec.addr("X", rec.alice)
    for when, amount in ((exported_at, 30 * primary_scenario.AVAX), (rec.balances[-1][0], 0)):
        atomic = api(h.url, f"{N}/blockchains/x-chain/balances{q(addresses=alice_x, blockTimestamp=when)}")
        assert [(a["amount"], a["sharedWithChainId"]) for a in atomic["balances"]["atomicMemoryUnlocked"]] == (
            [(str(amount), id_to_str(bytes(32)))] if amount else [])
    # the stake while the validator staked: what getCurrentValidators said it held
    staking_time = rec.balances[8][0]  # four answers per record_balances: the third, after staking
    staked = p_sums(api(h.url, f"{N}/blockchains/p-chain/balances"
                              f"{q(addresses=rec.addr('P', rec.ewoq), blockTimestamp=staking_time)}"))
    assert staked["unlockedStaked"] == 2_000 * primary_scenario.AVAX + 350 * primary_scenario.AVAX


def test_validators_and_delegators_equal_the_nodes_with_rewards(h, rec):
    now = call(h.url + "/ext/bc/P", "platform.getCurrentValidators")["validators"]
    active = api(h.url, f"{N}/validators{q(validationStatus='active', subnetId=id_to_str(bytes(32)), pageSize=100)}")
    assert {(v["txHash"], v["nodeId"], v["amountStaked"]) for v in active["validators"]} == {
        (v["txID"], v["nodeID"], v["weight"]) for v in now}
    # the scenario's validator and delegators, as the node showed them while they staked, now completed
    then = next(v for v in rec.current_validators["validators"] if v["txID"] == id_to_str(rec.validator_tx))
    node = node_id_to_str(rec.validator_node)
    [done] = api(h.url, f"{N}/validators/{node}")["validators"]
    assert done["validationStatus"] == "completed" and done["delegatorCount"] == 2
    assert done["rewards"]["validationRewardAmount"] == then["potentialReward"]
    paid = reward_sum(h, rec.validator_tx)
    assert int(done["rewards"]["validationRewardAmount"]) + int(done["rewards"]["delegationRewardAmount"]) == paid
    assert done["amountDelegated"] == then["delegatorWeight"]
    delegators = api(h.url, f"{N}/delegators{q(nodeIds=node, pageSize=100)}")["delegators"]
    assert {d["txHash"] for d in delegators} == {id_to_str(t) for t in rec.delegator_txs}
    fees = 0
    for d in delegators:
        assert d["delegationStatus"] == "completed"
        assert int(d["netReward"]) == reward_sum(h, d["txHash"])
        fees += int(d["grossReward"]) - int(d["netReward"])
    assert fees == int(done["rewards"]["delegationRewardAmount"])
    assert api(h.url, f"{N}/delegators{q(delegationStatus='active')}")["delegators"] == []
    # listStaking lists the stakers still staking: none of alice's (the scenario's reward owner)
    staking = f"{N}/blockchains/p-chain/transactions:listStaking{q(addresses=rec.addr('P', rec.alice))}"
    assert api(h.url, staking)["transactions"] == []
    # every validation: the current ones, the scenario's completed one and its removed subnet validator
    every = api(h.url, f"{N}/validators{q(pageSize=100)}")["validators"]
    assert sorted(v["txHash"] for v in every) == sorted(
        [v["txID"] for v in now] + [id_to_str(rec.validator_tx), id_to_str(rec.permissioned_tx)])
    # filters and sorts
    removed = api(h.url, f"{N}/validators{q(validationStatus='removed')}")["validators"]
    assert [v["txHash"] for v in removed] == [id_to_str(rec.permissioned_tx)]
    assert removed[0]["removeTxHash"] == id_to_str(rec.remove_tx)
    subnet = api(h.url, f"{N}/validators{q(subnetId=id_to_str(rec.subnet))}")["validators"]
    assert [v["txHash"] for v in subnet] == [id_to_str(rec.permissioned_tx)]
    part = node[7:15]  # nodeIds matches by substring
    assert [v["txHash"] for v in api(h.url, f"{N}/validators{q(nodeIds=part)}")["validators"]] == [
        id_to_str(rec.validator_tx)]
    by_end = api(h.url, f"{N}/validators{q(validationStatus='active', sortBy='timeRemaining', sortOrder='asc')}")
    ends = [v["endTimestamp"] for v in by_end["validators"]]
    assert ends == sorted(ends) and len(ends) == len(now)
    rewarded = api(h.url, f"{N}/rewards{q(nodeIds=node, pageSize=100)}")["historicalRewards"]
    assert sum(int(r["reward"]["amount"]) for r in rewarded) == paid + sum(
        reward_sum(h, t) for t in rec.delegator_txs)


def reward_sum(h, tx: bytes | str) -> int:
    tx_id = tx if isinstance(tx, str) else id_to_str(tx)
    res = call(h.url + "/ext/bc/P", "platform.getRewardUTXOs", {"txID": tx_id, "encoding": "hex"})
    total = 0
    for u in res["utxos"]:
        out = decode_utxo(bytes.fromhex(u[2:])[:-4], P_REGISTRY).out
        total += out.amount
    return total


def test_l1_validators_equal_the_nodes(h, rec):
    active = api(h.url, f"{N}/l1Validators")["validators"]
    assert {v["validationId"] for v in active} == {id_to_str(rec.validation_ids[i]) for i in (0, 2)}
    for v in active:
        node_view = call(h.url + "/ext/bc/P", "platform.getL1Validator", {"validationID": v["validationId"]})
        assert (v["nodeId"], str(v["weight"]), str(v["remainingBalance"]), v["subnetId"]) == (
            node_view["nodeID"], node_view["weight"], node_view["balance"], node_view["subnetID"])
    every = api(h.url, f"{N}/l1Validators{q(includeInactiveL1Validators='true')}")["validators"]
    removed = [v for v in every if v["validationId"] == id_to_str(rec.validation_ids[1])]
    assert len(every) == 3 and removed[0]["weight"] == 0
    one = api(h.url, f"{N}/l1Validators{q(l1ValidationId=id_to_str(rec.validation_ids[2]))}")["validators"]
    assert [v["weight"] for v in one] == [90]
    by_node = api(h.url, f"{N}/l1Validators{q(nodeId=node_id_to_str(rec.l1_nodes[0]))}")["validators"]
    assert [v["nodeId"] for v in by_node] == [node_id_to_str(rec.l1_nodes[0])]
    subnet = api(h.url, f"{N}/subnets/{id_to_str(rec.subnet)}")
    assert subnet["isL1"] and subnet["l1ConversionTransactionHash"] == id_to_str(rec.convert_tx)
    assert [c["blockchainId"] for c in subnet["blockchains"]] == [id_to_str(rec.chain)]
    chain = api(h.url, f"{N}/blockchains/{id_to_str(rec.chain)}")
    g = primary_scenario.CHAIN_GENESIS
    assert (chain["evmChainId"], chain["blockchainName"], chain["subnetId"]) == (
        77777, "scenario", id_to_str(rec.subnet))
    assert chain["genesisData"]["alloc"] == g["alloc"] and chain["genesisData"]["gasLimit"] == g["gasLimit"]
    assert chain["genesisData"]["config"]["feeConfig"] == g["config"]["feeConfig"]
    assert chain["genesisData"]["baseFeePerGas"] == int(g["baseFeePerGas"], 16)


def test_page_size_one_walks_give_the_big_page(h, rec):
    lists = [(f"{N}/validators", "validators", 100), (f"{N}/delegators", "delegators", 100),
             (f"{N}/subnets", "subnets", 100), (f"{N}/blockchains", "blockchains", 100),
             (f"{N}/l1Validators{q(includeInactiveL1Validators='true')}", "validators", 100),
             (f"{N}/blockchains/p-chain/utxos{q(addresses=rec.addr('P', rec.ewoq), includeSpent='true')}", "utxos",
              100),
             (f"{N}/blockchains/x-chain/utxos{q(addresses=rec.addr('X', rec.ewoq), sortBy='amount')}", "utxos", 100),
             (f"{N}/blockchains/p-chain/blocks", "blocks", 100),
             (f"{N}/blockchains/x-chain/transactions", "transactions", 100),
             (f"{N}/blockchains/p-chain/transactions:listStaking{q(addresses=rec.addr('P', rec.ewoq))}",
              "transactions", 100),
             (f"{N}/rewards{q(addresses=rec.addr('P', rec.alice)[2:])}", "historicalRewards", 100),
             (f"{N}/rewards:listPending{q(addresses=rec.addr('P', rec.ewoq)[2:])}", "pendingRewards", 100),
             (f"{N}/validators{q(sortBy='timeRemaining', sortOrder='asc')}", "validators", 100),
             (f"{N}/delegators{q(nodeIds=node_id_to_str(rec.validator_node))}", "delegators", 100),
             (f"{N}/blockchains/x-chain/blocks", "blocks", 100),
             (f"{N}/blockchains/p-chain/transactions", "transactions", 100),
             (f"{N}/blockchains/c-chain/transactions", "transactions", 100),
             (f"{N}/blockchains/x-chain/assets/{id_to_str(rec.asset)}/transactions", "transactions", 100)]
    for path, key, big in lists:
        one, whole = walk(h, path, key, big)
        assert whole and one == whole, path


def test_reindex_rebuilds_the_primary_network_rows_byte_for_byte(tmp_path: Path):
    data = tmp_path / "data"
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=data, clock_mode="virtual", log_level="WARN")) as h:
        rec = primary_scenario.run(h)
        g = h.node.genesis
    indexed = stored_index(data)
    for cid in (bytes(32), g.x_chain_id):  # the P/X tables and the shared UTXO table are there
        assert any(k.startswith(chain_space(cid) + b"Tx") for k in indexed)
    assert sum(k.startswith(UO) for k in indexed) > 20
    assert rec.validation_ids
    done = simnode("reindex", "--data-dir", str(data))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("indexed blocks 0..") >= 3  # P, X, C
    assert stored_index(data) == indexed


def test_blocks_are_the_chains_and_this_node_proposed_them(h, rec):
    height = int(call(h.url + "/ext/bc/P", "platform.getHeight")["height"])
    blocks = api(h.url, f"{N}/blockchains/p-chain/blocks?pageSize=100")["blocks"]
    assert [int(b["blockNumber"]) for b in blocks] == list(range(height, -1, -1))
    own = node_id_to_str(h.node.node_id)
    assert api(h.url, f"{N}/blockchains/p-chain/nodes/{own}/blocks?pageSize=100")["blocks"] == blocks
    other = node_id_to_str(rec.validator_node)
    assert api(h.url, f"{N}/blockchains/p-chain/nodes/{other}/blocks")["blocks"] == []
    x_height = int(call(h.url + "/ext/bc/X", "avm.getHeight")["height"])
    x_blocks = api(h.url, f"{N}/blockchains/x-chain/blocks?pageSize=100")["blocks"]
    assert [int(b["blockNumber"]) for b in x_blocks] == list(range(x_height, -1, -1))


def test_transaction_filters_select_the_matching_txs(h, rec):
    path = f"{N}/blockchains/p-chain/transactions"
    every = api(h.url, f"{path}?pageSize=100")["transactions"]
    assert every and every == sorted(every, key=lambda t: (t["blockTimestamp"], int(t["blockNumber"])), reverse=True)
    times = sorted({t["blockTimestamp"] for t in every})
    lo, hi = times[1], times[-2]
    ranged = api(h.url, f"{path}{q(startTimestamp=lo, endTimestamp=hi, pageSize=100)}")["transactions"]
    assert [t["txHash"] for t in ranged] == [t["txHash"] for t in every if lo <= t["blockTimestamp"] <= hi]
    kinds = ("AddPermissionlessDelegatorTx", "ConvertSubnetToL1Tx")
    typed = api(h.url, f"{path}?pageSize=100&txTypes={kinds[0]}&txTypes={kinds[1]}")["transactions"]
    assert [t["txHash"] for t in typed] == [t["txHash"] for t in every if t["txType"] in kinds]
    assert {t["txHash"] for t in typed} >= {id_to_str(d) for d in rec.delegator_txs} | {id_to_str(rec.convert_tx)}
    about = api(h.url, f"{path}{q(l1ValidationId=id_to_str(rec.validation_ids[2]))}")["transactions"]
    assert [t["txType"] for t in about] == ["SetL1ValidatorWeightTx", "RegisterL1ValidatorTx"]
    alice = rec.addr("X", rec.alice)[2:]
    mine = api(h.url, f"{N}/blockchains/x-chain/transactions{q(addresses=rec.addr('X', rec.alice), pageSize=100)}")
    everyone = api(h.url, f"{N}/blockchains/x-chain/transactions?pageSize=100")["transactions"]

    def touches(tx: dict) -> bool:
        return any(alice in u["addresses"] for key in ("consumedUtxos", "emittedUtxos") for u in tx.get(key, ()))
    assert [t["txHash"] for t in mine["transactions"]] == [t["txHash"] for t in everyone if touches(t)]
    assert len(mine["transactions"]) >= 3  # paid, paying back, importing


def test_revert_moves_the_primary_network_rows_back():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", log_level="WARN")) as h:
        d = primary_scenario.Driver(h)
        before = dict(h.node.store.iterate(b"ix/"))
        snap = call(h.url + "/ext/simnode", "simnode.snapshot")["id"]
        d.x(primary_scenario.EWOQ, lambda w: w.base_tx([TransferableOutput(
            d.avax, TransferOutput(5 * primary_scenario.AVAX, owner(d.rec.alice)))]))
        d.p(lambda b: b.export_tx(d.x_id, d.rec.alice, 3 * primary_scenario.AVAX))
        alice = d.rec.addr("X", d.rec.alice)
        assert api(h.url, f"{N}/blockchains/x-chain/utxos{q(addresses=alice)}")["utxos"]
        assert call(h.url + "/ext/simnode", "simnode.revert", {"id": snap})["reverted"] is True
        assert dict(h.node.store.iterate(b"ix/")) == before
        assert api(h.url, f"{N}/blockchains/x-chain/utxos{q(addresses=alice)}")["utxos"] == []
