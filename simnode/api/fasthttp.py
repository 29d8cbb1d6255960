"""A lean HTTP/1.1 path for Ethereum JSON-RPC calls, in front of the aiohttp app.

aiohttp's request machinery (request/response objects, middleware, router, header writer)
costs several times more CPU than answering `eth_blockNumber` itself. Every connection
therefore starts on `FastHTTPProtocol`, which answers only the plainest requests itself:

    POST <path of an EVM chain's /rpc> HTTP/1.1, Content-Length, a JSON media type,
    no Origin / Transfer-Encoding / Expect / Upgrade, Connection absent or keep-alive.

Those get byte for byte the reply the aiohttp app gives (same status, headers in the same
order, same body). The first request that is anything else hands the connection, with every
unread byte, to aiohttp's own protocol for the rest of its life, so all other behaviour
(CORS, 4xx replies, WebSockets, gorilla endpoints, GET, chunked bodies...) stays aiohttp's.
Replies leave in request order even when a call (eth_sendRawTransaction under automine)
finishes later than the calls behind it. Each request goes to the node's request log
(request_log.py) with its API key, user agent and host, as the aiohttp app's middleware logs it.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import deque
from typing import TYPE_CHECKING, Any, NamedTuple

from aiohttp import web
from aiohttp.helpers import rfc822_formatted_time
from aiohttp.http import SERVER_SOFTWARE

from ..rpc.jsonrpc import GETH_MEDIA_TYPES, DueReply, EthService
from .body_limit import over_limit
from .request_log import API_KEY_HEADERS, request_log
from .server import Router

if TYPE_CHECKING:
    from .node_services import NodeServices

log = logging.getLogger("simnode.http")

_SAFE_TARGET = re.compile(rb"/[A-Za-z0-9_\-/]*\Z")
_MAX_HEAD = 65536
_TAIL = ("\r\nDate: {}\r\nServer: " + SERVER_SOFTWARE + "\r\n\r\n")
_REFUSE = frozenset((b"transfer-encoding", b"expect", b"origin", b"upgrade"))
_LOGGED_HEADERS = frozenset((b"user-agent", b"host", *(h.encode() for h in API_KEY_HEADERS)))

_tail_of: list[Any] = [None, b""]  # (aiohttp's Date text, the reply tail with it): it changes once a second


def _tail() -> bytes:
    """The reply head's last lines (Date, Server), as aiohttp writes them."""
    now = rfc822_formatted_time()  # aiohttp's text, kept by aiohttp for the current second
    if now != _tail_of[0]:
        _tail_of[0], _tail_of[1] = now, _TAIL.format(now).encode()
    return _tail_of[1]


class _Caller(NamedTuple):
    """Who made a request, for the request log."""

    path: str
    key: str | None
    agent: str
    host: str


# A client's requests repeat their heads byte for byte (a keep-alive client sends the same
# headers each time, and bodies of a method mostly have one length): what a head says is parsed
# once. The route and the body limit are looked up on every request.
_HEADS: dict[bytes, tuple[int, _Caller] | None] = {}
_HEADS_MAX = 512
_HEAD_KEPT_MAX = 1024  # bytes: what a client's plain head takes; longer ones are parsed each time


def _parse_head(head: bytes) -> tuple[int, _Caller] | None:
    """The Content-Length and the caller of a request head the fast path answers, else None."""
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3 or parts[0] != b"POST" or parts[2] != b"HTTP/1.1":
        return None
    target = parts[1]
    if _SAFE_TARGET.match(target) is None or b"//" in target:
        return None
    clen = ctype = key = None
    agent = host = ""
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep or not name or name[:1] in b" \t" or name[-1:] in b" \t":
            return None
        n = name.lower()
        if n == b"content-length":
            v = value.strip(b" \t")
            if clen is not None or not v.isdigit():
                return None
            clen = int(v)
        elif n == b"content-type":
            if ctype is not None:
                return None
            ctype = value
        elif n in _REFUSE:
            return None
        elif n in _LOGGED_HEADERS:
            text = value.strip(b" \t").decode("latin-1")
            if n == b"user-agent":
                agent = text
            elif n == b"host":
                host = text
            elif key is None and text:
                key = text
        elif n == b"connection" and value.strip(b" \t").lower() != b"keep-alive":
            return None
    if clen is None or ctype is None:
        return None
    media = ctype.split(b";", 1)[0].strip().lower().decode("latin-1")
    if media not in GETH_MEDIA_TYPES:
        return None
    return clen, _Caller(target.decode("ascii"), key, agent, host)


