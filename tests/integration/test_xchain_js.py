"""A real client: avalanchejs 5.2.0 (tests/js) builds its context from simnode, sends AVAX on the
X-Chain with avm.newBaseTx + addTxSignatures, and the balances are then checked over HTTP."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from simnode.config import NodeConfig
from simnode.crypto.secp256k1 import public_key, short_address
from simnode.formats.address import format_address
from simnode.node import Node

from .rpc import RPCFailure, call

JS_DIR = Path(__file__).resolve().parents[1] / "js"
EWOQ_ADDR = "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"


def _ensure_node_modules() -> None:
    if (JS_DIR / "node_modules" / "@avalabs" / "avalanchejs").is_dir():
        return
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed, so tests/js/node_modules cannot be installed")
    subprocess.run([npm, "ci", "--silent", "--no-audit", "--no-fund"], cwd=JS_DIR, check=True, timeout=300)


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js (node) is not installed")
def test_avalanchejs_sends_avax_on_x():
    _ensure_node_modules()
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as node:
        try:
            call(node.url + "/ext/bc/P", "platform.getFeeConfig")
            call(node.url + "/ext/bc/P", "platform.getFeeState")
        except RPCFailure as exc:
            pytest.skip(f"avalanchejs' context needs the P-Chain fee methods, not served yet: {exc}")
        to = format_address("X", "local", short_address(public_key(hashlib.sha256(b"js-recipient").digest())))
        amount = 1_234_000_000
        proc = subprocess.run(["node", "xchain_send.mjs", node.url, to, str(amount)], cwd=JS_DIR,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        assert out["networkID"] == 12345
        assert out["xBlockchainID"] == "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"
        assert out["avaxAssetID"] == "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"
        assert out["baseTxFee"] == "1000000"
        x = node.url + "/ext/bc/X"
        assert call(x, "avm.getTxStatus", {"txID": out["txID"]}) == {"status": "Accepted"}
        assert call(x, "avm.getBalance", {"address": to, "assetID": "AVAX"})["balance"] == str(amount)
        ewoq = call(x, "avm.getBalance", {"address": EWOQ_ADDR, "assetID": "AVAX"})["balance"]
        assert int(ewoq) == 300_000_000 * 10**9 - amount - 1_000_000
