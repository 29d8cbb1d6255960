"""Known answers: the avalanchejs-signed P vectors 5–12 and the P negative vectors."""

from __future__ import annotations

import pytest

from simnode.rpc.jsonrpc import RPCError
from simnode.codec import encode_signed
from simnode.formats import id_to_str
from simnode.vms.platform import fees
from simnode.vms.platform.txs import P_REGISTRY, parse_tx
from simnode.warp.acp77 import ConversionValidator, SubnetToL1ConversionData, subnet_validation_id

from .platform_helpers import EWOQ_ADDR, negative_vectors, new_vm, seed_atomic, seed_utxo, vectors

P_VECTORS = [v for v in vectors() if v["chain"] == "P"]


@pytest.mark.parametrize("v", P_VECTORS, ids=lambda v: v["name"])
def test_parse_reencode_and_fee(v):
    raw = bytes.fromhex(v["signedTxHex"][2:])
    stx = parse_tx(raw)
    assert type(stx.unsigned).__name__ == v["txType"]["name"]
    assert encode_signed(stx.unsigned, list(stx.credentials), P_REGISTRY).tx_bytes == raw
    assert stx.unsigned_bytes.hex() == v["unsignedTxHex"][2:]
    assert id_to_str(stx.tx_id) == v["txID"]
    c = v["fee"]["complexity"]
    assert fees.tx_complexity(stx.unsigned) == (c["bandwidth"], c["dbRead"], c["dbWrite"], c["compute"])
    assert fees.tx_gas(stx.unsigned) == int(v["fee"]["gas"])


def test_conversion_and_validation_ids():
    v = next(v for v in P_VECTORS if v["txType"]["name"] == "ConvertSubnetToL1Tx")
    tx = parse_tx(bytes.fromhex(v["signedTxHex"][2:])).unsigned
    data = SubnetToL1ConversionData(tx.subnet_id, tx.chain_id, tx.address, tuple(
        ConversionValidator(x.node_id, x.signer.public_key, x.weight) for x in tx.validators))
    assert id_to_str(data.conversion_id) == v["details"]["conversionID"]
    assert [id_to_str(subnet_validation_id(tx.subnet_id, i)) for i in range(len(tx.validators))] == \
        v["details"]["validationIDs"]


def _check_produced(svc, v):
    for u in v["producedUTXOs"]:
        if u["heldBy"] != "P":
            continue
        got = svc["getUTXOs"]({"addresses": u["owners"]["addresses"], "limit": 1024})["utxos"]
        assert any(g.startswith(u["hex"]) for g in got), u["utxoID"]


