"""NodeConfig: everything `simnode run` and the Python API can set, in one frozen record."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

LOCAL_NETWORK_ID = 12345
# A fixed start for virtual clocks, so two replays of the same scenario see the same times.
DEFAULT_VIRTUAL_START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
LOG_LEVELS = ("OFF", "FATAL", "ERROR", "WARN", "INFO", "TRACE", "DEBUG", "VERBO")


@dataclass(frozen=True, slots=True)
class NodeConfig:
    http_host: str = "127.0.0.1"
    http_port: int = 9650
    network_id: int = LOCAL_NETWORK_ID
    genesis_file: Path | None = None
    data_dir: Path | None = None
    ephemeral: bool = False
    api_admin_enabled: bool = False
    seed: int = 0
    clock_mode: str = "wall"  # "wall" | "virtual"
    start_time_ms: int | None = None  # virtual clock start; wall clocks ignore it
    log_level: str = "INFO"
    block_time: float = 0.0  # C-Chain: 0 = automine, else interval mining every N seconds
    index: bool = True  # derive the Data API's index rows from every accepted block (--no-index: off)
    relayer: bool = True  # the in-process ICM relayer delivers every cross-chain message (--no-relayer: off)
    http_body_limit: int = 5 * 1024 * 1024
    data_api_rate_limit: int = 0  # Data/Metrics API requests per second per API key (or client); 0 = no limit
    chain_config_dir: Path | None = None  # AvalancheGo's --chain-config-dir (see read_chain_config_files)
    fork_url: str | None = None  # fork this live network (simnode/fork): its state is read from here on demand
    fork_block: int | None = None  # the C-Chain fork block (None: the upstream's last accepted)
    fork_timeout: float = 30.0  # seconds an upstream read may take, retries included
    fork_retries: int = 5  # retries of a refused, failed or rate-limited (429) upstream request
    extra: dict = field(default_factory=dict)

    def resolved_data_dir(self) -> Path:
        if self.data_dir is not None:
            return Path(self.data_dir)
        home = Path(os.environ.get("SIMNODE_HOME", Path.home() / ".simnode"))
        if self.fork_url:
            # the forked network is unknown until the upstream answers: one folder per upstream
            digest = hashlib.sha256(self.fork_url.rstrip("/").encode()).hexdigest()[:12]
            return home / f"fork-{digest}"
        return home / f"network-{self.network_id}"

    def with_(self, **changes: Any) -> NodeConfig:
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class ChainConfigFiles:
    config: bytes | None = None   # config.* (e.g. subnet-EVM's feeRecipient)
    upgrade: bytes | None = None  # upgrade.* (subnet-EVM's precompileUpgrades)


def read_chain_config_files(config_dir: Path | None, names: Iterable[str]) -> ChainConfigFiles:
    """A chain's files in AvalancheGo's per-chain config directory: `<dir>/<name>/config.*` and
    `upgrade.*`, from the first of `names` (the chain ID, then its aliases) with a folder there.
    Read when the chain starts; ValueError when a name matches more than one file."""
    if config_dir is None:
        return ChainConfigFiles()
    for name in names:
        folder = Path(config_dir) / name
        if folder.is_dir():
            return ChainConfigFiles(_read_one(folder, "config"), _read_one(folder, "upgrade"))
    return ChainConfigFiles()


def _read_one(folder: Path, stem: str) -> bytes | None:
    files = sorted(folder.glob(stem + ".*"))
    if len(files) > 1:
        raise ValueError(f'too many files matched "{stem}.*" in {folder}')
    return files[0].read_bytes() if files else None
