"""Staking on the P-Chain VM with a virtual clock: rewards by the formula, and the refusals."""

from __future__ import annotations

import hashlib

import pytest

from simnode.crypto import bls
from simnode.formats import format_address, id_to_str, node_id_to_str
from simnode.network import LOCAL_STAKING
from simnode.vms.platform.wallet import PBuilder, address_of, owner
from simnode.vms.platform.vm import IssueError
from simnode.warp.acp77 import subnet_validation_id as acp77_subnet_validation_id

from .platform_helpers import EWOQ, new_vm

DAY = 24 * 3600
AVAX = 10**9


def key(i: int) -> bytes:
    return hashlib.sha256(f"test-key-{i}".encode()).digest()


def node(i: int) -> bytes:
    return hashlib.sha256(f"test-node-{i}".encode()).digest()[:20]


def blskey(i: int) -> bls.SecretKey:
    return bls.secret_key_from_seed(hashlib.sha256(f"test-bls-{i}".encode()).digest())


def issue(vm, stx) -> bytes:
    return vm.issue_tx(stx.tx_bytes)


def balance(svc, addr: bytes) -> int:
    return int(svc["getBalance"]({"addresses": [format_address("P", "local", addr)]})["balance"])


def snapshot(vm):
    return (vm.height, vm.current_supply(), dict(vm.state.vset.get(bytes(32), {})), len(vm.state.stakers))


def test_validator_and_delegator_rewarded_after_14_days():
    vm, svc, clock = new_vm()
    w = PBuilder(vm, [EWOQ])
    vreward, dreward = address_of(key(1)), address_of(key(2))
    supply0 = vm.current_supply()
    t0 = vm.next_block_time()
    end = t0 + 14 * DAY
    vw, dw = 2000 * AVAX, 500 * AVAX
    shares = 100_000  # 10 %
    tx_v = w.add_validator(node(1), end, vw, blskey(1), shares=shares, reward_to=vreward)
    issue(vm, tx_v)
    tx_d = w.add_delegator(node(1), end, dw, reward_to=dreward)
    issue(vm, tx_d)
    # independent computation (exact fractions, floors) of what AvalancheGo pays
    from .test_platform_rewards import oracle

    v_pot = oracle(14 * DAY, vw, supply0)
    d_pot = oracle(14 * DAY, dw, supply0 + v_pot)
    delegatee = d_pot - (1_000_000 - shares) * d_pot // 1_000_000
    cv = svc["getCurrentValidators"]({"nodeIDs": [node_id_to_str(node(1))]})["validators"][0]
    assert cv["potentialReward"] == str(v_pot) and cv["delegators"][0]["potentialReward"] == str(d_pot)
    assert cv["delegationFee"] == "10.0000" and cv["uptime"] == "100.0000"
    assert cv["signer"]["publicKey"] == "0x" + bls.public_key(blskey(1)).hex()

    clock.advance(14 * DAY)
    assert svc["getCurrentValidators"]({"nodeIDs": [node_id_to_str(node(1))]})["validators"] == []
    assert balance(svc, vreward) == v_pot + delegatee
    assert balance(svc, dreward) == d_pot - delegatee
    assert vm.current_supply() - supply0 == v_pot + d_pot
    ru = svc["getRewardUTXOs"]({"txID": id_to_str(tx_v.tx_id)})
    assert ru["numFetched"] == "2"
    hist = vm.state.get_history(tx_v.tx_id)
    assert hist["status"] == "completed" and hist["rewardAmount"] == v_pot and hist["delegateeReward"] == delegatee
    assert vm.state.get_history(tx_d.tx_id)["status"] == "completed"
    # the stake came back to ewoq
    assert any(u.tx_id == tx_v.tx_id for u in w.utxos())


def _rejects(vm, stx, text):
    before = snapshot(vm)
    with pytest.raises(IssueError) as err:
        vm.issue_tx(stx.tx_bytes)
    assert text in str(err.value), str(err.value)
    assert snapshot(vm) == before
    return str(err.value)


