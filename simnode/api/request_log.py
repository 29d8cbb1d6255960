"""The node's request log: what a developer's app really called, by API key, for the Data API's
usage routes (/v1/apiLogs, /v1/apiUsageMetrics, /v1/rpcUsageMetrics, /v1/subnetRpcUsageMetrics,
/v1/primaryNetworkRpcUsageMetrics).

Logged: every Data/Metrics API request (`/v1/…`, `/v2/…`; requestType `data`) and every JSON-RPC
call to a node endpoint (`/ext/…`, requestType `rpc`), one entry per call of a batch, whether it
came through aiohttp (the middleware below) or the lean Ethereum JSON-RPC path (fasthttp.py).
Not logged: the explorer, the documents, websockets. The key is the `x-glacier-api-key` header
(or `x-data-api-key`); a request without one is the anonymous key's.

Bounded: the log keeps the newest MAX_ENTRIES requests in memory (a ring; an older one falls off;
a JSON-RPC batch is one request), at most about 15 MB at the bound (a JSON-RPC body of up to
RAW_BODY_MAX bytes is kept until the log is read); it starts empty with the node. Times are the
wall clock (requests are events of the real world, not of the chains), in milliseconds.
"""

from __future__ import annotations

import hashlib
import time
import uuid
import weakref
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, Protocol

import orjson
from aiohttp import web

from ..formats.ids import id_to_str

MAX_ENTRIES = 10_000
RAW_BODY_MAX = 1024  # a JSON-RPC body up to this size is kept as is and parsed when the log is read
API_KEY_HEADERS = ("x-glacier-api-key", "x-data-api-key")
DATA, RPC = "data", "rpc"
ANONYMOUS = "anonymous"
CREDITS: web.RequestKey[int] = web.RequestKey("simnode.credits")  # set by the Data API per request


class Node(Protocol):
    """What the log reads of the node: how endpoint paths name chains."""

    @property
    def endpoint_aliases(self) -> dict[str, str]: ...

    @property
    def chains(self) -> dict[bytes, Any]: ...

    def chain_by_alias(self, ref: str) -> Any: ...


class LoggedCall(NamedTuple):  # a tuple, not a frozen dataclass: one is made per call on the hot path
    seq: int                 # the node's count of logged calls: the log ID's source
    time_ms: int             # when the answer left (wall clock)
    key: str | None          # the API key as sent, None without one
    request_type: str        # DATA or RPC
    path: str                # the request path, without its query
    status: int              # the HTTP status of the answer
    duration_ms: float
    chain_id: str | None     # the EVM chain ID or blockchain ID the call was for, when it names one
    rpc_method: Any          # a JSON-RPC call's method (str | None); in the ring, the raw body
                             # (bytes, read in calls()) or the methods of a batch (tuple)
    credits: int             # the compute units the hosted API would count for it
    ip: str
    host: str
    user_agent: str
    part: int = 0            # its place in a batch


