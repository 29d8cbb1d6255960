"""The index moves with its chains: snapshot -> more blocks -> revert restores it; `simnode
reindex` rebuilds it byte for byte from the block rows alone; blocks accepted with --no-index are
caught up at the next start; `kill -9` under load leaves index and chain agreeing; an L1 chain is
indexed too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from web3 import Web3

from simnode.config import NodeConfig
from simnode.formats import id_to_str
from simnode.index.evm.query import EvmIndex, address_chains, all_blocks
from simnode.node import Node
from simnode.store import Store

from . import index_scenario
from .index_scenario import EWOQ, raw_address
from .killed_node import kill_9_under_load
from .rpc import call
from .test_l1_evm_chain import GENESIS, L1_CHAIN_ID, create_l1, l1_web3

ROOT = Path(__file__).resolve().parents[2]
AB, CD = Web3.to_checksum_address("0x" + "ab" * 20), Web3.to_checksum_address("0x" + "cd" * 20)


def index_rows(store: Store) -> dict[bytes, bytes]:
    return dict(store.iterate(b"ix/"))


def stored_index(data_dir: Path) -> dict[bytes, bytes]:
    store = Store.open(data_dir / "db")
    try:
        return index_rows(store)
    finally:
        store.close()


def simnode(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, ETH_HASH_BACKEND="pysha3")
    return subprocess.run([sys.executable, "-m", "simnode", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=600)


def c_web3(h) -> Web3:
    return Web3(Web3.HTTPProvider(h.url + "/ext/bc/C/rpc", request_kwargs={"timeout": 60}))


def test_revert_moves_the_index_back():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual")) as h:
        w3 = c_web3(h)
        s = index_scenario.Scenario(w3, 43112)
        s.send(EWOQ, {"to": AB, "value": 5})
        before = index_rows(h.node.store)
        snap = call(h.url + "/ext/bc/C/rpc", "evm_snapshot")
        token = s.deploy(EWOQ, "Token", "Gone", "GONE", 1000)
        s.transact(EWOQ, token.functions.transfer(CD, 10))
        s.send(EWOQ, {"to": AB, "value": 6})
        ix = EvmIndex(h.node.store, h.node.genesis.c_chain_id)
        assert ix.token(raw_address(token.address)) is not None and len(index_rows(h.node.store)) > len(before)
        assert call(h.url + "/ext/bc/C/rpc", "evm_revert", [snap]) is True
        assert index_rows(h.node.store) == before
        assert ix.head() == w3.eth.block_number and ix.token(raw_address(token.address)) is None
        # the chain goes on from there, and so does its index
        s.send(EWOQ, {"to": AB, "value": 7})
        assert ix.head() == w3.eth.block_number and ix.block(ix.head()).hash == bytes(w3.eth.get_block("latest").hash)


def test_reindex_is_byte_identical_and_no_index_catches_up(tmp_path):
    data = tmp_path / "data"
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=data, clock_mode="virtual")) as h:
        index_scenario.run(c_web3(h), 43112)
        call(h.url + "/ext/bc/C/rpc", "anvil_mine", ["0x5"])  # empty blocks, one batch
    indexed = stored_index(data)
    done = simnode("reindex", "--data-dir", str(data))
    assert done.returncode == 0, done.stderr
    assert f"{len(indexed)} index rows" in done.stdout and "C-Chain: indexed blocks 0.." in done.stdout
    assert stored_index(data) == indexed
    # blocks accepted without the index are indexed when the node next starts with it
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=data, clock_mode="virtual", index=False)) as h:
        s = index_scenario.Scenario(c_web3(h), 43112)
        s.send(EWOQ, {"to": AB, "value": 5})
        token = s.deploy(EWOQ, "Token", "Later", "LTR", 10)
        head = h.node.chains[h.node.genesis.c_chain_id].head.number
    assert stored_index(data) == indexed
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=data, clock_mode="virtual")) as h:
        ix = EvmIndex(h.node.store, h.node.genesis.c_chain_id)
        assert ix.head() == head and ix.token(raw_address(token.address)).symbol == "LTR"
    caught_up = stored_index(data)
    assert simnode("reindex", "--data-dir", str(data)).returncode == 0
    assert stored_index(data) == caught_up
    assert simnode("reindex", "--data-dir", str(tmp_path / "none")).returncode == 1


def test_kill_9_under_load_leaves_index_and_chain_agreeing(tmp_path):
    data = tmp_path / "data"
    kill_9_under_load(data, lambda rpc: [EWOQ.sign_transaction(
        {"chainId": 43112, "nonce": n, "to": Web3.to_checksum_address("0x" + f"{n % 7 + 1:02x}" * 20), "value": n + 1,
         "gas": 21000, "maxFeePerGas": 100 * 10**9, "maxPriorityFeePerGas": 1}).raw_transaction.to_0x_hex()
        for n in range(400)])
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=data)) as h:
        w3 = c_web3(h)
        ix = EvmIndex(h.node.store, h.node.genesis.c_chain_id)
        head = w3.eth.block_number
        assert head >= 30 and ix.head() == head
        total = 0
        for n in range(head + 1):
            block = w3.eth.get_block(n)
            total += len(block.transactions)
            assert (ix.block(n).hash, ix.block(n).tx_count) == (bytes(block.hash), len(block.transactions))
        assert ix.block(head).cumulative_txs == total
        assert ix.native_transactions(raw_address(EWOQ.address), 1).items[0].nonce == total - 1
    after_restart = stored_index(data)
    assert simnode("reindex", "--data-dir", str(data)).returncode == 0
    assert stored_index(data) == after_restart


def test_l1_chain_is_indexed_and_reindexed(tmp_path):
    data = tmp_path / "data"
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=data, clock_mode="virtual")) as h:
        c = index_scenario.Scenario(c_web3(h), 43112)
        c.send(EWOQ, {"to": AB, "value": 5})
        _, chain_id = create_l1(h, json.dumps(GENESIS).encode())
        w3 = l1_web3(h.url + f"/ext/bc/{id_to_str(chain_id)}/rpc")
        s = index_scenario.Scenario(w3, L1_CHAIN_ID)
        s.send(EWOQ, {"to": AB, "value": 6})
        token = s.deploy(EWOQ, "Token", "L1 Token", "L1T", 1000)
        s.transact(EWOQ, token.functions.transfer(CD, 10))
        ix = EvmIndex(h.node.store, chain_id)
        assert ix.head() == w3.eth.block_number == 3
        assert [b.hash for b in ix.blocks(10).items] == [bytes(w3.eth.get_block(n).hash) for n in (3, 2, 1, 0)]
        assert ix.erc20_balance(b"\xcd" * 20, raw_address(token.address)) == 10
        assert ix.token(raw_address(token.address)).name == "L1 Token"
        ewoq = raw_address(EWOQ.address)
        assert address_chains(h.node.store, ewoq) == sorted([h.node.genesis.c_chain_id, chain_id])
        chains = {b.chain_id for b in all_blocks(h.node.store, 100).items}
        assert chains == {h.node.genesis.c_chain_id, chain_id}
    indexed = stored_index(data)
    done = simnode("reindex", "--data-dir", str(data))
    assert done.returncode == 0 and "myl1: indexed blocks 0..3" in done.stdout, done.stdout
    assert stored_index(data) == indexed