def test_staking_refusals_leave_state_unchanged():
    vm, svc, clock = new_vm()
    t0 = vm.next_block_time()
    w = PBuilder(vm, [EWOQ])
    _rejects(vm, w.add_validator(node(2), t0 + 14 * DAY, LOCAL_STAKING.min_validator_stake - 1, blskey(2)),
             "weight of this validator is too low")
    w = PBuilder(vm, [EWOQ])
    _rejects(vm, w.add_validator(node(2), t0 + 3600, 2000 * AVAX, blskey(2)), "staking period is too short")
    w = PBuilder(vm, [EWOQ])
    _rejects(vm, w.add_validator(node(2), t0 + 400 * DAY, 2000 * AVAX, blskey(2)), "staking period is too long")
    w = PBuilder(vm, [EWOQ])
    _rejects(vm, w.add_validator(node(2), t0 + 14 * DAY, 2000 * AVAX, blskey(2), shares=1000),
             "staker charges an insufficient delegation fee")
    w = PBuilder(vm, [EWOQ])
    bad_pop = (bls.public_key(blskey(2)), bls.prove_possession(blskey(3)))
    _rejects(vm, w.add_validator(node(2), t0 + 14 * DAY, 2000 * AVAX, None, pop=bad_pop),
             "invalid proof of possession")
    w = PBuilder(vm, [EWOQ])
    issue(vm, w.add_validator(node(2), t0 + 20 * DAY, 2000 * AVAX, blskey(2)))
    w = PBuilder(vm, [EWOQ])
    _rejects(vm, w.add_delegator(node(2), t0 + 21 * DAY, 25 * AVAX),
             "proposed staking period is not inside dependent staking period")
    w = PBuilder(vm, [EWOQ])
    _rejects(vm, w.add_delegator(node(2), t0 + 10 * DAY, 8001 * AVAX), "validator would be over delegated")
    w = PBuilder(vm, [EWOQ])
    _rejects(vm, w.add_delegator(node(2), t0 + 10 * DAY, 24 * AVAX), "weight of this validator is too low")
    w = PBuilder(vm, [EWOQ])
    issue(vm, w.add_delegator(node(2), t0 + 10 * DAY, 8000 * AVAX))  # exactly 5x: allowed
    w = PBuilder(vm, [EWOQ])
    _rejects(vm, w.add_validator(node(2), t0 + 14 * DAY, 2000 * AVAX, blskey(4)), "duplicate validator")


def test_subnet_auth_and_double_conversion():
    vm, svc, clock = new_vm()
    w = PBuilder(vm, [EWOQ])
    stranger = key(9)
    issue(vm, w.base_tx(address_of(stranger), 10 * AVAX))
    stx = w.create_subnet()
    issue(vm, stx)
    subnet = stx.tx_id
    s = PBuilder(vm, [stranger])
    # the stranger signs the subnet auth with its own key (index 0 of the owner list is ewoq)
    s._subnet_auth = lambda sid: (__import__("simnode.codec", fromlist=["Input"]).Input((0,)), [stranger])
    before = snapshot(vm)
    with pytest.raises(IssueError) as err:
        vm.issue_tx(s.create_chain(subnet, "chain", b"subnetevm".ljust(32, b"\0"), b"{}").tx_bytes)
    assert "unauthorized modification: wrong signature" in str(err.value)
    assert snapshot(vm) == before and len(vm.state.chains) == 2
    w = PBuilder(vm, [EWOQ])
    chain = w.create_chain(subnet, "chain", b"subnetevm".ljust(32, b"\0"), b"{}")
    issue(vm, chain)
    w = PBuilder(vm, [EWOQ])
    issue(vm, w.convert_subnet(subnet, chain.tx_id, b"\x01" * 20, [(node(5), 100, AVAX, blskey(5))]))
    w = PBuilder(vm, [EWOQ])
    _rejects(vm, w.convert_subnet(subnet, chain.tx_id, b"\x01" * 20, [(node(6), 100, AVAX, blskey(6))]),
             "is immutable")
    # subnet ownership moves to the stranger, who then manages its validators
    w = PBuilder(vm, [EWOQ])
    subnet2 = w.create_subnet()
    issue(vm, subnet2)
    w = PBuilder(vm, [EWOQ])
    issue(vm, w.transfer_subnet_ownership(subnet2.tx_id, owner(address_of(stranger))))
    assert svc["getSubnet"]({"subnetID": id_to_str(subnet2.tx_id)})["controlKeys"] == [
        format_address("P", "local", address_of(stranger))]
    genesis_node = next(iter(vm.state.validators[bytes(32)]))
    s = PBuilder(vm, [stranger])
    end = vm.next_block_time() + 2 * DAY
    issue(vm, s.add_subnet_validator(subnet2.tx_id, genesis_node, end, 10))
    assert svc["getCurrentValidators"]({"subnetID": id_to_str(subnet2.tx_id)})["validators"][0]["weight"] == "10"
    s = PBuilder(vm, [stranger])
    issue(vm, s.remove_subnet_validator(subnet2.tx_id, genesis_node))
    assert svc["getCurrentValidators"]({"subnetID": id_to_str(subnet2.tx_id)})["validators"] == []