def key_id(key: str | None) -> str:
    """A stable UUID naming an API key without showing it (the anonymous key's is fixed too)."""
    digest = hashlib.sha256(b"simnode api key:" + (key or "").encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def key_alias(key: str | None) -> str:
    """How an API key is shown: its last four characters (all of a short key is never shown)."""
    if not key:
        return ANONYMOUS
    return "…" + key[-4:] if len(key) > 8 else "…"


class RequestLog:
    """The ring of the newest `max_entries` HTTP requests (a JSON-RPC batch is one entry, listed as
    one call per method by calls()). A JSON-RPC body of up to RAW_BODY_MAX bytes is kept as it came
    and parsed only when the log is read, so that logging costs a call next to nothing."""

    def __init__(self, node: Node, max_entries: int = MAX_ENTRIES) -> None:
        self._node = weakref.ref(node)
        self.entries: deque[LoggedCall] = deque(maxlen=max_entries)
        self.count = 0  # requests logged since the node started (the ring keeps the newest)
        self._chains: dict[tuple[str, int, int], str | None] = {}  # (path, aliases, chains) -> chain ID
        self._methods: dict[int, tuple[str | None, ...]] = {}  # seq -> the methods of a kept raw body

    def _add(self, key: str | None, request_type: str, path: str, status: int, duration_ms: float,
             chain_id: str | None, rpc_method: Any, credits: int, ip: str, host: str, user_agent: str) -> None:
        self.count += 1
        self.entries.append(LoggedCall(self.count, int(time.time() * 1000), key, request_type, path, status,
                                       duration_ms, chain_id, rpc_method, credits, ip, host, user_agent))

    def record_data(self, path: str, credits: int, status: int, duration_ms: float, key: str | None, ip: str,
                    host: str, user_agent: str) -> None:
        self._add(key, DATA, path, status, duration_ms, data_chain_id(path), None, credits, ip, host, user_agent)

    def record_rpc(self, path: str, body: bytes, status: int, duration_ms: float, key: str | None, ip: str,
                   host: str, user_agent: str) -> None:
        node = self._node()
        chain = None
        if node is not None:
            at = (path, len(node.endpoint_aliases), len(node.chains))
            chain = self._chains.get(at, "")
            if chain == "":
                if len(self._chains) > 1000:
                    self._chains.clear()
                chain = self._chains[at] = rpc_chain_id(node, path)
        calls = body if len(body) <= RAW_BODY_MAX else tuple(rpc_methods(body))
        self.count += 1  # _add inlined: this runs for every JSON-RPC request
        self.entries.append(LoggedCall(self.count, int(time.time() * 1000), key, RPC, path, status, duration_ms,
                                       chain, calls, 0, ip, host, user_agent))

    def calls(self) -> list[LoggedCall]:
        """Every logged call, oldest first: one per Data/Metrics API request, one per JSON-RPC call."""
        out: list[LoggedCall] = []
        methods = self._methods
        for e in self.entries:
            raw = e.rpc_method
            if raw is None or isinstance(raw, str):
                out.append(e)
                continue
            if isinstance(raw, bytes):
                found = methods.get(e.seq)
                if found is None:
                    found = methods[e.seq] = tuple(rpc_methods(raw))
                raw = found
            out.extend(e._replace(rpc_method=m, part=i) for i, m in enumerate(raw))
        if len(methods) > 2 * (self.entries.maxlen or 0) and self.entries:
            oldest = self.entries[0].seq
            self._methods = {seq: m for seq, m in methods.items() if seq >= oldest}
        return out


_LOGS: weakref.WeakKeyDictionary[Any, RequestLog] = weakref.WeakKeyDictionary()


def request_log(node: Node) -> RequestLog:
    """The node's log (made with its first logged call)."""
    log = _LOGS.get(node)
    if log is None:
        log = _LOGS[node] = RequestLog(node)
    return log


def rpc_methods(body: bytes) -> list[str | None]:
    """The method of each call of a JSON-RPC body (None for one that names none; one None for a
    body that is not JSON-RPC)."""
    try:
        payload = orjson.loads(body)
    except orjson.JSONDecodeError:
        return [None]
    calls = payload if isinstance(payload, list) and payload else [payload]
    return [c["method"] if isinstance(c, dict) and isinstance(c.get("method"), str) else None for c in calls]


def data_chain_id(path: str) -> str | None:
    """The chain a Data/Metrics API path is about: `/v1|v2/chains/{chainId}/…` or
    `…/blockchains/{blockchainId}/…`."""
    parts = path.split("/")
    if len(parts) > 3 and parts[2] == "chains" and parts[3] not in ("", "allBlocks", "allTransactions", "address"):
        return parts[3]
    if "blockchains" in parts:
        i = parts.index("blockchains")
        if i + 1 < len(parts) and parts[i + 1]:
            return parts[i + 1]
    return None


def rpc_chain_id(node: Node, path: str) -> str | None:
    """The chain of a node endpoint path: an EVM chain's EVM chain ID, another chain's ID."""
    rest = path[len("/ext/"):].strip("/") if path.startswith("/ext/") else ""
    head, _, tail = rest.partition("/")
    target = node.endpoint_aliases.get(head)
    if target is not None:
        rest = target + ("/" + tail if tail else "")
    if not rest.startswith("bc/"):
        return None
    chain = node.chain_by_alias(rest[3:].partition("/")[0])
    if chain is None:
        return None
    evm_id = getattr(chain, "evm_chain_id", None)
    if evm_id is not None:
        return str(int(evm_id))
    return id_to_str(chain.chain_id)


def api_key(headers: Any) -> str | None:
    for name in API_KEY_HEADERS:
        key = headers.get(name)
        if key:
            return str(key)
    return None


def request_type_of(path: str) -> str | None:
    if path.startswith(("/v1/", "/v2/")):
        return DATA
    if path.startswith("/ext/") and not path.rstrip("/").endswith("/ws"):
        return RPC
    return None


def log_middleware(node: Node) -> Callable[..., Awaitable[web.StreamResponse]]:
    """aiohttp middleware logging the Data/Metrics API requests and JSON-RPC calls it serves."""

    @web.middleware
    async def log_requests(request: web.Request,
                           handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        kind = request_type_of(request.path)
        if kind is None or request.method == "OPTIONS":
            return await handler(request)
        started = time.perf_counter()
        try:
            resp = await handler(request)
        except web.HTTPException as exc:
            _record(node, request, kind, exc.status, started, b"")
            raise
        # a JSON-RPC endpoint that answered 200 has read the body (aiohttp keeps it): its calls
        body = await request.read() if kind == RPC and resp.status == 200 and request.method == "POST" else b""
        _record(node, request, kind, resp.status, started, body)
        return resp

    return log_requests


def _record(node: Node, request: web.Request, kind: str, status: int, started: float, body: bytes) -> None:
    duration = (time.perf_counter() - started) * 1000
    args = (status, duration, api_key(request.headers), request.remote or "", request.host,
            request.headers.get("User-Agent", ""))
    log = request_log(node)
    if kind == DATA:
        log.record_data(request.path, request.get(CREDITS, 0), *args)
    else:
        log.record_rpc(request.path, body, *args)
