"""The upstream node of a fork, over HTTP: JSON-RPC calls with retries, back-off and clear errors.

`Upstream(url)` takes the base URL of an AvalancheGo node (`https://api.avax.network`), or a URL
ending in `/ext/bc/C/rpc` (Anvil's habit), which names the node serving it. Calls are blocking
(the VMs that need a value wait for it) over one kept-alive connection:

* `eth(method, params)` and `eth_batch([(method, params), …])` on a chain's `/ext/bc/<chain>/rpc`
  (C by default), go-ethereum's envelope, one HTTP request per batch;
* `avax(endpoint, method, params)` on `/ext/info`, `/ext/bc/P`, `/ext/bc/X`, … (gorilla), and
  `avax_many` for one method over many params objects, on a few connections at once.

Every call has one time budget (`timeout`, seconds): a refused or dropped connection, a 5xx or a
429 is retried after a back-off that doubles (a 429's Retry-After is honoured) until `retries`
retries or the budget run out, then a ForkError names the URL and the last failure. An error
answer (a JSON-RPC error object) is not retried: it is the upstream's answer.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

import orjson

from .errors import ForkError

RETRY_STATUSES = {429, 500, 502, 503, 504}
C_RPC_SUFFIX = "/ext/bc/C/rpc"


class UpstreamUnreachable(ForkError):
    """No answer from the upstream: the connection failed or timed out (an answer, even an
    error one, is never this)."""


class UpstreamAnswerError(ForkError):
    """The upstream answered the call with a JSON-RPC error (`code`, `upstream_message`)."""

    def __init__(self, message: str, code: int, upstream_message: str) -> None:
        super().__init__(message)
        self.upstream_code = code
        self.upstream_message = upstream_message


def base_url(url: str) -> str:
    """The node's base URL: without a trailing slash and without Anvil's `/ext/bc/C/rpc` tail."""
    text = url.strip().rstrip("/")
    if text.endswith(C_RPC_SUFFIX):
        text = text[: -len(C_RPC_SUFFIX)]
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ForkError(f"--fork-url must be an http(s) URL of an Avalanche node, got {url!r}")
    return text


class Upstream:
    def __init__(self, url: str, *, timeout: float = 30.0, retries: int = 5, backoff: float = 0.25,
                 max_backoff: float = 4.0) -> None:
        self.url = base_url(url)
        parts = urlsplit(self.url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port
        self._path = parts.path
        self.timeout = float(timeout)
        self.retries = int(retries)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.requests = 0  # HTTP requests sent (bench_fork.py reports them)
        self._conn: http.client.HTTPConnection | None = None
        self._lock = threading.Lock()
        self._ids = 0

    # ------------------------------------------------------------------ calls

    def eth(self, method: str, params: list[Any], chain: str = "C") -> Any:
        return self.eth_batch([(method, params)], chain)[0]

    def eth_batch(self, calls: Iterable[tuple[str, list[Any]]], chain: str = "C") -> list[Any]:
        """The results of several eth calls in one request, in order (one error fails them all)."""
        calls = list(calls)
        if not calls:
            return []
        body = [{"jsonrpc": "2.0", "id": i, "method": m, "params": p} for i, (m, p) in enumerate(calls)]
        payload = body[0] if len(body) == 1 else body
        path = f"/ext/bc/{chain}/rpc"
        what = ", ".join(dict.fromkeys(method for method, _ in calls))
        reply = self._post(path, orjson.dumps(payload), what)
        replies = reply if isinstance(reply, list) else [reply]
        by_id: dict[Any, Any] = {}
        for r in replies:
            if isinstance(r, dict):
                by_id[r.get("id")] = r
        out = []
        for i, (method, _) in enumerate(calls):
            r = by_id.get(i)
            if r is None:
                raise ForkError(f"fork upstream {self.url}{path}: no answer to {method} in its reply")
            out.append(self._result(r, f"{path} {method}"))
        return out

    def avax(self, endpoint: str, method: str, params: dict[str, Any] | None = None) -> Any:
        """A gorilla call (`endpoint` like "/ext/info" or "/ext/bc/P")."""
        body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}})
        reply = self._post(endpoint, body, method)
        if not isinstance(reply, dict):
            raise ForkError(f"fork upstream {self.url}{endpoint}: {method} answered something that is not JSON-RPC")
        return self._result(reply, f"{endpoint} {method}")

    def avax_many(self, endpoint: str, method: str, params: list[dict[str, Any]], workers: int = 8) -> list[Any]:
        """`method` once per params object, on up to `workers` connections at once (a fork's first
        start asks a big network's P-Chain for hundreds of subnets and validators); the answers in
        order, or the first error."""
        if len(params) <= 1:
            return [self.avax(endpoint, method, p) for p in params]
        local = threading.local()
        clients: list[Upstream] = []

        def one(p: dict[str, Any]) -> Any:
            client = getattr(local, "client", None)
            if client is None:
                client = local.client = Upstream(self.url, timeout=self.timeout, retries=self.retries,
                                                 backoff=self.backoff, max_backoff=self.max_backoff)
                clients.append(client)
            return client.avax(endpoint, method, p)

        try:
            with ThreadPoolExecutor(min(workers, len(params))) as pool:
                return list(pool.map(one, params))
        finally:
            for client in clients:
                self.requests += client.requests
                client.close()

    def _result(self, reply: dict, what: str) -> Any:
        err = reply.get("error")
        if err is not None:
            message = err.get("message", "") if isinstance(err, dict) else str(err)
            code = err.get("code", 0) if isinstance(err, dict) else 0
            raise UpstreamAnswerError(f"fork upstream {self.url}: {what} failed: {message}", code, message)
        if "result" not in reply:
            raise ForkError(f"fork upstream {self.url}: {what} answered without a result")
        return reply["result"]

    # ------------------------------------------------------------------ HTTP

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        return cls(self._host, self._port, timeout=timeout)

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def close(self) -> None:
        with self._lock:
            self._close()

    def _post(self, endpoint: str, body: bytes, what: str) -> Any:
        started = time.monotonic()
        deadline = started + self.timeout
        url = self.url + endpoint
        attempt = 0
        limited = 0
        with self._lock:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise UpstreamUnreachable(f"fork upstream {url}: no answer to {what} within {self.timeout:g} s")
                wait: float | None = None
                unreachable = False
                try:
                    status, headers, data = self._send(self._path + endpoint, body, remaining)
                except (socket.timeout, TimeoutError):
                    self._close()
                    raise UpstreamUnreachable(
                        f"fork upstream {url}: no answer to {what} within {self.timeout:g} s") from None
                except (OSError, http.client.HTTPException) as exc:
                    self._close()
                    unreachable = True
                    reason = f"cannot reach it ({_reason(exc)})"
                else:
                    if status == 200:
                        try:
                            return orjson.loads(data)
                        except orjson.JSONDecodeError:
                            raise ForkError(f"fork upstream {url}: {what} answered with something that is not "
                                            f"JSON: {data[:120]!r}") from None
                    if status not in RETRY_STATUSES:
                        raise ForkError(f"fork upstream {url}: {what} answered HTTP {status}: "
                                        f"{data[:200].decode('utf-8', 'replace')}")
                    if status == 429:
                        limited += 1
                        reason = f"rate-limited (HTTP 429) {limited} time{'s' if limited > 1 else ''}"
                        wait = _retry_after(headers.get("retry-after"))
                    else:
                        reason = f"HTTP {status}"
                failed = UpstreamUnreachable if unreachable else ForkError
                if attempt >= self.retries:
                    raise failed(f"fork upstream {url}: {what} failed: {reason}; gave up after "
                                    f"{attempt + 1} attempts in {time.monotonic() - started:.1f} s")
                if wait is None:
                    wait = min(self.max_backoff, self.backoff * (2 ** attempt))
                wait = min(wait, self.max_backoff)
                if time.monotonic() + wait >= deadline:
                    raise failed(f"fork upstream {url}: {what} failed: {reason}; gave up after "
                                    f"{attempt + 1} attempts in {time.monotonic() - started:.1f} s "
                                    f"(the fork's timeout is {self.timeout:g} s)")
                time.sleep(wait)
                attempt += 1

    def _send(self, path: str, body: bytes, timeout: float) -> tuple[int, dict[str, str], bytes]:
        conn = self._conn
        fresh = conn is None
        if conn is None:
            conn = self._conn = self._connect(timeout)
        conn.timeout = timeout
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        self.requests += 1
        try:
            conn.request("POST", path or "/", body, {"Content-Type": "application/json"})
            resp = conn.getresponse()
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            # a kept-alive connection the server closed meanwhile: once more on a new one
            self._close()
            if fresh:
                raise
            conn = self._conn = self._connect(timeout)
            conn.request("POST", path or "/", body, {"Content-Type": "application/json"})
            resp = conn.getresponse()
        data = resp.read()
        headers = {k.lower(): v for k, v in resp.getheaders()}
        if headers.get("connection", "").lower() == "close":
            self._close()
        return resp.status, headers, data


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return text
