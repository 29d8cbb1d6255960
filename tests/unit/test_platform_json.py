"""platform.getTx / getBlock / getBlockByHeight with encoding=json: every P tx type's own fields.

AvalancheGo json.Marshal's the parsed tx after InitCtx, so the keys are the Go json tags in struct
declaration order (embedded structs promoted), plain uint64/uint32 are JSON numbers, IDs are cb58,
owner addresses are bech32 ``P-local1…``, JSONByteSlices are 0x hex, a plain []byte is base64, a
[N]byte array is a list of numbers (vms/platformvm/txs/*.go, vms/components/avax, vms/secp256k1fx,
vms/platformvm/signer, vms/platformvm/block). The avalanchejs-signed known-answer vectors are replayed
into a VM and read back.
"""

from __future__ import annotations

import base64
import re

import pytest

from simnode.codec import (
    BaseTxFields,
    Credential,
    Input,
    OutputOwners,
    StakeableLockIn,
    StakeableLockOut,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
)
from simnode.formats import (
    SECP256K1FX_ID,
    format_address,
    id_from_str,
    id_to_str,
    node_id_from_str,
    node_id_to_str,
    short_id_to_str,
)
from simnode.vms.platform import txs as t
from simnode.vms.platform.json_forms import block_json, tx_json, unsigned_tx_json
from simnode.vms.platform.tx_parts import ConvertSubnetToL1Validator, EmptySigner, ProofOfPossession, Validator
from simnode.warp.acp77 import PChainOwner
from tests.vectors import load

from .platform_helpers import EWOQ_ADDR, new_vm, seed_atomic, seed_utxo

SECP = id_to_str(SECP256K1FX_ID)
EWOQ_P = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
BASE_KEYS = ["networkID", "blockchainID", "outputs", "inputs", "memo"]
SIG = re.compile(r"^0x[0-9a-f]{130}$")
VS = {v["name"]: v for v in load("tx-vectors.json")}
REPLAYED = ["P.ImportTx.from_X", "P.CreateSubnetTx.owner_ewoq", "P.CreateChainTx.subnet_evm",
            "P.AddPermissionlessValidatorTx.primary_bls", "P.AddPermissionlessDelegatorTx.primary",
            "P.ConvertSubnetToL1Tx.one_validator", "P.ExportTx.to_X_5_AVAX"]


@pytest.fixture(scope="module")
def replay():
    """The P vectors issued in order into a fresh VM (vector 6, the memo BaseTx, is refused post-Durango;
    its outputs are seeded instead, as in test_platform_vectors)."""
    vm, svc, _clock = new_vm()
    u = VS["P.ImportTx.from_X"]["inputUTXOs"][0]
    seed_atomic(vm, vm.x_chain_id, u["hex"], u["utxoID"], (EWOQ_ADDR,))
    for name in REPLAYED:
        if name == "P.CreateSubnetTx.owner_ewoq":
            for p in VS["P.BaseTx.send_1_AVAX_with_memo"]["producedUTXOs"]:
                seed_utxo(vm, p["hex"])
        v = VS[name]
        assert svc["issueTx"]({"tx": v["signedTxIssueHex"]}) == {"txID": v["txID"]}, name
    return vm, svc


def _get(svc, name: str) -> dict:
    v = VS[name]
    r = svc["getTx"]({"txID": v["txID"], "encoding": "json"})
    assert list(r) == ["tx", "encoding"] and r["encoding"] == "json"
    tx = r["tx"]
    assert list(tx) == ["unsignedTx", "credentials", "id"]
    assert tx["id"] == v["txID"]
    for c in tx["credentials"]:
        assert list(c) == ["signatures"] and c["signatures"] and all(SIG.match(s) for s in c["signatures"])
    u = tx["unsignedTx"]
    assert list(u)[:5] == BASE_KEYS
    assert u["networkID"] == 12345 and u["blockchainID"] == id_to_str(bytes(32)) and u["memo"] == "0x"
    _check_outs(u["outputs"], [o for o in v["outputs"] if o["where"] == "outs"])
    for i in u["inputs"]:
        assert list(i) == ["txID", "outputIndex", "assetID", "fxID", "input"] and i["fxID"] == SECP
        assert isinstance(i["outputIndex"], int)
        assert list(i["input"]) == ["amount", "signatureIndices"] and isinstance(i["input"]["amount"], int)
    return tx


