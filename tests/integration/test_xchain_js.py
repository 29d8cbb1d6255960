"""A real client: avalanchejs 5.2.0 (tests/js) builds its context from simnode, sends AVAX on the
X-Chain with avm.newBaseTx + addTxSignatures, and the balances are then checked over HTTP."""

from __future__ import annotations

import hashlib


from simnode.config import NodeConfig
from simnode.crypto.secp256k1 import public_key, short_address
from simnode.formats.address import format_address
from simnode.node import Node

from .js import require_js, run_js
from .rpc import call

EWOQ_ADDR = "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"


def test_avalanchejs_sends_avax_on_x():
    require_js()
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as node:
        to = format_address("X", "local", short_address(public_key(hashlib.sha256(b"js-recipient").digest())))
        amount = 1_234_000_000
        out = run_js("xchain_send.mjs", node.url, to, str(amount), timeout=120)
        assert out["networkID"] == 12345
        assert out["xBlockchainID"] == "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"
        assert out["avaxAssetID"] == "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"
        assert out["baseTxFee"] == "1000000"
        x = node.url + "/ext/bc/X"
        assert call(x, "avm.getTxStatus", {"txID": out["txID"]}) == {"status": "Accepted"}
        assert call(x, "avm.getBalance", {"address": to, "assetID": "AVAX"})["balance"] == str(amount)
        ewoq = call(x, "avm.getBalance", {"address": EWOQ_ADDR, "assetID": "AVAX"})["balance"]
        assert int(ewoq) == 300_000_000 * 10**9 - amount - 1_000_000
