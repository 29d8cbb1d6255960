"""The C allocator's share of a long-running node's memory (glibc's malloc; elsewhere a no-op).

glibc gives each thread that allocates its own arena (up to 8 per core), and a freed block inside
an arena returns to the system only when the arena's top is free. A node's threads (the event loop,
LevelDB's compaction, executor threads) leave such free-but-held pages behind, and RSS creeps up
with no live object behind it. `limit_arenas` caps the arenas (what MALLOC_ARENA_MAX=2 does, for a
process whose environment cannot be set before it starts), `trim` hands the free pages of every
arena back (malloc_trim); `simnode run` does both, the latter once a minute.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

M_ARENA_MAX = -8  # mallopt parameter (malloc.h)
TRIM_INTERVAL_S = 60.0


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.mallopt, libc.malloc_trim  # noqa: B018 - glibc has both; musl and others do not
    except (OSError, AttributeError):
        return None
    return libc


def limit_arenas(arenas: int = 2) -> bool:
    """At most `arenas` malloc arenas from now on (call it before threads start); False: not glibc."""
    libc = _glibc()
    return libc is not None and libc.mallopt(M_ARENA_MAX, arenas) == 1


def trim() -> bool:
    """Give the free pages of every arena back to the system; True when some were."""
    libc = _glibc()
    return libc is not None and libc.malloc_trim(0) == 1
