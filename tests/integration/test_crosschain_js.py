"""A real client across chains: avalanchejs 5.2.0 (tests/js/crosschain_xp.mjs) builds its context
from simnode, sends AVAX on X (ewoq → a fresh key K), exports X→P, imports on P with the Etna
builder (fee state from platform.getFeeState), exports P→X and imports on X. The script snapshots
every involved balance after each step; here they are checked step by step, the nAVAX are counted
(before = after + what the txs burned), and the end state is re-read over HTTP."""

from __future__ import annotations

import hashlib


from simnode.config import NodeConfig
from simnode.node import Node

from .js import require_js, run_js
from .rpc import call

AVAX = 10**9
X_FEE = 1_000_000
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _cb58(b: bytes) -> str:
    b = b + hashlib.sha256(b).digest()[-4:]
    n, s = int.from_bytes(b, "big"), ""
    while n:
        n, r = divmod(n, 58)
        s = B58[r] + s
    return "1" * (len(b) - len(b.lstrip(b"\0"))) + s



def _total(bal: dict) -> int:
    return sum(int(bal[k]) for k in ("ewoqX", "kX", "ewoqP", "kP", "atomicOnPfromX", "atomicOnXfromP"))


def test_avalanchejs_x_to_p_and_back():
    require_js()
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as node:
        out = run_js("crosschain_xp.mjs", node.url)
        x, p = node.url + "/ext/bc/X", node.url + "/ext/bc/P"

        # The context avalanchejs built from simnode (info, avm, platform.getFeeConfig).
        ctx = out["context"]
        assert ctx["networkID"] == 12345 and ctx["hrp"] == "local"
        assert ctx["xBlockchainID"] == "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"
        assert ctx["pBlockchainID"] == "11111111111111111111111111111111LpoYY"
        assert ctx["cBlockchainID"] == "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC"
        assert ctx["avaxAssetID"] == "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"
        assert ctx["baseTxFee"] == ctx["createAssetTxFee"] == str(X_FEE)
        assert ctx["platformFeeConfig"] == {
            "weights": [1, 1000, 1000, 4], "maxCapacity": "1000000", "maxPerSecond": "100000",
            "targetPerSecond": "50000", "minPrice": "1", "excessConversionConstant": "2164043"}
        assert int(out["feeState"]["price"]) >= 1

        steps = {s["name"]: s for s in out["steps"]}
        assert list(steps) == ["X.BaseTx", "X.ExportTx", "P.ImportTx", "P.ExportTx", "X.ImportTx"]
        assert [s["txType"] for s in out["steps"]] == [
            "avm.BaseTx", "avm.ExportTx", "pvm.ImportTx", "pvm.ExportTx", "avm.ImportTx"]
        send, x_to_p, p_to_x = (int(out["amounts"][k]) for k in ("send", "xToP", "pToX"))

        # Every step: issueTx returned the ID the client computed; the node still says so now;
        # getTx returns the very bytes whose sha256 is that ID.
        for s in out["steps"]:
            assert s["txID"] == s["expectedTxID"], s["name"]
            assert s["readBack"] is True, s["name"]
            url, method, done = (x, "avm.getTxStatus", "Accepted") if s["chain"] == "X" else \
                (p, "platform.getTxStatus", "Committed")
            assert s["status"] == done
            assert call(url, method, {"txID": s["txID"]}) == {"status": done}
            prefix = "avm" if s["chain"] == "X" else "platform"
            got = call(url, f"{prefix}.getTx", {"txID": s["txID"], "encoding": "hex"})
            raw = bytes.fromhex(got["tx"][2:])
            # hex encoding carries a 4-byte sha256 checksum at the end
            assert hashlib.sha256(raw[:-4]).digest()[-4:] == raw[-4:]
            assert _cb58(hashlib.sha256(raw[:-4]).digest()) == s["txID"], s["name"]

        # Fees: X txs burn exactly the X txFee; P txs burn the dynamic fee (gas × price > 0).
        for name in ("X.BaseTx", "X.ExportTx", "X.ImportTx"):
            assert int(steps[name]["burned"]) == X_FEE, name
        for name in ("P.ImportTx", "P.ExportTx"):
            assert 0 < int(steps[name]["burned"]) < AVAX // 100, name

        # Step by step: the nAVAX moved where they should, and only the burned fee vanished.
        before = out["before"]
        assert int(before["kX"]) == int(before["kP"]) == 0
        assert before["atomicOnPfromXCount"] == before["atomicOnXfromPCount"] == 0
        prev = before
        for s in out["steps"]:
            cur = s["balances"]
            assert _total(prev) - _total(cur) == int(s["burned"]), s["name"]
            prev = cur

        b = steps["X.BaseTx"]["balances"]
        assert int(b["kX"]) == send
        assert int(b["ewoqX"]) == int(before["ewoqX"]) - send - X_FEE
        b = steps["X.ExportTx"]["balances"]
        assert int(b["kX"]) == send - x_to_p - X_FEE
        assert b["atomicOnPfromXCount"] == 1 and int(b["atomicOnPfromX"]) == x_to_p
        b = steps["P.ImportTx"]["balances"]
        assert b["atomicOnPfromXCount"] == 0
        assert int(b["kP"]) == x_to_p - int(steps["P.ImportTx"]["burned"])
        b = steps["P.ExportTx"]["balances"]
        assert int(b["kP"]) == x_to_p - int(steps["P.ImportTx"]["burned"]) - p_to_x - int(steps["P.ExportTx"]["burned"])
        assert b["atomicOnXfromPCount"] == 1 and int(b["atomicOnXfromP"]) == p_to_x
        b = steps["X.ImportTx"]["balances"]
        assert b["atomicOnXfromPCount"] == 0
        assert int(b["kX"]) == send - x_to_p - X_FEE + p_to_x - X_FEE
        # ewoq's P balance was never touched.
        assert b["ewoqP"] == before["ewoqP"]

        # The whole run: before = after + fees burned.
        after = out["steps"][-1]["balances"]
        fees = sum(int(s["burned"]) for s in out["steps"])
        assert _total(before) == _total(after) + fees

        # Re-read the end state over HTTP, independently of the script.
        a = out["addresses"]
        assert call(x, "avm.getBalance", {"address": a["kX"], "assetID": "AVAX"})["balance"] == after["kX"]
        assert call(x, "avm.getBalance", {"address": a["ewoqX"], "assetID": "AVAX"})["balance"] == after["ewoqX"]
        pb = call(p, "platform.getBalance", {"addresses": [a["kP"]]})
        assert pb["balance"] == pb["unlocked"] == after["kP"]
        assert pb["lockedStakeable"] == pb["lockedNotStakeable"] == "0"
        assert len(pb["utxoIDs"]) == 1 and isinstance(pb["utxoIDs"][0]["outputIndex"], int)
        assert pb["utxoIDs"][0]["txID"] == steps["P.ExportTx"]["txID"]  # its change output
        for url, prefix, addr, src in ((x, "avm", a["kX"], "P"), (p, "platform", a["kP"], "X")):
            got = call(url, f"{prefix}.getUTXOs", {"addresses": [addr], "sourceChain": src})
            assert got["numFetched"] == "0" and got["utxos"] == []
        # The P-Chain fee state after the two P txs (ACP-103, as AvalancheGo advances it): capacity starts
        # at 0 at genesis and refills at maxPerSecond up to maxCapacity before a block's gas is consumed;
        # excess shrinks by targetPerSecond per second and grows by the gas. Price stayed at minPrice = 1,
        # so gas = burned. Both blocks in one second, or the second one ≥ 1 s later:
        g_imp, g_exp = int(steps["P.ImportTx"]["burned"]), int(steps["P.ExportTx"]["burned"])
        fs = call(p, "platform.getFeeState")
        assert fs["price"] == 1 and isinstance(fs["capacity"], int) and isinstance(fs["excess"], int)
        assert fs["excess"] in (g_imp + g_exp, g_exp)
        assert fs["capacity"] == 1_000_000 - fs["excess"]

        # K's X UTXOs: the change of its export and the imported output.
        xu = call(x, "avm.getUTXOs", {"addresses": [a["kX"]]})
        assert xu["numFetched"] == "2"
