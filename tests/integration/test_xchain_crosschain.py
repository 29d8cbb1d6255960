"""Cross-chain through shared memory: the X vectors export to P and C in the same batch as their
X block; the P-Chain then imports (vector P.ImportTx.from_X) and the X side no longer lists it."""

from __future__ import annotations

import time

import pytest

from simnode.config import NodeConfig
from simnode.node import Node
from tests.vectors import load

from .rpc import RPCFailure, call

V = {v["name"]: v for v in load("tx-vectors.json")}
EWOQ_P = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"


def _wait(url: str, method: str, tx_id: str, done: str) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if call(url, method, {"txID": tx_id})["status"] == done:
            return
        time.sleep(0.01)
    raise AssertionError(f"{tx_id} not {done}")


def test_x_export_then_p_import():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as node:
        x, p = node.url + "/ext/bc/X", node.url + "/ext/bc/P"
        for name in ("X.BaseTx.send_1_AVAX_with_change", "X.CreateAssetTx.SIMT", "X.ExportTx.to_P_10000_AVAX"):
            assert call(x, "avm.issueTx", {"tx": V[name]["signedTxIssueHex"]}) == {"txID": V[name]["txID"]}
            _wait(x, "avm.getTxStatus", V[name]["txID"], "Accepted")
        exported = V["X.ExportTx.to_P_10000_AVAX"]["producedUTXOs"][-1]
        try:
            got = call(p, "platform.getUTXOs", {"addresses": [EWOQ_P], "sourceChain": "X"})
        except RPCFailure as exc:
            pytest.skip(f"the P-Chain does not serve platform.getUTXOs yet: {exc}")
        assert got["numFetched"] == "1" and got["utxos"][0].startswith(exported["hex"])
        assert got["endIndex"]["utxo"] == exported["utxoID"]
        imp = V["P.ImportTx.from_X"]
        assert call(p, "platform.issueTx", {"tx": imp["signedTxIssueHex"]}) == {"txID": imp["txID"]}
        _wait(p, "platform.getTxStatus", imp["txID"], "Committed")
        assert call(p, "platform.getUTXOs", {"addresses": [EWOQ_P], "sourceChain": "X"})["numFetched"] == "0"
        # The same atomic UTXO cannot be imported twice.
        with pytest.raises(RPCFailure):
            call(p, "platform.issueTx", {"tx": imp["signedTxIssueHex"]})
