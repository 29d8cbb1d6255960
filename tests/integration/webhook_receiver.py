"""A webhook receiver on loopback for the delivery tests: an aiohttp server on its own thread that
records every POST (headers, exact body bytes) and answers the statuses a test scripts (200 once
the script runs out)."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from aiohttp import web


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True, slots=True)
class Received:
    headers: dict[str, str]
    body: bytes
    status: int     # what the receiver answered
    path: str

    @property
    def json(self) -> Any:
        return json.loads(self.body)


class Receiver:
    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.statuses: deque[int] = deque()
        self.received: list[Received] = []
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> Receiver:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)  # type: ignore[union-attr]
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_post("/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        status = self.statuses.popleft() if self.statuses else 200
        self.received.append(Received(dict(request.headers), body, status, request.path))
        return web.Response(status=status, text="ok")

    def accepted(self) -> list[Received]:
        return [r for r in self.received if 200 <= r.status < 300]

    def wait(self, count: int, timeout: float = 20.0, accepted: bool = True) -> list[Received]:
        """Block until `count` deliveries (answered 2xx, unless `accepted` is False) arrived."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.accepted() if accepted else self.received
            if len(got) >= count:
                return got
            assert time.monotonic() < deadline, f"{len(got)} of {count} deliveries after {timeout} s: {got}"
            time.sleep(0.01)
