#!/usr/bin/env python3
"""Record what a real AvalancheGo node answers while it starts: its health (GET and POST, readiness,
liveness), info.isBootstrapped of P, X and C, and a read of each chain, polled from the first moment
its HTTP port answers until it is healthy, each distinct answer once, in order.

    AVALANCHEGO_PATH=... AVALANCHEGO_PLUGIN_DIR=... .venv/bin/python scripts/record_avalanchego_start.py \
        tests/vectors/avalanchego_bootstrap_health.json

The node is started as the differential check starts it (simnode/testing/avalanchego.py: one node
of the local network, health checks every second). Times, durations and the free disk space make
an answer distinct only when something else changed too.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simnode.testing import avalanchego  # noqa: E402


def rpc_body(method: str, params: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, **({} if params is None else {"params": params})}


PROBES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/ext/health", None), ("GET", "/ext/health/readiness", None), ("GET", "/ext/health/liveness", None),
    ("POST", "/ext/health", rpc_body("health.health")), ("POST", "/ext/health", rpc_body("health.readiness")),
    *(("POST", "/ext/info", rpc_body("info.isBootstrapped", {"chain": c})) for c in ("P", "X", "C")),
    ("POST", "/ext/bc/P", rpc_body("platform.getHeight")), ("POST", "/ext/bc/X", rpc_body("avm.getHeight")),
    ("POST", "/ext/bc/C/rpc", rpc_body("eth_blockNumber", [])),
]
VOLATILE = re.compile(r'"(timestamp|timeOfFirstFailure|duration|availableDiskBytes|availableDiskPercentage)":'
                      r'("[^"]*"|\d+)')


def ask(url: str, method: str, path: str, body: dict[str, Any] | None) -> tuple[int, str, str]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, method=method,
                                 headers={} if data is None else {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=3) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("Content-Type", ""), err.read().decode()


def main() -> int:
    why = avalanchego.missing()
    if why:
        print(f"skipped: {why}")
        return 0
    out = Path(sys.argv[1])
    port = avalanchego.free_port()
    url = f"http://127.0.0.1:{port}"
    answers: list[dict[str, Any]] = []
    seen: set[tuple[str, ...]] = set()
    done = threading.Event()
    t0 = time.monotonic()

    def poll() -> None:
        while not done.is_set():
            for method, path, body in PROBES:
                try:
                    status, ctype, reply = ask(url, method, path, body)
                except OSError:
                    continue  # the port does not answer yet
                key = (method, path, json.dumps(body), str(status), VOLATILE.sub(r'"\1":_', reply))
                if key not in seen:
                    seen.add(key)
                    answers.append({"t": round(time.monotonic() - t0, 3), "http_method": method, "path": path,
                                    "body": body, "status": status, "reply_content_type": ctype, "reply": reply})
            time.sleep(0.01)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    node = avalanchego.RealNode.start(http_port=port, chain_configs=avalanchego.DIFF_CHAIN_CONFIGS)
    try:
        time.sleep(2)  # a health run after every chain is up
        done.set()
        poller.join()
        version = avalanchego.rpc(url + "/ext/info", "info.getNodeVersion")["result"]
    finally:
        done.set()
        node.stop()
    recorded_from = f"{version['version']} ({version['gitCommit']})"
    out.write_text(json.dumps({"recorded_from": recorded_from, "boot_seconds": round(node.boot_seconds, 2),
                               "answers": answers}, indent=1) + "\n")
    print(f"{len(answers)} distinct answers in {node.boot_seconds:.1f}s -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