def _check_outs(got: list[dict], expected: list[dict]) -> None:
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert list(g) == ["assetID", "fxID", "output"]
        assert g["assetID"] == e["assetID"] and g["fxID"] == SECP
        assert g["output"] == {"addresses": e["addresses"], "amount": int(e["amount"]),
                               "locktime": int(e["locktime"]), "threshold": e["threshold"]}
        assert list(g["output"]) == ["addresses", "amount", "locktime", "threshold"]


def _owner(addrs=(EWOQ_P,)) -> dict:
    return {"addresses": list(addrs), "locktime": 0, "threshold": 1}


def test_import_tx(replay):
    _vm, svc = replay
    v = VS["P.ImportTx.from_X"]
    tx = _get(svc, "P.ImportTx.from_X")
    u = tx["unsignedTx"]
    assert list(u) == BASE_KEYS + ["sourceChain", "importedInputs"]
    assert u["inputs"] == [] and u["sourceChain"] == v["details"]["sourceChain"]
    src = v["inputUTXOs"][0]
    assert u["importedInputs"] == [{"txID": src["txID"], "outputIndex": src["outputIndex"], "assetID": src["assetID"],
                                    "fxID": SECP, "input": {"amount": int(src["amount"]), "signatureIndices": [0]}}]
    assert len(tx["credentials"]) == 1


def test_create_subnet_tx(replay):
    _vm, svc = replay
    v = VS["P.CreateSubnetTx.owner_ewoq"]
    u = _get(svc, "P.CreateSubnetTx.owner_ewoq")["unsignedTx"]
    assert list(u) == BASE_KEYS + ["owner"]
    owner = v["details"]["subnetOwner"]
    assert u["owner"] == {"addresses": owner["addresses"], "locktime": int(owner["locktime"]),
                          "threshold": owner["threshold"]}
    assert list(u["owner"]) == ["addresses", "locktime", "threshold"]
    src = v["inputUTXOs"][0]
    assert u["inputs"][0]["txID"] == src["txID"] and u["inputs"][0]["input"]["amount"] == int(src["amount"])


def test_create_chain_tx(replay):
    _vm, svc = replay
    d = VS["P.CreateChainTx.subnet_evm"]["details"]
    tx = _get(svc, "P.CreateChainTx.subnet_evm")
    u = tx["unsignedTx"]
    assert list(u) == BASE_KEYS + ["subnetID", "chainName", "vmID", "fxIDs", "genesisData", "subnetAuthorization"]
    assert u["subnetID"] == d["subnetID"] and u["chainName"] == d["chainName"] and u["vmID"] == d["vmID"]
    assert u["fxIDs"] == d["fxIDs"] == []
    # GenesisData is a plain Go []byte: encoding/json writes it as standard base64
    assert base64.b64decode(u["genesisData"], validate=True).decode() == d["genesisDataUtf8"]
    assert u["subnetAuthorization"] == {"signatureIndices": d["subnetAuth"]["sigIndices"]}
    assert len(tx["credentials"]) == 2  # the input's and the subnet authorization's


def test_add_permissionless_validator_tx(replay):
    _vm, svc = replay
    v = VS["P.AddPermissionlessValidatorTx.primary_bls"]
    d = v["details"]
    u = _get(svc, "P.AddPermissionlessValidatorTx.primary_bls")["unsignedTx"]
    assert list(u) == BASE_KEYS + ["validator", "subnetID", "signer", "stake", "validationRewardsOwner",
                                   "delegationRewardsOwner", "shares"]
    assert u["validator"] == {"nodeID": d["nodeID"], "start": int(d["start"]), "end": int(d["end"]),
                              "weight": int(d["weight"])}
    assert list(u["validator"]) == ["nodeID", "start", "end", "weight"]
    assert u["subnetID"] == d["subnetID"]
    assert u["signer"] == {"publicKey": d["signer"]["blsPublicKey"],
                           "proofOfPossession": d["signer"]["proofOfPossession"]}
    assert list(u["signer"]) == ["publicKey", "proofOfPossession"]
    _check_outs(u["stake"], [o for o in v["outputs"] if o["where"] == "stake"])
    assert u["validationRewardsOwner"] == u["delegationRewardsOwner"] == _owner()
    assert u["shares"] == d["delegationShares"] == 20000


def test_add_permissionless_delegator_tx(replay):
    _vm, svc = replay
    v = VS["P.AddPermissionlessDelegatorTx.primary"]
    d = v["details"]
    u = _get(svc, "P.AddPermissionlessDelegatorTx.primary")["unsignedTx"]
    assert list(u) == BASE_KEYS + ["validator", "subnetID", "stake", "rewardsOwner"]
    assert u["validator"] == {"nodeID": d["nodeID"], "start": int(d["start"]), "end": int(d["end"]),
                              "weight": int(d["weight"])}
    assert u["subnetID"] == d["subnetID"]
    _check_outs(u["stake"], [o for o in v["outputs"] if o["where"] == "stake"])
    assert u["rewardsOwner"] == _owner()


