"""Bad arguments to every JSON-RPC method crash no handler: a node answers each with a user error
(or a result), never -32603, the internal error a handler's bug is answered with (and logged).

Every gorilla method of every endpoint (info, admin, X and its wallet, P, the C-Chain's avax,
simnode) gets its usual fields with values of every JSON type and malformed strings; every geth
method of the C-Chain gets argument lists of every shape. The node is this module's own.
"""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest

from simnode.api.server import Router
from simnode.config import NodeConfig
from simnode.node import Node
from simnode.rpc.jsonrpc import EthService, GorillaService

GORILLA = ("/ext/info", "/ext/admin", "/ext/bc/X", "/ext/bc/P", "/ext/bc/C/avax",
           "/ext/bc/X/wallet", "/ext/simnode")
# methods that profile or time-travel the process rather than read arguments
SKIP = {"admin.startCPUProfiler", "admin.stopCPUProfiler", "admin.memoryProfile", "admin.lockProfile",
        "simnode.setTime", "simnode.advanceTime", "simnode.revert", "simnode.mine"}
FIELDS = ("txID", "address", "addresses", "assetID", "encoding", "height", "blockID", "subnetID", "nodeIDs",
          "chain", "alias", "tx", "limit", "startIndex", "sourceChain", "blockchainID", "utxoIDs", "validationID",
          "amount", "to", "level", "loggerName")
VALUES: tuple[Any, ...] = (None, "", "x", "0xzz", -1, 2**70, True, [], {}, ["x"])
ETH_ARGS: tuple[list[Any], ...] = ([], [None], ["0xzz"], ["x", "y"], [{}], [{"to": "0xzz"}], [1, 2, 3], [[]],
                                   [2**70], [True], ["0x1", "0x1", "0x1"], [{"from": 5, "data": "0xzz"}])


@pytest.fixture(scope="module")
def h():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="ERROR", api_admin_enabled=True)) as handle:
        yield handle


def _calls(h, path: str, bodies: list[dict[str, Any]]) -> list[tuple[dict[str, Any], int, bytes]]:
    conn = http.client.HTTPConnection(h.url.split("//", 1)[1], timeout=60)
    out = []
    for body in bodies:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        reply = conn.getresponse()
        out.append((body, reply.status, reply.read()))
    conn.close()
    return out


def _crashes(replies: list[tuple[dict[str, Any], int, bytes]]) -> list[tuple[Any, ...]]:
    bad = []
    for body, status, raw in replies:
        error = json.loads(raw).get("error") if status == 200 and raw else None
        if status != 200 or (error is not None and error["code"] == -32603):
            bad.append((body["method"], body["params"], status, raw[:200]))
    return bad


def test_no_gorilla_method_crashes_on_bad_arguments(h):
    router = Router(h.node)
    checked = 0
    for path in GORILLA:
        service = router.resolve(path)
        assert isinstance(service, GorillaService), path
        bodies = [{"jsonrpc": "2.0", "id": 1, "method": m, "params": {f: v}}
                  for m in service.method_names() if m not in SKIP for f in FIELDS for v in VALUES]
        replies = _calls(h, path, bodies)
        assert _crashes(replies) == []
        checked += len(replies)
    assert checked > 10_000


def test_no_geth_method_crashes_on_bad_arguments(h):
    service = Router(h.node).resolve("/ext/bc/C/rpc")
    assert isinstance(service, EthService)
    methods = [m for m in service.method_names()
               if not m.startswith(("anvil_", "hardhat_", "evm_", "miner_", "debug_setHead"))]
    bodies = [{"jsonrpc": "2.0", "id": 1, "method": m, "params": args} for m in methods for args in ETH_ARGS]
    replies = _calls(h, "/ext/bc/C/rpc", bodies)
    assert _crashes(replies) == []
    assert len(replies) > 800
