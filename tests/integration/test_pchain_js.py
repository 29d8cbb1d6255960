"""A real client on the P-Chain: avalanchejs 5.2.0 (tests/js/pchain_staking.mjs), funded by ewoq's
genesis P UTXOs, creates a subnet, adds a primary-network validator with a BLS key + PoP and a
delegator to it, creates a subnet-EVM chain on the subnet and converts the subnet to an L1 with one
validator. Then the node is read over plain HTTP and every answer is checked against what
AvalancheGo returns (node-api.md §8: key sets and order, strings for json.Uint64, IDs it derives)."""

from __future__ import annotations

import hashlib
import re
import struct
import time
from fractions import Fraction

import pytest

from simnode.config import NodeConfig
from simnode.node import Node

from .js import require_js, run_js
from .rpc import call

AVAX = 10**9
DAY = 86400
PRIMARY = "11111111111111111111111111111111LpoYY"
EMPTY_ID = PRIMARY
EWOQ_P = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
SUBNET_EVM = "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
UINT = re.compile(r"^(0|[1-9][0-9]*)$")
HEX48 = re.compile(r"^0x[0-9a-f]{96}$")
HEX96 = re.compile(r"^0x[0-9a-f]{192}$")

# AvalancheGo's local reward config (genesis/genesis_local.go): independent of simnode's constants.
MAX_RATE, MIN_RATE, MINTING_PERIOD, SUPPLY_CAP = 120_000, 100_000, 365 * DAY, 720_000_000 * AVAX


def _cb58(b: bytes) -> str:
    b = b + hashlib.sha256(b).digest()[-4:]
    n, s = int.from_bytes(b, "big"), ""
    while n:
        n, r = divmod(n, 58)
        s = B58[r] + s
    return "1" * (len(b) - len(b.lstrip(b"\0"))) + s


def _uncb58(text: str) -> bytes:
    n = 0
    for ch in text:
        n = n * 58 + B58.index(ch)
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    raw = b"\0" * (len(text) - len(text.lstrip("1"))) + raw
    body, check = raw[:-4], raw[-4:]
    assert hashlib.sha256(body).digest()[-4:] == check, text
    return body


def _reward(duration: int, stake: int, supply: int) -> int:
    rate = Fraction(MIN_RATE * MINTING_PERIOD + (MAX_RATE - MIN_RATE) * duration, MINTING_PERIOD * 10**6)
    return int((SUPPLY_CAP - supply) * rate * stake * duration / (supply * MINTING_PERIOD))



@pytest.fixture(scope="module")
def run():
    """One node, one avalanchejs run; the tests below read the node over HTTP."""
    require_js()
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as node:
        out = run_js("pchain_staking.mjs", node.url)
        yield node.url + "/ext/bc/P", out


def _owner(addr: str = EWOQ_P) -> dict:
    return {"locktime": "0", "threshold": "1", "addresses": [addr]}


def test_txs_committed_with_client_ids(run):
    p, out = run
    names = ["CreateSubnetTx", "AddPermissionlessValidatorTx", "AddPermissionlessDelegatorTx",
             "CreateChainTx", "ConvertSubnetToL1Tx"]
    assert list(out["txs"]) == names
    for name, tx in out["txs"].items():
        assert tx["txID"] == tx["expectedTxID"], name
        assert tx["status"] == "Committed", name
        assert tx["readBack"] is True, name
        assert call(p, "platform.getTxStatus", {"txID": tx["txID"]}) == {"status": "Committed"}
        raw = bytes.fromhex(call(p, "platform.getTx", {"txID": tx["txID"]})["tx"][2:])
        assert _cb58(hashlib.sha256(raw[:-4]).digest()) == tx["txID"], name
        assert 0 < int(tx["burned"]) < AVAX // 100, name  # dynamic fee = gas × price
    assert out["subnetID"] == out["txs"]["CreateSubnetTx"]["txID"]
    assert out["chain"]["id"] == out["txs"]["CreateChainTx"]["txID"]
    # ewoq paid: the fees, 2000 + 25 AVAX now staked, 1 AVAX now the L1 validator's balance.
    locked = int(out["validator"]["weight"]) + int(out["delegator"]["weight"]) + int(out["l1"]["balance"])
    fees = sum(int(tx["burned"]) for tx in out["txs"].values())
    assert int(out["balanceBefore"]) - int(out["balanceAfter"]) == locked + fees
    assert call(p, "platform.getBalance", {"addresses": [EWOQ_P]})["balance"] == out["balanceAfter"]
    # The chain time had left genesis when `now` was read.
    assert out["chainTime"] > out["genesisTime"]


