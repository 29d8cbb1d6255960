"""`simnode proxy --upstream URL --record-scenario FILE`: record a session in front of any
AvalancheGo-compatible node (AvalancheGo, tmpnet, another simnode).

Every request is forwarded to the upstream and its answer sent back unchanged (status, headers,
body; a websocket is piped both ways message by message). What the client sends is read on the
way: each state-changing JSON-RPC call (recorder.ETH_WRITES / GORILLA_WRITES, single, in a batch or
over a websocket) that the upstream answers without an error becomes a `request` step, as the
recorder on a node writes it. Block boundaries come from the upstream: after a tx is sent the
proxy follows the chains' heights and reads each new block (eth_getBlockByNumber,
avm/platform.getBlockByHeight), and a `block` step with the block's time, ID and txs goes right
after the last recorded request it includes (a block none of them is in goes where it was seen).
A request whose tx is not in a block yet holds back the steps after it; the file is appended at
least every 10 blocks or second otherwise, and when the proxy stops (SIGINT/SIGTERM), after a last
look at the chains.

The file replays on simnode (`[network] recorded_by = "proxy"`): the same txs in the same blocks,
built at the upstream's block times; block IDs may differ where the upstream's consensus fields do
(its genesis, seed, fee history), which the replay's summary says.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from aiohttp import web

from .recorded import TX_METHODS, endpoint_chain
from .recorder import CHECKED_RESULTS, ETH_WRITES, FLUSH_BLOCKS, FLUSH_SECONDS, GORILLA_WRITES, format_ms
from .tomlout import toml_key_values
from .golden_trace import block_summary
from .transport import HttpTransport, ErrorReply, TransportError

log = logging.getLogger("simnode.proxy")

WRITES = ETH_WRITES | GORILLA_WRITES
POLL_S = 0.1
SETTLE_S = 30.0  # a tx not in a block by then is written without one
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
                        "transfer-encoding", "upgrade", "host", "content-length"})


@dataclass(slots=True)
class _Step:
    table: dict[str, Any]
    tx: str | None = None  # a request's tx ID, until a block holds it
    since: float = 0.0
    block: bool = False


@dataclass(slots=True)
class ProxyRecorder:
    path: Path
    upstream: str
    network_id: int = 12345
    start_ms: int = 0
    steps: list[_Step] = field(default_factory=list)
    heights: dict[str, int] = field(default_factory=dict)
    unflushed_blocks: int = 0
    written: int = 0
    _file: Any = None

    def open(self) -> None:
        net = {"recorded_by": "proxy", "network_id": self.network_id, "start_time": format_ms(self.start_ms),
               "clock": "wall"}
        self._file = self.path.open("w", encoding="utf-8")
        self._file.write(f"# Recorded by `simnode proxy` in front of {self.upstream}; replay it with "
                         f"`simnode replay {self.path.name}`.\nname = \"proxied session\"\n\n[network]\n"
                         + toml_key_values(net) + "\n")
        self._file.flush()

    def request(self, at_ms: int, path: str, method: str, params: Any, result: Any) -> None:
        table: dict[str, Any] = {"kind": "request", "at": format_ms(at_ms), "endpoint": path, "method": method}
        if params not in (None, [], {}):
            table["params"] = orjson.dumps(params).decode()
        if method in CHECKED_RESULTS:
            table["result"] = orjson.dumps(result).decode()
        tx = None
        if method in TX_METHODS:
            tx = result.get("txID") if isinstance(result, dict) else result
            chain = TX_METHODS[method] or endpoint_chain(path)
            if chain is not None and chain not in self.heights and chain not in ("X", "P", "C"):
                self.heights[chain] = -1  # an L1: followed from its first scan
        self.steps.append(_Step(table, str(tx) if tx is not None else None, time.monotonic()))

    def block(self, chain: str, height: int, summary: dict[str, Any]) -> None:
        txs = summary["txs"]
        table = {"kind": "block", "chain": chain, "height": height, "id": summary["id"],
                 "at": format_ms(summary["time"]), "txs": txs}
        step = _Step(table, block=True)
        where = max((i for i, s in enumerate(self.steps) if s.tx is not None and s.tx in txs), default=None)
        for s in self.steps:
            if s.tx is not None and s.tx in txs:
                s.tx = None
        if where is None:
            self.steps.append(step)
        else:
            self.steps.insert(where + 1, step)
        self.unflushed_blocks += 1

    def waiting(self) -> bool:
        return any(s.tx is not None for s in self.steps)

    def flush(self, final: bool = False) -> None:
        """Append the steps up to the first request whose tx no block holds yet (all when final)."""
        now = time.monotonic()
        done = 0
        for s in self.steps:
            if s.tx is not None and not final and now - s.since < SETTLE_S:
                break
            done += 1
        if not done or self._file is None:
            return
        out, self.steps = self.steps[:done], self.steps[done:]
        self.unflushed_blocks = sum(1 for s in self.steps if s.block)
        self._file.write("".join("\n[[steps]]\n" + toml_key_values(s.table) for s in out))
        self._file.flush()
        self.written += len(out)

    def close(self) -> None:
        if self._file is not None:
            self.flush(final=True)
            self._file.close()
            self._file = None


class Proxy:
    def __init__(self, upstream: str, record: Path) -> None:
        self.upstream = upstream.rstrip("/")
        self.recorder = ProxyRecorder(Path(record), self.upstream)
        self.transport = HttpTransport(self.upstream)
        self.session: Any = None
        self._scanner: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._closing = False

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        import aiohttp

        loop = asyncio.get_running_loop()
        try:
            info = await loop.run_in_executor(None, self.transport.call, "info", "info.getNetworkID", {})
            heights = await loop.run_in_executor(None, self._heights, ("X", "P", "C"))
        except (ErrorReply, TransportError, OSError, KeyError, ValueError) as exc:
            raise ProxyError(f"{self.upstream}: not an AvalancheGo-compatible endpoint ({exc})") from None
        self.recorder.network_id = int(info["networkID"])
        self.recorder.heights = heights
        self.recorder.start_ms = time.time_ns() // 1_000_000
        self.recorder.open()
        self.session = aiohttp.ClientSession(auto_decompress=False, timeout=aiohttp.ClientTimeout(total=300))
        self._scanner = asyncio.create_task(self._scan_loop())

    async def stop(self) -> None:
        self._closing = True
        self._wake.set()
        if self._scanner is not None:
            await self._scanner
        await asyncio.get_running_loop().run_in_executor(None, self._scan)  # the last blocks
        self.recorder.close()
        if self.session is not None:
            await self.session.close()
        self.transport.close()

    # ------------------------------------------------------------------ forwarding

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return await self._websocket(request)
        body = await request.read()
        at_ms = time.time_ns() // 1_000_000
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP}
        try:
            async with self.session.request(request.method, self.upstream + request.path_qs, data=body,
                                            headers=headers, allow_redirects=False) as up:
                data = await up.read()
                resp = web.Response(status=up.status, body=data)
                for k, v in up.headers.items():
                    if k.lower() not in HOP_BY_HOP:
                        resp.headers.add(k, v)
        except Exception as exc:  # noqa: BLE001 - the upstream is down: a gateway error, as any proxy
            return web.Response(status=502, text=f"simnode proxy: upstream {self.upstream}: {exc}\n")
        if request.method == "POST" and up.status == 200:
            self._record(at_ms, request.path, body, data)
        return resp

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        client = web.WebSocketResponse(max_msg_size=16 * 1024 * 1024)
        await client.prepare(request)
        pending: dict[bytes, tuple[int, bytes]] = {}  # request id (JSON) -> (time, request)
        url = self.upstream.replace("http", "ws", 1) + request.path_qs
        async with self.session.ws_connect(url, max_msg_size=16 * 1024 * 1024) as up:
            async def downstream() -> None:
                async for msg in up:
                    if msg.type.name not in ("TEXT", "BINARY"):
                        break
                    data = msg.data if isinstance(msg.data, bytes) else msg.data.encode()
                    self._ws_reply(request.path, data, pending)
                    await (client.send_bytes(msg.data) if isinstance(msg.data, bytes) else client.send_str(msg.data))
                await client.close()

            task = asyncio.create_task(downstream())
            try:
                async for msg in client:
                    if msg.type.name not in ("TEXT", "BINARY"):
                        break
                    data = msg.data if isinstance(msg.data, bytes) else msg.data.encode()
                    self._ws_request(data, pending)
                    await (up.send_bytes(msg.data) if isinstance(msg.data, bytes) else up.send_str(msg.data))
            finally:
                await up.close()
                await task
        return client

    # ------------------------------------------------------------------ reading what passes

    def _record(self, at_ms: int, path: str, body: bytes, reply: bytes) -> None:
        try:
            calls, answers = orjson.loads(body), orjson.loads(reply)
        except orjson.JSONDecodeError:
            return
        if isinstance(calls, dict):
            calls, answers = [calls], [answers]
        if not isinstance(calls, list) or not isinstance(answers, list):
            return
        by_id = {orjson.dumps(a.get("id")): a for a in answers if isinstance(a, dict)}
        for call in calls:
            if isinstance(call, dict) and call.get("method") in WRITES:
                answer = by_id.get(orjson.dumps(call.get("id")))
                if answer is not None and answer.get("error") is None and "result" in answer:
                    self._note(at_ms, path, call, answer["result"])

    def _ws_request(self, data: bytes, pending: dict[bytes, tuple[int, bytes]]) -> None:
        try:
            call = orjson.loads(data)
        except orjson.JSONDecodeError:
            return
        for c in call if isinstance(call, list) else [call]:
            if isinstance(c, dict) and c.get("method") in WRITES and "id" in c:
                pending[orjson.dumps(c["id"])] = (time.time_ns() // 1_000_000, orjson.dumps(c))

    def _ws_reply(self, path: str, data: bytes, pending: dict[bytes, tuple[int, bytes]]) -> None:
        if not pending:
            return
        try:
            reply = orjson.loads(data)
        except orjson.JSONDecodeError:
            return
        for r in reply if isinstance(reply, list) else [reply]:
            if not isinstance(r, dict) or "id" not in r:
                continue
            sent = pending.pop(orjson.dumps(r["id"]), None)
            if sent is not None and r.get("error") is None and "result" in r:
                rpc_path = path[:-3] + "/rpc" if path.endswith("/ws") else path
                self._note(sent[0], rpc_path, orjson.loads(sent[1]), r["result"])

    def _note(self, at_ms: int, path: str, call: dict[str, Any], result: Any) -> None:
        self.recorder.request(at_ms, path, call["method"], call.get("params"), result)
        self._wake.set()

    # ------------------------------------------------------------------ blocks

    def _heights(self, chains: Any) -> dict[str, int]:
        out = {}
        for chain in chains:
            if chain == "X":
                out[chain] = int(self.transport.call("X", "avm.getHeight", {})["height"])
            elif chain == "P":
                out[chain] = int(self.transport.call("P", "platform.getHeight", {})["height"])
            else:
                out[chain] = int(self.transport.call(f"/ext/bc/{chain}/rpc", "eth_blockNumber", []), 16)
        return out

    def _scan(self) -> None:
        """Record every block accepted upstream since the last look, chain by chain in height order."""
        rec = self.recorder
        for chain, seen in list(rec.heights.items()):
            try:
                top = self._heights([chain])[chain]
                start = seen + 1
                if seen < 0:  # an L1 first seen in a request: its blocks since the proxy started
                    start = top + 1
                    while start > 1 and block_summary(self.transport, chain, start - 1)["time"] >= rec.start_ms:
                        start -= 1
                for h in range(max(start, 1), top + 1):
                    rec.block(chain, h, block_summary(self.transport, chain, h))
                rec.heights[chain] = top
            except (ErrorReply, TransportError, OSError, KeyError, ValueError) as exc:
                log.warning("cannot read the %s chain's blocks upstream: %s", chain, exc)

    async def _scan_loop(self) -> None:
        loop = asyncio.get_running_loop()
        last_flush = time.monotonic()
        while not self._closing:
            try:
                async with asyncio.timeout(POLL_S if self.recorder.waiting() else FLUSH_SECONDS):
                    await self._wake.wait()
            except TimeoutError:
                pass
            self._wake.clear()
            await loop.run_in_executor(None, self._scan)
            if self.recorder.unflushed_blocks >= FLUSH_BLOCKS or time.monotonic() - last_flush >= FLUSH_SECONDS:
                self.recorder.flush()
                last_flush = time.monotonic()


class ProxyError(Exception):
    pass


async def serve_proxy(upstream: str, record: Path, host: str, port: int, ready: Any = None) -> None:
    """Run the proxy until SIGINT/SIGTERM (`ready(url)` once it listens)."""
    import signal
    import socket

    proxy = Proxy(upstream, record)
    await proxy.start()
    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_route("*", "/{tail:.*}", proxy.handle)
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        await proxy.stop()
        await runner.cleanup()
        raise ProxyError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    bound = sock.getsockname()[1]
    await web.SockSite(runner, sock).start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    if ready is not None:
        ready(f"http://{host}:{bound}")
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
        await proxy.stop()
