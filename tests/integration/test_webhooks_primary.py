"""primary_network_address_activity (X and P) and validator_activity (by node and by subnet)
deliveries to a receiver on loopback, driven over the node's own APIs on a virtual clock: a
delivery per event type, each signed with the shared secret, one per (webhook, tx, event)."""

from __future__ import annotations

import hashlib
import json
import time

from simnode.codec import TransferableOutput, TransferOutput
from simnode.crypto import bls
from simnode.formats import format_address, id_to_str, node_id_to_str
from simnode.formats.ids import vm_id_from_name
from simnode.vms.avm.wallet import owner
from simnode.warp import acp77
from simnode.warp.keystore import derived_secret_key

from .dataapi import api
from .primary_scenario import AVAX, CHAIN_GENESIS, DAY, EWOQ, MANAGER, Driver
from .rpc import call
from .test_webhooks_delivery import node_config, signed_by
from .webhook_receiver import Receiver

W = "/v1/webhooks"


def address_hook(h, url: str, chain: str, keys: list[str], subs: list[str], **metadata) -> dict:
    return api(h.url, W, 201, "POST", {
        "eventType": "primary_network_address_activity", "url": url, "network": "fuji", "chainId": chain,
        "metadata": {"keyType": "addresses", "keys": keys, "subEvents": {"addressActivitySubEvents": subs},
                     **metadata}})


def validator_hook(h, url: str, key_type: str, key: str, subs: list[str]) -> dict:
    return api(h.url, W, 201, "POST", {
        "eventType": "validator_activity", "url": url, "network": "fuji",
        "metadata": {"keyType": key_type, "keys": [key], "subEvents": {"validatorActivitySubEvents": subs}}})


