"""A real AvalancheGo node on loopback, for differential tests and scripts.

The binaries are never part of this project: `AVALANCHEGO_PATH` names the avalanchego binary and
`AVALANCHEGO_PLUGIN_DIR` the folder holding the subnet-evm plugin (named by its VM ID). Without
them `missing()` says why in one line, and tests skip with it.

`RealNode.start()` runs one node of the local network (network 12345, the genesis AvalancheGo
ships for it) with sybil protection off, so it builds blocks alone. It stakes with the first local
genesis staker's TLS and BLS keys (public test keys, tests/vectors/avalanchego_staking_local), the
node simnode plays too, so both report the same node ID and the same validator as connected.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STAKING_DIR = Path(__file__).resolve().parents[2] / "tests" / "vectors" / "avalanchego_staking_local"
SUBNET_EVM_VM_ID = "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"
PRIMARY_CHAINS = ("P", "X", "C")
# simnode serves the C-Chain's warp_* methods, which coreth serves only with this option
DIFF_CHAIN_CONFIGS = {"C": {"warp-api-enabled": True}}


def binaries() -> tuple[Path, Path] | None:
    """(avalanchego binary, plugin dir) from the environment, or None when either is unusable."""
    exe, plugins = os.environ.get("AVALANCHEGO_PATH"), os.environ.get("AVALANCHEGO_PLUGIN_DIR")
    if not exe or not plugins:
        return None
    if not os.access(exe, os.X_OK) or not (Path(plugins) / SUBNET_EVM_VM_ID).is_file():
        return None
    return Path(exe), Path(plugins)


def missing() -> str | None:
    """One line saying why a real node cannot run here, or None when it can."""
    exe, plugins = os.environ.get("AVALANCHEGO_PATH"), os.environ.get("AVALANCHEGO_PLUGIN_DIR")
    if not exe:
        return "AVALANCHEGO_PATH is not set (the avalanchego binary)"
    if not os.access(exe, os.X_OK):
        return f"AVALANCHEGO_PATH={exe} is not an executable file"
    if not plugins:
        return "AVALANCHEGO_PLUGIN_DIR is not set (the folder with the subnet-evm plugin)"
    if not (Path(plugins) / SUBNET_EVM_VM_ID).is_file():
        return f"AVALANCHEGO_PLUGIN_DIR={plugins} has no subnet-evm plugin named {SUBNET_EVM_VM_ID}"
    if not (STAKING_DIR / "staker1.key").is_file():
        return f"{STAKING_DIR}/staker1.key is missing"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rpc(url: str, method: str, params: Any = None, timeout: float = 10.0) -> dict[str, Any]:
    """One JSON-RPC call; the whole reply object (result or error)."""
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        body["params"] = params
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read())


@dataclass
class RealNode:
    """A running avalanchego process; `url` is its HTTP base."""

    proc: subprocess.Popen
    url: str
    work_dir: Path
    owns_dir: bool
    log_file: Path
    boot_seconds: float = 0.0

    @classmethod
    def start(cls, work_dir: Path | None = None, *, http_port: int = 0, staking_port: int = 0,
              timeout: float = 180.0, flags: dict[str, str] | None = None,
              chain_configs: dict[str, dict] | None = None) -> RealNode:
        found = binaries()
        why = missing()
        if found is None or why:
            raise RuntimeError(why or "avalanchego is not available")
        exe, plugin_dir = found
        owns = work_dir is None
        wd = Path(tempfile.mkdtemp(prefix="avago-")) if work_dir is None else Path(work_dir)
        wd.mkdir(parents=True, exist_ok=True)
        http_port = http_port or free_port()
        staking_port = staking_port or free_port()
        chain_dir = wd / "chains"
        for alias, cfg in (chain_configs or {}).items():
            (chain_dir / alias).mkdir(parents=True, exist_ok=True)
            (chain_dir / alias / "config.json").write_text(json.dumps(cfg))
        args = {
            "network-id": "local",
            "data-dir": str(wd / "data"),
            "db-type": "memdb",
            "log-dir": str(wd / "logs"),
            "log-level": "info",
            "log-display-level": "warn",
            "http-host": "127.0.0.1",
            "http-port": str(http_port),
            "staking-host": "127.0.0.1",
            "staking-port": str(staking_port),
            "public-ip": "127.0.0.1",
            "bootstrap-ips": "",
            "bootstrap-ids": "",
            "sybil-protection-enabled": "false",
            "network-health-min-conn-peers": "0",
            "staking-tls-key-file": str(STAKING_DIR / "staker1.key"),
            "staking-tls-cert-file": str(STAKING_DIR / "staker1.crt"),
            "staking-signer-key-file": str(STAKING_DIR / "signer1.key"),
            "plugin-dir": str(plugin_dir),
            "chain-config-dir": str(chain_dir),
            "index-enabled": "true",
            "system-tracker-disk-required-available-space-percentage": "0",
            "system-tracker-disk-warning-available-space-percentage": "0",
            "health-check-frequency": "1s",
            "fd-limit": "8192",  # its default (32768) fails where the hard limit is lower
            **(flags or {}),
        }
        log_file = wd / "stdout.log"
        started = time.monotonic()
        with open(log_file, "ab") as out:
            proc = subprocess.Popen([str(exe), *(f"--{k}={v}" for k, v in args.items())],
                                    stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        node = cls(proc, f"http://127.0.0.1:{http_port}", wd, owns, log_file)
        try:
            node.wait_healthy(timeout)
        except BaseException:
            node.stop()
            raise
        node.boot_seconds = time.monotonic() - started
        return node

    def wait_healthy(self, timeout: float) -> None:
        """Until every primary chain reports isBootstrapped and /ext/health says healthy."""
        deadline = time.monotonic() + timeout
        last = "no answer yet"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"avalanchego exited with {self.proc.returncode}:\n{self.tail()}")
            try:
                booted = all(rpc(f"{self.url}/ext/info", "info.isBootstrapped", {"chain": c})
                             .get("result", {}).get("isBootstrapped") for c in PRIMARY_CHAINS)
                with urllib.request.urlopen(f"{self.url}/ext/health", timeout=5) as resp:
                    health = json.loads(resp.read())
                if booted and health.get("healthy"):
                    return
                last = f"bootstrapped={booted} health={json.dumps(health)[:2000]}"
            except (OSError, urllib.error.URLError, ValueError) as err:
                if isinstance(err, urllib.error.HTTPError):
                    last = f"HTTP {err.code}: {err.read()[:2000]!r}"
                else:
                    last = repr(err)
            time.sleep(0.5)
        raise TimeoutError(f"avalanchego not healthy after {timeout:.0f}s: {last}\n{self.tail()}")

    def tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self.owns_dir:
            shutil.rmtree(self.work_dir, ignore_errors=True)

    def __enter__(self) -> RealNode:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
