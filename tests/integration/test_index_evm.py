"""The EVM index of a real node against its own JSON-RPC after a scenario with native
transfers, an ERC-20, an ERC-1155, an ERC-721, a contract factory and reverted txs: blocks, txs,
token transfers, balances at past blocks, token metadata, call frames (against
debug_traceTransaction's callTracer), contract creations, per-address lists, and a page walk
while blocks arrive."""

from __future__ import annotations

import pytest
from web3 import Web3

from simnode.config import NodeConfig
from simnode.index.evm.query import EvmIndex, address_chains
from simnode.index.evm.rows import TRANSFER_BATCH_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_TOPIC
from simnode.node import Node

from . import index_scenario
from .index_scenario import EWOQ, flatten_trace, raw_address

CHAIN_ID = 43112


@pytest.fixture(scope="module")
def node():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual")) as handle:
        yield handle


@pytest.fixture(scope="module")
def w3(node):
    return Web3(Web3.HTTPProvider(node.url + "/ext/bc/C/rpc", request_kwargs={"timeout": 60}))


@pytest.fixture(scope="module")
def scenario(node, w3):
    return index_scenario.run(w3, CHAIN_ID)


@pytest.fixture(scope="module")
def ix(node, scenario):
    return EvmIndex(node.node.store, node.node.genesis.c_chain_id)


def trace(w3: Web3, tx_hash: bytes) -> dict:
    return w3.provider.make_request("debug_traceTransaction", ["0x" + bytes(tx_hash).hex(),
                                                               {"tracer": "callTracer"}])["result"]


def expected_transfers(rc) -> set[tuple]:
    """(standard, token, from, to, amount, id, logIndex) stated by the receipt's logs."""
    out = set()
    for lg in rc.logs:
        topics = [bytes(t) for t in lg.topics]
        data = bytes(lg.data)
        token = raw_address(lg.address)
        if topics[0] == TRANSFER_TOPIC and len(topics) == 3:
            out.add(("ERC-20", token, topics[1][12:], topics[2][12:], int.from_bytes(data, "big"), None, lg.logIndex))
        elif topics[0] == TRANSFER_TOPIC:
            out.add(("ERC-721", token, topics[1][12:], topics[2][12:], 1, int.from_bytes(topics[3], "big"),
                     lg.logIndex))
        elif topics[0] == TRANSFER_SINGLE_TOPIC:
            out.add(("ERC-1155", token, topics[2][12:], topics[3][12:], int.from_bytes(data[32:], "big"),
                     int.from_bytes(data[:32], "big"), lg.logIndex))
        elif topics[0] == TRANSFER_BATCH_TOPIC:
            n = int.from_bytes(data[64:96], "big")
            ids = [int.from_bytes(data[96 + 32 * k:128 + 32 * k], "big") for k in range(n)]
            vals = [int.from_bytes(data[128 + 32 * n + 32 * k:160 + 32 * n + 32 * k], "big") for k in range(n)]
            for i, v in zip(ids, vals):
                out.add(("ERC-1155", token, topics[2][12:], topics[3][12:], v, i, lg.logIndex))
    return out


