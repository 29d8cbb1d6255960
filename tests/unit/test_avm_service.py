"""avm.* service: getUTXOs paging (5,000 UTXOs, each exactly once), its error texts, the JSON forms."""

from __future__ import annotations

import hashlib

import pytest

from simnode.rpc.jsonrpc import UNMARSHAL_ERROR, RPCError
from simnode.codec import UTXO, TransferOutput
from simnode.formats.address import format_address
from simnode.formats.ids import ZERO_ID, id_from_str, id_to_str
from simnode.vms.avm.service import AVMService

from .avm_support import ADDR1, ADDR2, AVAX, EWOQ, EWOQ_KEY, FEE, base_tx, genesis_ewoq_utxo, make_vm, owners, seed_utxos


def _addr(a: bytes) -> str:
    return format_address("X", "local", a)


def _many(n: int, own, tag: bytes) -> list[UTXO]:
    return [UTXO(hashlib.sha256(tag + i.to_bytes(4, "big")).digest(), i % 7, AVAX, TransferOutput(1000 + i, own))
            for i in range(n)]


def _page_all(svc, addrs, limit=None):
    seen, start, calls = [], None, 0
    while True:
        params = {"addresses": addrs}
        if limit is not None:
            params["limit"] = limit
        if start is not None:
            params["startIndex"] = start
        r = svc.get_utxos(params)
        calls += 1
        if r["numFetched"] == "0":
            return seen, calls, r
        assert int(r["numFetched"]) == len(r["utxos"])
        seen.extend(r["utxos"])
        start = r["endIndex"]


def test_paging_5000_utxos_each_exactly_once():
    vm = make_vm()
    svc = AVMService(vm)
    mine = _many(5000, owners(ADDR1), b"a")
    other = _many(10, owners(ADDR2), b"b")
    shared = _many(3, owners(ADDR1, ADDR2), b"c")
    seed_utxos(vm, mine + other + shared)
    seen, calls, last = _page_all(svc, [_addr(ADDR1)])
    assert len(seen) == 5003 and len(set(seen)) == 5003
    assert calls == 6  # 1024 × 4 + 907, then an empty page
    # Order: newest first within the address (AvalancheGo's linked address index), so the last page
    # ends with the first UTXO put.
    assert shared[-1].tx_id.hex() in seen[0] and mine[0].tx_id.hex() in seen[-1]
    assert last["endIndex"] == {"address": _addr(ADDR1), "utxo": id_to_str(mine[0].id)}
    # Default limit 1024, cap 1024.
    assert svc.get_utxos({"addresses": [_addr(ADDR1)]})["numFetched"] == "1024"
    assert svc.get_utxos({"addresses": [_addr(ADDR1)], "limit": 5000})["numFetched"] == "1024"
    assert svc.get_utxos({"addresses": [_addr(ADDR1)], "limit": "7"})["numFetched"] == "7"
    # Two addresses: address byte order, the shared UTXOs once per call.
    seen2, _, _ = _page_all(svc, [_addr(ADDR2), _addr(ADDR1)], limit=999)
    assert len(seen2) == 5013 + 3 or len(set(seen2)) == 5013
    assert len(set(seen2)) == 5013


def test_get_utxos_rules_and_errors():
    vm = make_vm()
    svc = AVMService(vm)
    with pytest.raises(RPCError, match="^no addresses provided$"):
        svc.get_utxos({"addresses": []})
    with pytest.raises(RPCError, match="^number of addresses given, 1025, exceeds maximum, 1024$"):
        svc.get_utxos({"addresses": [_addr(ADDR1)] * 1025})
    with pytest.raises(RPCError) as err:
        svc.get_utxos({"addresses": [_addr(ADDR1)], "sourceChain": "Q"})
    assert str(err.value) == 'problem parsing source chainID "Q": there is no ID with alias: Q'
    with pytest.raises(RPCError) as err:
        svc.get_utxos({"addresses": ["X-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5"]})
    assert str(err.value) == ('couldn\'t parse address "X-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5": '
                              'expected hrp "local" but got "avax"')
    with pytest.raises(RPCError) as err:
        svc.get_utxos({"addresses": ["P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"]})
    assert "mismatched chainIDs: expected \"2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed\" but got " \
           "\"11111111111111111111111111111111LpoYY\"" in str(err.value)
    # Nothing found: endIndex = the last address examined and the zero ID.
    empty = svc.get_utxos({"addresses": [_addr(ADDR2)]})
    assert empty == {"numFetched": "0", "utxos": [], "endIndex": {"address": _addr(ADDR2), "utxo": id_to_str(ZERO_ID)},
                     "encoding": "hex"}
    # A bare cb58 ShortID works too; json encoding is refused once there is a UTXO to encode.
    r = svc.get_utxos({"addresses": ["6Y3kysjF9jnHnYkdS9yGAuoHyae2eNmeV"]})
    assert r["numFetched"] == "1"
    with pytest.raises(RPCError, match="unsupported encoding in method"):
        svc.get_utxos({"addresses": [_addr(EWOQ)], "encoding": "json"})
    with pytest.raises(RPCError, match=f"^{UNMARSHAL_ERROR}$"):
        svc.get_utxos({"addresses": [_addr(EWOQ)], "encoding": "base64"})
    # Atomic UTXOs: nothing exported to X from P yet.
    assert svc.get_utxos({"addresses": [_addr(EWOQ)], "sourceChain": "P"})["numFetched"] == "0"


