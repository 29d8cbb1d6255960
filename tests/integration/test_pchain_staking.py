"""Over HTTP on a virtual clock: a validator and a delegator for 14 days, then their rewards."""

from __future__ import annotations

import hashlib
from fractions import Fraction

import pytest

from simnode.config import NodeConfig
from simnode.crypto import bls
from simnode.formats import encode_bytes, format_address, id_to_str, node_id_to_str, private_key_from_str
from simnode.network import LOCAL_STAKING
from simnode.node import Node
from simnode.vms.platform.wallet import PBuilder, address_of

from .rpc import RPCFailure, call

EWOQ = private_key_from_str("PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN")
DAY = 24 * 3600
AVAX = 10**9


def expected_reward(duration: int, stake: int, supply: int) -> int:
    """The reward formula worked out independently with exact fractions."""
    p = LOCAL_STAKING
    rate = (Fraction(p.min_consumption_rate, 10**6)
            + Fraction(p.max_consumption_rate - p.min_consumption_rate, 10**6) * Fraction(duration, p.minting_period))
    return int((p.supply_cap - supply) * Fraction(stake, supply) * rate * Fraction(duration, p.minting_period))


@pytest.fixture()
def node():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual")) as handle:
        yield handle


def test_validator_and_delegator_for_14_days(node):
    url = node.url + "/ext/bc/P"
    vm = node.node.chains[bytes(32)]
    vr = address_of(hashlib.sha256(b"validator-reward").digest())
    dr = address_of(hashlib.sha256(b"delegator-reward").digest())
    node_id = hashlib.sha256(b"it-node").digest()[:20]
    sk = bls.secret_key_from_seed(hashlib.sha256(b"it-bls").digest())
    supply0 = int(call(url, "platform.getCurrentSupply")["supply"])
    start = node.call(vm.next_block_time)
    end = start + 14 * DAY

    w = node.call(PBuilder, vm, [EWOQ])
    vtx = node.call(w.add_validator, node_id, end, 2500 * AVAX, sk, 50_000, vr)
    assert call(url, "platform.issueTx", {"tx": encode_bytes(vtx.tx_bytes, "hex")})["txID"] == id_to_str(vtx.tx_id)
    dtx = node.call(w.add_delegator, node_id, end, 100 * AVAX, dr)
    call(url, "platform.issueTx", {"tx": encode_bytes(dtx.tx_bytes, "hex")})
    assert call(url, "platform.getTxStatus", {"txID": id_to_str(dtx.tx_id)}) == {"status": "Committed"}

    v_pot = expected_reward(14 * DAY, 2500 * AVAX, supply0)
    d_pot = expected_reward(14 * DAY, 100 * AVAX, supply0 + v_pot)
    delegatee = d_pot - (1_000_000 - 50_000) * d_pot // 1_000_000
    vals = call(url, "platform.getCurrentValidators", {"nodeIDs": [node_id_to_str(node_id)]})["validators"]
    assert vals[0]["potentialReward"] == str(v_pot)
    assert vals[0]["delegators"][0]["potentialReward"] == str(d_pot)
    assert call(url, "platform.getValidatorsAt", {"height": "proposed"})[node_id_to_str(node_id)]["weight"] == \
        str(2600 * AVAX)

    node.call(node.node.clock.advance, 14 * DAY)

    assert call(url, "platform.getCurrentValidators", {"nodeIDs": [node_id_to_str(node_id)]})["validators"] == []
    bal_v = call(url, "platform.getBalance", {"addresses": [format_address("P", "local", vr)]})
    bal_d = call(url, "platform.getBalance", {"addresses": [format_address("P", "local", dr)]})
    assert int(bal_v["balance"]) == v_pot + delegatee
    assert int(bal_d["balance"]) == d_pot - delegatee
    supply1 = int(call(url, "platform.getCurrentSupply")["supply"])
    assert supply1 - supply0 == v_pot + d_pot
    ru = call(url, "platform.getRewardUTXOs", {"txID": id_to_str(vtx.tx_id)})
    assert ru["numFetched"] == "2"
    hist = node.call(vm.state.get_history, vtx.tx_id)
    assert hist["status"] == "completed" and hist["rewardAmount"] == v_pot
    assert call(url, "platform.getTimestamp")["timestamp"] >= "2026"