def test_blocks_and_txs_agree_with_json_rpc(w3, ix, scenario):
    head = w3.eth.block_number
    assert ix.head() == head
    cumulative = 0
    for n in range(head + 1):
        b = w3.eth.get_block(n, full_transactions=True)
        rec = ix.block(n)
        assert (rec.hash, rec.parent_hash) == (bytes(b.hash), bytes(b.parentHash))
        assert (rec.gas_used, rec.gas_limit, rec.base_fee) == (b.gasUsed, b.gasLimit, b.baseFeePerGas)
        assert rec.timestamp == b.timestamp and rec.tx_count == len(b.transactions)
        raw = w3.provider.make_request("eth_getBlockByNumber", [hex(n), False])["result"]
        assert rec.gas_cost == int(raw.get("blockGasCost", "0x0"), 16)
        assert rec.min_delay_excess == (int(raw["minDelayExcess"], 16) if "minDelayExcess" in raw else None)
        assert rec.timestamp_ms == int(raw.get("timestampMilliseconds", hex(b.timestamp * 1000)), 16)
        cumulative += len(b.transactions)
        assert rec.cumulative_txs == cumulative
        fees = 0
        for tx in b.transactions:
            rc = w3.eth.get_transaction_receipt(tx.hash)
            t = ix.tx(bytes(tx.hash))
            assert (t.block_number, t.block_hash, t.index) == (n, bytes(b.hash), tx.transactionIndex)
            assert (t.sender, t.to) == (raw_address(tx["from"]), raw_address(tx.to) if tx.to else b"")
            assert (t.value, t.nonce, t.gas_limit, t.input) == (tx.value, tx.nonce, tx.gas, bytes(tx.input))
            assert (t.gas_used, t.gas_price, t.status, t.type) == (rc.gasUsed, rc.effectiveGasPrice, rc.status, tx.type)
            assert t.contract == (raw_address(rc.contractAddress) if rc.contractAddress else None)
            if tx.type == 2:
                assert (t.max_fee, t.tip) == (tx.maxFeePerGas, tx.maxPriorityFeePerGas)
            fees += rc.gasUsed * rc.effectiveGasPrice
        assert rec.fees_spent == fees
    assert [b.number for b in ix.blocks(3).items] == [head, head - 1, head - 2]
    assert ix.block_by_hash(ix.block(2).hash).number == 2
    assert ix.tx_details(bytes(scenario.receipts[0].transactionHash)).block.number == scenario.receipts[0].blockNumber


def test_token_transfers_agree_with_logs(ix, scenario):
    seen = 0
    for rc in scenario.receipts:
        got = {(t.standard, t.token, t.sender, t.to, t.amount, t.token_id, t.log_index)
               for t in ix.tx_details(bytes(rc.transactionHash)).transfers}
        assert got == expected_transfers(rc)
        seen += len(got)
    assert seen >= 10
    kinds = {t.standard for t in ix.token_transfers(raw_address(scenario.multi.address), 10).items}
    assert kinds == {"ERC-1155"}


def test_balances_agree_with_balance_of_at_every_block(w3, ix, scenario):
    owners = [scenario.alice.address, scenario.bob.address, EWOQ.address, scenario.factory.address]
    made = scenario.contract("Token", scenario.made_token)
    start = scenario.receipts[0].blockNumber
    for n in range(start, w3.eth.block_number + 1):
        for owner in owners:
            o = raw_address(owner)
            for token in (scenario.token, made):
                try:
                    want = token.functions.balanceOf(owner).call(block_identifier=n)
                except Exception:  # noqa: BLE001 - not deployed yet at block n
                    want = 0
                assert ix.erc20_balance(o, raw_address(token.address), n) == want, (n, owner)
            for token_id in (1, 2):
                try:
                    want = scenario.multi.functions.balanceOf(token_id, owner).call(block_identifier=n)
                except Exception:  # noqa: BLE001
                    want = 0
                assert ix.erc1155_balance(o, raw_address(scenario.multi.address), token_id, n) == want
    bob = raw_address(scenario.bob.address)
    assert {(b.token, b.balance) for b in ix.erc20_balances(bob, 10).items} == {
        (raw_address(scenario.token.address), scenario.token.functions.balanceOf(scenario.bob.address).call())}
    nft = raw_address(scenario.nft.address)
    assert scenario.nft.functions.ownerOf(1).call() == scenario.bob.address
    assert ix.nft(nft, 1).owner == bob and ix.nft(nft, 2).owner is None
    assert [(h.token, h.token_id) for h in ix.erc721_holdings(bob, 10).items] == [(nft, 1)]
    assert ix.erc721_holdings(raw_address(scenario.alice.address), 10).items == ()
    collectibles = ix.collectibles(bob, 10).items
    assert {(c.standard, c.token_id, c.balance) for c in collectibles} == {("ERC-721", 1, 1), ("ERC-1155", 1, 30),
                                                                            ("ERC-1155", 2, 50)}


