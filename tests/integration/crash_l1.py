"""kill -9 of a node running an L1 EVM chain and the ICM relayer, with messages in flight.

`prepare` makes a data dir once: an L1 (converted, Warp on, the TeleporterMessenger in its genesis)
with a PingPongReceiver on it and one on the C-Chain. Each `trial` starts `simnode run` on that data
dir, sends from a second thread EWOQ transfers on both chains and pings both ways (C → L1 and
L1 → C, each answered by a pong), and SIGKILLs the process at a random moment (with the relayer
switched off first in one trial out of two, so messages are certainly sent and not delivered when
the process dies). Then it starts the node again on the same data dir, mines until the relayer has
nothing pending, and checks what a user would:
  - every acknowledged tx (eth_sendRawTransaction answered with its hash) has a receipt;
  - every SendCrossChainMessage on either chain has exactly one ReceiveCrossChainMessage on its
    destination, and the Data API lists it as delivered;
  - the Data API's blocks of both chains agree with the chains (head, hash and tx count of each
    block since the trial began).
Trials follow each other on the same data dir (each crash recovers from the previous one's state).
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from eth_abi import encode as abi_encode
from eth_utils import to_checksum_address

from simnode.config import NodeConfig
from simnode.crypto.hashing import keccak256
from simnode.formats import id_to_str
from simnode.icm import events as ev
from simnode.icm.artifacts import load_artifact, messenger_genesis_alloc
from simnode.icm.messages import MESSENGER_ADDRESS
from simnode.node import Node

from .icm_l1 import EWOQ, GWEI, converted_l1, send, subnet_evm_genesis
from .rpc import call

ROOT = Path(__file__).resolve().parents[2]
L1_EVM_ID = 77788
C_EVM_ID = 43112
PING = keccak256(b"ping(bytes32,address,string,uint256,uint256)")[:4]
MESSENGER = "0x" + MESSENGER_ADDRESS.hex()


@dataclass(frozen=True, slots=True)
class Setup:
    l1_id: bytes
    c_id: bytes
    c_pinger: str  # PingPongReceiver on the C-Chain
    l1_ponger: str  # PingPongReceiver on the L1


@dataclass
class Outcome:
    acked: int = 0
    messages: int = 0
    pending_at_kill: int = 0
    lost: list[str] = field(default_factory=list)
    not_once: list[str] = field(default_factory=list)
    index_disagrees: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.lost or self.not_once or self.index_disagrees)


def prepare(data_dir: Path) -> Setup:
    """The L1 and the two PingPongReceivers, on a node that is then stopped cleanly."""
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=data_dir)) as h:
        alloc = {k[2:]: v for k, v in messenger_genesis_alloc().items()}
        l1_id, l1_rpc = converted_l1(h, "crashl1", subnet_evm_genesis(L1_EVM_ID, alloc))
        creation = load_artifact("PingPongReceiver").creation_code + abi_encode(["address"], [MESSENGER_ADDRESS])
        ponger = send(l1_rpc, L1_EVM_ID, None, creation)["contractAddress"]
        pinger = send(h.url + "/ext/bc/C/rpc", C_EVM_ID, None, creation)["contractAddress"]
        return Setup(l1_id, h.node.genesis.c_chain_id, pinger, ponger)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(data_dir: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = dict(os.environ, ETH_HASH_BACKEND="pysha3")
    with open(data_dir / "node.log", "a") as log:  # the node's warnings, kept with its data
        proc = subprocess.Popen([sys.executable, "-m", "simnode", "run", "--data-dir", str(data_dir), "--http-port",
                                 str(port), "--log-level", "WARN"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=log, text=True)
    line = proc.stdout.readline()  # type: ignore[union-attr]
    if "simnode ready" not in line:
        proc.kill()
        raise RuntimeError(f"the node did not start: {line!r}")
    return proc, f"http://127.0.0.1:{port}"


def _data_api(url: str, path: str) -> dict:
    with urllib.request.urlopen(url + path, timeout=60) as r:
        return json.loads(r.read())


class _Load:
    """EWOQ's transfers on both chains and pings both ways, until the node stops answering."""

    def __init__(self, url: str, setup: Setup, rng: random.Random) -> None:
        self.c_rpc = url + "/ext/bc/C/rpc"
        self.l1_rpc = f"{url}/ext/bc/{id_to_str(setup.l1_id)}/rpc"
        self.setup = setup
        self.rng = rng
        self.nonces = {rpc: int(call(rpc, "eth_getTransactionCount", [EWOQ.address, "latest"]), 16)
                       for rpc in (self.c_rpc, self.l1_rpc)}
        self.acked: list[tuple[str, str]] = []  # ("C" or "L1", tx hash)
        self.stop = threading.Event()

    def _tx(self, rpc: str, to: str, data: bytes, gas: int, value: int = 0) -> bool:
        chain_id = C_EVM_ID if rpc == self.c_rpc else L1_EVM_ID
        tx = {"chainId": chain_id, "nonce": self.nonces[rpc], "to": to_checksum_address(to), "value": value,
              "gas": gas, "data": "0x" + data.hex(), "maxFeePerGas": 300 * GWEI, "maxPriorityFeePerGas": GWEI}
        raw = "0x" + EWOQ.sign_transaction(tx).raw_transaction.hex().removeprefix("0x")
        try:
            h = call(rpc, "eth_sendRawTransaction", [raw])
        except Exception:  # noqa: BLE001 - the node is gone (or refused: then nothing was acknowledged)
            return False
        self.nonces[rpc] += 1
        self.acked.append(("C" if rpc == self.c_rpc else "L1", h))
        return True

    def run(self) -> None:
        s = self.setup
        n = 0
        while not self.stop.is_set():
            n += 1
            if n % 5 == 0:
                ok = self._tx(self.c_rpc, s.c_pinger, PING + abi_encode(
                    ["bytes32", "address", "string", "uint256", "uint256"],
                    [s.l1_id, s.l1_ponger, f"c{n}", 300_000, 200_000]), 1_000_000)
            elif n % 7 == 0:
                ok = self._tx(self.l1_rpc, s.l1_ponger, PING + abi_encode(
                    ["bytes32", "address", "string", "uint256", "uint256"],
                    [s.c_id, s.c_pinger, f"l{n}", 300_000, 200_000]), 1_000_000)
            else:
                rpc = self.c_rpc if n % 2 else self.l1_rpc
                to = "0x" + keccak256(n.to_bytes(8, "big") + self.rng.randbytes(4))[12:].hex()
                ok = self._tx(rpc, to, b"", 21_000, value=1)
            if not ok:
                return