def test_basics_and_errors(node):
    url = node.url + "/ext/bc/P"
    assert call(url, "platform.getFeeConfig") == {"weights": [1, 1000, 1000, 4], "maxCapacity": 1000000,
                                                   "maxPerSecond": 100000, "targetPerSecond": 50000, "minPrice": 1,
                                                   "excessConversionConstant": 2164043}
    assert call(url, "platform.getMinStake") == {"minValidatorStake": "2000000000000",
                                                  "minDelegatorStake": "25000000000"}
    vals = call(url, "platform.getCurrentValidators")["validators"]
    assert len(vals) == 5 and all(v["uptime"] == "100.0000" for v in vals)
    assert "delegators" not in vals[0]
    info = call(node.url + "/ext/info", "info.getNodeID")
    mine = [v for v in vals if v["nodeID"] == info["nodeID"]][0]
    assert mine["signer"]["publicKey"] == info["nodePOP"]["publicKey"]
    assert sorted(v["delegationFee"] for v in vals) == ["100.0000", "12.5000", "25.0000", "50.0000", "6.2500"]
    with pytest.raises(RPCFailure, match="the primary network isn't a subnet"):
        call(url, "platform.getSubnet", {"subnetID": "11111111111111111111111111111111LpoYY"})
    with pytest.raises(RPCFailure, match="couldn't get tx: not found"):
        call(url, "platform.getTx", {"txID": "2Nigs13XtD6hutTEuiBJ3FHC2SrNshKJEkhoThyYMgQBn9VjFq"})
    with pytest.raises(RPCFailure, match="problem decoding transaction: invalid input checksum"):
        call(url, "platform.issueTx", {"tx": "0x00000000"})
    assert call(url, "platform.getTotalStake")["weight"] == str(5 * 2_000_000 * AVAX)
    assert call(url, "platform.sampleValidators", {"size": 2})["validators"] == sorted(
        call(url, "platform.sampleValidators", {"size": 2})["validators"])
    assert call(url, "platform.getBlockByHeight", {"height": 0})["encoding"] == "hex"
    sets = call(url, "platform.getAllValidatorsAt", {"height": 0})["validatorSets"]
    assert sets["11111111111111111111111111111111LpoYY"]["totalWeight"] == str(5 * 2_000_000 * AVAX)
    assert call(url, "platform.getStakingAssetID")["assetID"] == "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"
    ewoq = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
    assert call(url, "platform.getBalance", {"addresses": [ewoq]})["balance"] == str(30_000_000 * AVAX)
    assert call(url, "platform.getUTXOs", {"addresses": [ewoq]})["numFetched"] == "2"
    assert call(url, "platform.getBlockchainStatus", {"blockchainID": "X"}) == {"status": "Validating"}


def test_node_wide_revert_across_a_reward_pair(node):
    url, sim = node.url + "/ext/bc/P", node.url + "/ext/simnode"
    vm = node.node.chains[bytes(32)]
    vr = address_of(hashlib.sha256(b"revert-reward").digest())
    node_id = hashlib.sha256(b"revert-node").digest()[:20]
    sk = bls.secret_key_from_seed(hashlib.sha256(b"revert-bls").digest())
    end = node.call(vm.next_block_time) + 2 * DAY
    vtx = node.call(node.call(PBuilder, vm, [EWOQ]).add_validator, node_id, end, 2000 * AVAX, sk, 20_000, vr)
    call(url, "platform.issueTx", {"tx": encode_bytes(vtx.tx_bytes, "hex")})
    h = int(call(url, "platform.getHeight")["height"])
    supply = call(url, "platform.getCurrentSupply")["supply"]
    sid = call(sim, "simnode.snapshot")["id"]

    call(sim, "simnode.advanceTime", {"seconds": 2 * DAY + 10})
    assert call(url, "platform.getHeight") == {"height": str(h + 2)}
    pair = [call(url, "platform.getBlockByHeight", {"height": h + i, "encoding": "json"})["block"] for i in (1, 2)]
    assert pair[0]["tx"]["unsignedTx"] == {"txID": id_to_str(vtx.tx_id)} and pair[1]["parentID"] == pair[0]["id"]
    reward_id = pair[0]["tx"]["id"]
    assert call(url, "platform.getTxStatus", {"txID": reward_id}) == {"status": "Committed"}
    paid = call(url, "platform.getBalance", {"addresses": [format_address("P", "local", vr)]})["balance"]
    assert int(paid) > 0

    assert call(sim, "simnode.revert", {"id": sid}) == {"reverted": True}
    assert call(url, "platform.getHeight") == {"height": str(h)}
    for i in (1, 2):
        with pytest.raises(RPCFailure, match="not found"):
            call(url, "platform.getBlockByHeight", {"height": h + i})
        with pytest.raises(RPCFailure, match="not found"):
            call(url, "platform.getBlock", {"blockID": pair[i - 1]["id"]})
    assert call(url, "platform.getTxStatus", {"txID": reward_id}) == {"status": "Unknown"}
    assert call(url, "platform.getCurrentValidators", {"nodeIDs": [node_id_to_str(node_id)]})["validators"]
    assert call(url, "platform.getBalance", {"addresses": [format_address("P", "local", vr)]})["balance"] == "0"
    assert call(url, "platform.getCurrentSupply")["supply"] == supply

    # the staker's end is still due: the next clock move builds the same pair again, byte for byte
    call(sim, "simnode.advanceTime", {"seconds": 1})
    again = [call(url, "platform.getBlockByHeight", {"height": h + i, "encoding": "json"})["block"] for i in (1, 2)]
    assert again == pair
    assert call(url, "platform.getBalance", {"addresses": [format_address("P", "local", vr)]})["balance"] == paid
