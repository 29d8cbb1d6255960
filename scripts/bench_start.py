"""Start-up time and idle memory of `simnode run`.

Spawns the node N times on a free port with an ephemeral data dir, polls `info.isBootstrapped`
every 2 ms, and prints the median time from process start to the first answer (X-Chain bootstrapped),
the time until every chain is bootstrapped (the C-Chain loads py-evm after the port answers),
and the idle RSS one second later. Usage: python scripts/bench_start.py [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request


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


def answered(url: str, chain: str) -> bool:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "info.isBootstrapped", "params": {"chain": chain}}).encode()
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=1) as resp:
            return json.loads(resp.read())["result"]["isBootstrapped"] is True
    except (OSError, ValueError, KeyError):
        return False


def one_run() -> tuple[float, float, float]:
    port = free_port()
    url = f"http://127.0.0.1:{port}/ext/info"
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "simnode", "run", "--http-port", str(port), "--ephemeral",
                             "--log-level", "ERROR"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "ETH_HASH_BACKEND": "pysha3"})
    try:
        while not answered(url, "X"):
            if proc.poll() is not None:
                raise SystemExit("node exited during start-up")
            time.sleep(0.002)
        first = time.perf_counter() - t0
        while not answered(url, "C"):  # the C-Chain imports py-evm after the port answers
            time.sleep(0.002)
        all_chains = time.perf_counter() - t0
        time.sleep(1.0)
        return first, all_chains, rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    one_run()  # warm the OS file cache; not counted
    firsts, alls, rss = zip(*(one_run() for _ in range(args.runs)))

    def summary(xs: tuple[float, ...]) -> dict[str, float]:
        return {"median": round(statistics.median(xs), 3), "min": round(min(xs), 3), "max": round(max(xs), 3)}

    print(json.dumps({
        "runs": args.runs,
        "start_to_first_answer_s": summary(firsts),
        "start_to_all_chains_bootstrapped_s": summary(alls),
        "idle_rss_mb": round(statistics.median(rss), 1),
    }))


if __name__ == "__main__":
    main()
