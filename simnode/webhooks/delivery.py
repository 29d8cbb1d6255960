"""The delivery worker: POSTs each outbox message to its webhook's URL, signed, at least once, in
outbox order per webhook, on the node's event loop, never in a block's or a request's way.

* Body: the exact bytes staged with the block, or, for an EVM message, built when the worker
  first takes it from the block's stored rows its REF names (records.py): those never change once
  accepted, so every redelivery, after a restart too, sends the same bytes. A message whose block
  is gone is given up. Header `x-signature`: standard base64 of HMAC-SHA256 over those bytes
  keyed with the UTF-8 bytes of the shared secret (what chainkit's validateWebhook checks). The
  secret is read at each attempt, so a rotation signs retries anew.
* Outcome of an attempt: 2xx delivered. 5xx, 408, 429, a timeout (ATTEMPT_TIMEOUT) or a failed
  connection (refused, reset) retries after FIRST_RETRY, doubling up to MAX_RETRY_DELAY; any other
  status gives up at once (the receiver refused it). After MAX_ATTEMPTS attempts the message is
  given up. A message of a webhook waits for the ones before it (order per webhook); webhooks do
  not wait for each other.
* Given up or delivered, the outbox row goes and a HISTORY row stays (records.py), with every
  attempt: when, the status or error, the latency. Attempts so far are written there too, so a
  restart goes on counting.
* A message of an inactive webhook waits until the webhook is active again; `paused` holds every
  delivery (the explorer's dev panel) until resumed.
* It runs on an event loop of its own thread (service.py), so block building on the node's loop
  does not hold deliveries up; what other threads call (wake, pause, attach, resync) is handed
  to that loop.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import aiohttp

from ..store import pack, unpack
from . import records as r
from .engine import Webhooks

log = logging.getLogger("simnode.webhooks")


@dataclass(frozen=True, slots=True)
class Policy:
    max_attempts: int = 10
    first_retry: float = 0.25       # seconds
    max_retry_delay: float = 60.0
    attempt_timeout: float = 10.0

    def delay(self, attempts: int) -> float:
        return min(self.max_retry_delay, self.first_retry * 2 ** (attempts - 1))


RETRIED_STATUSES = (408, 429)
STAGED_WAIT = 1.0  # how long a message staged in a batch may take to appear in the store
BODY_WAIT = 0.05  # seconds between looks for a loading chain (an EVM message's body needs it)
HISTORY_SLACK = 20  # history rows a webhook may hold beyond HISTORY_KEPT between prunings


def signature(secret: str, body: bytes) -> str:
    return base64.b64encode(hmac.new(secret.encode(), body, hashlib.sha256).digest()).decode()


class Deliverer:
    def __init__(self, engine: Webhooks, policy: Policy | None = None) -> None:
        self.engine = engine
        self.policy = policy or Policy()
        self.queues: dict[str, deque[r.Message]] = {}
        self.known: set[bytes] = set()
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.paused = False
        self._resumed = asyncio.Event()
        self._resumed.set()
        self._wake = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._session: aiohttp.ClientSession | None = None
        self._runner: asyncio.Task[None] | None = None
        self._full_scan = True
        self._kept: dict[str, int] = {}  # history rows per webhook, when counted
        self.delivered = 0
        self.given_up = 0

    def start(self) -> None:
        self.engine.on_staged = self.wake
        self._runner = self._loop.create_task(self._run())
        self.wake()

    async def stop(self) -> None:
        self.engine.on_staged = None
        tasks = [t for t in (self._runner, *self.tasks.values()) if t is not None]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._session is not None:
            await self._session.close()

    def attach(self, engine: Webhooks) -> None:
        """Deliver from `engine` from now on (the node reopened its store: a reset; any thread)."""
        self.engine.on_staged = None
        engine.on_staged = self.wake
        self._loop.call_soon_threadsafe(self._attach, engine)

    def _attach(self, engine: Webhooks) -> None:
        for t in self.tasks.values():
            t.cancel()
        self.tasks.clear()
        self.queues.clear()
        self.known.clear()
        self.engine = engine
        self.resync()

    def wake(self) -> None:
        """Look at the outbox again (safe from any thread)."""
        if self._loop.is_closed():
            return
        self._loop.call_soon_threadsafe(self._wake.set)

    def pause(self, on: bool) -> None:
        """Hold (True) or resume (False) every delivery (any thread)."""
        self.paused = on
        self._loop.call_soon_threadsafe(self._pause, on)

    def _pause(self, on: bool) -> None:
        if on:
            self._resumed.clear()
        else:
            self._resumed.set()

    # ------------------------------------------------------------------ the outbox

    async def _run(self) -> None:
        """Queue what the matcher staged, in staging order; a key not committed yet (its block's
        batch is being written) holds the ones after it for up to STAGED_WAIT. The whole outbox
        is read at start and after a revert (which may have taken messages away)."""
        waiting: list[bytes] = []
        since = time.monotonic()
        while True:
            if not waiting:
                await self._wake.wait()
            self._wake.clear()
            if self._full_scan:
                self._full_scan = False
                self._scan_all()
            fresh = self.engine.take_staged()
            if fresh and not waiting:
                since = time.monotonic()
            waiting += fresh
            store = self.engine.store
            while waiting:
                raw = store.get(waiting[0])
                if raw is None and time.monotonic() - since < STAGED_WAIT:
                    break
                key = waiting.pop(0)
                since = time.monotonic()
                if raw is not None and key not in self.known:
                    self._queue(r.Message(key, *unpack(raw)))
            self._start_tasks()
            if waiting:
                await asyncio.sleep(0.002)

    def resync(self) -> None:
        """Read the whole outbox again (after a revert; safe from any thread)."""
        self._full_scan = True
        self.wake()

    def _queue(self, msg: r.Message) -> None:
        self.known.add(msg.key)
        past = self.engine.store.get(r.history_key(msg.webhook_id, msg.key))
        if past is not None:
            msg.attempts = unpack(past)["attempts"]
        self.queues.setdefault(msg.webhook_id, deque()).append(msg)

    def _scan_all(self) -> None:
        present = set()
        for msg in r.outbox(self.engine.store):
            present.add(msg.key)
            if msg.key not in self.known:
                self._queue(msg)
        gone = self.known - present  # a revert took their blocks away
        if gone:
            self.known -= gone
            for q in self.queues.values():
                for msg in [m for m in q if m.key in gone]:
                    q.remove(msg)

    def _start_tasks(self) -> None:
        for wid, q in self.queues.items():
            if q and (wid not in self.tasks or self.tasks[wid].done()):
                self.tasks[wid] = self._loop.create_task(self._deliver_all(wid))

    async def _deliver_all(self, webhook_id: str) -> None:
        q = self.queues[webhook_id]
        while q:
            msg = q[0]
            await self._resumed.wait()
            webhook = self.engine.webhooks.get(webhook_id)
            if webhook is None or not webhook.active:
                return  # waits in the outbox until the webhook is active again (engine.save wakes us)
            try:
                body = self.engine.body(msg)
            except Exception as exc:  # its block is gone (or unreadable): nothing to send
                log.warning("webhook %s: message %s has no body: %s", webhook_id, msg.message_id, exc)
                msg.attempts.append([int(time.time() * 1000), f"no body: {exc}", 0])
                self._finish(webhook_id, msg, "failed")
                q.popleft()
                continue
            if body is None:  # its chain is still loading (a restart)
                await asyncio.sleep(BODY_WAIT)
                continue
            outcome = await self._attempt(webhook, msg)
            if msg.key not in self.known:  # reverted away meanwhile
                continue
            if outcome == "retry" and len(msg.attempts) < self.policy.max_attempts:
                delay = self.policy.delay(len(msg.attempts))
                msg.next_retry_ms = int(time.time() * 1000 + delay * 1000)
                self._record(webhook_id, msg, "retrying")
                await asyncio.sleep(delay)
                continue
            msg.next_retry_ms = None
            self._finish(webhook_id, msg, "delivered" if outcome == "ok" else "failed")
            q.popleft()

    async def _attempt(self, webhook: r.Webhook, msg: r.Message) -> str:
        if self._session is None:  # at the first delivery: aiohttp's client is not imported before (lazy_package)
            self._session = aiohttp.ClientSession()
        headers = {"content-type": "application/json", "x-signature": signature(self.engine.secret(), msg.body)}
        started = time.monotonic()
        at = int(time.time() * 1000)
        try:
            timeout = aiohttp.ClientTimeout(total=self.policy.attempt_timeout)
            async with self._session.post(webhook.url, data=msg.body, headers=headers, timeout=timeout) as resp:
                await resp.read()
                status: Any = resp.status
        except asyncio.TimeoutError:
            status = "timeout"
        except (aiohttp.ClientError, OSError) as exc:
            status = f"connection failed: {type(exc).__name__}"
        latency = round((time.monotonic() - started) * 1000, 2)
        msg.attempts.append([at, status, latency])
        if isinstance(status, int) and 200 <= status < 300:
            return "ok"
        if isinstance(status, str) or status >= 500 or status in RETRIED_STATUSES:
            return "retry"
        return "refused"

    def _record(self, webhook_id: str, msg: r.Message, status: str) -> dict[str, Any]:
        rec = {"messageId": msg.message_id, "status": status, "label": msg.label, "createdMs": msg.created_ms,
               "attempts": msg.attempts, "nextRetryMs": msg.next_retry_ms}
        self.engine.store.put_unversioned({r.history_key(webhook_id, msg.key): pack(rec)})
        return rec

    def _finish(self, webhook_id: str, msg: r.Message, status: str) -> None:
        rec = {"messageId": msg.message_id, "status": status, "label": msg.label, "createdMs": msg.created_ms,
               "attempts": msg.attempts, "nextRetryMs": None}
        store = self.engine.store
        changes: dict[bytes, bytes | None] = {msg.key: None, r.history_key(webhook_id, msg.key): pack(rec)}
        count = self._kept.get(webhook_id)
        if count is None or count >= r.HISTORY_KEPT + HISTORY_SLACK:  # prune now and then, not each time
            kept = [k for k, _ in store.iterate(r.HISTORY + webhook_id.encode())]
            for k in kept[:-(r.HISTORY_KEPT - 1)]:
                changes[k] = None
            count = min(len(kept), r.HISTORY_KEPT - 1)
        self._kept[webhook_id] = count + 1
        store.put_unversioned(changes)
        self.known.discard(msg.key)
        if status == "delivered":
            self.delivered += 1
        else:
            self.given_up += 1
            log.warning("webhook %s: gave up message %s after %d attempts", webhook_id, msg.message_id,
                        len(msg.attempts))

    # ------------------------------------------------------------------ what the explorer shows

    def pending(self, webhook_id: str) -> list[dict[str, Any]]:
        return [{"messageId": m.message_id, "status": "pending", "label": m.label, "createdMs": m.created_ms,
                 "attempts": m.attempts, "nextRetryMs": m.next_retry_ms} for m in self.queues.get(webhook_id, ())]

    def history(self, webhook_id: str) -> list[dict[str, Any]]:
        """The webhook's messages, newest first: those still waiting (with their attempts and next
        retry), then the kept delivered and given-up ones."""
        waiting = self.pending(webhook_id)
        held = {m["messageId"] for m in waiting}
        done = [x for x in r.history(self.engine.store, webhook_id) if x["messageId"] not in held]
        return waiting[::-1] + done

    def queued(self) -> int:
        return sum(len(q) for q in self.queues.values())
