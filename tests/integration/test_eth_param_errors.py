"""The C-Chain's JSON-RPC refuses bad arguments as the real node does: -32602 "invalid argument N:
..." where coreth's rpc package fails to decode an argument before the method runs, -32000 where
the method itself returns the error, and the same texts.

tests/vectors/avalanchego_eth_param_errors.json holds AvalancheGo v1.14.2's answers to each call,
recorded from a real node's C-Chain by scripts/record_eth_param_errors.py; replayed here on a
fresh simnode, without AvalancheGo.
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import pytest

from simnode.config import NodeConfig
from simnode.node import Node

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "avalanchego_eth_param_errors.json"
CASES = json.loads(VECTORS.read_text())["cases"]
@pytest.fixture(scope="module")
def url():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="ERROR")) as handle:
        yield handle.url


def _answer(url: str, method: str, params: list) -> dict:
    conn = http.client.HTTPConnection(url.split("//", 1)[1], timeout=60)
    conn.request("POST", "/ext/bc/C/rpc", json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
                 {"Content-Type": "application/json"})
    reply = json.loads(conn.getresponse().read())
    conn.close()
    return reply["error"] if "error" in reply else {"result": "ok"}


@pytest.mark.parametrize("case", CASES, ids=[c["label"] for c in CASES])
def test_bad_argument_answered_as_avalanchego(url, case):
    assert _answer(url, case["method"], case["params"]) == case["answer"]
