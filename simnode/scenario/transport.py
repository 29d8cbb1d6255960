"""How the runner talks to a node: the node's own public endpoints, in-process or over HTTP.

`InProcessTransport` hands the exact JSON-RPC request bytes to the endpoint the HTTP router
would pick (same resolution, same envelopes, same handlers), on the node's event loop, without
the socket. `HttpTransport` sends them over HTTP. Both answer the same bytes. REST paths
(`expect` with `get`) always go over HTTP.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
import urllib.parse
from typing import Any

import orjson

from ..rpc.jsonrpc import EthService, GorillaService
from ..api.server import Router


class ErrorReply(Exception):
    """An error answer a node gave to a scenario's call (its JSON-RPC error object)."""

    def __init__(self, error: dict[str, Any], endpoint: str = "", method: str = "") -> None:
        self.error = error if isinstance(error, dict) else {"message": str(error)}
        self.endpoint = endpoint
        self.method = method
        super().__init__(self.error.get("message", str(error)))

    @property
    def code(self) -> int | None:
        return self.error.get("code")


class TransportError(Exception):
    pass


ENDPOINT_PATHS = {
    "C": "/ext/bc/C/rpc", "X": "/ext/bc/X", "P": "/ext/bc/P", "info": "/ext/info", "health": "/ext/health",
    "simnode": "/ext/simnode", "admin": "/ext/admin", "C_avax": "/ext/bc/C/avax",
}


def endpoint_path(endpoint: str) -> str:
    if endpoint.startswith("/"):
        return endpoint
    return ENDPOINT_PATHS.get(endpoint.upper() if len(endpoint) == 1 else endpoint, f"/ext/{endpoint}")


class Transport:
    base_url: str = ""

    def __init__(self) -> None:
        self._id = 0
        self.requests = 0

    def raw(self, path: str, body: bytes) -> bytes:
        raise NotImplementedError

    def call(self, endpoint: str, method: str, params: Any = None) -> Any:
        """A JSON-RPC call; returns `result` or raises ErrorReply with the error object."""
        path = endpoint_path(endpoint)
        self._id += 1
        self.requests += 1
        req: dict[str, Any] = {"jsonrpc": "2.0", "id": self._id, "method": method}
        if params is not None:
            req["params"] = params
        elif path.endswith("/rpc"):
            req["params"] = []
        body = self.raw(path, orjson.dumps(req))
        if not body:
            raise TransportError(f"{path}: empty reply to {method}")
        try:
            reply = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise TransportError(f"{path}: not a JSON-RPC reply to {method}: {body[:200]!r}") from None
        if not isinstance(reply, dict):
            raise TransportError(f"{path}: unexpected reply to {method}: {body[:200]!r}")
        if reply.get("error") is not None:
            raise ErrorReply(reply["error"], path, method)
        return reply.get("result")

    def get(self, path: str) -> tuple[int, Any]:
        """A REST GET over HTTP: (status, parsed JSON body or text)."""
        if not self.base_url:
            raise TransportError("REST calls need the node's HTTP address")
        u = urllib.parse.urlsplit(self.base_url)
        conn = http.client.HTTPConnection(_host(u.hostname, self.base_url), u.port, timeout=60)
        try:
            conn.request("GET", path)
            resp = conn.getresponse()
            data = resp.read()
        finally:
            conn.close()
        try:
            return resp.status, json.loads(data)
        except ValueError:
            return resp.status, data.decode("utf-8", "replace")

    def on_node(self, fn: Any) -> Any:
        """Run fn() on the node's loop (P-Chain tx building reads the VM's UTXOs)."""
        raise TransportError("this step needs the node in the same process (replay, the pytest plugin or "
                             "`simnode run --scenario`)")

    def close(self) -> None:
        pass


class InProcessTransport(Transport):
    """Calls a node's endpoints on its loop. `loop` None = the caller runs on the node's loop
    thread itself (not supported: the runner is synchronous), so a NodeThread's loop is needed."""

    def __init__(self, node: Any, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self.node = node
        self.loop = loop
        self.router = Router(node)
        self.base_url = node.url if getattr(node, "port", 0) else ""

    async def _dispatch(self, path: str, body: bytes) -> bytes:
        endpoint = self.router.resolve(path)
        if endpoint is None:
            raise TransportError(f"404 page not found: {path}")
        if isinstance(endpoint, GorillaService):
            reply = await endpoint.handle("POST", "application/json", body)
            if reply.status != 200:
                raise TransportError(f"{path}: HTTP {reply.status}: {reply.body[:200]!r}")
            return reply.body
        if isinstance(endpoint, EthService):
            return await endpoint.handle_body(body) or b""
        return await asyncio.to_thread(self._http_post, path, body)

    def on_node(self, fn: Any) -> Any:
        async def run() -> Any:
            return fn()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result()

    def _http_post(self, path: str, body: bytes) -> bytes:
        return HttpTransport(self.node.url).raw(path, body)

    def raw(self, path: str, body: bytes) -> bytes:
        if threading.get_ident() == getattr(self.loop, "_thread_id", None):
            raise TransportError("the scenario runner cannot run on the node's own event loop thread")
        return asyncio.run_coroutine_threadsafe(self._dispatch(path, body), self.loop).result()


class HttpTransport(Transport):
    def __init__(self, base_url: str, node: Any = None, loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__()
        self.node = node
        self.loop = loop
        self.base_url = base_url.rstrip("/")
        u = urllib.parse.urlsplit(self.base_url)
        self._host, self._port = u.hostname, u.port
        self._local = threading.local()

    def _conn(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = http.client.HTTPConnection(_host(self._host, self.base_url), self._port, timeout=120)
            self._local.conn = conn
        return conn

    def raw(self, path: str, body: bytes) -> bytes:
        for attempt in (0, 1):
            conn = self._conn()
            try:
                conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                data = resp.read()
            except (http.client.HTTPException, ConnectionError, OSError):
                conn.close()
                self._local.conn = None
                if attempt:
                    raise
                continue
            if resp.status != 200:
                raise TransportError(f"{path}: HTTP {resp.status}: {data[:200]!r}")
            return data
        raise TransportError("unreachable")

    def on_node(self, fn: Any) -> Any:
        if self.node is None or self.loop is None:
            return super().on_node(fn)

        async def run() -> Any:
            return fn()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result()

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


def _host(hostname: str | None, base_url: str) -> str:
    if hostname is None:
        raise TransportError(f"no host in the node's address {base_url!r}")
    return hostname