def test_replay_vectors_5_to_12():
    vm, svc, _clock = new_vm()
    vs = {v["name"]: v for v in vectors()}
    v5 = vs["P.ImportTx.from_X"]
    u = v5["inputUTXOs"][0]
    seed_atomic(vm, vm.x_chain_id, u["hex"], u["utxoID"], (EWOQ_ADDR,))
    assert svc["getUTXOs"]({"addresses": [u["owners"]["addresses"][0]], "sourceChain": "X"})["numFetched"] == "1"
    assert svc["issueTx"]({"tx": v5["signedTxIssueHex"]}) == {"txID": v5["txID"]}
    assert svc["getTxStatus"]({"txID": v5["txID"]}) == {"status": "Committed"}
    _check_produced(svc, v5)
    assert svc["getUTXOs"]({"addresses": [u["owners"]["addresses"][0]], "sourceChain": "X"})["numFetched"] == "0"

    # Vector 6 carries a memo; post-Durango AvalancheGo rejects any non-empty P-Chain memo
    # (avax.VerifyMemoFieldLength in standardTxExecutor.BaseTx).
    v6 = vs["P.BaseTx.send_1_AVAX_with_memo"]
    with pytest.raises(RPCError, match=r"failed execution: memo exceeds maximum length: 14 > 0"):
        svc["issueTx"]({"tx": v6["signedTxIssueHex"]})
    status = svc["getTxStatus"]({"txID": v6["txID"]})
    assert status["status"] == "Dropped" and "memo exceeds maximum length" in status["reason"]
    for p in v6["producedUTXOs"]:  # stand in for its outputs so the chain of vectors continues
        seed_utxo(vm, p["hex"])
    b = vm.ctx.store.batch()
    b.commit()

    for name in ["P.CreateSubnetTx.owner_ewoq", "P.CreateChainTx.subnet_evm",
                 "P.AddPermissionlessValidatorTx.primary_bls", "P.AddPermissionlessDelegatorTx.primary",
                 "P.ConvertSubnetToL1Tx.one_validator", "P.ExportTx.to_X_5_AVAX"]:
        v = vs[name]
        assert svc["issueTx"]({"tx": v["signedTxIssueHex"]}) == {"txID": v["txID"]}, name
        assert svc["getTxStatus"]({"txID": v["txID"]}) == {"status": "Committed"}
        _check_produced(svc, v)
        tx = svc["getTx"]({"txID": v["txID"]})
        assert tx["tx"] == v["signedTxIssueHex"]

    subnet = vs["P.CreateSubnetTx.owner_ewoq"]["details"]["subnetID"]
    info = svc["getSubnet"]({"subnetID": subnet})
    conv = vs["P.ConvertSubnetToL1Tx.one_validator"]["details"]
    assert info["conversionID"] == conv["conversionID"]
    assert info["managerChainID"] == conv["managerChainID"]
    assert info["managerAddress"] == conv["managerAddress"]
    assert info["isPermissioned"] is False
    l1 = svc["getL1Validator"]({"validationID": conv["validationIDs"][0]})
    assert l1["nodeID"] == conv["validators"][0]["nodeID"] and l1["weight"] == "100"
    assert int(l1["balance"]) <= 1_000_000_000
    # the exported UTXO sits in X's shared memory
    from simnode.vms import atomic

    exp = vs["P.ExportTx.to_X_5_AVAX"]["producedUTXOs"][1]
    from simnode.formats import id_from_str

    assert atomic.get_utxo(vm.ctx.store, vm.x_chain_id, bytes(32), id_from_str(exp["utxoID"])).hex() == exp["hex"][2:]
    vals = svc["getCurrentValidators"]({"nodeIDs": ["NodeID-QFSnifReCVaR8siU5Bbm1nYYNsN7J566R"]})["validators"]
    assert vals[0]["delegatorCount"] == "1" and vals[0]["delegators"][0]["weight"] == "25000000000"
    chains = svc["validates"]({"subnetID": subnet})["blockchainIDs"]
    assert chains == [vs["P.CreateChainTx.subnet_evm"]["txID"]]


NEG = [v for v in negative_vectors() if v["chain"] == "P"]


@pytest.mark.parametrize("v", NEG, ids=lambda v: v["variant"])
def test_negative_vectors_rejected(v):
    vm, svc, _clock = new_vm()
    for u in v.get("inputUTXOs", []):
        seed_atomic(vm, vm.x_chain_id, u["hex"], u["utxoID"], (EWOQ_ADDR,))
    height = vm.height
    supply = vm.current_supply()
    raw = bytes.fromhex(v["signedTxHex"][2:])
    from simnode.formats import encode_bytes

    expected = {
        "wrong_key": "wrong signature", "high_s_signature": "signature was mutated from its original format",
        "duplicate_input": "inputs not sorted and unique", "unsorted_inputs": "inputs not sorted and unique",
        "outputs_exceed_inputs": "insufficient unlocked funds", "fee_underpaid_by_1": "insufficient unlocked funds: needs 1 more",
        "wrong_network_id": "tx has wrong network ID", "wrong_blockchain_id": "tx has wrong chain ID",
        "trailing_byte": "couldn't parse tx: trailing buffer space",
        "truncated_1_byte": "couldn't parse tx: packer has insufficient length",
    }[v["variant"]]
    with pytest.raises(RPCError) as err:
        svc["issueTx"]({"tx": encode_bytes(raw, "hex")})
    assert expected in str(err.value)
    assert vm.height == height and vm.current_supply() == supply
    if "control" in v and v["control"].get("signedTxHex"):
        ctl = bytes.fromhex(v["control"]["signedTxHex"][2:])
        assert "txID" in svc["issueTx"]({"tx": encode_bytes(ctl, "hex")})
