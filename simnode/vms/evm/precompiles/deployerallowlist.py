"""The contract deployer allow list, 0x0200…0000 (`contractDeployerAllowListConfig`): a
CREATE or CREATE2, top-level or from a contract, succeeds only when tx.origin has a role of
Enabled, Manager or Admin. Otherwise the creation fails after the creator's nonce is bumped
and before anything else, using all the gas given to it (libevm's CanCreateContract hook)."""

from __future__ import annotations

from typing import Any

from . import allowlist
from .contract import BlockContext, ChainParams, Module, checksum

ADDRESS = bytes.fromhex("0200000000000000000000000000000000000000")
KEY = "contractDeployerAllowListConfig"


def check_origin(state: Any, origin: bytes) -> str | None:
    if allowlist.is_enabled(allowlist.role_of(state, ADDRESS, origin)):
        return None
    return f"tx.origin {checksum(origin)} is not authorized to deploy a contract"


def _configure(cfg: allowlist.AllowListConfig, state: Any, _block: BlockContext, _chain: ChainParams) -> None:
    allowlist.configure(cfg, state, ADDRESS)


MODULE = Module(key=KEY, address=ADDRESS, functions=allowlist.FUNCTIONS, parse=allowlist.parse_config,
                configure=_configure, to_json=allowlist.config_json, check_create=check_origin)
