"""A data dir written before trie deltas and pointer index rows (old_layout.py made it with the
code of that time) opens and answers every JSON-RPC and Data API query exactly as the node that
wrote it did; blocks added on top (deltas over its whole trie nodes, index rows of the new layout
beside its old ones) leave those answers unchanged and answer themselves after a restart."""

from __future__ import annotations

import json
import tarfile

import plyvel
import pytest
from web3 import Web3

from simnode.config import NodeConfig
from simnode.index.evm.layout import space
from simnode.index.evm.query import indexed_chains
from simnode.node import Node

from .index_scenario import EWOQ, GWEI
from .old_layout import FIXTURE, queries
from .rpc import call

FIXED = ("block ", "balances ", "receipt ", "data block ", "data tx ", "trace ", "proofs ")


@pytest.fixture()
def old_dir(tmp_path):
    with tarfile.open(FIXTURE) as tar:
        tar.extractall(tmp_path, filter="data")
    return tmp_path / "node", json.loads((tmp_path / "answers.json").read_text())


def head_of(answers: dict) -> int:
    return max(int(k.split()[1]) for k in answers if k.startswith("block "))


def same(got: dict, want: dict, keys: list[str]) -> None:
    for key in keys:
        assert got[key] == want[key], key


def test_old_layout_answers_as_before_and_grows_in_the_new_one(old_dir):
    data, want = old_dir
    head = head_of(want)
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=data, log_level="WARN")) as h:
        same(queries(h.url, head), want, sorted(want))
        rpc = h.url + "/ext/bc/C/rpc"
        w3 = Web3(Web3.HTTPProvider(rpc))
        to = "0x" + "5e" * 20
        tx = EWOQ.sign_transaction({"chainId": 43112, "nonce": w3.eth.get_transaction_count(EWOQ.address),
                                    "to": Web3.to_checksum_address(to), "value": 77, "gas": 21000,
                                    "maxFeePerGas": 100 * GWEI, "maxPriorityFeePerGas": GWEI})
        tx_hash = w3.eth.send_raw_transaction(tx.raw_transaction)
        w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30, poll_latency=0.01)
    with plyvel.DB(str(data / "db")) as db:
        assert next(db.iterator(prefix=b"C/sd/"), None) is not None  # deltas over the old whole nodes
        assert next(db.iterator(prefix=b"C/s/"), None) is not None
        cid = next(k[5:37] for k, _ in db.iterator(prefix=b"ix/c/") if db.get(space(k[5:37]).rp) is not None)
        sp = space(cid)
        assert db.get(sp.th + bytes(tx_hash)) is None  # no copy of the chain's tx lookup any more
        assert db.get(sp.tx + (head + 1).to_bytes(8, "big") + bytes(4)) == b""
        assert next(db.iterator(prefix=sp.th), None) is not None  # the old rows stay, read as they are
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=data, log_level="WARN")) as h:
        rpc = h.url + "/ext/bc/C/rpc"
        same(queries(h.url, head), want, sorted(k for k in want if k.startswith(FIXED)))
        assert call(rpc, "eth_getBalance", [to, "latest"]) == hex(77)
        got = queries(h.url)
        assert got[f"data tx 0x{bytes(tx_hash).hex()}"][1]["nativeTransaction"]["value"] == "77"
        assert [b["blockNumber"] for b in got["data blocks"][1]["blocks"][:2]] == [str(head + 1), str(head)]
        assert got["data txs"][1]["transactions"][1] == want["data txs"][1]["transactions"][0]
        assert indexed_chains(h.node.store)
