"""Node time: a wall clock for devnets, a virtual clock for replay and tests, one scheduler.

Time is integer milliseconds since the Unix epoch. VMs read it only through `Clock.now_ms()`,
so a replay on a VirtualClock sees exactly the same times on every run. Both clocks can be
moved forward (time travel): the wall clock by an offset, the virtual clock by setting it.
Timed events (interval blocks, staking periods ending) are kept in one `Scheduler`; moving the
clock fires every event due on the way, in time order (ties in scheduling order).
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from simnode.errors import Refused

if TYPE_CHECKING:
    import asyncio


class ClockError(Refused):
    pass


@dataclass(order=True, slots=True)
class _Event:
    at_ms: int
    seq: int
    callback: Callable[[int], None] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)


class EventHandle:
    __slots__ = ("_event",)

    def __init__(self, event: _Event) -> None:
        self._event = event

    @property
    def at_ms(self) -> int:
        return self._event.at_ms

    def cancel(self) -> None:
        self._event.cancelled = True


class Scheduler:
    def __init__(self) -> None:
        self._heap: list[_Event] = []
        self._seq = itertools.count()

    def schedule(self, at_ms: int, callback: Callable[[int], None]) -> EventHandle:
        """Run `callback(at_ms)` once the clock reaches `at_ms`."""
        ev = _Event(int(at_ms), next(self._seq), callback)
        heapq.heappush(self._heap, ev)
        return EventHandle(ev)

    def next_due_ms(self) -> int | None:
        while self._heap and self._heap[0].cancelled:
            heapq.heappop(self._heap)
        return self._heap[0].at_ms if self._heap else None

    def pop_due(self, now_ms: int) -> _Event | None:
        due = self.next_due_ms()
        if due is None or due > now_ms:
            return None
        return heapq.heappop(self._heap)


class Clock:
    """Base: a current time plus a scheduler; subclasses decide where time comes from."""

    mode: str = ""

    def __init__(self) -> None:
        self.scheduler = Scheduler()
        self._listeners: list[Callable[[int], None]] = []

    def now_ms(self) -> int:
        raise NotImplementedError

    def now(self) -> int:
        """Current time in whole seconds."""
        return self.now_ms() // 1000

    def on_time_change(self, listener: Callable[[int], None]) -> None:
        """Called after the clock is moved by hand (advance/set), with the new time."""
        self._listeners.append(listener)

    def run_due(self) -> int:
        """Fire the events due by now; returns how many ran."""
        count = 0
        while (ev := self.scheduler.pop_due(self.now_ms())) is not None:
            ev.callback(ev.at_ms)
            count += 1
        return count

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ClockError("cannot move time backwards")
        self.set_ms(self.now_ms() + round(seconds * 1000))

    def set_ms(self, target_ms: int) -> None:
        raise NotImplementedError

    def _notify(self) -> None:
        now = self.now_ms()
        for listener in self._listeners:
            listener(now)


class VirtualClock(Clock):
    """Moves only when told; events fire at their own times on the way to the target."""

    mode = "virtual"

    def __init__(self, start_ms: int) -> None:
        super().__init__()
        self._now_ms = int(start_ms)

    def now_ms(self) -> int:
        return self._now_ms

    def set_ms(self, target_ms: int) -> None:
        target_ms = int(target_ms)
        if target_ms < self._now_ms:
            raise ClockError("cannot move time backwards")
        while (due := self.scheduler.next_due_ms()) is not None and due <= target_ms:
            self._now_ms = max(self._now_ms, due)
            ev = self.scheduler.pop_due(self._now_ms)
            if ev is not None:
                ev.callback(ev.at_ms)
        self._now_ms = target_ms
        self._notify()


class WallClock(Clock):
    """Real time plus an offset that time travel moves forward."""

    mode = "wall"

    def __init__(self, offset_ms: int = 0) -> None:
        super().__init__()
        self.offset_ms = offset_ms
        self._held_ms: int | None = None

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000 + self.offset_ms

    def set_ms(self, target_ms: int) -> None:
        now = self.now_ms()
        if target_ms < now:
            raise ClockError("cannot move time backwards")
        self.offset_ms += int(target_ms) - now
        if self._held_ms is not None:
            self._held_ms = int(target_ms)
        self.run_due()
        self._notify()

    def quantize(self, loop: asyncio.AbstractEventLoop) -> None:
        """From now on, one turn of `loop` sees one time: the first reading in a turn is kept
        until the loop's next turn (time travel moves it). A recorded session needs this: a
        request, the block it makes and what that block's listeners do then all read one time,
        which the recording can name and a replay can set. Only a recording node pays for it
        (the reading method is replaced on this instance)."""
        read = WallClock.now_ms.__get__(self)  # the wall reading, not the replaced method

        def quantized() -> int:
            held = self._held_ms
            if held is None:
                held = self._held_ms = read()
                loop.call_soon(self._release)
            return held

        self.now_ms = quantized  # type: ignore[method-assign]

    def _release(self) -> None:
        self._held_ms = None
