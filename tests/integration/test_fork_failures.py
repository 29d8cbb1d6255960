"""A fork's failure modes, with a real simnode upstream: after a restart with the upstream stopped
everything fetched before is served and a new fetch fails with a clear error naming the URL
(never a hang, never an empty account); a data dir holding another network's fork refuses to
start, naming both; an upstream that is unreachable at start is named; a rate-limited upstream
(HTTP 429, through a proxy) is retried with back-off, then given up on with a clear error."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from eth_account import Account

from simnode import cli
from simnode.config import NodeConfig
from simnode.errors import NodeError
from simnode.formats import format_address
from simnode.node import Node

from .rpc import RPCFailure, call, post

EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
EWOQ_X = "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
EWOQ_P = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
FRESH = "0x" + "5a" * 20


def _upstream(network_id: int = 12345) -> object:
    handle = Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual",
                                             network_id=network_id, log_level="WARN"))
    rpc = handle.url + "/ext/bc/C/rpc"
    for nonce in range(2):
        tx = {"chainId": 43112, "nonce": nonce, "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 10**9, "gas": 21000,
              "to": "0x" + "11" * 20, "value": 10**15}
        call(rpc, "eth_sendRawTransaction", ["0x" + EWOQ.sign_transaction(tx).raw_transaction.hex()])
    return handle


def _fork(url: str, data_dir, **extra) -> object:
    config = dict(http_port=0, data_dir=data_dir, clock_mode="virtual", fork_url=url, log_level="ERROR",
                  fork_timeout=3.0)
    config.update(extra)
    return Node.start_in_thread(NodeConfig(**config))


def test_a_restart_without_the_upstream_serves_what_was_fetched(tmp_path):
    up = _upstream()
    url = up.url
    with _fork(url + "/ext/bc/C/rpc", tmp_path) as fork:
        f = fork.url + "/ext/bc/C/rpc"
        balance = call(f, "eth_getBalance", [EWOQ.address, "latest"])
        x_balance = call(fork.url + "/ext/bc/X", "avm.getBalance", {"address": EWOQ_X, "assetID": "AVAX"})
        p_balance = call(fork.url + "/ext/bc/P", "platform.getBalance", {"addresses": [EWOQ_P]})
        tx = {"chainId": 43112, "nonce": 2, "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 10**9, "gas": 21000,
              "to": "0x" + "22" * 20, "value": 7}
        sent = call(f, "eth_sendRawTransaction", ["0x" + EWOQ.sign_transaction(tx).raw_transaction.hex()])
        head = call(f, "eth_blockNumber")
        after = call(f, "eth_getBalance", [EWOQ.address, "latest"])
        fork_block = call(f, "eth_getBlockByNumber", ["0x2", False])
    up.stop()
    # the index is rebuilt from the fork's own blocks alone, without the upstream
    assert cli.main(["reindex", "--data-dir", str(tmp_path)]) == 0

    with _fork(url + "/ext/bc/C/rpc", tmp_path, fork_retries=1) as fork:  # starts: the cache knows the fork
        f = fork.url + "/ext/bc/C/rpc"
        assert call(f, "eth_blockNumber") == head
        blocks = json.loads(post(fork.url + "/v1/chains/43112/blocks", "", method="GET")[1])["blocks"]
        assert [b["blockNumber"] for b in blocks] == [str(int(head, 16))]  # the index holds the fork's blocks
        assert call(f, "eth_getBalance", [EWOQ.address, "latest"]) == after != balance
        assert call(f, "eth_getBalance", [EWOQ.address, "0x2"]) == balance
        assert call(f, "eth_getTransactionReceipt", [sent])["status"] == "0x1"
        assert call(f, "eth_getBlockByNumber", ["0x2", False]) == fork_block
        assert call(fork.url + "/ext/bc/X", "avm.getBalance", {"address": EWOQ_X, "assetID": "AVAX"}) == x_balance
        assert call(fork.url + "/ext/bc/P", "platform.getBalance", {"addresses": [EWOQ_P]}) == p_balance
        # anything not fetched before: a clear error naming the upstream, at once
        started = time.monotonic()
        with pytest.raises(RPCFailure, match=rf"fork upstream {url}/ext/bc/C/rpc: eth_getBalance, "
                                             r"eth_getTransactionCount, eth_getCode failed: cannot reach it "
                                             r"\(connection refused\); gave up after"):
            call(f, "eth_getBalance", [FRESH, "latest"])
        assert time.monotonic() - started < 3.5
        with pytest.raises(RPCFailure, match=rf"fork upstream {url}/ext/bc/X: avm.getUTXOs failed"):
            call(fork.url + "/ext/bc/X", "avm.getBalance",
                 {"address": format_address("X", "local", b"\x5a" * 20), "assetID": "AVAX"})
        with pytest.raises(RPCFailure, match=rf"fork upstream {url}/ext/bc/C/rpc: eth_getBlockByNumber failed"):
            call(f, "eth_getBlockByNumber", ["0x1", False])
        # a tx from an account never fetched is refused with the same error; nothing changes
        other = Account.from_key("0x" + "42" * 32)
        tx = {"chainId": 43112, "nonce": 0, "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 10**9, "gas": 21000,
              "to": "0x" + "22" * 20, "value": 1}
        with pytest.raises(RPCFailure, match="fork upstream .* cannot reach it"):
            call(f, "eth_sendRawTransaction", ["0x" + other.sign_transaction(tx).raw_transaction.hex()])
        assert call(f, "eth_blockNumber") == head
    # started again without --fork-url, the data dir goes on with its fork
    with Node.start_in_thread(NodeConfig(http_port=0, data_dir=tmp_path, clock_mode="virtual",
                                         log_level="ERROR", fork_retries=0)) as node:
        assert node.node.fork is not None and call(node.url + "/ext/bc/C/rpc", "eth_blockNumber") == head


def test_a_data_dir_of_another_networks_fork_refuses_to_start(tmp_path):
    up = _upstream()
    with _fork(up.url, tmp_path):
        pass
    other = _upstream(network_id=1337)
    try:
        with pytest.raises(NodeError, match=rf"fork upstream {other.url} serves network 1337 \(network-1337\).* "
                                            r"but the data dir holds a fork of network 12345 \(local\) at C-Chain "
                                            r"block 2 0x[0-9a-f]{64}: refusing to start"):
            _fork(other.url, tmp_path)
        with pytest.raises(NodeError, match=r"--fork-block 1 asks for another block"):
            _fork(up.url, tmp_path, fork_block=1)
    finally:
        other.stop()
        up.stop()


def test_an_unreachable_upstream_at_start_is_named(tmp_path):
    with pytest.raises(NodeError, match=r"fork upstream http://127.0.0.1:9/ext/info: info.getNetworkID failed: "
                                        r"cannot reach it \(connection refused\)"):
        _fork("http://127.0.0.1:9", tmp_path, fork_retries=1)


class _Proxy:
    """A proxy in front of the upstream that answers some requests itself: 429 to every other
    request (`limit_every_other`) or to all (`always`), 404 for paths containing `hidden`."""

    def __init__(self, target: str, limit_every_other: bool = False) -> None:
        self.target = target
        self.every_other = limit_every_other
        self.always = False
        self.hidden: str | None = None
        self.limited = 0
        self._n = 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                proxy._n += 1
                if proxy.hidden is not None and proxy.hidden in self.path:
                    self._reply(404, b"404 page not found\n", {"Content-Type": "text/plain"})
                    return
                if proxy.always or (proxy.every_other and proxy._n % 2):
                    proxy.limited += 1
                    self._reply(429, b"Too Many Requests", {"Retry-After": "0"})
                    return
                req = urllib.request.Request(proxy.target + self.path, body, {"Content-Type": "application/json"})
                with urllib.request.urlopen(req, timeout=10) as resp:
                    self._reply(resp.status, resp.read(), {"Content-Type": "application/json"})

            def _reply(self, status: int, data: bytes, headers: dict) -> None:
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_a_rate_limited_upstream_is_retried_then_given_up_on(tmp_path):
    up = _upstream()
    proxy = _Proxy(up.url, limit_every_other=True)
    try:
        with _fork(proxy.url, tmp_path, fork_retries=3) as fork:
            f = fork.url + "/ext/bc/C/rpc"
            assert call(f, "eth_getBalance", [EWOQ.address, "latest"]) == \
                call(up.url + "/ext/bc/C/rpc", "eth_getBalance", [EWOQ.address, "latest"])
            assert proxy.limited >= 5  # every second request was refused, and retried
            proxy.always = True
            with pytest.raises(RPCFailure, match=rf"fork upstream {proxy.url}/ext/bc/C/rpc: eth_getBalance, "
                                                 r"eth_getTransactionCount, eth_getCode failed: rate-limited "
                                                 r"\(HTTP 429\) 4 times; gave up after 4 attempts"):
                call(f, "eth_getBalance", [FRESH, "latest"])
    finally:
        proxy.close()
        up.stop()


def test_an_l1_the_upstream_does_not_serve_exists_on_the_forks_p_chain_only(tmp_path, caplog):
    from .fork_upstream import start_upstream
    up = start_upstream()
    proxy = _Proxy(up.url)
    chain = up.saved["chain"]
    proxy.hidden = f"/ext/bc/{chain}/"
    try:
        with caplog.at_level("WARNING", logger="simnode.chain_manager"), _fork(proxy.url, tmp_path) as fork:
            P = fork.url + "/ext/bc/P"
            assert call(P, "platform.getBlockchainStatus", {"blockchainID": chain}) == {"status": "Created"}
            assert any(b["id"] == chain for b in call(P, "platform.getBlockchains")["blockchains"])
            status, _, _ = post(fork.url + f"/ext/bc/{chain}/rpc", '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}')
            assert status == 404
            health = json.loads(post(fork.url + "/ext/health", "", method="GET")[1])
            assert health["healthy"] is True
        assert f"chain {chain} (forkl1) exists on the fork's P-Chain only: the upstream does not serve its RPC" \
            in caplog.text
    finally:
        proxy.close()
        up.handle.stop()


def test_a_tx_reading_what_the_upstream_cannot_give_is_left_out_with_the_error(tmp_path):
    from .fork_upstream import erc20_balance, erc20_transfer_data, start_upstream
    up = start_upstream()
    proxy = _Proxy(up.url)
    try:
        with _fork(proxy.url, tmp_path, fork_retries=0) as fork:
            f = fork.url + "/ext/bc/C/rpc"
            alice = Account.from_key(up.account("alice").key_hex)
            bob = up.account("bob").c_address

            def transfer(to: str) -> str:
                nonce = int(call(f, "eth_getTransactionCount", [alice.address, "pending"]), 16)
                tx = {"chainId": 43112, "nonce": nonce, "maxFeePerGas": 10**12, "maxPriorityFeePerGas": 10**9,
                      "gas": 100_000, "to": up.token, "data": erc20_transfer_data(to, 1), "value": 0}
                return call(f, "eth_sendRawTransaction", ["0x" + alice.sign_transaction(tx).raw_transaction.hex()])

            assert call(f, "eth_getTransactionReceipt", [transfer(bob)])["status"] == "0x1"
            head = call(f, "eth_blockNumber")
            proxy.always = True  # the upstream now refuses everything
            h = transfer("0x" + "44" * 20)  # admitted: every account it names is known
            with pytest.raises(RPCFailure, match=rf"fork upstream {proxy.url}/ext/bc/C/rpc: eth_getStorageAt failed: "
                                                 r"rate-limited \(HTTP 429\)"):
                call(f, "eth_getTransactionReceipt", [h])
            # left out: a block built meanwhile has no tx
            assert all(not call(f, "eth_getBlockByNumber", [hex(n), False])["transactions"]
                       for n in range(int(head, 16) + 1, int(call(f, "eth_blockNumber"), 16) + 1))
            proxy.always = False
            assert call(f, "eth_getTransactionReceipt", [transfer(bob)])["status"] == "0x1"  # the chain goes on
            assert erc20_balance(f, up.token, bob) == 2500 * 10**18 + 2
    finally:
        proxy.close()
        up.handle.stop()


def test_simnode_run_forks_from_the_command_line_and_refuses_bad_flags(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "ETH_HASH_BACKEND": "pysha3", "SIMNODE_HOME": str(tmp_path)}

    def run(*flags: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "simnode", "run", "--http-port", "0", "--log-level", "ERROR",
                                 *flags], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=root, env=env, text=True)

    bad = run("--fork-block", "3")
    assert bad.wait(30) != 0 and "--fork-block needs --fork-url" in bad.stderr.read()
    down = run("--fork-url", "http://127.0.0.1:9/ext/bc/C/rpc", "--fork-timeout", "1", "--ephemeral")
    assert down.wait(30) == 1
    assert "simnode: fork upstream http://127.0.0.1:9/ext/info: info.getNetworkID failed: cannot reach it " \
           "(connection refused)" in down.stderr.read()
    up = _upstream()
    proc = run("--fork-url", up.url + "/ext/bc/C/rpc", "--fork-block", "1")
    try:
        line = proc.stdout.readline()
        assert line.startswith("simnode ready: network local (12345) at http://127.0.0.1:"), line
        base = line.split(" at ")[1].split(" ")[0]
        assert call(base + "/ext/bc/C/rpc", "eth_blockNumber") == "0x1"
        assert call(base + "/ext/bc/C/rpc", "eth_getBlockByNumber", ["0x1", False]) == \
            call(up.url + "/ext/bc/C/rpc", "eth_getBlockByNumber", ["0x1", False])
        assert list(tmp_path.iterdir())[0].name.startswith("fork-")  # the data dir of a fork without --data-dir
    finally:
        proc.terminate()
        assert proc.wait(20) == 0
        up.stop()


def test_another_networks_node_without_the_fork_block_refuses_at_once(tmp_path):
    # a reachable node of another network, its chain shorter than the fork block: the network ID
    # alone refuses; the block query's answer is never taken for an unreachable upstream
    up = _upstream()
    with _fork(up.url, tmp_path):
        pass
    up.stop()
    other = Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual",
                                            network_id=1337, log_level="WARN"))
    try:
        with pytest.raises(NodeError, match=rf"fork upstream {other.url} serves network 1337 \(network-1337\)"
                                            r".*refusing to start"):
            _fork(other.url, tmp_path)
    finally:
        other.stop()
