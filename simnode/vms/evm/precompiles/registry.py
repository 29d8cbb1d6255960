"""The stateful precompiles simnode runs, by address and by config key."""

from __future__ import annotations

from . import deployerallowlist, feemanager, nativeminter, rewardmanager, txallowlist, warp
from .contract import Module

# subnet-evm's registered modules that simnode runs, sorted by address (the activation order)
MODULES: tuple[Module, ...] = tuple(sorted(
    (deployerallowlist.MODULE, nativeminter.MODULE, txallowlist.MODULE, feemanager.MODULE, rewardmanager.MODULE,
     warp.MODULE),
    key=lambda m: m.address))
BY_KEY: dict[str, Module] = {m.key: m for m in MODULES}
