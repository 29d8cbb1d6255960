"""What a node does to its process while it starts, made safe for nodes starting at once in one
process: a short switch interval while a deferred chain loads (the interpreter's, process-wide: the
first node starting shortens it, the last one done puts back the interval it found), and, once the
node is up, its EVM chains' engine warmed in the background.

An EVM chain starts without py-evm (its genesis, head and endpoints need none of it) and imports
it on first use, after simnode's changes to it (patches.install, the chains' prepare_engine). So
the first execution does not pay that import (~0.25 s), `warm_engines` imports py-evm and the
modules the chains run on it on a thread once the node is up, then builds each chain's engine
objects on the event loop (EVMChain.load_engine). Other requests are served meanwhile, the
loop getting the GIL back every SWITCH_INTERVAL.

py-evm's packages import each other in circles that only resolve when one thread imports them
from the top: a second thread importing one of their submodules while the first is inside them
finds names missing ("partially initialized module"). So while the thread imports the packages
(`ENGINE_PACKAGES`), every other thread's import of a module that is not loaded yet (simnode's
own aside) waits for it to finish (`_imports_wait_for`, on builtins.__import__ for that time):
a request that needs py-evm waits for the import, one that does not is served. The thread
imports nothing of simnode meanwhile, so no import of simnode's that waits holds a lock it needs.
Then simnode's changes to py-evm and simnode's own engine modules load as any import does."""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import importlib
import logging
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from . import patches
from .vms.primary import DeferredChain, load_evm_engine

SWITCH_INTERVAL = 0.0005  # s: the serving loop gets the GIL back often while a VM imports

log = logging.getLogger("simnode.node")

# what an EVM chain's engine imports that is not simnode's: py-evm and the packages it imports
ENGINE_PACKAGES = ("eth_utils", "eth_typing", "eth_keys", "rlp", "trie", "eth")

_lock = threading.Lock()
_starting = 0  # nodes loading their deferred chains now
_interval_before = 0.0
_warm_lock = threading.Lock()  # one engine import at a time


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
                try:
                    load()
                except Exception:  # its first execution builds it (and raises it) again
                    log.exception("building the EVM engine of %s failed", getattr(chain, "name", chain))

    def run() -> None:
        try:
            with short_switch_interval():
                with _warm_lock:
                    if not all(map(_settled, ENGINE_PACKAGES)):  # the process's first node to warm them
                        with _imports_wait_for(threading.get_ident()):
                            for name in ENGINE_PACKAGES:
                                importlib.import_module(name)
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


def _settled(name: str) -> bool:
    """Whether module `name` is loaded and not being initialized."""
    module = sys.modules.get(name)
    return module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False)


@contextlib.contextmanager
def _imports_wait_for(importer: int) -> Iterator[None]:
    """While in the block, another thread's `import` of a module not loaded yet (or still being
    initialized, or in a package that is), simnode's aside, waits until the block ends."""
    done = threading.Event()
    original = builtins.__import__

    def waiting_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (),
                       level: int = 0) -> Any:
        if (level == 0 and not done.is_set() and threading.get_ident() != importer
                and name.partition(".")[0] != "simnode" and not (_settled(name) and _settled(name.partition(".")[0]))):
            done.wait()
        return original(name, globals, locals, fromlist, level)

    builtins.__import__ = waiting_import
    try:
        yield
    finally:
        done.set()
        if builtins.__import__ is waiting_import:
            builtins.__import__ = original


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