def test_tx_and_block_json_shapes():
    vm = make_vm()
    svc = AVMService(vm)
    g = genesis_ewoq_utxo(vm)
    tx = base_tx([(g, [EWOQ_KEY])], [(10**9, owners(ADDR1)), (g.out.amount - 10**9 - FEE, owners(EWOQ))],
                 memo=b"hi")
    txid = svc.issue_tx({"tx": "0x" + (tx.bytes + hashlib.sha256(tx.bytes).digest()[-4:]).hex()})["txID"]
    assert txid == id_to_str(tx.id) == id_to_str(hashlib.sha256(tx.bytes).digest())
    assert svc.get_tx_status({"txID": txid}) == {"status": "Unknown"}
    vm.build_block()
    assert svc.get_tx_status({"txID": txid}) == {"status": "Accepted"}
    j = svc.get_tx({"txID": txid, "encoding": "json"})
    assert j["encoding"] == "json"
    t = j["tx"]
    assert list(t) == ["unsignedTx", "credentials", "id"] and t["id"] == txid
    u = t["unsignedTx"]
    assert list(u) == ["networkID", "blockchainID", "outputs", "inputs", "memo"]
    assert u["networkID"] == 12345 and u["memo"] == "0x6869"
    out0 = u["outputs"][0]
    assert list(out0) == ["assetID", "fxID", "output"]
    assert out0["fxID"] == "spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ"
    assert list(out0["output"]) == ["addresses", "amount", "locktime", "threshold"]
    assert isinstance(out0["output"]["amount"], int)
    inp = u["inputs"][0]
    assert inp["txID"] == id_to_str(g.tx_id) and inp["outputIndex"] == 1
    assert inp["input"] == {"amount": g.out.amount, "signatureIndices": [0]}
    cred = t["credentials"][0]
    assert cred["fxID"] == "spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ"
    assert cred["credential"]["signatures"] == ["0x" + tx.creds[0].signatures[0].hex()]
    blk = svc.get_block_by_height({"height": 1, "encoding": "json"})
    b = blk["block"]
    assert list(b) == ["parentID", "height", "time", "merkleRoot", "txs", "id"] and b["txs"][0]["id"] == txid
    hexblk = svc.get_block({"blockID": b["id"]})
    assert hexblk["encoding"] == "hex" and hexblk["block"].startswith("0x000000000014")
    assert svc.get_block({"blockID": b["id"], "encoding": "json"})["block"] == b
    with pytest.raises(RPCError, match="^couldn't get block at height 9: not found$"):
        svc.get_block_by_height({"height": "9"})
    missing = id_to_str(hashlib.sha256(b"x").digest())
    with pytest.raises(RPCError, match=f"^couldn't get block with id {missing}: not found$"):
        svc.get_block({"blockID": missing})
    with pytest.raises(RPCError, match="^nil transaction ID$"):
        svc.get_tx({"txID": None})
    with pytest.raises(RPCError, match="^not found$"):
        svc.get_tx({"txID": missing})
    with pytest.raises(RPCError, match=f"^{UNMARSHAL_ERROR}$"):
        svc.get_tx({"txID": ""})
    with pytest.raises(RPCError, match="^problem decoding transaction: invalid input checksum$"):
        svc.issue_tx({"tx": "0x" + tx.bytes.hex() + "00000000"})
    with pytest.raises(RPCError, match="^problem decoding transaction: missing 0x prefix to hex encoding$"):
        svc.issue_tx({"tx": tx.bytes.hex()})
    assert svc.get_tx_fee({}) == {"txFee": "1000000", "createAssetTxFee": "1000000"}
    with pytest.raises(RPCError, match="^asset 'FOO' not found$"):
        svc.get_asset_description({"assetID": "FOO"})
    with pytest.raises(RPCError, match="^transaction doesn't create an asset$"):
        svc.get_asset_description({"assetID": txid})
    bal = svc.get_all_balances({"address": _addr(ADDR1)})
    assert bal == {"balances": [{"asset": "AVAX", "balance": str(10**9)}]}
    assert id_from_str(txid) == tx.id