class _Slot:
    """One request's place in the reply order."""

    __slots__ = ("done", "out")

    def __init__(self) -> None:
        self.done = False
        self.out: bytes | None = None


class FastHTTPProtocol(asyncio.Protocol):
    __slots__ = ("_buf", "_close_after", "_delegate", "_eof", "_handover", "_head", "_log", "_peer", "_queue",
                 "_site", "transport")

    def __init__(self, site: FastSockSite) -> None:
        self._site = site
        self.transport: asyncio.Transport | None = None
        self._buf = bytearray()
        self._delegate: Any = None
        self._queue: deque[_Slot] = deque()
        self._handover = False
        self._eof = False
        self._close_after = False
        # what every reply of this connection repeats, and where its requests are logged
        self._head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nnode-id: " + site.node.node_id_str.encode()
        self._log = request_log(site.node)
        self._peer = ""

    # -------------------------------------------------------------- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self._site.conns.add(self)
        peer = transport.get_extra_info("peername")
        self._peer = peer[0] if peer else ""

    def data_received(self, data: bytes) -> None:
        if self._delegate is not None:
            self._delegate.data_received(data)
            return
        if self._buf or self._handover or not self._answer_whole(data):
            self._buf += data
            if not self._handover:
                self._process()

    def eof_received(self) -> bool | None:
        if self._delegate is not None:
            return self._delegate.eof_received()
        self._eof = True
        if self._handover or self._queue:
            return True  # keep the transport until the queued replies (or aiohttp) are done
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._site.conns.discard(self)
        if self._delegate is not None:
            self._delegate.connection_lost(exc)
        self.transport = None

    def pause_writing(self) -> None:
        if self._delegate is not None:
            self._delegate.pause_writing()

    def resume_writing(self) -> None:
        if self._delegate is not None:
            self._delegate.resume_writing()

    # -------------------------------------------------------------- requests

    def _answer_whole(self, data: bytes) -> bool:
        """Answer `data` when it is exactly one request the fast path takes (what a client waiting
        for each reply sends), without copying it through the buffer; False leaves it to _process."""
        end = data.find(b"\r\n\r\n")
        if end < 0:
            return False
        parsed = self._parse(data[:end])
        if parsed is None or end + 4 + parsed[1] != len(data):
            return False
        self._dispatch(parsed[0], data[end + 4:], parsed[2])
        return True

    def _process(self) -> None:
        buf = self._buf
        while True:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                if len(buf) > _MAX_HEAD:
                    self._start_handover()
                return
            parsed = self._parse(bytes(buf[:end]))
            if parsed is None:
                self._start_handover()
                return
            service, clen, caller = parsed
            total = end + 4 + clen
            if len(buf) < total:
                return
            body = bytes(buf[end + 4:total])
            del buf[:total]
            self._dispatch(service, body, caller)
            if self._handover or self.transport is None:
                return

    def _parse(self, head: bytes) -> tuple[EthService, int, _Caller] | None:
        if head in _HEADS:
            parsed = _HEADS[head]
        else:
            parsed = _parse_head(head)
            if len(head) <= _HEAD_KEPT_MAX:
                if len(_HEADS) >= _HEADS_MAX:
                    _HEADS.clear()
                _HEADS[head] = parsed
        if parsed is None:
            return None
        clen, caller = parsed
        site = self._site
        if over_limit(clen, site.node.config.http_body_limit):
            return None
        endpoint = site.eth_service(caller.path)
        if endpoint is None:
            return None
        return endpoint, clen, caller

    def _dispatch(self, service: EthService, body: bytes, caller: _Caller) -> None:
        started = time.perf_counter()
        try:
            res = service.handle_body_now(body)
        except Exception:  # noqa: BLE001 - aiohttp would answer 500 and close; so do we
            log.exception("eth request failed")
            self._abort()
            return
        if isinstance(res, DueReply):  # written after the block the call queued is on disk
            slot = _Slot()
            self._queue.append(slot)
            asyncio.get_running_loop().call_soon(self._complete, slot, res.reply, caller, body, started)
            return
        if res is None or isinstance(res, bytes):
            self._log_call(caller, body, started)
            if not self._queue:
                self._write(res)
                return
            slot = _Slot()
            slot.done, slot.out = True, res
            self._queue.append(slot)
            return
        slot = _Slot()
        self._queue.append(slot)
        task = asyncio.get_running_loop().create_task(res)  # type: ignore[arg-type]
        task.add_done_callback(lambda t, s=slot: self._finished(s, t, caller, body, started))

    def _log_call(self, caller: _Caller, body: bytes, started: float) -> None:
        self._log.record_rpc(caller.path, body, 200, (time.perf_counter() - started) * 1000, caller.key, self._peer,
                             caller.host, caller.agent)

    def _finished(self, slot: _Slot, task: asyncio.Task, caller: _Caller, body: bytes, started: float) -> None:
        if task.cancelled() or task.exception() is not None:
            if not task.cancelled():
                log.error("eth request failed", exc_info=task.exception())
            self._abort()
            return
        self._complete(slot, task.result(), caller, body, started)

    def _complete(self, slot: _Slot, out: bytes | None, caller: _Caller, body: bytes, started: float) -> None:
        """A late reply is ready: log it, write what is next in order, go on with the connection."""
        self._log_call(caller, body, started)
        slot.done, slot.out = True, out
        queue = self._queue
        while queue and queue[0].done:
            self._write(queue.popleft().out)
        if not queue:
            if self._handover:
                self._hand_over()
            elif self._eof:
                self._close()
            elif self._buf and self.transport is not None:
                self._process()

    def _write(self, out: bytes | None) -> None:
        t = self.transport
        if t is None or t.is_closing():
            return
        body = out or b""
        t.write(b"%s\r\nContent-Length: %d%s%s" % (self._head, len(body), _tail(), body))

    def _abort(self) -> None:
        self._queue.clear()
        self._close()

    def _close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    # -------------------------------------------------------------- handing over to aiohttp

    def _start_handover(self) -> None:
        self._handover = True
        if not self._queue:
            self._hand_over()

    def _hand_over(self) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        handler = self._site.runner_server()
        self._delegate = handler
        handler.connection_made(self.transport)
        if self._buf:
            data = bytes(self._buf)
            self._buf.clear()
            handler.data_received(data)
        if self._eof and handler.eof_received() is not True:
            self._close()


