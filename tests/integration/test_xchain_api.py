"""The X-Chain over real HTTP: the avalanchejs vectors issued to a fresh node, every avm method,
wallet.issueTx, a burst of txs, and getUTXOs paging over an address holding 5,000 UTXOs."""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from simnode.codec import UTXO, TransferableOutput, TransferOutput
from simnode.config import NodeConfig
from simnode.crypto.secp256k1 import public_key, short_address
from simnode.formats.address import format_address
from simnode.formats.hexenc import encode_bytes
from simnode.formats.ids import id_from_str, id_to_str, private_key_from_str
from simnode.node import Node
from simnode.vms.avm.wallet import XContext, XWallet, owner
from simnode.vms.avm.txs import Tx
from tests.vectors import load

from .rpc import RPCFailure, call, post

X_ID = "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"
AVAX = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"
EWOQ_ADDR = "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
EWOQ_KEY = private_key_from_str("PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN")
EWOQ = short_address(public_key(EWOQ_KEY))
FEE = 1_000_000
X_CONTEXT = XContext(12345, id_from_str(X_ID), id_from_str(AVAX), FEE, FEE)
X_VECTORS = [v for v in load("tx-vectors.json") if v["chain"] == "X"]


@pytest.fixture()
def node():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as handle:
        yield handle


def avm(node, method, params=None, path="/ext/bc/X"):
    return call(node.url + path, "avm." + method, params)


