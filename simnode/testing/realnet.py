"""Real AvalancheGo nodes on loopback, started from a `simnode export-network` folder.

For the opt-in tests and scripts that check an export on the real node: the binaries come from
`AVALANCHEGO_PATH` (the avalanchego binary) and `AVALANCHEGO_PLUGIN_DIR` (a folder holding the
subnet-EVM plugin named by its VM ID); without them `binaries_from_env` says why in one line.
Each node gets the export's staking TLS and BLS keys, two free loopback ports, its own data dir,
and, as the export's README writes, node-1 as its bootstrap beacon. Nodes run in their own
process group, so stopping one stops the VM plugins it started.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..scenario.export import node_arguments
from .avalanchego import SUBNET_EVM_VM_ID

# tmpnet's defaults for a network of nodes on one machine: quick peer discovery and health checks,
# no free-disk-space refusal, a file-descriptor limit under the usual hard limits; a quiet log
NODE_FLAGS = (
    "--network-peer-list-pull-gossip-frequency=250ms", "--network-max-reconnect-delay=1s",
    "--health-check-frequency=2s", "--fd-limit=10000", "--system-tracker-disk-required-available-space-percentage=0",
    "--system-tracker-disk-warning-available-space-percentage=0", "--log-level=warn", "--log-display-level=warn",
)
# a small C-Chain: caches of a few MB instead of hundreds (five nodes share the machine)
C_CHAIN_CONFIG = {"trie-clean-cache": 32, "trie-dirty-cache": 32, "snapshot-cache": 32, "log-level": "warn"}


# subnet-EVM's plugin runner, as released, raises its open-files limit to AvalancheGo's default
# (32768) and exits before its handshake ("vm process not found") where the hard limit is lower; it
# has no flag for it. Run alone it gets that far and no further, so that run tells whether it can
# start here (a build that asks for what the machine allows then stops at the missing handshake).
PLUGIN_FD_LIMIT = 32 * 1024
PLUGIN_FD_FAILURE = "failed to set fd limit"


class RealNetworkError(RuntimeError):
    pass


@dataclass(frozen=True, slots=True)
class Binaries:
    avalanchego: Path
    plugin_dir: Path | None

    @property
    def l1_problem(self) -> str | None:
        """Why an L1 chain (subnet-EVM) cannot run on these nodes here, or None."""
        if self.plugin_dir is None:
            return "AVALANCHEGO_PLUGIN_DIR is not set (the subnet-EVM plugin)"
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        if hard == resource.RLIM_INFINITY or hard >= PLUGIN_FD_LIMIT:
            return None
        plugin = self.plugin_dir / SUBNET_EVM_VM_ID
        if not plugin.is_file():
            return f"{self.plugin_dir} has no subnet-EVM plugin named {SUBNET_EVM_VM_ID}"
        run = subprocess.run([str(plugin)], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                             env={"PATH": os.environ.get("PATH", "")})
        said = (run.stdout + run.stderr).strip()
        if PLUGIN_FD_FAILURE in said:
            return (f"the subnet-EVM plugin exits at start where the hard open-files limit is under {PLUGIN_FD_LIMIT} "
                    f"(here {hard}; raising it needs CAP_SYS_RESOURCE): {said[:200]}")
        return None


def binaries_from_env() -> Binaries | str:
    """The binaries the environment names, or one line saying why there are none."""
    path = os.environ.get("AVALANCHEGO_PATH")
    if not path:
        return "AVALANCHEGO_PATH is not set (the real AvalancheGo binary)"
    if not os.access(path, os.X_OK):
        return f"AVALANCHEGO_PATH={path} is not an executable file"
    plugins = os.environ.get("AVALANCHEGO_PLUGIN_DIR")
    if plugins and not Path(plugins).is_dir():
        return f"AVALANCHEGO_PLUGIN_DIR={plugins} is not a folder"
    return Binaries(Path(path), Path(plugins) if plugins else None)


def free_ports(count: int) -> list[int]:
    socks = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


@dataclass(slots=True)
class RealNode:
    name: str
    node_id: str
    http_port: int
    staking_port: int
    home: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"


@dataclass(slots=True)
class RealNetwork:
    """The export's nodes as real AvalancheGo processes under `work_dir`."""

    export_dir: Path
    binaries: Binaries
    work_dir: Path
    genesis: dict[str, Any]
    nodes: list[RealNode] = field(default_factory=list)
    track_subnets: list[str] = field(default_factory=list)

    @classmethod
    def from_export(cls, export_dir: Path, binaries: Binaries, work_dir: Path) -> RealNetwork:
        genesis = json.loads((export_dir / "genesis.json").read_text())
        ports = free_ports(2 * len(genesis["initialStakers"]))
        nodes = [RealNode(f"node-{k}", s["nodeID"], ports[2 * (k - 1)], ports[2 * k - 1], work_dir / f"node-{k}")
                 for k, s in enumerate(genesis["initialStakers"], start=1)]
        net = cls(export_dir, binaries, work_dir, genesis, nodes)
        net.write_chain_config("C", json.dumps(C_CHAIN_CONFIG).encode())
        return net

    @property
    def network_id(self) -> int:
        return int(self.genesis["networkID"])

    @property
    def chain_config_dir(self) -> Path:
        return self.work_dir / "chain-configs"

    def write_chain_config(self, chain: str, config: bytes, upgrade: bytes | None = None) -> None:
        d = self.chain_config_dir / chain
        d.mkdir(parents=True, exist_ok=True)
        (d / "config.json").write_bytes(config)
        if upgrade is not None:
            (d / "upgrade.json").write_bytes(upgrade)

    def command(self, node: RealNode) -> list[str]:
        """The export README's command line for the node, on its free ports and data dir, plus NODE_FLAGS."""
        k = self.nodes.index(node)
        cmd = [str(self.binaries.avalanchego),
               *node_arguments(self.export_dir, self.genesis, k, http_port=node.http_port,
                               staking_port=node.staking_port, beacon_port=self.nodes[0].staking_port,
                               chain_config_dir=self.chain_config_dir, data_dir=node.home),
               "--http-host=127.0.0.1", "--staking-host=127.0.0.1", *NODE_FLAGS]
        if self.binaries.plugin_dir is not None:
            cmd.append(f"--plugin-dir={self.binaries.plugin_dir}")
        if self.track_subnets:
            cmd.append(f"--track-subnets={','.join(self.track_subnets)}")
        return cmd

    def start(self) -> None:
        for node in self.nodes:
            node.home.mkdir(parents=True, exist_ok=True)
            log = (node.home / "stdout.log").open("ab")
            node.process = subprocess.Popen(self.command(node), stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True)
            log.close()

    def wait_healthy(self, timeout: float, chains: tuple[str, ...] = ()) -> float:
        """Seconds until every node answers /ext/health healthy and says each of `chains` is bootstrapped."""
        start = time.monotonic()
        pending = list(self.nodes)
        while pending:
            for node in list(pending):
                if node.process is not None and node.process.poll() is not None:
                    raise RealNetworkError(f"{node.name} exited with {node.process.returncode}: "
                                           f"{self.log_tail(node)}")
                if _healthy(node.url) and all(_bootstrapped(node.url, c) for c in chains):
                    pending.remove(node)
            if not pending:
                break
            if time.monotonic() - start > timeout:
                raise RealNetworkError(f"not healthy after {timeout:.0f}s: {', '.join(n.name for n in pending)}; "
                                       f"{pending[0].name}: {_health_failures(pending[0].url)}")
            time.sleep(1)
        return time.monotonic() - start

    def stop(self) -> None:
        for node in self.nodes:
            if node.process is not None and node.process.poll() is None:
                os.killpg(node.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 60
        for node in self.nodes:
            p = node.process
            if p is None:
                continue
            try:
                p.wait(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            try:  # the group: plugins a node left behind
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
            node.process = None

    def restart(self, track_subnets: list[str]) -> None:
        self.stop()
        self.track_subnets = list(track_subnets)
        self.start()

    def log_tail(self, node: RealNode, lines: int = 15) -> str:
        text = (node.home / "stdout.log").read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.work_dir, ignore_errors=True)


def _get(url: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as exc:
        try:
            return exc.code, json.loads(exc.read() or b"null")
        except ValueError:
            return exc.code, None
    except (OSError, ValueError):
        return 0, None


def _healthy(url: str) -> bool:
    status, body = _get(url + "/ext/health")
    return status == 200 and isinstance(body, dict) and body.get("healthy") is True


def _health_failures(url: str) -> str:
    status, body = _get(url + "/ext/health")
    if not isinstance(body, dict):
        return f"no answer (HTTP {status})"
    failing = {k: (v.get("error") or v.get("message")) for k, v in (body.get("checks") or {}).items()
               if v.get("error")}
    return json.dumps(failing)[:600]


def _bootstrapped(url: str, chain: str) -> bool:
    status, body = _get(url + "/ext/info", {"jsonrpc": "2.0", "id": 1, "method": "info.isBootstrapped",
                                            "params": {"chain": chain}})
    return status == 200 and isinstance(body, dict) and (body.get("result") or {}).get("isBootstrapped") is True


__all__ = ["Binaries", "C_CHAIN_CONFIG", "NODE_FLAGS", "PLUGIN_FD_FAILURE", "PLUGIN_FD_LIMIT", "RealNetwork",
           "RealNetworkError", "RealNode", "binaries_from_env", "free_ports"]
