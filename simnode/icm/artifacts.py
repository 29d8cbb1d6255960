"""The compiled ICM contracts shipped as package data (simnode/icm/contracts/*.json, built from the
.sol files beside them by scripts/compile_contracts.py), and the genesis accounts that place the
messenger at its canonical address as a Nick's-method deployment would have left it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from .errors import ICMError
from .messages import MESSENGER_ADDRESS

MESSENGER_DEPLOYER_ADDRESS = bytes.fromhex("618fedd9a45a8c456812ecaae70c671c6249dfac")
"""The keyless account whose first (nonce 0) contract creation is the v1 messenger address."""

MESSENGER_NOT_ENTERED_SLOTS = (0, 1)
"""The two reentrancy guards; a deployment's constructor leaves both at NOT_ENTERED = 1."""


@dataclass(frozen=True, slots=True)
class ContractArtifact:
    name: str
    abi: tuple[dict[str, Any], ...]
    creation_code: bytes
    runtime_code: bytes
    storage_layout: dict[str, Any]
    compiler_version: str
    settings: dict[str, Any]


@cache
def load_artifact(name: str) -> ContractArtifact:
    """A contract of simnode/icm/contracts by name (``TeleporterMessenger``, ``PingPongReceiver``)."""
    try:
        text = resources.files(__package__).joinpath("contracts", f"{name}.json").read_text()
    except FileNotFoundError:
        raise ICMError(f"no compiled ICM contract named {name!r}") from None
    doc = json.loads(text)
    return ContractArtifact(
        name=doc["contractName"],
        abi=tuple(doc["abi"]),
        creation_code=bytes.fromhex(doc["bytecode"][2:]),
        runtime_code=bytes.fromhex(doc["deployedBytecode"][2:]),
        storage_layout=doc["storageLayout"],
        compiler_version=doc["compiler"]["version"],
        settings=doc["settings"],
    )


def messenger_genesis_alloc() -> dict[str, dict[str, Any]]:
    """Genesis ``alloc`` entries (geth JSON shape) for the messenger at 0x253b…5fcf: its runtime code,
    nonce 1 and both guards at NOT_ENTERED; and its deployer with nonce 1, as after the deployment."""
    word = "0x" + "00" * 31 + "01"
    return {
        "0x" + MESSENGER_ADDRESS.hex(): {
            "balance": "0x0",
            "nonce": "0x1",
            "code": "0x" + load_artifact("TeleporterMessenger").runtime_code.hex(),
            "storage": {"0x" + slot.to_bytes(32, "big").hex(): word for slot in MESSENGER_NOT_ENTERED_SLOTS},
        },
        "0x" + MESSENGER_DEPLOYER_ADDRESS.hex(): {"balance": "0x0", "nonce": "0x1"},
    }
