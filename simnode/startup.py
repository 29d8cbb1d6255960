"""What a node does to its process while it starts, made safe for nodes starting at once in one
process: a short switch interval while a deferred chain loads (the interpreter's, process-wide: the
first node starting shortens it, the last one done puts back the interval it found), and, once the
node is up, its EVM chains' engine warmed in the background.

An EVM chain starts without py-evm (its genesis, head and endpoints need none of it) and imports
it on first use, after simnode's changes to it (patches.install, the chains' prepare_engine). So
the first execution does not pay that import (~0.25 s), `warm_engines` imports py-evm and the
modules the chains run on it on a thread once the node is up, then builds each chain's engine
objects on the event loop (EVMChain.load_engine). A request that needs py-evm meanwhile waits for
the import (patches.install holds its lock while it imports py-evm); the others are served, the
loop getting the GIL back every SWITCH_INTERVAL."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from . import patches
from .vms.primary import DeferredChain, load_evm_engine

SWITCH_INTERVAL = 0.0005  # s: the serving loop gets the GIL back often while a VM imports

log = logging.getLogger("simnode.node")

_lock = threading.Lock()
_starting = 0  # nodes loading their deferred chains now
_interval_before = 0.0


def load_deferred(spec: DeferredChain) -> Any:
    """A deferred chain's factory (its modules imported; py-evm waits for the chain's first use)."""
    patches.install(evm=False)
    return spec.load()


def warm_engines(loop: asyncio.AbstractEventLoop, chains: Callable[[], Iterable[Any]]) -> threading.Thread:
    """Import py-evm and the EVM chains' engine modules on a thread, then build the engine of each
    chain `chains()` still lists (one with `load_engine`) on `loop`; returns the started thread."""

    def build() -> None:
        for chain in list(chains()):
            load = getattr(chain, "load_engine", None)
            if load is not None and not getattr(chain, "closed", False):
                load()

    def run() -> None:
        try:
            with short_switch_interval():
                patches.install()
                load_evm_engine()
        except Exception:  # an ImportError of py-evm: said now; the chains' first execution raises it again
            log.exception("loading the EVM engine (py-evm) failed")
            return
        try:
            loop.call_soon_threadsafe(build)
        except RuntimeError:  # the node stopped and its loop closed meanwhile: nothing to build
            log.debug("engine warm-up: the loop is closed")

    thread = threading.Thread(target=run, name="simnode-engine-warmup", daemon=True)
    thread.start()
    return thread


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
