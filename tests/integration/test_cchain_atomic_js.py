"""A real client through the C-Chain atomic API: avalanchejs 5.2.0 (tests/js/crosschain_xc.mjs) exports
X→C and imports on C (evm.newImportTxFromBaseFee with eth_baseFee), exports C→X and imports on X,
C→P and P→C likewise. Every step's balances are checked, the nAVAX are counted (1 nAVAX = 1e9 wei
on C: before = after + burned), and the end state is re-read over HTTP (eth_getBalance, avax.*)."""

from __future__ import annotations

import pytest

from simnode.config import NodeConfig
from simnode.node import Node

from .rpc import RPCFailure, call
from .js import require_js, run_js

AVAX = 10**9
X_FEE = 1_000_000
KEYS = ("kX", "kP", "kC", "onCfromX", "onCfromP", "onXfromC", "onPfromC")


def _total(bal: dict) -> int:
    return sum(int(bal[k]) for k in KEYS)


def _rpc(url: str, method: str, params: list) -> object:
    import json
    import urllib.request

    req = urllib.request.Request(url, json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read())["result"]


def test_avalanchejs_x_c_p_atomic_round_trips():
    require_js()
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as node:
        out = run_js("crosschain_xc.mjs", node.url, timeout=120)
        avax_url, rpc_url = node.url + "/ext/bc/C/avax", node.url + "/ext/bc/C/rpc"
        steps = {s["name"]: s for s in out["steps"]}
        assert list(steps) == ["X.BaseTx", "X.ExportTx.to_C", "C.ImportTx.from_X", "C.ExportTx.to_X",
                               "X.ImportTx.from_C", "C.ExportTx.to_P", "P.ImportTx.from_C", "P.ExportTx.to_C",
                               "C.ImportTx.from_P"]
        amounts = {k: int(v) for k, v in out["amounts"].items()}

        for s in out["steps"]:
            assert s["txID"] == s["expectedTxID"], s["name"]
            if s["chain"] == "C":
                assert s["txType"] in ("evm.ImportTx", "evm.ExportTx"), s
                assert s["readBack"] is True, s["name"]
                assert s["status"]["status"] == "Accepted" and int(s["status"]["blockHeight"]) >= 1
                # the block's extra data carries exactly this tx
                blk = _rpc(rpc_url, "eth_getBlockByNumber", [hex(int(s["status"]["blockHeight"])), False])
                assert blk["transactions"] == [] and blk["extDataGasUsed"] == hex(11230)
                assert blk["extDataHash"] != "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"
                got = call(avax_url, "avax.getAtomicTx", {"txID": s["txID"]})
                assert got["blockHeight"] == s["status"]["blockHeight"] and got["encoding"] == "hex"
                # u16 codec version | u32 count | the tx without its own version prefix
                assert blk["blockExtraData"] == "0x0000" + "00000001" + got["tx"][6:-8]
                # gas 11230 at 1 nAVAX/gas (eth_baseFee 1 wei, rounded up by the script)
                assert int(s["baseFeeWei"]) >= 1 and int(s["burned"]) == 11230

        # X fees are the static X fee; P fees are dynamic and small.
        for name in ("X.BaseTx", "X.ExportTx.to_C", "X.ImportTx.from_C"):
            assert int(steps[name]["burned"]) == X_FEE, name
        for name in ("P.ImportTx.from_C", "P.ExportTx.to_C"):
            assert 0 < int(steps[name]["burned"]) < AVAX // 100, name

        # Step by step: nothing created, only the burned fee vanished (C counted in nAVAX).
        prev = out["start"]
        assert int(prev["kX"]) == amounts["send"] and int(prev["kC"]) == 0
        for s in out["steps"][1:]:
            cur = s["balances"]
            assert int(cur["kCWei"]) == int(cur["kC"]) * AVAX
            assert _total(prev) - _total(cur) == int(s["burned"]), s["name"]
            prev = cur

        b = steps["X.ExportTx.to_C"]["balances"]
        assert b["onCfromXCount"] == 1 and int(b["onCfromX"]) == amounts["xToC"]
        b = steps["C.ImportTx.from_X"]["balances"]
        assert b["onCfromXCount"] == 0 and int(b["kC"]) == amounts["xToC"] - 11230
        b = steps["C.ExportTx.to_X"]["balances"]
        assert int(b["onXfromC"]) == amounts["cToX"]
        assert steps["C.ExportTx.to_X"]["nonce"] == "0" and steps["C.ExportTx.to_X"]["nonceAfter"] == "1"
        assert steps["C.ExportTx.to_P"]["nonce"] == "1" and steps["C.ExportTx.to_P"]["nonceAfter"] == "2"
        b = steps["X.ImportTx.from_C"]["balances"]
        assert b["onXfromCCount"] == 0
        assert int(b["kX"]) == amounts["send"] - amounts["xToC"] - X_FEE + amounts["cToX"] - X_FEE
        b = steps["P.ImportTx.from_C"]["balances"]
        assert int(b["kP"]) == amounts["cToP"] - int(steps["P.ImportTx.from_C"]["burned"])
        b = steps["C.ImportTx.from_P"]["balances"]
        assert b["onCfromPCount"] == 0
        assert int(b["kC"]) == (amounts["xToC"] - 11230 - amounts["cToX"] - 11230 - amounts["cToP"] - 11230
                                + amounts["pToC"] - 11230)

        after = out["steps"][-1]["balances"]
        fees = sum(int(s["burned"]) for s in out["steps"][1:])
        assert _total(out["start"]) == _total(after) + fees

        # Re-read over HTTP, independently of the script.
        a = out["addresses"]
        assert int(_rpc(rpc_url, "eth_getBalance", [a["kEth"], "latest"]), 16) == int(after["kC"]) * AVAX
        assert _rpc(rpc_url, "eth_getTransactionCount", [a["kEth"], "latest"]) == "0x2"
        for src in ("X", "P"):
            got = call(avax_url, "avax.getUTXOs", {"addresses": [a["kC"]], "sourceChain": src})
            assert got["numFetched"] == "0" and got["utxos"] == [] and got["encoding"] == "hex"
        # native.* on /ext/bc/C/native is the same service
        st = call(node.url + "/ext/bc/C/native", "native.getAtomicTxStatus", {"txID": steps["C.ImportTx.from_P"]["txID"]})
        assert st == steps["C.ImportTx.from_P"]["status"]