def test_convert_subnet_to_l1_tx(replay):
    _vm, svc = replay
    d = VS["P.ConvertSubnetToL1Tx.one_validator"]["details"]
    tx = _get(svc, "P.ConvertSubnetToL1Tx.one_validator")
    u = tx["unsignedTx"]
    assert list(u) == BASE_KEYS + ["subnetID", "chainID", "address", "validators", "subnetAuthorization"]
    assert u["subnetID"] == d["subnetID"] and u["chainID"] == d["managerChainID"]
    assert u["address"] == d["managerAddress"]
    (val,) = u["validators"]
    e = d["validators"][0]
    assert list(val) == ["nodeID", "weight", "balance", "signer", "remainingBalanceOwner", "deactivationOwner"]
    # nodeID is a types.JSONByteSlice here (0x hex), not an ids.NodeID
    assert val["nodeID"] == e["nodeIDBytesHex"]
    assert node_id_to_str(bytes.fromhex(val["nodeID"][2:])) == e["nodeID"]
    assert val["weight"] == int(e["weight"]) and val["balance"] == int(e["balance"])
    assert val["signer"] == {"publicKey": e["blsPublicKey"], "proofOfPossession": e["proofOfPossession"]}
    # message.PChainOwner: threshold first, addresses as bare ids.ShortID (cb58; no InitCtx reaches them)
    for key in ("remainingBalanceOwner", "deactivationOwner"):
        assert val[key] == {"threshold": 1, "addresses": [short_id_to_str(EWOQ_ADDR)]}
        assert list(val[key]) == ["threshold", "addresses"]
    assert u["subnetAuthorization"] == {"signatureIndices": d["subnetAuth"]["sigIndices"]}
    assert len(tx["credentials"]) == 2


def test_export_tx(replay):
    _vm, svc = replay
    v = VS["P.ExportTx.to_X_5_AVAX"]
    u = _get(svc, "P.ExportTx.to_X_5_AVAX")["unsignedTx"]
    assert list(u) == BASE_KEYS + ["destinationChain", "exportedOutputs"]
    assert u["destinationChain"] == v["details"]["destinationChain"]
    # InitCtx formats every owner with the P-Chain's alias, exported ones included
    expected = [dict(o, addresses=[a.replace("X-", "P-", 1) for a in o["addresses"]])
                for o in v["outputs"] if o["where"] == "exportedOuts"]
    _check_outs(u["exportedOutputs"], expected)


def test_base_tx_with_memo():
    """Vector 6 is refused post-Durango (non-empty memo), so it is parsed and rendered directly."""
    v = VS["P.BaseTx.send_1_AVAX_with_memo"]
    stx = t.parse_tx(bytes.fromhex(v["signedTxHex"][2:]))
    tx = tx_json(stx, lambda a: format_address("P", "local", a))
    assert tx["id"] == v["txID"]
    u = tx["unsignedTx"]
    assert list(u) == BASE_KEYS
    assert u["memo"] == "0x" + v["details"]["memoUtf8"].encode().hex()
    _check_outs(u["outputs"], [o for o in v["outputs"] if o["where"] == "outs"])


def test_blocks(replay):
    vm, svc = replay
    v = VS["P.ImportTx.from_X"]
    blk = svc["getBlockByHeight"]({"height": "1", "encoding": "json"})
    assert list(blk) == ["block", "encoding"] and blk["encoding"] == "json"
    b = blk["block"]
    # BanffStandardBlock: Time, then the embedded CommonBlock (parentID, height, id), then txs
    assert list(b) == ["time", "parentID", "height", "id", "txs"]
    assert isinstance(b["time"], int) and b["time"] > 0 and b["height"] == 1
    assert b["parentID"] == id_to_str(vm.state.block_id_at(0)) and b["id"] == id_to_str(vm.state.block_id_at(1))
    assert [x["id"] for x in b["txs"]] == [v["txID"]]
    assert b["txs"][0] == svc["getTx"]({"txID": v["txID"], "encoding": "json"})["tx"]
    assert svc["getBlock"]({"blockID": b["id"], "encoding": "json"})["block"] == b
    # every replayed tx is in its own block, in order
    for h, name in enumerate(REPLAYED, start=1):
        got = svc["getBlockByHeight"]({"height": h, "encoding": "json"})["block"]
        assert got["height"] == h and [x["id"] for x in got["txs"]] == [VS[name]["txID"]]
    # the genesis ApricotCommitBlock has only the CommonBlock fields
    g = svc["getBlockByHeight"]({"height": 0, "encoding": "json"})["block"]
    assert list(g) == ["parentID", "height", "id"] and g["height"] == 0 and g["id"] == b["parentID"]
    # other encodings are unchanged
    assert svc["getBlockByHeight"]({"height": 1})["encoding"] == "hex"


