"""Webhook deliveries to a real receiver on loopback, checked by chainkit's own validateWebhook
(signature and WebhookAddressActivityResponse schema) and by its webhooks.* calls: one delivery per
(webhook, tx, event) for every EVM activity kind (native, ERC-20/721/1155, created contract, logs,
eventSignatures, internal txs); retries after 500s and after a refused connection, in order; a 4xx
and the attempt bound give up, visibly; no messageId accepted twice."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import pytest
from eth_account import Account
from web3 import Web3

from simnode.config import NodeConfig
from simnode.formats import format_address, node_id_to_str
from simnode.node import Node
from simnode.webhooks.delivery import Policy

from . import index_scenario
from .dataapi import api
from .index_scenario import EWOQ
from .js import JS_DIR, require_js, run_js
from .webhook_receiver import Receiver, free_port

W = "/v1/webhooks"
TRANSFER = "0x" + Web3.keccak(text="Transfer(address,address,uint256)").hex().removeprefix("0x")
TRANSFER_SINGLE = Web3.keccak(text="TransferSingle(address,address,address,uint256,uint256)")
TRANSFER_BATCH = Web3.keccak(text="TransferBatch(address,address,address,uint256[],uint256[])")


def require_chainkit() -> None:
    require_js("the chainkit tests")
    if not (JS_DIR / "node_modules" / "@avalanche-sdk" / "chainkit").is_dir():
        pytest.skip("tests/js/node_modules has no @avalanche-sdk/chainkit: run `cd tests/js && npm ci`")


def signed_by(secret: str, body: bytes) -> str:
    return base64.b64encode(hmac.new(secret.encode(), body, hashlib.sha256).digest()).decode()


def node_config(**extra) -> NodeConfig:
    return NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", log_level="WARN", **extra)


def evm_hook(h, url: str, addresses: list[str], **extra) -> dict:
    return api(h.url, W, 201, "POST", {"eventType": "address_activity", "url": url, "chainId": "43112",
                                       "metadata": {"addresses": addresses}, **extra})


def send(w3: Web3, to: str, value: int, nonce: int) -> str:
    tx = EWOQ.sign_transaction({"to": Web3.to_checksum_address(to), "value": value, "gas": 21000, "maxFeePerGas": 10**11,
                                "maxPriorityFeePerGas": 1, "nonce": nonce, "chainId": 43112, "type": 2})
    h = w3.eth.send_raw_transaction(tx.raw_transaction)
    w3.eth.wait_for_transaction_receipt(h, timeout=30, poll_latency=0.01)
    return h.to_0x_hex()


def parties(w3: Web3, receipt) -> set[str]:
    """Whose activity a tx is, by the rule the issue states, computed here from the receipt."""
    tx = w3.eth.get_transaction(receipt.transactionHash)
    out = {tx["from"].lower(), (tx["to"] or receipt.contractAddress or "").lower()}
    for lg in receipt.logs:
        topics = [t.hex().removeprefix("0x") for t in lg.topics]
        if topics and "0x" + topics[0] == TRANSFER and len(topics) in (3, 4):
            out |= {"0x" + topics[1][24:], "0x" + topics[2][24:]}
        elif topics and lg.topics[0] in (TRANSFER_SINGLE, TRANSFER_BATCH):
            out |= {"0x" + topics[2][24:], "0x" + topics[3][24:]}
    return out


def test_chainkit_webhooks_calls():
    require_chainkit()
    with Node.start_in_thread(node_config()) as h:
        hrp = h.node.genesis.hrp
        args = {"url": "http://127.0.0.1:9/hook", "chainId": "43112",
                "address": "0x000000000000000000000000000000000000dEaD",
                "pAddress": format_address("P", hrp, b"\x02" * 20), "nodeId": node_id_to_str(h.node.node_id)}
        out = run_js("chainkit_webhooks.mjs", "api", h.url, json.dumps(args))
        evm = out["evm"]
        assert out["got"] == evm and evm["name"] == "chainkit" and evm["includeLogs"] is True
        assert out["updated"]["description"] == "via chainkit" and out["updated"]["includeLogs"] is False
        assert out["added"]["metadata"]["addresses"][-1] == "0x00000000000000000000000000000000000000Aa"
        assert out["addresses"] == out["added"]["metadata"]["addresses"]
        assert out["removed"]["metadata"]["addresses"] == [args["address"]]
        assert [w["id"] for w in out["listed"]] == [w["id"] for w in api(h.url, W + "?pageSize=100")["webhooks"]]
        assert out["active"] == 3 and out["deactivated"]["status"] == "inactive"
        assert out["rotated"]["secret"] != out["secret"]["secret"]
        assert out["rotated"]["secret"] == api(h.url, f"{W}:getSharedSecret")["secret"]
        assert out["badUrl"]["name"] == "BadRequestError"
        assert out["missing"]["name"] == "NotFoundError"


def test_evm_activity_delivered_once_each_and_validated_by_chainkit(tmp_path):
    require_chainkit()
    with Receiver() as rx, Node.start_in_thread(node_config()) as h:
        w3 = Web3(Web3.HTTPProvider(h.url + "/ext/bc/C/rpc", request_kwargs={"timeout": 60}))
        alice, bob = Account.from_key(b"\xa1" * 32), Account.from_key(b"\xb0" * 32)  # the scenario's
        by_alice = evm_hook(h, rx.url + "/alice", [alice.address], includeLogs=True)
        by_bob = evm_hook(h, rx.url + "/bob", [bob.address.lower()], includeInternalTxs=True)
        transfers_only = api(h.url, W, 201, "POST", {
            "eventType": "address_activity", "url": rx.url + "/sig", "chainId": "C", "includeLogs": True,
            "metadata": {"addresses": [alice.address], "eventSignatures": [TRANSFER]}})
        s = index_scenario.run(w3, 43112)
        want = {"/hook/alice": set(), "/hook/bob": set(), "/hook/sig": set()}
        for rc in s.receipts:
            who = parties(w3, rc)
            tx = rc.transactionHash.to_0x_hex()
            if alice.address.lower() in who:
                want["/hook/alice"].add(tx)
                if any(lg.topics and "0x" + lg.topics[0].hex().removeprefix("0x") == TRANSFER for lg in rc.logs):
                    want["/hook/sig"].add(tx)
            if bob.address.lower() in who:
                want["/hook/bob"].add(tx)
        total = sum(len(v) for v in want.values())
        got = rx.wait(total)
        time.sleep(0.3)  # nothing more comes
        assert len(rx.received) == total
        secret = api(h.url, f"{W}:getSharedSecret")["secret"]
        hooks = {"/hook/alice": by_alice["id"], "/hook/bob": by_bob["id"], "/hook/sig": transfers_only["id"]}
        for path, txs in want.items():
            mine = [d.json for d in got if d.path == path]
            assert all(m["webhookId"] == hooks[path] for m in mine)
            assert sorted(m["event"]["transaction"]["txHash"] for m in mine) == sorted(txs), path
        ids = [d.json["messageId"] for d in got]
        assert len(set(ids)) == len(ids)  # one message per (webhook, tx, event)
        assert all(d.headers["x-signature"] == signed_by(secret, d.body) for d in got)
        kinds = {k for d in got for k in ("erc20Transfers", "erc721Transfers", "erc1155Transfers")
                 if d.json["event"]["transaction"][k]}
        assert kinds == {"erc20Transfers", "erc721Transfers", "erc1155Transfers"}
        assert any("contractAddress" in d.json["event"]["transaction"] for d in got)
        bob_internal = [d.json for d in got if d.path == "/hook/bob" and d.json["event"]["transaction"]
                        ["internalTransactions"]]
        assert any(i["to"] == alice.address for m in bob_internal for i in m["event"]["transaction"]
                   ["internalTransactions"])
        assert all("logs" not in d.json["event"] for d in got if d.path == "/hook/bob")
        sig_logs = [lg for d in got if d.path == "/hook/sig" for lg in d.json["event"]["logs"]]
        assert sig_logs and all(lg["topic0"] == TRANSFER for lg in sig_logs)
        # chainkit's validateWebhook: every delivery passes; a changed body or secret does not
        payloads = [{"body": d.body.decode(), "signature": d.headers["x-signature"]} for d in got]
        payloads.append({"body": got[0].body.decode().replace("address_activity", "address_activitY"),
                         "signature": got[0].headers["x-signature"]})
        file = tmp_path / "deliveries.json"
        file.write_text(json.dumps({"secret": secret, "deliveries": payloads}))
        results = run_js("chainkit_webhooks.mjs", "validate", h.url, str(file))["results"]
        assert all(r["ok"] for r in results[:-1]), [r for r in results if not r["ok"]][:3]
        assert [r["messageId"] for r in results[:-1]] == ids
        assert results[-1]["ok"] is False and results[-1]["name"] == "WebhookAuthenticationError"


def test_retries_after_500s_and_a_refused_connection_in_order():
    port = free_port()
    with Node.start_in_thread(node_config()) as h:
        # the default policy's shape, faster
        h.node.webhooks.delivery.policy = Policy(first_retry=0.05, max_retry_delay=0.2)
        w3 = Web3(Web3.HTTPProvider(h.url + "/ext/bc/C/rpc"))
        target = "0x00000000000000000000000000000000000000B1"
        hook = evm_hook(h, f"http://127.0.0.1:{port}/hook", [target])
        txs = [send(w3, target, 1 + i, i) for i in range(3)]
        time.sleep(0.5)  # refused: nobody listens yet
        with Receiver(port) as rx:
            rx.statuses.extend([500, 503])
            got = rx.wait(3)
            time.sleep(0.2)
        bodies = [d.json for d in rx.received]
        first = bodies[0]["messageId"]
        assert [b["messageId"] for b in bodies[:3]] == [first] * 3  # the 500, the 503, then accepted
        assert [d.status for d in rx.received] == [500, 503, 200, 200, 200]
        assert [d.json["event"]["transaction"]["txHash"] for d in got] == txs  # in order
        assert len({d.json["messageId"] for d in got}) == 3
        assert rx.received[0].body == rx.received[2].body  # the same bytes each time
        history = h.call(lambda: h.node.webhooks.delivery.history(hook["id"]))
        oldest = history[-1]
        assert oldest["status"] == "delivered" and oldest["messageId"] == first
        statuses = [a[1] for a in oldest["attempts"]]
        assert statuses[-3:] == [500, 503, 200] and all(isinstance(s, str) for s in statuses[:-3])


def test_a_4xx_and_the_attempt_bound_give_up_visibly():
    with Receiver() as rx, Node.start_in_thread(node_config()) as h:
        h.node.webhooks.delivery.policy = Policy(max_attempts=3, first_retry=0.05)
        w3 = Web3(Web3.HTTPProvider(h.url + "/ext/bc/C/rpc"))
        target = "0x00000000000000000000000000000000000000B2"
        hook = evm_hook(h, rx.url, [target])
        rx.statuses.extend([410, 500, 500, 500])
        send(w3, target, 1, 0)
        send(w3, target, 2, 1)
        rx.wait(4, accepted=False)
        time.sleep(0.3)
        assert len(rx.received) == 4
        history = h.call(lambda: h.node.webhooks.delivery.history(hook["id"]))
        assert [x["status"] for x in history] == ["failed", "failed"]
        assert [len(x["attempts"]) for x in history] == [3, 1]


def test_dev_methods_pause_resume_and_a_test_event():
    from .rpc import call

    with Receiver() as rx, Node.start_in_thread(node_config()) as h:
        dev = h.url + "/ext/simnode"
        w3 = Web3(Web3.HTTPProvider(h.url + "/ext/bc/C/rpc"))
        target = "0x00000000000000000000000000000000000000B3"
        hook = evm_hook(h, rx.url, [target], includeLogs=True)
        assert call(dev, "simnode.setWebhookDelivery", {"paused": True}) == {"paused": True}
        tx = send(w3, target, 1, 0)
        time.sleep(0.3)
        assert rx.received == []
        view = call(dev, "simnode.getWebhooks", {})
        assert view["paused"] is True and view["queued"] == 1
        (listed,) = [w for w in view["webhooks"] if w["id"] == hook["id"]]
        assert [(d["status"], d["attempts"]) for d in listed["deliveries"]] == [("pending", [])]
        call(dev, "simnode.setWebhookDelivery", {"paused": False})
        (first,) = rx.wait(1)
        assert first.json["event"]["transaction"]["txHash"] == tx
        test = call(dev, "simnode.sendTestWebhookEvent", {"id": hook["id"]})["messageId"]
        second = rx.wait(2)[1]
        assert second.json["messageId"] == test != first.json["messageId"]
        assert second.json["event"]["transaction"]["txHash"] == tx  # the chain's latest tx
        deadline = time.monotonic() + 10  # the worker records a delivery after the receiver answered
        while True:
            deliveries = [w for w in call(dev, "simnode.getWebhooks", {})["webhooks"] if w["id"] == hook["id"]][0]
            if all(d["status"] != "pending" for d in deliveries["deliveries"]) or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        assert [(d["label"], d["status"]) for d in deliveries["deliveries"]] == [
            ("test event", "delivered"), (f"tx {tx[2:]}", "delivered")]
        assert all(len(d["attempts"]) == 1 and d["attempts"][0][1] == 200 for d in deliveries["deliveries"])