def test_avax_api_errors_over_http():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as node:
        url = node.url + "/ext/bc/C/avax"
        cases = [
            ("avax.getUTXOs", {"sourceChain": "X"}, "no addresses provided"),
            ("avax.getUTXOs", {"addresses": ["C-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"]}, "no source chain provided"),
            ("avax.getUTXOs", {"addresses": ["C-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"], "sourceChain": "Q"},
             'problem parsing source chainID "Q": there is no ID with alias: Q'),
            ("avax.getAtomicTxStatus", {"txID": "11111111111111111111111111111111LpoYY"}, "nil transaction ID"),
            ("avax.getAtomicTx", {"txID": "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC"},
             "could not find tx 2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC"),
            ("avax.issueTx", {"tx": "0x00"}, "problem decoding transaction: input string is smaller than the checksum size"),
            ("avax.issueTx", {"tx": "0x0000000000ff", "encoding": "hexnc"}, "problem parsing transaction: "),
        ]
        for method, params, msg in cases:
            with pytest.raises(RPCFailure) as exc:
                call(url, method, params)
            assert str(exc.value).startswith(msg), (method, str(exc.value))
        assert call(url, "avax.getAtomicTxStatus", {"txID": "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC"}) == \
            {"status": "Unknown"}
        got = call(url, "avax.getUTXOs", {"addresses": ["C-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"], "sourceChain": "X"})
        assert got == {"numFetched": "0", "utxos": [], "endIndex": {
            "address": "C-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u", "utxo": "11111111111111111111111111111111LpoYY"},
            "encoding": "hex"}