# ------------------------------------------------------------------ tx types without a vector

A = bytes(range(1, 21))
B = bytes(range(2, 22))
AVAX = bytes(range(32))
SUBNET = bytes([7]) * 32
NODE = bytes([9]) * 20
ADDR = lambda a: format_address("P", "local", a)  # noqa: E731
OWN = OutputOwners(5, 1, (A,))
OWN_J = {"addresses": [ADDR(A)], "locktime": 5, "threshold": 1}
AUTH = Input((0, 1))
VDR = Validator(NODE, 10, 20, 30)
VDR_J = {"nodeID": node_id_to_str(NODE), "start": 10, "end": 20, "weight": 30}
PK = bytes([0xAA]) * 48
SIG96 = bytes([0xBB]) * 96
LOCKED_OUT = TransferableOutput(AVAX, StakeableLockOut(99, TransferOutput(7, OutputOwners(0, 1, (B,)))))
LOCKED_OUT_J = {"assetID": id_to_str(AVAX), "fxID": SECP, "output": {
    "locktime": 99, "output": {"addresses": [ADDR(B)], "amount": 7, "locktime": 0, "threshold": 1}}}
LOCKED_IN = TransferableInput(SUBNET, 3, AVAX, StakeableLockIn(99, TransferInput(7, Input((0,)))))
LOCKED_IN_J = {"txID": id_to_str(SUBNET), "outputIndex": 3, "assetID": id_to_str(AVAX), "fxID": SECP,
               "input": {"locktime": 99, "input": {"amount": 7, "signatureIndices": [0]}}}
BASE = BaseTxFields(12345, bytes(32), (LOCKED_OUT,), (LOCKED_IN,), b"\x01\x02")
BASE_J = {"networkID": 12345, "blockchainID": id_to_str(bytes(32)), "outputs": [LOCKED_OUT_J],
          "inputs": [LOCKED_IN_J], "memo": "0x0102"}