def _messages(rpc: str) -> tuple[list[bytes], dict[bytes, int]]:
    """Message IDs the chain's messenger sent, and how many times each ID was received on it."""
    logs = call(rpc, "eth_getLogs", [{"address": MESSENGER, "fromBlock": "0x0", "toBlock": "latest"}])
    sent, received = [], {}
    for lg in logs:
        e = ev.decode_event([bytes.fromhex(t[2:]) for t in lg["topics"]], bytes.fromhex(lg["data"][2:]))
        if isinstance(e, ev.SendCrossChainMessage):
            sent.append(e.message_id)
        elif isinstance(e, ev.ReceiveCrossChainMessage):
            received[e.message_id] = received.get(e.message_id, 0) + 1
    return sent, received


def trial(data_dir: Path, setup: Setup, rng: random.Random, relayer_off: bool) -> Outcome:
    out = Outcome()
    proc, url = _start(data_dir)
    try:
        load = _Load(url, setup, rng)
        heads = {chain: int(call(rpc, "eth_blockNumber", []), 16) for chain, rpc in (("C", load.c_rpc),
                                                                                        ("L1", load.l1_rpc))}
        if relayer_off:
            call(url + "/ext/simnode", "simnode.setRelayer", {"enabled": False})
        thread = threading.Thread(target=load.run, daemon=True)
        thread.start()
        time.sleep(rng.uniform(0.3, 2.5))
        if relayer_off:
            try:
                out.pending_at_kill = len(call(url + "/ext/simnode", "simnode.getRelayer", {})["pending"])
            except Exception:  # noqa: BLE001 - counted only when the node answers
                pass
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        load.stop.set()
        thread.join(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out.acked = len(load.acked)
    proc, url = _start(data_dir)
    rpcs = {"C": url + "/ext/bc/C/rpc", "L1": f"{url}/ext/bc/{id_to_str(setup.l1_id)}/rpc"}
    try:
        for _ in range(20):  # the relayer delivers what was pending; each pong needs one more block
            if not call(url + "/ext/simnode", "simnode.getRelayer", {})["pending"]:
                break
            call(url + "/ext/simnode", "simnode.mine", {"blocks": 1})
        for chain, h in load.acked:
            receipt = call(rpcs[chain], "eth_getTransactionReceipt", [h])
            if receipt is None or receipt.get("blockNumber") is None:
                out.lost.append(f"{chain} {h}")
        c_sent, c_received = _messages(rpcs["C"])
        l1_sent, l1_received = _messages(rpcs["L1"])
        out.messages = len(c_sent) + len(l1_sent)
        for sent, received in ((c_sent, l1_received), (l1_sent, c_received)):
            for mid in sent:
                if received.get(mid, 0) != 1:
                    out.not_once.append(f"0x{mid.hex()} received {received.get(mid, 0)} times")
                elif _data_api(url, f"/v1/icm/messages/0x{mid.hex()}")["status"] != "delivered":
                    out.not_once.append(f"0x{mid.hex()} not delivered in the Data API")
        for chain, evm_id in (("C", C_EVM_ID), ("L1", L1_EVM_ID)):
            rpc = rpcs[chain]
            head = int(call(rpc, "eth_blockNumber", []), 16)
            latest = _data_api(url, f"/v1/chains/{evm_id}/blocks?pageSize=1")["blocks"][0]
            if int(latest["blockNumber"]) != head:
                out.index_disagrees.append(f"{evm_id}: index head {latest['blockNumber']}, chain head {head}")
            for n in range(heads[chain], head + 1):
                block = call(rpc, "eth_getBlockByNumber", [hex(n), False])
                got = _data_api(url, f"/v1/chains/{evm_id}/blocks/{n}")
                if (got["blockHash"], got["txCount"]) != (block["hash"], len(block["transactions"])):
                    out.index_disagrees.append(f"{evm_id} block {n}: {got['blockHash']} {got['txCount']} txs, "
                                               f"chain {block['hash']} {len(block['transactions'])} txs")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return out