def test_l1_validator_balance_drains_and_deactivates():
    from simnode.signing.aggregator import AggregationRequest
    from simnode.warp.acp77 import L1ValidatorWeight, PChainOwner, RegisterL1Validator

    from .platform_helpers import manager_message, warp_tools

    vm, svc, clock = new_vm()
    signer, aggregator = warp_tools(vm, [blskey(7), blskey(8)])
    w = PBuilder(vm, [EWOQ])
    sub = w.create_subnet()
    issue(vm, sub)
    w = PBuilder(vm, [EWOQ])
    chain = w.create_chain(sub.tx_id, "l1", b"subnetevm".ljust(32, b"\0"), b"{}")
    issue(vm, chain)
    manager = b"\x0f" * 20
    w = PBuilder(vm, [EWOQ])
    issue(vm, w.convert_subnet(sub.tx_id, chain.tx_id, manager, [(node(7), 100, 100_000, blskey(7))]))
    vid0 = acp77_subnet_validation_id(sub.tx_id, 0)
    # register a second validator through a Warp message from the manager, signed by the L1's validators
    po = PChainOwner(1, (address_of(EWOQ),))
    expiry = vm.next_block_time() + 3600
    reg_msg = RegisterL1Validator(sub.tx_id, node(8), bls.public_key(blskey(8)), expiry, po, po, 50)
    request = AggregationRequest(manager_message(signer, chain.tx_id, manager, reg_msg))
    w = PBuilder(vm, [EWOQ])
    issue(vm, w.register_l1_validator(10 * AVAX, blskey(8), aggregator.aggregate(request).encoded))
    vid1 = reg_msg.validation_id
    # the same message, signed again by the L1's validators as they are now, is a replay
    w = PBuilder(vm, [EWOQ])
    _rejects(vm, w.register_l1_validator(10 * AVAX, blskey(8), aggregator.aggregate(request).encoded),
             "warp message already issued")
    # a message from the wrong address is refused
    bad = aggregator.aggregate(AggregationRequest(
        manager_message(signer, chain.tx_id, b"\x0e" * 20, L1ValidatorWeight(vid1, 0, 60))))
    w = PBuilder(vm, [EWOQ])
    _rejects(vm, w.set_l1_validator_weight(bad.encoded), "wrong warp message source address")
    good = aggregator.aggregate(AggregationRequest(
        manager_message(signer, chain.tx_id, manager, L1ValidatorWeight(vid1, 0, 60))))
    assert good.signature.num_signers() == 2  # 100 of 150 is below 67%: both validators sign
    w = PBuilder(vm, [EWOQ])
    issue(vm, w.set_l1_validator_weight(good.encoded))
    got = svc["getL1Validator"]({"validationID": id_to_str(vid1)})
    assert got["weight"] == "60" and got["minNonce"] == "1"
    # validator 0 has 100000 nAVAX: at 1 nAVAX/s (minPrice, excess 0) it is deactivated after 100000 s
    assert svc["getL1Validator"]({"validationID": id_to_str(vid0)})["balance"] == "100000"
    clock.advance(50_000)
    w = PBuilder(vm, [EWOQ])
    issue(vm, w.increase_l1_validator_balance(vid0, 1000))
    assert int(svc["getL1Validator"]({"validationID": id_to_str(vid0)})["balance"]) == 100_000 - 50_000 + 1000
    clock.advance(60_000)
    assert svc["getL1Validator"]({"validationID": id_to_str(vid0)})["balance"] == "0"
    vals = {v["validationID"]: v for v in svc["getCurrentValidators"]({"subnetID": id_to_str(sub.tx_id)})["validators"]}
    assert vals[id_to_str(vid0)]["balance"] == "0"
    # disable validator 1: its remaining balance returns to ewoq
    before = balance(svc, address_of(EWOQ))
    w = PBuilder(vm, [EWOQ])
    remaining = int(svc["getL1Validator"]({"validationID": id_to_str(vid1)})["balance"])
    price = vm.gas_price()
    elapsed = vm.next_block_time() - vm.timestamp  # the balance shown is as of the last block's time
    dis = w.disable_l1_validator(vid1)
    issue(vm, dis)
    assert svc["getL1Validator"]({"validationID": id_to_str(vid1)})["balance"] == "0"
    from simnode.vms.platform import fees

    fee = fees.tx_gas(dis.unsigned) * price
    assert remaining > 0
    assert balance(svc, address_of(EWOQ)) == before + remaining - elapsed - fee
