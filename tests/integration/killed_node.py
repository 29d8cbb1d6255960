"""A node process killed with SIGKILL while transactions arrive: the crash the one-batch-per-block
rule must survive (the chain and its index agree after a restart on the same data directory)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from .rpc import call

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def kill_9_under_load(data_dir: Path, raw_txs: Callable[[str], list[str]], min_height: int = 30) -> None:
    """Start `simnode run` on `data_dir`, send the signed txs `raw_txs(rpc_url)` gives from a
    second thread, and SIGKILL the process once the C-Chain has `min_height` blocks (or after 60 s)."""
    port = _free_port()
    env = dict(os.environ, ETH_HASH_BACKEND="pysha3")
    proc = subprocess.Popen([sys.executable, "-m", "simnode", "run", "--data-dir", str(data_dir), "--http-port",
                             str(port), "--log-level", "WARN"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        assert "simnode ready" in proc.stdout.readline()
        rpc = f"http://127.0.0.1:{port}/ext/bc/C/rpc"
        raws = raw_txs(rpc)
        stop = threading.Event()

        def load() -> None:
            for raw in raws:
                if stop.is_set():
                    return
                try:
                    call(rpc, "eth_sendRawTransaction", [raw])
                except Exception:  # noqa: BLE001 - the node is gone
                    return

        loader = threading.Thread(target=load, daemon=True)
        loader.start()
        deadline = time.monotonic() + 60
        while int(call(rpc, "eth_blockNumber"), 16) < min_height and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        stop.set()
        loader.join(10)
    finally:
        if proc.poll() is None:
            proc.kill()
