"""CPU (cProfile), memory (tracemalloc) and lock (thread stacks) profiles of this process, for
the node's admin API and the C-Chain's (AvalancheGo's file names: cpu.profile, mem.profile,
lock.profile)."""

from __future__ import annotations

import cProfile
import sys
import threading
import traceback
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from .rpc.jsonrpc import RPCError

CPU_PROFILE = "cpu.profile"
MEM_PROFILE = "mem.profile"
LOCK_PROFILE = "lock.profile"


class Profiler:
    """CPU (cProfile), memory (tracemalloc) and lock (thread stacks) profiles of this process."""

    def __init__(self, directory: Callable[[], Path]) -> None:
        self._directory = directory  # where profiles go, asked when one is written
        self._cpu: cProfile.Profile | None = None

    @property
    def directory(self) -> Path:
        d = self._directory()
        d.mkdir(parents=True, exist_ok=True)
        return d

    def start_cpu(self) -> None:
        if self._cpu is not None:
            raise RPCError("cpu profiler already running")
        self._cpu = cProfile.Profile()
        self._cpu.enable()

    def stop_cpu(self) -> Path:
        if self._cpu is None:
            raise RPCError("cpu profiler doesn't exist")
        self._cpu.disable()
        path = self.directory / CPU_PROFILE
        self._cpu.dump_stats(path)
        self._cpu = None
        return path

    def memory(self) -> Path:
        started_here = not tracemalloc.is_tracing()
        if started_here:
            tracemalloc.start()
        snapshot = tracemalloc.take_snapshot()
        if started_here:
            tracemalloc.stop()
        path = self.directory / MEM_PROFILE
        snapshot.dump(str(path))
        return path

    def locks(self) -> Path:
        path = self.directory / LOCK_PROFILE
        path.write_text(stack_dump())
        return path

    def stop_all(self) -> None:
        if self._cpu is not None:
            self._cpu.disable()
            self._cpu = None


def stack_dump() -> str:
    names = {t.ident: t.name for t in threading.enumerate()}
    parts = []
    for ident, frame in sys._current_frames().items():
        parts.append(f"goroutine {ident} [{names.get(ident, 'unknown')}]:\n" + "".join(traceback.format_stack(frame)))
    return "\n".join(parts)
