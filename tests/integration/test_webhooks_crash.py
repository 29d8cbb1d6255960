"""kill -9 between a block and its delivery: the message was committed with its block, so after a
restart on the same data directory it is delivered, with the same messageId and the same bytes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from eth_account import Account

from simnode.formats.ids import id_from_str
from simnode.webhooks.records import ADDRESS_ACTIVITY, message_id

from .dataapi import api
from .killed_node import ROOT
from .rpc import call
from .test_webhooks_delivery import signed_by
from .webhook_receiver import Receiver, free_port

EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
TARGET = "0x00000000000000000000000000000000000000C1"


def start(data_dir, port: int) -> subprocess.Popen:
    env = dict(os.environ, ETH_HASH_BACKEND="pysha3")
    proc = subprocess.Popen([sys.executable, "-m", "simnode", "run", "--data-dir", str(data_dir), "--http-port",
                             str(port), "--log-level", "ERROR"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert "simnode ready" in proc.stdout.readline()
    return proc


def transfer(rpc: str, nonce: int) -> str:
    tx = EWOQ.sign_transaction({"to": TARGET, "value": 1 + nonce, "gas": 21000, "maxFeePerGas": 10**11,
                                "maxPriorityFeePerGas": 1, "nonce": nonce, "chainId": 43112, "type": 2})
    tx_hash = call(rpc, "eth_sendRawTransaction", [tx.raw_transaction.to_0x_hex()])
    deadline = time.monotonic() + 20
    while call(rpc, "eth_getTransactionReceipt", [tx_hash]) is None:
        assert time.monotonic() < deadline
        time.sleep(0.005)
    return tx_hash


def test_kill_9_then_restart_delivers_with_the_same_message_id(tmp_path):
    port = free_port()
    base, rpc = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port}/ext/bc/C/rpc"
    with Receiver() as rx:
        rx.statuses.extend([500] * 1000)  # before the crash, every attempt fails
        proc = start(tmp_path, port)
        try:
            hook = api(base, "/v1/webhooks", 201, "POST", {
                "eventType": "address_activity", "url": rx.url, "chainId": "43112",
                "metadata": {"addresses": [TARGET]}})
            secret = api(base, "/v1/webhooks:getSharedSecret")["secret"]
            first = transfer(rpc, 0)
            rx.wait(1, accepted=False)  # tried, answered 500
            tried = rx.received[0]
            second = transfer(rpc, 1)  # accepted, then killed at once
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        finally:
            if proc.poll() is None:
                proc.kill()
        rx.statuses.clear()
        received_before = len(rx.received)
        proc = start(tmp_path, port)
        try:
            chain = id_from_str(call(base + "/ext/info", "info.getBlockchainID", {"alias": "C"})["blockchainID"])
            got = rx.wait(2)
            time.sleep(0.3)
            delivered = rx.accepted()
            assert len(delivered) == 2 and len(rx.received) - received_before == 2
            assert [d.json["event"]["transaction"]["txHash"] for d in delivered] == [first, second]
            assert delivered[0].json["messageId"] == tried.json["messageId"]
            assert delivered[0].body == tried.body
            assert delivered[1].json["messageId"] == message_id(hook["id"], chain, bytes.fromhex(second[2:]),
                                                                ADDRESS_ACTIVITY)
            assert all(d.headers["x-signature"] == signed_by(secret, d.body) for d in got)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