def test_a_delivery_per_primary_network_event_type():
    from simnode.node import Node

    with Receiver() as rx, Node.start_in_thread(node_config()) as h:
        d = Driver(h)
        rec = d.rec
        alice_x, alice_p = rec.addr("X", rec.alice), rec.addr("P", rec.alice)
        node = hashlib.sha256(b"webhook-test-node").digest()[:20]
        address_hook(h, rx.url + "/x", "x-chain", [alice_x.removeprefix("X-")], ["balance_change"])
        address_hook(h, rx.url + "/p", "p-chain", [alice_p], ["balance_change", "reward_distribution"])
        validator_hook(h, rx.url + "/node", "nodeId", node_id_to_str(node),
                       ["validator_stake", "delegator_stake", "reward_distribution"])
        d.advance(5)
        d.x(EWOQ, lambda w: w.base_tx([TransferableOutput(d.avax, TransferOutput(50 * AVAX, owner(rec.alice)))]))
        out = TransferableOutput(d.avax, TransferOutput(5_000 * AVAX, owner(rec.ewoq)))
        d.x(EWOQ, lambda w: w.export_tx(d.p_id, [out]))
        d.p(lambda b: b.import_tx(d.x_id, rec.ewoq))
        ewoq_p = rec.addr("P", rec.ewoq)
        unlocked = int(call(h.url + "/ext/bc/P", "platform.getBalance", {"addresses": [ewoq_p]})["unlocked"])
        address_hook(h, rx.url + "/threshold", "p-chain", [ewoq_p], ["balance_threshold"],
                     balanceThresholdFilter={"balanceType": "unlockedUnstaked",
                                             "balanceThreshold": str(unlocked - 1_000 * AVAX)})
        vm = d.node.chains[d.p_id]
        key = bls.secret_key_from_seed(hashlib.sha256(b"webhook-test-bls").digest())
        end = d.h.call(vm.next_block_time) + 2 * DAY
        d.p(lambda b: b.add_validator(node, end, 2_000 * AVAX, key, 30_000, rec.alice))
        d.p(lambda b: b.add_delegator(node, end - DAY // 2, 100 * AVAX, rec.alice))
        d.advance(2 * DAY + 60)
        # an L1: a balance top-up, a disabled validator, a removed one
        subnet = d.p(lambda b: b.create_subnet())
        validator_hook(h, rx.url + "/subnet", "subnetId", id_to_str(subnet),
                       ["l1_validator_balance_increased", "l1_validator_disabled", "l1_validator_removed"])
        chain = d.p(lambda b: b.create_chain(subnet, "hooks", vm_id_from_name("hooksvm"),
                                             json.dumps(CHAIN_GENESIS).encode()))
        rec.chain = chain
        nodes = [hashlib.sha256(f"webhook-test-l1-{i}".encode()).digest()[:20] for i in range(2)]
        keys = [derived_secret_key(d.node.config.seed, n) for n in nodes]
        d.p(lambda b: b.convert_subnet(subnet, chain, MANAGER, [(nodes[0], 100, 10 * AVAX, keys[0]),
                                                                (nodes[1], 80, 10 * AVAX, keys[1])]))
        order = sorted(range(2), key=lambda i: nodes[i])
        vids = [acp77.subnet_validation_id(subnet, order.index(i)) for i in range(2)]
        d.p(lambda b: b.increase_l1_validator_balance(vids[0], 3 * AVAX))
        removal = d.warp(acp77.L1ValidatorWeight(vids[1], 1, 0).encode())  # signed while both validate
        d.p(lambda b: b.set_l1_validator_weight(removal))
        d.p(lambda b: b.disable_l1_validator(vids[0]))

        want = {"/hook/x": {"balance_change"}, "/hook/p": {"balance_change", "reward_distribution"},
                "/hook/threshold": {"balance_threshold"},
                "/hook/node": {"validator_stake", "delegator_stake", "reward_distribution"},
                "/hook/subnet": {"l1_validator_balance_increased", "l1_validator_disabled", "l1_validator_removed"}}
        deadline = time.monotonic() + 20
        while {p: {x.json["event"]["eventType"] for x in rx.received if x.path == p} for p in want} != want:
            assert time.monotonic() < deadline, [(x.path, x.json["event"]["eventType"]) for x in rx.received]
            time.sleep(0.02)
        time.sleep(0.3)
        secret = api(h.url, f"{W}:getSharedSecret")["secret"]
        got = rx.received
        assert all(x.status == 200 and x.headers["x-signature"] == signed_by(secret, x.body) for x in got)
        ids = [x.json["messageId"] for x in got]
        assert len(ids) == len(set(ids))
        by_path = {p: [x.json for x in got if x.path == p] for p in want}
        assert all(m["eventType"] == "primary_network_address_activity"
                   for p in ("/hook/x", "/hook/p", "/hook/threshold") for m in by_path[p])
        assert all(m["eventType"] == "validator_activity" for p in ("/hook/node", "/hook/subnet") for m in by_path[p])
        x_change = by_path["/hook/x"][0]["event"]
        assert x_change["addresses"] == [alice_x] and x_change["balances"] == {"unlocked": str(50 * AVAX)}
        threshold = by_path["/hook/threshold"]
        assert len(threshold) == 1 and int(threshold[0]["event"]["balance"]) < unlocked - 1_000 * AVAX
        rewards = [m["event"] for m in by_path["/hook/p"] if m["event"]["eventType"] == "reward_distribution"]
        assert {r["rewardType"] for r in rewards} >= {"VALIDATOR", "DELEGATOR"}
        stake = next(m["event"] for m in by_path["/hook/node"] if m["event"]["eventType"] == "validator_stake")
        assert stake["nodeId"] == node_id_to_str(node) and stake["weight"] == str(2_000 * AVAX)
        removed = next(m["event"] for m in by_path["/hook/subnet"] if m["event"]["eventType"] == "l1_validator_removed")
        assert removed["validationId"] == id_to_str(vids[1]) and removed["subnetId"] == id_to_str(subnet)
        assert format_address("P", rec.hrp, rec.alice) == alice_p
