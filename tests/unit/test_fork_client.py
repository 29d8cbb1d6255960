"""The fork's upstream client (simnode/fork/client.py) against a scripted local HTTP server:
retries with back-off on 429 (Retry-After honoured) and 5xx, a clear error naming the URL when
the upstream is unreachable, too slow or keeps refusing, error answers passed on, batches; and
the read-through cache (simnode/fork/cache.py) keeping values across a reopen and any revert."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from simnode.fork.cache import ForkCache
from simnode.fork.client import Upstream, UpstreamAnswerError, base_url
from simnode.fork.errors import ForkError
from simnode.store import Snapshots, Store


class Script:
    """What the server answers, request by request: (status, headers, body or None for a JSON-RPC
    echo, delay seconds)."""

    def __init__(self) -> None:
        self.steps: list[tuple[int, dict, bytes | None, float]] = []
        self.seen: list[dict] = []
        self.paths: list[str] = []

    def next(self) -> tuple[int, dict, bytes | None, float]:
        return self.steps.pop(0) if self.steps else (200, {}, None, 0.0)


@pytest.fixture()
def server():
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            script.seen.append(body)
            script.paths.append(self.path)
            status, headers, reply, delay = script.next()
            if delay:
                time.sleep(delay)
            if reply is None:
                calls = body if isinstance(body, list) else [body]
                out = [{"jsonrpc": "2.0", "id": c["id"], "result": c["method"] + ":" + json.dumps(c["params"])}
                       for c in calls]
                reply = json.dumps(out if isinstance(body, list) else out[0]).encode()
            try:
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
                pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", script
    httpd.shutdown()
    httpd.server_close()


def test_base_url_takes_a_node_or_its_c_chain_rpc():
    assert base_url("https://api.avax.network/ext/bc/C/rpc") == "https://api.avax.network"
    assert base_url("http://127.0.0.1:9650/") == "http://127.0.0.1:9650"
    with pytest.raises(ForkError, match="must be an http"):
        base_url("ws://127.0.0.1:9650")


def test_calls_and_batches(server):
    url, script = server
    up = Upstream(url + "/ext/bc/C/rpc")
    assert up.eth("eth_chainId", []) == "eth_chainId:[]"
    assert up.eth_batch([("eth_getBalance", ["0xab", "0x1"]), ("eth_getCode", ["0xab", "0x1"])]) == [
        'eth_getBalance:["0xab", "0x1"]', 'eth_getCode:["0xab", "0x1"]']
    assert up.avax("/ext/info", "info.getNetworkID") == "info.getNetworkID:{}"
    assert script.paths == ["/ext/bc/C/rpc", "/ext/bc/C/rpc", "/ext/info"]
    assert isinstance(script.seen[1], list) and len(script.seen[1]) == 2  # one request for the batch
    assert up.requests == 3


def test_rate_limited_requests_are_retried_with_back_off(server):
    url, script = server
    script.steps = [(429, {"Retry-After": "0.2"}, b"slow down", 0.0), (429, {}, b"slow down", 0.0),
                    (503, {}, b"busy", 0.0)]
    up = Upstream(url, timeout=10, retries=5, backoff=0.05)
    started = time.monotonic()
    assert up.eth("eth_blockNumber", []) == "eth_blockNumber:[]"
    assert time.monotonic() - started >= 0.2 + 0.1 + 0.2  # Retry-After, then 0.05·2¹, 0.05·2²
    assert up.requests == 4


def test_an_upstream_that_keeps_refusing_gets_a_clear_error(server):
    url, script = server
    script.steps = [(429, {}, b"no", 0.0)] * 10
    up = Upstream(url, timeout=10, retries=3, backoff=0.01)
    with pytest.raises(ForkError, match=rf"fork upstream {url}/ext/bc/C/rpc: eth_call failed: rate-limited "
                                        r"\(HTTP 429\) 4 times; gave up after 4 attempts"):
        up.eth("eth_call", [{}])
    script.steps = [(404, {}, b"404 page not found", 0.0)]
    with pytest.raises(ForkError, match="answered HTTP 404: 404 page not found"):
        up.eth("eth_call", [{}])


def test_an_error_answer_is_the_upstreams_and_is_not_retried(server):
    url, script = server
    script.steps = [(200, {}, b'{"jsonrpc":"2.0","id":0,"error":{"code":-32000,"message":"header not found"}}', 0.0)]
    up = Upstream(url)
    with pytest.raises(UpstreamAnswerError, match="eth_getBlockByNumber failed: header not found") as err:
        up.eth("eth_getBlockByNumber", ["0x99", False])
    assert err.value.upstream_message == "header not found" and up.requests == 1


def test_an_unreachable_upstream_fails_within_the_timeout():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there
    up = Upstream(f"http://127.0.0.1:{port}", timeout=1.0, retries=10, backoff=0.1)
    started = time.monotonic()
    with pytest.raises(ForkError, match=rf"fork upstream http://127.0.0.1:{port}/ext/info: info.getNetworkID "
                                        r"failed: cannot reach it \(connection refused\)"):
        up.avax("/ext/info", "info.getNetworkID")
    assert time.monotonic() - started < 1.5


def test_a_slow_upstream_fails_within_the_timeout(server):
    url, script = server
    script.steps = [(200, {}, None, 2.0)]
    up = Upstream(url, timeout=0.5)
    started = time.monotonic()
    with pytest.raises(ForkError, match=rf"fork upstream {url}/ext/bc/C/rpc: no answer to eth_chainId within 0.5 s"):
        up.eth("eth_chainId", [])
    assert time.monotonic() - started < 1.5


def test_the_cache_keeps_values_through_a_reopen_and_a_revert(tmp_path):
    store = Store.open(tmp_path / "db")
    snapshots = Snapshots(store)
    sid = snapshots.take()
    cache = ForkCache(store)
    fetched = []
    assert cache.get_or_fetch(b"k", lambda: fetched.append(1) or [1, b"\x02"]) == [1, b"\x02"]
    assert cache.get_or_fetch(b"absent", lambda: None) is None
    assert cache.get_or_fetch(b"k", lambda: fetched.append(1) or "again") == [1, b"\x02"]
    snapshots.revert(sid)  # a revert of the chains leaves what the upstream answered
    store.close()
    again = ForkCache(Store.open(tmp_path / "db"))
    assert again.get(b"k") == [1, b"\x02"] and again.get(b"absent") is None and fetched == [1]
    with pytest.raises(KeyError):
        again.get(b"never")


def test_many_calls_on_several_connections_keep_their_order(server):
    url, script = server
    up = Upstream(url)
    params = [{"n": i} for i in range(20)]
    assert up.avax_many("/ext/bc/P", "platform.getSubnet", params) == [
        f'platform.getSubnet:{{"n": {i}}}' for i in range(20)]
    assert up.requests == 20 and sorted(b["params"]["n"] for b in script.seen) == list(range(20))
    script.steps = [(404, {}, b"gone", 0.0)] * 3
    with pytest.raises(ForkError, match="answered HTTP 404"):
        up.avax_many("/ext/bc/P", "platform.getSubnet", params[:3])