def wait_accepted(node, tx_id: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if avm(node, "getTxStatus", {"txID": tx_id})["status"] == "Accepted":
            return
        time.sleep(0.005)
    raise AssertionError(f"tx {tx_id} not accepted")


def issue(node, tx: Tx, path="/ext/bc/X", service="avm") -> str:
    result = call(node.url + path, f"{service}.issueTx", {"tx": encode_bytes(tx.bytes, "hex"), "encoding": "hex"})
    assert result == {"txID": id_to_str(tx.id)}
    return result["txID"]


def _xaddr(addr: bytes) -> str:
    return format_address("X", "local", addr)


def test_vectors_over_http(node):
    for path in ("/ext/bc/X", "/ext/X", "/ext/bc/avm", f"/ext/bc/{X_ID}"):
        assert avm(node, "getHeight", path=path) == {"height": "0"}
    assert avm(node, "getAssetDescription", {"assetID": "AVAX"}) == {
        "assetID": AVAX, "name": "Avalanche", "symbol": "AVAX", "denomination": "9"}
    assert avm(node, "getTxFee") == {"txFee": "1000000", "createAssetTxFee": "1000000"}
    assert avm(node, "getBalance", {"address": EWOQ_ADDR, "assetID": AVAX})["balance"] == "300000000000000000"

    for vec in X_VECTORS[:4]:  # the ImportTx needs P's export: see the unit replay and P's tests
        got = avm(node, "issueTx", {"tx": vec["signedTxIssueHex"]})
        assert got == {"txID": vec["txID"]}
        wait_accepted(node, vec["txID"])
        assert avm(node, "getTx", {"txID": vec["txID"]}) == {"tx": vec["signedTxIssueHex"], "encoding": "hex"}
    assert avm(node, "getHeight") == {"height": "4"}

    last = X_VECTORS[3]["producedUTXOs"][0]  # ewoq's change after the C export
    utxos = avm(node, "getUTXOs", {"addresses": [EWOQ_ADDR]})
    assert encode_bytes(bytes.fromhex(last["hex"][2:]), "hex") in utxos["utxos"]
    balances = avm(node, "getAllBalances", {"address": EWOQ_ADDR})["balances"]
    assert {"asset": "AVAX", "balance": last["amount"]} in balances
    assert {"asset": X_VECTORS[1]["txID"], "balance": "1000000000000"} in balances

    # Re-issuing an accepted tx fails like AvalancheGo: its input is gone.
    with pytest.raises(RPCFailure) as err:
        avm(node, "issueTx", {"tx": X_VECTORS[0]["signedTxIssueHex"]})
    assert err.value.error["code"] == -32000
    assert err.value.error["message"].startswith("failed to verify transfer: failed to get utxo ")

    # A negative vector: rejected, state unchanged.
    neg = next(v for v in load("negative-vectors.json") if v["variant"] == "wrong_network_id")
    with pytest.raises(RPCFailure) as err:
        avm(node, "issueTx", {"tx": encode_bytes(bytes.fromhex(neg["signedTxHex"][2:]), "hex")})
    assert err.value.error["message"] == "tx has wrong network ID"
    assert avm(node, "getHeight") == {"height": "4"}

    blk = avm(node, "getBlockByHeight", {"height": "4", "encoding": "json"})["block"]
    assert blk["height"] == 4 and blk["txs"][0]["id"] == X_VECTORS[3]["txID"]
    assert avm(node, "getBlock", {"blockID": blk["id"], "encoding": "json"})["block"] == blk

    # Raw envelope: unknown method, decode error.
    status, body, _ = post(node.url + "/ext/bc/X", '{"jsonrpc":"2.0","id":7,"method":"avm.buildGenesis","params":{}}')
    assert status == 200 and body == (b'{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can\'t find method '
                                      b'\\"avm.BuildGenesis\\"","data":null},"id":7}\n')
    with pytest.raises(RPCFailure) as err:
        avm(node, "issueTx", {"tx": "0x1234567890"})
    assert err.value.error["message"] == "problem decoding transaction: invalid input checksum"


def _pay(src: UTXO, key: bytes, outs: list[TransferableOutput]) -> Tx:
    """`outs` out of `src` alone, the change back to the key."""
    return XWallet(X_CONTEXT, (key,), (src,)).base_tx(outs)


def _fan_out(src: UTXO, key: bytes, to: bytes, n: int) -> Tx:
    return _pay(src, key, [TransferableOutput(src.asset_id, TransferOutput(1000 + i, owner(to))) for i in range(n)])


def _change_of(tx: Tx, owner: bytes) -> UTXO:
    for i, o in enumerate(tx.unsigned.base.outs):
        if o.out.owners.addresses == (owner,) and o.out.amount > 10**12:
            return UTXO(tx.id, i, o.asset_id, o.out)
    raise AssertionError("no change output")


def test_paging_5000_utxos_over_http_and_a_burst(node):
    target_key = hashlib.sha256(b"xchain-paging-target").digest()
    target = short_address(public_key(target_key))
    src = UTXO(id_from_str(AVAX), 1, id_from_str(AVAX),
               TransferOutput(300_000_000 * 10**9, owner(EWOQ)))
    total = 0
    for n in (750,) * 6 + (500,):  # 5,000 UTXOs in 7 txs of < 64 KiB
        tx = _fan_out(src, EWOQ_KEY, target, n)
        wait_accepted(node, issue(node, tx))
        src = _change_of(tx, EWOQ)
        total += n

    seen: list[str] = []
    start = None
    pages = 0
    while True:
        params = {"addresses": [_xaddr(target)], "limit": 1024}
        if start:
            params["startIndex"] = start
        r = avm(node, "getUTXOs", params)
        if r["numFetched"] == "0":
            break
        pages += 1
        seen.extend(r["utxos"])
        start = r["endIndex"]
        assert r["endIndex"]["address"] == _xaddr(target)
    assert total == 5000 and len(seen) == 5000 and len(set(seen)) == 5000 and pages == 5
    assert avm(node, "getBalance", {"address": _xaddr(target), "assetID": "AVAX"})["balance"] == str(
        sum(1000 + i for i in range(750)) * 6 + sum(1000 + i for i in range(500)))

    # A burst: 64 independent txs from ewoq's fresh UTXOs, issued concurrently.
    # 64 outputs big enough to pay a fee each
    fan = _pay(src, EWOQ_KEY, [TransferableOutput(src.asset_id, TransferOutput(10**9 + i, owner(EWOQ)))
                               for i in range(64)])
    wait_accepted(node, issue(node, fan))
    height_before = int(avm(node, "getHeight")["height"])
    singles = []
    for i, o in enumerate(fan.unsigned.base.outs):
        if o.out.amount < 2 * 10**9:
            u = UTXO(fan.id, i, o.asset_id, o.out)
            singles.append(_pay(u, EWOQ_KEY, [TransferableOutput(u.asset_id, TransferOutput(
                u.out.amount - FEE, owner(target)))]))
    assert len(singles) == 64
    with ThreadPoolExecutor(16) as pool:
        ids = list(pool.map(lambda t: issue(node, t, path="/ext/bc/X/wallet", service="wallet")
                            if singles.index(t) % 2 else issue(node, t), singles))
    for tx_id in ids:
        wait_accepted(node, tx_id)
    blocks = int(avm(node, "getHeight")["height"]) - height_before
    assert 1 <= blocks <= 64
    print(f"burst of 64 txs landed in {blocks} blocks")
