"""What a node does to its process while it starts, made safe for nodes starting at once in one
process: simnode's changes to py-evm made before a deferred chain's VM loads, and a short switch
interval meanwhile (the interpreter's, process-wide: the first node starting shortens it, the last
one done puts back the interval it found)."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any

from . import patches
from .vms.primary import DeferredChain

SWITCH_INTERVAL = 0.0005  # s: the serving loop gets the GIL back often while a VM imports

_lock = threading.Lock()
_starting = 0  # nodes loading their deferred chains now
_interval_before = 0.0


def load_deferred(spec: DeferredChain) -> Any:
    """A deferred chain's factory, its VM imported after simnode's changes to py-evm are made."""
    patches.install()
    return spec.load()


@contextlib.contextmanager
def short_switch_interval() -> Iterator[None]:
    global _starting, _interval_before
    with _lock:
        if _starting == 0:
            _interval_before = sys.getswitchinterval()
            sys.setswitchinterval(SWITCH_INTERVAL)
        _starting += 1
    try:
        yield
    finally:
        with _lock:
            _starting -= 1
            if _starting == 0:
                sys.setswitchinterval(_interval_before)
