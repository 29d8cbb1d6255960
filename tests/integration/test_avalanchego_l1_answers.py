"""An L1 chain of simnode against the real subnet-EVM's recorded answers, without AvalancheGo
(tests/vectors/avalanchego_answers/l1_chain.json, recorded by scripts/diff_avalanchego.py --l1):
eth_coinbase is subnet-EVM's etherbase (the blackhole without a feeRecipient), not a block's
coinbase; eth_suggestPriceOptions is coreth's alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simnode.config import NodeConfig
from simnode.formats import id_to_str
from simnode.node import Node
from simnode.testing.differ import Call, Differ, Reply, send

from .icm_l1 import converted_l1, subnet_evm_genesis

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
