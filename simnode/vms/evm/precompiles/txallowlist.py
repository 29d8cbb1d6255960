"""The tx allow list, 0x0200…0002 (`txAllowListConfig`): only senders with a role of Enabled,
Manager or Admin may issue transactions. Admission refuses the others, and so does block
building (subnet-evm's txpool validation and state transition preCheck); eth_call and
estimateGas skip the check, as subnet-evm's calls skip account checks."""

from __future__ import annotations

from typing import Any

from . import allowlist
from .contract import BlockContext, ChainParams, Module, checksum

ADDRESS = bytes.fromhex("0200000000000000000000000000000000000002")
KEY = "txAllowListConfig"


def check_sender(state: Any, sender: bytes) -> str | None:
    if allowlist.is_enabled(allowlist.role_of(state, ADDRESS, sender)):
        return None
    return f"cannot issue transaction from non-allow listed address: {checksum(sender)}"


def _configure(cfg: allowlist.AllowListConfig, state: Any, _block: BlockContext, _chain: ChainParams) -> None:
    allowlist.configure(cfg, state, ADDRESS)


MODULE = Module(key=KEY, address=ADDRESS, functions=allowlist.FUNCTIONS, parse=allowlist.parse_config,
                configure=_configure, to_json=allowlist.config_json, check_tx=check_sender)
