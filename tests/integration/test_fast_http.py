"""The lean HTTP path for EVM JSON-RPC (simnode/api/fasthttp.py) over raw sockets: pipelining,
requests split across packets, hand-over to aiohttp mid-connection, and the same bytes as aiohttp."""

from __future__ import annotations

import asyncio
import json
import re
import socket

import pytest

from simnode.config import NodeConfig
from simnode.node import Node


@pytest.fixture(scope="module")
def node():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as handle:
        yield handle


def rpc_request(body: dict, extra_headers: str = "") -> bytes:
    data = json.dumps(body).encode()
    return (f"POST /ext/bc/C/rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{extra_headers}"
            f"Content-Length: {len(data)}\r\n\r\n").encode() + data


def read_replies(sock: socket.socket, count: int) -> list[tuple[bytes, bytes]]:
    """(head, body) of `count` HTTP replies with Content-Length."""
    buf = b""
    out = []
    while len(out) < count:
        chunk = sock.recv(65536)
        assert chunk, "connection closed early"
        buf += chunk
        while True:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                break
            head = buf[:end]
            m = re.search(rb"(?i)content-length: (\d+)", head)
            n = int(m.group(1)) if m else 0
            if len(buf) < end + 4 + n:
                break
            out.append((head, buf[end + 4:end + 4 + n]))
            buf = buf[end + 4 + n:]
    return out


def connect(node) -> socket.socket:
    return socket.create_connection(("127.0.0.1", node.node.port), timeout=10)


def test_pipelined_requests_answered_in_order(node):
    with connect(node) as s:
        s.sendall(b"".join(rpc_request({"jsonrpc": "2.0", "id": i, "method": "eth_chainId"}) for i in range(5)))
        replies = read_replies(s, 5)
    assert [json.loads(b)["id"] for _, b in replies] == [0, 1, 2, 3, 4]
    assert all(json.loads(b)["result"] == "0xa868" for _, b in replies)


def test_request_split_across_packets(node):
    req = rpc_request({"jsonrpc": "2.0", "id": 7, "method": "eth_blockNumber", "params": []})
    with connect(node) as s:
        for i in range(0, len(req), 9):
            s.sendall(req[i:i + 9])
        (head, body), = read_replies(s, 1)
    assert head.startswith(b"HTTP/1.1 200 OK") and json.loads(body) == {"jsonrpc": "2.0", "id": 7, "result": "0x0"}


def test_same_bytes_as_the_aiohttp_path_apart_from_the_date(node):
    body = {"jsonrpc": "2.0", "id": "a", "method": "eth_getBalance", "params": ["0x" + "11" * 20, "latest"]}
    with connect(node) as s:
        s.sendall(rpc_request(body))  # fast path
        fast, = read_replies(s, 1)
    with connect(node) as s:
        s.sendall(rpc_request(body, "Origin: http://example.com\r\n"))  # Origin: served by aiohttp (CORS)
        slow, = read_replies(s, 1)
    assert fast[1] == slow[1]

    def headers(head: bytes) -> dict[bytes, bytes]:
        lines = head.split(b"\r\n")[1:]
        return {k.lower(): v.strip() for k, _, v in (line.partition(b":") for line in lines)}

    f, a = headers(fast[0]), headers(slow[0])
    for name in (b"content-type", b"content-length", b"node-id", b"server"):
        assert f[name] == a[name]


def test_hand_over_to_aiohttp_mid_connection(node):
    with connect(node) as s:
        s.sendall(rpc_request({"jsonrpc": "2.0", "id": 1, "method": "eth_chainId"})
                  + b"GET /ext/health HTTP/1.1\r\nHost: x\r\n\r\n"
                  + rpc_request({"jsonrpc": "2.0", "id": 2, "method": "eth_chainId"}))
        replies = read_replies(s, 3)
    assert json.loads(replies[0][1])["id"] == 1
    assert json.loads(replies[1][1])["healthy"] is True
    assert json.loads(replies[2][1])["id"] == 2


def test_errors_and_limits_stay_aiohttp_s(node):
    with connect(node) as s:
        s.sendall(b"POST /ext/bc/C/rpc HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}")
        (head, body), = read_replies(s, 1)
    assert head.startswith(b"HTTP/1.1 415") and body == b"invalid content type, only application/json is supported\n"


def test_whatever_follows_a_send_reply_sees_the_tx_mined(node):
    """eth_sendRawTransaction answers before its automine block is built; the block is queued
    ahead of every later request, on this connection, another one and the aiohttp path."""
    from eth_account import Account

    acct = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
    with connect(node) as s, connect(node) as other:
        s.sendall(rpc_request({"jsonrpc": "2.0", "id": 1, "method": "eth_getTransactionCount",
                               "params": [acct.address, "latest"]}))
        nonce = int(json.loads(read_replies(s, 1)[0][1])["result"], 16)
        for i in range(12):
            signed = acct.sign_transaction({"chainId": 43112, "nonce": nonce + i, "to": "0xdEDEDEDEdEdEdEDedEDeDedEdEdeDedEdEDedEdE", "value": 1,
                                            "gas": 21000, "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 1})
            s.sendall(rpc_request({"jsonrpc": "2.0", "id": 2, "method": "eth_sendRawTransaction",
                                   "params": [signed.raw_transaction.to_0x_hex()]}))
            assert json.loads(read_replies(s, 1)[0][1])["result"] == signed.hash.to_0x_hex()
            conn, headers = [(s, ""), (other, ""), (other, "Origin: http://x\r\n")][i % 3]
            conn.sendall(rpc_request({"jsonrpc": "2.0", "id": 3, "method": "eth_getTransactionReceipt",
                                      "params": [signed.hash.to_0x_hex()]}, headers))
            receipt = json.loads(read_replies(conn, 1)[0][1])["result"]
            assert receipt is not None and receipt["status"] == "0x1"


def test_routes_follow_the_nodes_aliases(node):
    """The fast path keeps what a path resolved to only while the node's routes stay the same: a
    chain alias given later (admin.aliasChain's effect) is answered on the very next request."""
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "eth_chainId"}).encode()

    def ask(path: str) -> tuple[bytes, bytes]:
        with connect(node) as s:
            s.sendall((f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
            return read_replies(s, 1)[0]

    assert ask("/ext/bc/C/rpc")[0].startswith(b"HTTP/1.1 200")
    assert ask("/ext/bc/fastalias/rpc")[0].startswith(b"HTTP/1.1 404")
    n = node.node

    async def alias() -> None:
        n.add_chain_alias(n.genesis.c_chain_id, "fastalias")

    asyncio.run_coroutine_threadsafe(alias(), node.loop).result()
    head, reply = ask("/ext/bc/fastalias/rpc")
    assert head.startswith(b"HTTP/1.1 200")
    assert json.loads(reply) == {"jsonrpc": "2.0", "id": 7, "result": "0xa868"}