class FastSockSite(web.SockSite):
    """web.SockSite whose connections start on FastHTTPProtocol."""

    def __init__(self, runner: web.AppRunner, sock: Any, node: NodeServices) -> None:
        super().__init__(runner, sock)
        self.node = node
        self.router = Router(node)
        self.conns: set[FastHTTPProtocol] = set()
        # path -> the EthService it resolved to, while the node's routes stay as they were
        self._services: dict[str, EthService] = {}
        self._services_at = -1

    def eth_service(self, path: str) -> EthService | None:
        """The EVM JSON-RPC service `path` resolves to now, else None (the router's answer, kept
        until the node's routes change; a chain not bootstrapped yet is asked again)."""
        if self._services_at != self.node.routes_version:
            self._services.clear()
            self._services_at = self.node.routes_version
        service = self._services.get(path)
        if service is None:
            endpoint = self.router.resolve(path)
            if not isinstance(endpoint, EthService):
                return None
            if len(self._services) >= _HEADS_MAX:
                self._services.clear()
            service = self._services[path] = endpoint
        return service

    def runner_server(self) -> Any:
        server = self._runner.server
        assert server is not None
        return server()

    async def start(self) -> None:
        await web.BaseSite.start(self)
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(lambda: FastHTTPProtocol(self), sock=self._sock,
                                                backlog=self._backlog)

    async def stop(self) -> None:
        await super().stop()
        for conn in list(self.conns):
            if conn._delegate is None:  # aiohttp closes the ones it owns
                conn._close()