OTHER = [
    (t.BaseTx(BASE), {}),
    (t.AddValidatorTx(BASE, VDR, (LOCKED_OUT,), OWN, 20000),
     {"validator": VDR_J, "stake": [LOCKED_OUT_J], "rewardsOwner": OWN_J, "shares": 20000}),
    (t.AddDelegatorTx(BASE, VDR, (LOCKED_OUT,), OWN),
     {"validator": VDR_J, "stake": [LOCKED_OUT_J], "rewardsOwner": OWN_J}),
    (t.AddSubnetValidatorTx(BASE, VDR, SUBNET, AUTH),
     {"validator": {**VDR_J, "subnetID": id_to_str(SUBNET)}, "subnetAuthorization": {"signatureIndices": [0, 1]}}),
    (t.RemoveSubnetValidatorTx(BASE, NODE, SUBNET, AUTH),
     {"nodeID": node_id_to_str(NODE), "subnetID": id_to_str(SUBNET),
      "subnetAuthorization": {"signatureIndices": [0, 1]}}),
    (t.AddPermissionlessValidatorTx(BASE, VDR, SUBNET, EmptySigner(), (LOCKED_OUT,), OWN, OWN, 7),
     {"validator": VDR_J, "subnetID": id_to_str(SUBNET), "signer": {}, "stake": [LOCKED_OUT_J],
      "validationRewardsOwner": OWN_J, "delegationRewardsOwner": OWN_J, "shares": 7}),
    (t.TransferSubnetOwnershipTx(BASE, SUBNET, AUTH, OutputOwners(0, 0, ())),
     {"subnetID": id_to_str(SUBNET), "subnetAuthorization": {"signatureIndices": [0, 1]},
      "newOwner": {"addresses": [], "locktime": 0, "threshold": 0}}),
    (t.RegisterL1ValidatorTx(BASE, 5 * 10**9, SIG96, b"\xde\xad"),
     {"balance": 5 * 10**9, "proofOfPossession": [0xBB] * 96, "message": "0xdead"}),
    (t.SetL1ValidatorWeightTx(BASE, b"\xbe\xef"), {"message": "0xbeef"}),
    (t.IncreaseL1ValidatorBalanceTx(BASE, SUBNET, 2**64 - 1),
     {"validationID": id_to_str(SUBNET), "balance": 2**64 - 1}),
    (t.DisableL1ValidatorTx(BASE, SUBNET, Input(())),
     {"validationID": id_to_str(SUBNET), "disableAuthorization": {"signatureIndices": []}}),
    (t.ExportTx(BASE, SUBNET, (LOCKED_OUT,)), {"destinationChain": id_to_str(SUBNET),
                                               "exportedOutputs": [LOCKED_OUT_J]}),
    (t.ImportTx(BASE, SUBNET, (LOCKED_IN,)), {"sourceChain": id_to_str(SUBNET), "importedInputs": [LOCKED_IN_J]}),
    (t.CreateSubnetTx(BASE, OWN), {"owner": OWN_J}),
    (t.CreateChainTx(BASE, SUBNET, "c", AVAX, (SECP256K1FX_ID,), b"{}", AUTH),
     {"subnetID": id_to_str(SUBNET), "chainName": "c", "vmID": id_to_str(AVAX), "fxIDs": [SECP],
      "genesisData": "e30=", "subnetAuthorization": {"signatureIndices": [0, 1]}}),
    (t.AddPermissionlessDelegatorTx(BASE, VDR, SUBNET, (LOCKED_OUT,), OWN),
     {"validator": VDR_J, "subnetID": id_to_str(SUBNET), "stake": [LOCKED_OUT_J], "rewardsOwner": OWN_J}),
    (t.ConvertSubnetToL1Tx(BASE, SUBNET, AVAX, b"", (ConvertSubnetToL1Validator(
        NODE, 1, 2, ProofOfPossession(PK, SIG96), PChainOwner(0, ()), PChainOwner(1, (A, B))),), AUTH),
     {"subnetID": id_to_str(SUBNET), "chainID": id_to_str(AVAX), "address": "0x", "validators": [
         {"nodeID": "0x" + NODE.hex(), "weight": 1, "balance": 2,
          "signer": {"publicKey": "0x" + PK.hex(), "proofOfPossession": "0x" + SIG96.hex()},
          "remainingBalanceOwner": {"threshold": 0, "addresses": []},
          "deactivationOwner": {"threshold": 1, "addresses": [short_id_to_str(A), short_id_to_str(B)]}}],
      "subnetAuthorization": {"signatureIndices": [0, 1]}}),
]


@pytest.mark.parametrize("tx,extra", OTHER, ids=lambda x: None if isinstance(x, dict) else type(x).__name__)
def test_every_tx_type(tx, extra):
    raw = t.sign_tx(tx, [Credential((bytes(65),))]).tx_bytes
    stx = t.parse_tx(raw)  # through the codec, as getTx does
    got = tx_json(stx, ADDR)
    assert got["credentials"] == [{"signatures": ["0x" + "00" * 65]}]
    assert got["unsignedTx"] == {**BASE_J, **extra}
    assert list(got["unsignedTx"]) == BASE_KEYS + list(extra)


def test_reward_validator_tx_has_only_tx_id():
    stx = t.parse_tx(t.sign_tx(t.RewardValidatorTx(SUBNET), []).tx_bytes)
    assert tx_json(stx, ADDR) == {"unsignedTx": {"txID": id_to_str(SUBNET)}, "credentials": [],
                                  "id": id_to_str(stx.tx_id)}


def test_all_registered_types_covered():
    covered = {type(tx) for tx, _ in OTHER} | {t.RewardValidatorTx}
    registered = {c for c in vars(t).values()
                  if isinstance(c, type) and (issubclass(c, t.UnsignedTx) and c is not t.UnsignedTx)}
    assert registered <= covered
    with pytest.raises(TypeError):
        unsigned_tx_json(object(), ADDR)


def test_reward_tx_in_block_json_roundtrip():
    """block_json over hand-built standard block bytes (a reward tx has no credentials)."""
    from simnode.vms.platform import blocks

    tx_bytes = t.sign_tx(t.RewardValidatorTx(SUBNET), []).tx_bytes
    raw = blocks.encode_standard_block(1234, AVAX, 7, [tx_bytes])
    b = block_json(raw, ADDR)
    assert b == {"time": 1234, "parentID": id_to_str(AVAX), "height": 7, "id": id_to_str(blocks.block_id(raw)),
                 "txs": [{"unsignedTx": {"txID": id_to_str(SUBNET)}, "credentials": [],
                          "id": id_to_str(t.parse_tx(tx_bytes).tx_id)}]}
    assert id_from_str(b["id"]) == blocks.block_id(raw) and node_id_from_str(VDR_J["nodeID"]) == NODE
