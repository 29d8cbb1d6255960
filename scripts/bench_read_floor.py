"""How many eth_blockNumber / eth_getBalance requests a second simnode answers against the most a
Python server on this event loop could: wrk (as ../shared/bench/bench_rpc.py drives it: one
thread, 50 keep-alive connections, the same body every time) against

* floor: a uvloop protocol in this process's Python that writes simnode's own reply bytes back
  for every request, without reading it (no HTTP parsing, no JSON, no node): what recv, send and
  the event loop cost per request on this machine;
* simnode: the URL given (its C-Chain RPC);
* control: Anvil's URL, when given.

The floor's figure bounds simnode's from above: what simnode's Python does per request is
(1/simnode - 1/floor) seconds, printed as python_us_per_request.

Usage: python scripts/bench_read_floor.py SIMNODE_RPC_URL [--control ANVIL_URL] [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

LUA = """wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = os.getenv("RPC_BODY")
"""
ADDRESS = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"  # ewoq's C-Chain address
METHODS = {"eth_blockNumber": [], "eth_getBalance": [ADDRESS, "latest"]}


def body_of(method: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": METHODS[method]}).encode()


def reply_of(url: str, body: bytes) -> bytes:
    """simnode's whole HTTP reply to `body` (head and body), as the floor server repeats it."""
    host, port = re.match(r"https?://([^:/]+):(\d+)", url).groups()  # type: ignore[union-attr]
    path = url.split(f":{port}", 1)[1] or "/"
    with socket.create_connection((host, int(port))) as s:
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                  f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        data = b""
        while b"\r\n\r\n" not in data or len(data) < data.index(b"\r\n\r\n") + 4 + _length(data):
            data += s.recv(65536)
    return data


def _length(data: bytes) -> int:
    m = re.search(rb"(?i)\r\ncontent-length: *(\d+)", data)
    return int(m.group(1)) if m else 0


def serve_floor(port: int, reply: bytes, ready: multiprocessing.synchronize.Event) -> None:
    import uvloop

    class Repeat(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self.transport = transport

        def data_received(self, data: bytes) -> None:
            self.transport.write(reply)  # type: ignore[attr-defined]

    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(Repeat, "127.0.0.1", port)
        ready.set()
        await server.serve_forever()

    uvloop.run(main())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wrk(url: str, body: bytes, seconds: int) -> float:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(LUA)
    env = dict(os.environ, RPC_BODY=body.decode())
    try:
        subprocess.run(["wrk", "-t1", "-c50", "-d1s", "-s", f.name, url], env=env, capture_output=True, check=True)
        out = subprocess.run(["wrk", "-t1", "-c50", f"-d{seconds}s", "-s", f.name, url], env=env,
                             capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(f.name)
    return float(re.search(r"Requests/sec:\s*([\d.]+)", out).group(1))  # type: ignore[union-attr]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("url", help="simnode's C-Chain RPC URL, e.g. http://127.0.0.1:9650/ext/bc/C/rpc")
    ap.add_argument("--control", help="Anvil's URL, measured in the same run")
    ap.add_argument("--seconds", type=int, default=5)
    args = ap.parse_args()
    if not shutil.which("wrk"):
        sys.exit("needs `wrk` on PATH (apt-get install wrk)")
    urllib.request.urlopen(args.url.split("/ext/")[0] + "/ext/health").read()
    out: dict = {}
    for method in METHODS:
        body = body_of(method)
        port = free_port()
        ready = multiprocessing.Event()
        floor = multiprocessing.Process(target=serve_floor, args=(port, reply_of(args.url, body), ready), daemon=True)
        floor.start()
        ready.wait(10)
        time.sleep(0.2)
        try:
            row = {"floor_rps": wrk(f"http://127.0.0.1:{port}/", body, args.seconds)}
        finally:
            floor.terminate()
            floor.join()
        row["simnode_rps"] = wrk(args.url, body, args.seconds)
        if args.control:
            row["control_rps"] = wrk(args.control, body, args.seconds)
            row["simnode_vs_control"] = round(row["simnode_rps"] / row["control_rps"], 3)
            row["floor_vs_control"] = round(row["floor_rps"] / row["control_rps"], 3)
        row["python_us_per_request"] = round((1 / row["simnode_rps"] - 1 / row["floor_rps"]) * 1e6, 2)
        out[method] = row
    print(json.dumps(out))


if __name__ == "__main__":
    main()