def test_current_validators_primary(run):
    p, out = run
    v, d = out["validator"], out["delegator"]
    txs = out["txs"]
    wall = int(time.time())

    every = call(p, "platform.getCurrentValidators")["validators"]
    mine = [e for e in every if e["nodeID"] == v["nodeID"]]
    assert len(mine) == 1
    e = mine[0]
    assert list(e) == ["txID", "startTime", "endTime", "weight", "nodeID", "validationRewardOwner",
                       "delegationRewardOwner", "potentialReward", "accruedDelegateeReward", "delegationFee",
                       "uptime", "connected", "signer", "delegatorCount", "delegatorWeight"]
    assert e["txID"] == txs["AddPermissionlessValidatorTx"]["txID"]
    start = int(e["startTime"])
    assert int(out["now"]) <= start <= wall + 1  # the time of the block that took it (Durango+)
    assert e["endTime"] == v["end"]
    assert e["weight"] == v["weight"] == str(2000 * AVAX)
    assert e["validationRewardOwner"] == e["delegationRewardOwner"] == _owner()
    assert e["accruedDelegateeReward"] == "0"
    assert e["delegationFee"] == "2.0000"
    assert e["uptime"] == "100.0000" and e["connected"] is True
    assert e["signer"] == {"publicKey": v["publicKey"], "proofOfPossession": v["proofOfPossession"]}
    assert HEX48.match(e["signer"]["publicKey"]) and HEX96.match(e["signer"]["proofOfPossession"])
    assert e["delegatorCount"] == "1" and e["delegatorWeight"] == str(25 * AVAX)
    for k in ("startTime", "endTime", "weight", "potentialReward", "delegatorCount", "delegatorWeight"):
        assert isinstance(e[k], str) and UINT.match(e[k]), k
    supply0 = int(out["supplyBeforeValidator"])
    v_pot = _reward(int(v["end"]) - start, 2000 * AVAX, supply0)
    assert e["potentialReward"] == str(v_pot)

    # One nodeID asked: the same entry plus its delegators.
    one = call(p, "platform.getCurrentValidators", {"nodeIDs": [v["nodeID"]]})["validators"]
    assert len(one) == 1
    assert list(one[0]) == list(e) + ["delegators"]
    assert {k: one[0][k] for k in e} == e
    dels = one[0]["delegators"]
    assert len(dels) == 1
    dd = dels[0]
    assert list(dd) == ["txID", "startTime", "endTime", "weight", "nodeID", "rewardOwner", "potentialReward"]
    assert dd["txID"] == txs["AddPermissionlessDelegatorTx"]["txID"]
    assert dd["nodeID"] == v["nodeID"] and dd["weight"] == d["weight"] == str(25 * AVAX)
    assert dd["endTime"] == d["end"]
    d_start = int(dd["startTime"])
    assert start <= d_start <= wall + 1
    assert dd["rewardOwner"] == _owner()
    assert dd["potentialReward"] == str(_reward(int(d["end"]) - d_start, 25 * AVAX, supply0 + v_pot))

    # Two nodeIDs asked (one genesis validator, one new): no delegator lists.
    genesis_node = next(x["nodeID"] for x in every if x["nodeID"] != v["nodeID"])
    two = call(p, "platform.getCurrentValidators", {"nodeIDs": [v["nodeID"], genesis_node]})["validators"]
    assert sorted(x["nodeID"] for x in two) == sorted([v["nodeID"], genesis_node])
    assert all("delegators" not in x for x in two)

    assert call(p, "platform.getValidatorsAt", {"height": "proposed"})[v["nodeID"]] == {
        "publicKey": v["publicKey"], "weight": str(2025 * AVAX)}