def test_token_metadata_agrees_with_eth_call(ix, scenario):
    for c, standard in ((scenario.token, "ERC-20"), (scenario.contract("Token", scenario.made_token), "ERC-20"),
                        (scenario.nft, "ERC-721")):
        meta = ix.token(raw_address(c.address))
        assert (meta.standard, meta.name, meta.symbol) == (standard, c.functions.name().call(),
                                                           c.functions.symbol().call())
        if standard == "ERC-20":
            assert meta.decimals == c.functions.decimals().call()
    assert ix.token(raw_address(scenario.multi.address)).standard == "ERC-1155"
    assert ix.nft(raw_address(scenario.nft.address), 1).uri == scenario.nft.functions.tokenURI(1).call()
    assert ix.nft(raw_address(scenario.multi.address), 2).uri == scenario.multi.functions.uri(2).call()
    assert ix.contract(raw_address(scenario.alice.address)) is None
    assert ix.token(raw_address(scenario.factory.address)) is None


def test_call_frames_agree_with_debug_trace(w3, ix, scenario):
    for rc in [*scenario.factory_receipts, *scenario.reverted]:
        frames = ix.tx_details(bytes(rc.transactionHash)).frames
        mine = [f for f in frames if f.kind != "SELFDESTRUCT"]
        traced = flatten_trace(trace(w3, rc.transactionHash))
        assert len(mine) == len(traced)
        for f, t in zip(mine, traced):
            assert (f.kind, f.depth) == (t["type"], t["depth"])
            assert (f.sender, f.to) == (raw_address(t["from"]), raw_address(t["to"]))
            assert f.gas_limit == int(t["gas"], 16)
            assert f.failed == ("error" in t)
            assert f.value == (int(t["value"], 16) if "value" in t else 0)
            if f.depth == 0:
                continue  # callTracer reports the tx's gas for its own frame
            # the recorder counts a creation's code deposit (200 gas a byte) as geth does
            code = bytes.fromhex(t.get("output", "0x")[2:])
            deposit = 200 * len(code) if f.kind.startswith("CREATE") and not f.failed else 0
            assert f.gas_used == int(t["gasUsed"], 16) + deposit
    # the SELFDESTRUCT handed the child's balance (1000 + 44) to alice
    destroyed = [f for f in ix.tx_details(bytes(scenario.factory_receipts[5].transactionHash)).frames
                 if f.kind == "SELFDESTRUCT"]
    assert [(f.to, f.value, f.reverted) for f in destroyed] == [(raw_address(scenario.alice.address), 1044, False)]


def test_contract_creations(w3, ix, scenario):
    factory, bob = raw_address(scenario.factory.address), raw_address(scenario.bob.address)
    made, undone = [], []
    for rc in scenario.factory_receipts:
        for f in ix.tx_details(bytes(rc.transactionHash)).frames:
            if not f.kind.startswith("CREATE"):
                continue
            if f.reverted:
                undone.append(f.to)
                continue
            contract = ix.contract(f.to)
            assert (contract.creator, contract.deployer, contract.kind, contract.internal) == (factory, bob, f.kind, True)
            assert contract.tx_hash == bytes(rc.transactionHash)
            assert w3.eth.get_code(Web3.to_checksum_address(f.to)) != b""
            made.append(f.to)
    # an undone creation leaves nothing, unless the same address was created again (the factory's
    # nonce went back with the failed frame, so deployAfterFailure's second CREATE reuses it)
    assert len(undone) == 2
    for address in undone:
        if address not in made:
            assert ix.contract(address) is None and w3.eth.get_code(Web3.to_checksum_address(address)) == b""
    assert len(made) == 4  # deploy, deploy2, deployToken, deployAfterFailure (its first one was undone)
    assert ix.contract(raw_address(scenario.made_token)).token.symbol == "MADE"
    assert [c.address for c in ix.deployments(factory, 10).items] == made[::-1]
    assert {c.address for c in ix.deployments(bob, 10).items} == {*made, factory}
    top = ix.contract(raw_address(scenario.token.address))
    assert (top.internal, top.deployer, top.creator) == (False, raw_address(scenario.alice.address),
                                                         raw_address(scenario.alice.address))


