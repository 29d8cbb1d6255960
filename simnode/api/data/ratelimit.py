"""The opt-in request limit of the Data and Metrics APIs (`--data-api-rate-limit N`).

As @nestjs/throttler does it: each tracker (the API key, else the client address) gets `limit`
requests per window of one second; the request over the limit is answered 429 with a
`Retry-After` header (whole seconds until the window ends, rounded up), and every allowed answer
carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`. Rates are about
real requests, so the window runs on the monotonic clock, not the node's (virtual) one.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

THROTTLED = "ThrottlerException: Too Many Requests"


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    headers: dict[str, str]


class RateLimiter:
    def __init__(self, limit: int, window_s: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window_s = window_s
        self._clock = clock
        self._windows: dict[str, list[float]] = {}  # tracker -> [window end, hits]

    def hit(self, tracker: str) -> Verdict:
        now = self._clock()
        entry = self._windows.get(tracker)
        if entry is None or entry[0] <= now:
            if len(self._windows) > 10_000:
                self._windows = {k: v for k, v in self._windows.items() if v[0] > now}
            entry = self._windows[tracker] = [now + self.window_s, 0]
        entry[1] += 1
        reset = str(max(1, math.ceil(entry[0] - now)))
        if entry[1] > self.limit:
            return Verdict(False, {"Retry-After": reset})
        return Verdict(True, {"X-RateLimit-Limit": str(self.limit),
                              "X-RateLimit-Remaining": str(int(self.limit - entry[1])),
                              "X-RateLimit-Reset": reset})
