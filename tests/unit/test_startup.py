"""Nodes starting at once in one process: the switch interval is short while any of them loads
its deferred chains and, once the last is done, the one found before the first began."""

from __future__ import annotations

import sys

from simnode.startup import SWITCH_INTERVAL, short_switch_interval


def test_overlapping_starts_put_back_the_interval_found_before_the_first():
    before = sys.getswitchinterval()
    first, second = short_switch_interval(), short_switch_interval()
    first.__enter__()
    assert sys.getswitchinterval() == SWITCH_INTERVAL
    second.__enter__()
    first.__exit__(None, None, None)  # the first node is up, the second still loading
    assert sys.getswitchinterval() == SWITCH_INTERVAL
    second.__exit__(None, None, None)
    assert sys.getswitchinterval() == before


def test_while_the_engine_imports_other_threads_wait_for_modules_not_loaded(tmp_path, monkeypatch):
    """A thread importing a module not loaded yet while the warm-up imports waits for it (a
    module loaded already, or simnode's own, does not); after the block, imports are as before."""
    import builtins
    import importlib
    import threading
    import time

    from simnode.startup import _imports_wait_for

    (tmp_path / "slow_engine_pkg.py").write_text("import time\ntime.sleep(0.3)\n")
    (tmp_path / "other_new_module.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    original = builtins.__import__
    started, finished = threading.Event(), {}

    def warm() -> None:
        with _imports_wait_for(threading.get_ident()):
            started.set()
            importlib.import_module("slow_engine_pkg")
            finished["engine"] = time.monotonic()

    thread = threading.Thread(target=warm)
    thread.start()
    started.wait()
    import json  # noqa: F401 - loaded already: no wait
    assert "engine" not in finished
    import other_new_module  # noqa: F401 - not loaded: waits for the warm-up's import
    finished["other"] = time.monotonic()
    thread.join()
    assert finished["other"] >= finished["engine"]
    assert builtins.__import__ is original
    for name in ("slow_engine_pkg", "other_new_module"):
        sys.modules.pop(name, None)


def test_a_failed_engine_import_is_logged(monkeypatch, caplog):
    import asyncio

    from simnode import startup

    def broken() -> None:
        raise ImportError("no module named eth")

    monkeypatch.setattr(startup, "load_evm_engine", broken)
    loop = asyncio.new_event_loop()
    try:
        startup.warm_engines(loop, lambda: ()).join(60)
    finally:
        loop.close()
    assert "loading the EVM engine (py-evm) failed" in caplog.text and "no module named eth" in caplog.text