def test_address_lists(w3, ix, scenario, node):
    alice, bob = raw_address(scenario.alice.address), raw_address(scenario.bob.address)
    top_level = [rc for rc in scenario.receipts if bob in (raw_address(rc["from"]), raw_address(rc.to or "0x"),
                                                           raw_address(rc.contractAddress or "0x"))]
    native = ix.native_transactions(bob, 100).items
    assert [t.hash for t in native] == [bytes(rc.transactionHash) for rc in top_level][::-1]
    # everything bob is part of: top-level, token transfers, listed internal txs
    involved = set()
    for rc in scenario.receipts:
        ends = {a for t in expected_transfers(rc) for a in t[2:4]}
        for f in flatten_trace(trace(w3, rc.transactionHash))[1:]:
            value = int(f.get("value", "0x0"), 16)
            if f["type"].startswith("CREATE") or (value and f["type"] in ("CALL", "CALLCODE")):
                ends |= {raw_address(f["from"]), raw_address(f["to"])}
        if rc in top_level or bob in ends:
            involved.add(bytes(rc.transactionHash))
    listed = ix.address_transactions(bob, 100)
    assert {x.tx.hash for x in listed.items} == involved and listed.next is None
    for x in listed.items:
        assert all(bob in (t.sender, t.to) for t in x.transfers)
        assert all(bob in (f.sender, f.to) for f in x.internals)
    ascending = ix.address_transactions(bob, 100, reverse=False).items
    assert [x.tx.hash for x in ascending] == [x.tx.hash for x in listed.items][::-1]
    # startBlock inclusive, endBlock exclusive
    mid = scenario.receipts[len(scenario.receipts) // 2].blockNumber
    window = ix.address_transactions(bob, 100, start_block=mid, end_block=mid + 3).items
    assert {x.tx.block_number for x in window} <= {mid, mid + 1, mid + 2}
    assert len(window) == len([x for x in listed.items if mid <= x.tx.block_number < mid + 3])
    internals = ix.internal_transactions(alice, 10).items
    # the SELFDESTRUCT that paid alice 1044 is no listed internal tx (the document's rule)
    assert [(f.kind, f.value) for f in internals] == [("CALL", 333)]
    assert [t.hash for t in ix.transactions(10, status=0).items] == [bytes(rc.transactionHash)
                                                                    for rc in scenario.reverted][::-1]
    assert [t.status for t in ix.transactions(5, status=1).items] == [1] * 5
    assert address_chains(node.node.store, alice) == [node.node.genesis.c_chain_id]
    erc20 = ix.erc20_transfers(bob, 100).items
    assert all(t.standard == "ERC-20" and bob in (t.sender, t.to) for t in erc20) and len(erc20) == 2


def test_page_walk_while_blocks_arrive(w3, ix, scenario):
    """pageSize=1 walks (newest first and oldest first) with a new block after every page: every
    tx that existed when the walk began comes exactly once."""
    alice = raw_address(scenario.alice.address)
    before_latest = {t.hash for t in ix.transactions(100).items}
    before_alice = [t.hash for t in ix.native_transactions(alice, 100, reverse=False).items]
    walks = {"latest": [], "alice": []}
    cursors: dict[str, bytes | None] = {"latest": None, "alice": None}
    done = {"latest": False, "alice": False}
    sent = 0
    while not all(done.values()):
        if not done["latest"]:
            page = ix.transactions(1, cursors["latest"])
            walks["latest"] += [t.hash for t in page.items]
            cursors["latest"], done["latest"] = page.next, page.next is None
        if not done["alice"]:
            page = ix.native_transactions(alice, 1, cursors["alice"], reverse=False)
            walks["alice"] += [t.hash for t in page.items]
            cursors["alice"], done["alice"] = page.next, page.next is None
        if sent < len(before_alice) + 3:  # the ascending walk meets the new ones at its end
            scenario.send(EWOQ, {"to": scenario.alice.address, "value": 1})
            sent += 1
    assert sent > len(before_alice)
    assert len(walks["latest"]) == len(set(walks["latest"])) and before_latest <= set(walks["latest"])
    assert len(walks["alice"]) == len(set(walks["alice"])) and walks["alice"][:len(before_alice)] == before_alice
