"""Start-up time, CPU and idle memory of `simnode run`, and of a second in-process node.

Spawns `python -m simnode run` N times on a free port with an ephemeral data dir and measures,
from the moment before the spawn:
* first answer: `info.isBootstrapped` for X answered (polled every 2 ms while the port is closed;
  polling stops at the first answer, so it does not slow the rest of the start-up);
* ready: the node prints its ready line, which it does once every chain is bootstrapped; the
  script then checks at once that `/ext/health` answers 200 healthy and `info.isBootstrapped` is
  true for X, P and C (a run where they are not fails the script);
* CPU: user+sys time of the node process (all its threads) at the ready line;
* first eth_call: the round trip of an eth_call sent as soon as the ready line is read (py-evm is
  loaded after the ready line, in the background: this call may wait for it);
* idle RSS one second after ready.
Then, in this process, it starts an in-process node (`Node.start_in_thread`, which returns once
every chain is bootstrapped) and times the next ones: the cost of a node once its modules are
loaded, as a test suite pays it per test.

simnode's own modules are byte-compiled first, and its dataclass methods kept compiled
(simnode/dataclass_code.py), as ./simnode.sh leaves them (with PYTHONDONTWRITEBYTECODE set, a
source checkout would otherwise compile them on every start).
On a machine shared with other busy processes the wall times stretch (the CPU time much less);
as root, `chrt -r 10 python scripts/bench_start.py` keeps them from preempting the node.

Usage: python scripts/bench_start.py [--runs 7] [--network-id 12345]
"""

from __future__ import annotations

import argparse
import compileall
import glob
import http.client
import json
import os
import select
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def cpu_s(pid: int) -> float:
    """Time on CPU of every live thread of `pid` (ns resolution, from schedstat)."""
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        with open(path) as f:
            total += int(f.read().split()[0])
    return total / 1e9


def request(port: int, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def is_bootstrapped(port: int, chain: str) -> bool:
    body = {"jsonrpc": "2.0", "id": 1, "method": "info.isBootstrapped", "params": {"chain": chain}}
    return request(port, "POST", "/ext/info", body)[1]["result"]["isBootstrapped"] is True


# an eth_call at the head (py-evm builds its state and runs the message): ewoq calling itself
FIRST_CALL = {"jsonrpc": "2.0", "id": 1, "method": "eth_call", "params": [
    {"from": "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC", "to": "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC",
     "data": "0x12345678"}, "latest"]}


def one_run(network_id: int) -> dict[str, float]:
    port = free_port()
    cmd = [sys.executable, "-m", "simnode", "run", "--http-port", str(port), "--ephemeral", "--log-level", "ERROR",
           "--network-id", str(network_id)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        while True:
            try:
                is_bootstrapped(port, "X")
                break
            except (OSError, ValueError, KeyError):
                if proc.poll() is not None:
                    raise SystemExit("the node exited during start-up") from None
                time.sleep(0.002)
        first = time.perf_counter() - t0
        assert proc.stdout is not None
        select.select([proc.stdout], [], [], 30)
        line = proc.stdout.readline().decode()
        ready = time.perf_counter() - t0
        cpu = cpu_s(proc.pid)
        if not line.startswith("simnode ready"):
            raise SystemExit(f"expected the ready line, got {line!r}")
        t_call = time.perf_counter()
        status, answer = request(port, "POST", "/ext/bc/C/rpc", FIRST_CALL)
        first_call = time.perf_counter() - t_call
        if status != 200 or "result" not in answer:
            raise SystemExit(f"the first eth_call failed: {status} {answer}")
        status, health = request(port, "GET", "/ext/health")
        if status != 200 or not health["healthy"]:
            raise SystemExit(f"ready line printed but /ext/health is {status}: {health}")
        for chain in ("X", "P", "C"):
            if not is_bootstrapped(port, chain):
                raise SystemExit(f"ready line printed but {chain} is not bootstrapped")
        time.sleep(1.0)
        return {"first": first, "ready": ready, "cpu": cpu, "call": first_call, "rss": rss_mb(proc.pid)}
    finally:
        proc.terminate()
        proc.wait(10)


def in_process_starts(runs: int) -> tuple[float, list[float]]:
    """The first in-process start (modules already imported by this script) and the next ones."""
    sys.path.insert(0, str(ROOT))
    from simnode.config import NodeConfig
    from simnode.node import Node

    times = []
    for _ in range(runs + 1):
        t = time.perf_counter()
        handle = Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="ERROR"))
        times.append(time.perf_counter() - t)
        handle.stop()
    return times[0], times[1:]


def compile_like_simnode_sh() -> None:
    """simnode's .pyc files and its kept dataclass code (simnode/dataclass_code.py), as
    ./simnode.sh leaves them after a source change."""
    compileall.compile_dir(ROOT / "simnode", quiet=1)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    prime = ("import simnode.patches as s; s.install(); import simnode.node, simnode.vms.primary as p; "
             "p.load_evm_chain(); p.load_evm_engine()")
    subprocess.run([sys.executable, "-c", prime], cwd=ROOT, env=env, check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--network-id", type=int, default=12345)
    args = ap.parse_args()
    os.environ.setdefault("ETH_HASH_BACKEND", "pysha3")
    compile_like_simnode_sh()
    one_run(args.network_id)  # warm the OS file cache; not counted
    runs = [one_run(args.network_id) for _ in range(args.runs)]

    def summary(key: str) -> dict[str, float]:
        xs = [r[key] for r in runs]
        return {"median": round(statistics.median(xs), 3), "min": round(min(xs), 3), "max": round(max(xs), 3)}

    first_in_process, next_in_process = in_process_starts(5)
    print(json.dumps({
        "runs": args.runs,
        "start_to_first_answer_s": summary("first"),
        "start_to_ready_all_chains_bootstrapped_and_healthy_s": summary("ready"),
        "cpu_to_ready_s": summary("cpu"),
        "first_eth_call_after_ready_s": summary("call"),
        "idle_rss_mb": round(statistics.median(r["rss"] for r in runs), 1),
        "in_process_node_start_ms": {"first": round(first_in_process * 1000, 1),
                                     "next_median": round(statistics.median(next_in_process) * 1000, 1),
                                     "next_min": round(min(next_in_process) * 1000, 1)},
    }))


if __name__ == "__main__":
    main()
