"""An L1 chain of simnode against the real subnet-EVM's recorded answers, without AvalancheGo
(tests/vectors/avalanchego_answers/l1_chain.json, recorded by scripts/diff_avalanchego.py --l1):
eth_coinbase is subnet-EVM's etherbase (the blackhole without a feeRecipient), not a block's
coinbase; eth_suggestPriceOptions is coreth's alone; the P-Chain lists an L1's validators by node ID."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simnode.config import NodeConfig
from simnode.formats import id_to_str
from simnode.node import Node
from simnode.testing.differ import Call, Differ, Reply, send

from .icm_l1 import converted_l1, subnet_evm_genesis
from .rpc import call

ANSWERS = Path(__file__).resolve().parents[1] / "vectors" / "avalanchego_answers" / "l1_chain.json"


@pytest.fixture(scope="module")
def l1():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", seed=7)) as h:
        chain_id, _ = converted_l1(h, "answers", subnet_evm_genesis(99321, {}))
        yield h.url, id_to_str(chain_id)


@pytest.mark.parametrize("record", json.loads(ANSWERS.read_text())["records"], ids=lambda r: r["label"])
def test_the_l1_chain_answers_as_subnet_evm_did(l1, record):
    url, chain = l1
    call = Call(record["path"].format(chain=chain), record["body"], label=record["label"])
    real = Reply(record["status"], record["reply_content_type"], record["reply"].encode())
    differ = Differ("recorded", url)
    differ.compare_replies(call, real, send(url, call, call.body))
    assert differ.divergences == [], [d.line() for d in differ.divergences]


def test_an_l1s_validators_are_listed_by_node_id_as_avalanchego_lists_them(l1):
    """The recorded getCurrentValidators of an L1 (six validators) is in node ID order (AvalancheGo's
    subnetID+nodeID index), not validation ID order; simnode lists a fresh L1's the same way."""
    from simnode.formats import id_from_str, node_id_from_str

    real = json.loads(json.loads(ANSWERS.read_text())["validators"]["reply"])["result"]["validators"]
    assert len(real) == 6
    assert real == sorted(real, key=lambda v: node_id_from_str(v["nodeID"]))
    assert real != sorted(real, key=lambda v: id_from_str(v["validationID"]))
    url, chain = l1
    subnet = next(c["subnetID"] for c in call(url + "/ext/bc/P", "platform.getBlockchains")["blockchains"]
                  if c["id"] == chain)
    mine = call(url + "/ext/bc/P", "platform.getCurrentValidators", {"subnetID": subnet})["validators"]
    assert len(mine) == 3 and mine != sorted(mine, key=lambda v: id_from_str(v["validationID"]))
    assert mine == sorted(mine, key=lambda v: node_id_from_str(v["nodeID"]))