def test_subnet_chain_and_conversion(run):
    p, out = run
    sid, chain, l1 = out["subnetID"], out["chain"], out["l1"]

    assert out["subnetBeforeConversion"] == {
        "isPermissioned": True, "controlKeys": [EWOQ_P], "threshold": "1", "locktime": "0",
        "subnetTransformationTxID": EMPTY_ID, "conversionID": EMPTY_ID, "managerChainID": EMPTY_ID,
        "managerAddress": None}

    # conversionID as AvalancheGo derives it (warp/message/subnet_to_l1_conversion.go): sha256 of the
    # codec bytes of SubnetToL1ConversionData {subnetID, managerChainID, managerAddress, validators}.
    vdata = (struct.pack(">I", 20) + bytes.fromhex(l1["nodeIDHex"][2:]) + bytes.fromhex(l1["publicKey"][2:])
             + struct.pack(">Q", int(l1["weight"])))
    manager = bytes.fromhex(l1["managerAddress"][2:])
    conversion = (b"\0\0" + _uncb58(sid) + _uncb58(chain["id"]) + struct.pack(">I", len(manager)) + manager
                  + struct.pack(">I", 1) + vdata)
    conversion_id = _cb58(hashlib.sha256(conversion).digest())

    got = call(p, "platform.getSubnet", {"subnetID": sid})
    assert got == {
        "isPermissioned": False, "controlKeys": [EWOQ_P], "threshold": "1", "locktime": "0",
        "subnetTransformationTxID": EMPTY_ID, "conversionID": conversion_id, "managerChainID": chain["id"],
        "managerAddress": "0x0feedc0de0000000000000000000000000000000"}
    assert list(got) == ["isPermissioned", "controlKeys", "threshold", "locktime", "subnetTransformationTxID",
                         "conversionID", "managerChainID", "managerAddress"]

    chains = call(p, "platform.getBlockchains")["blockchains"]
    assert chains[0] == {"id": chain["id"], "name": chain["name"], "subnetID": sid, "vmID": SUBNET_EVM}
    # newest first within a subnet, as AvalancheGo v1.14.2 lists them (tests/vectors/avalanchego_answers)
    assert [c["name"] for c in chains[1:]] == ["C-Chain", "X-Chain"]
    assert all(c["subnetID"] == PRIMARY for c in chains[1:])
    assert call(p, "platform.validatedBy", {"blockchainID": chain["id"]}) == {"subnetID": sid}
    assert call(p, "platform.validates", {"subnetID": sid}) == {"blockchainIDs": [chain["id"]]}

    # The conversion validator: validationID = sha256(subnetID ‖ u32be(0)).
    validation_id = _cb58(hashlib.sha256(_uncb58(sid) + struct.pack(">I", 0)).digest())
    height = call(p, "platform.getHeight")["height"]
    lv = call(p, "platform.getL1Validator", {"validationID": validation_id})
    assert list(lv) == ["nodeID", "weight", "startTime", "validationID", "publicKey", "remainingBalanceOwner",
                        "deactivationOwner", "minNonce", "balance", "subnetID", "height"]
    assert lv["nodeID"] == l1["nodeID"] and lv["weight"] == "100" and lv["validationID"] == validation_id
    assert lv["publicKey"] == l1["publicKey"] and HEX48.match(lv["publicKey"])
    assert lv["remainingBalanceOwner"] == lv["deactivationOwner"] == _owner()
    assert lv["minNonce"] == "0" and lv["subnetID"] == sid and lv["height"] == height
    assert UINT.match(lv["startTime"]) and int(lv["startTime"]) >= int(out["now"])
    assert UINT.match(lv["balance"]) and 0 < int(lv["balance"]) <= int(l1["balance"])

    # avalanchejs derived the same validationID and parsed the node's answer through its own wrapper.
    cv = out["clientView"]
    assert cv["validationID"] == validation_id
    assert cv["l1Validator"] == {
        "nodeID": l1["nodeID"], "subnetID": sid, "publicKey": l1["publicKey"], "weight": "100",
        "balance": cv["l1Validator"]["balance"], "startTime": lv["startTime"], "height": cv["l1Validator"]["height"],
        "minNonce": "0", "remainingBalanceOwner": [EWOQ_P], "deactivationOwner": [EWOQ_P]}
    assert 0 < int(cv["l1Validator"]["balance"]) <= int(l1["balance"])
    assert cv["balance"] == {"balance": out["balanceAfter"], "unlocked": out["balanceAfter"],
                             "lockedStakeable": "0", "lockedNotStakeable": "0"}

    # The L1's validator set as getCurrentValidators shows it (L1 entries, no subnetID/height).
    l1_vals = call(p, "platform.getCurrentValidators", {"subnetID": sid})["validators"]
    assert l1_vals == [{k: lv[k] for k in list(lv)[:9]}]
    assert call(p, "platform.getCurrentValidators", {"subnetID": sid, "nodeIDs": [l1["nodeID"]]})["validators"] \
        == l1_vals
    assert call(p, "platform.getValidatorsAt", {"height": "proposed", "subnetID": sid}) == {
        l1["nodeID"]: {"publicKey": l1["publicKey"], "weight": "100"}}


def test_get_tx_json_has_tx_specific_fields(run):
    p, out = run
    cc = call(p, "platform.getTx", {"txID": out["chain"]["id"], "encoding": "json"})["tx"]["unsignedTx"]
    cv = call(p, "platform.getTx", {"txID": out["txs"]["ConvertSubnetToL1Tx"]["txID"],
                                    "encoding": "json"})["tx"]["unsignedTx"]
    assert cc["subnetID"] == out["subnetID"] and cc["vmID"] == SUBNET_EVM
    assert cc["chainName"] == out["chain"]["name"] and cc["fxIDs"] == []
    assert "subnetAuthorization" in cc and "genesisData" in cc
    assert cv["subnetID"] == out["subnetID"] and cv["chainID"] == out["chain"]["id"]
    assert cv["address"] == out["l1"]["managerAddress"]
    assert len(cv["validators"]) == 1 and "subnetAuthorization" in cv
