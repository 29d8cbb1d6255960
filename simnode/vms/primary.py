"""The primary network's chains: P, X and C, built in dependency order (P first: it holds
the chain records; X and C use shared memory through it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..api.jsonrpc import EthService, GorillaService
from ..formats.ids import AVM_VM_ID, EVM_VM_ID, PLATFORM_VM_ID, ZERO_ID
from .chain import Chain, ChainContext


@dataclass(slots=True)
class PendingChain:
    """A chain whose VM has not landed yet: its IDs and routes exist, every method is unknown."""

    chain_id: bytes
    name: str
    vm_id: bytes
    default_aliases: tuple[str, ...]
    subnet_id: bytes = ZERO_ID
    _endpoints: dict[str, Any] = field(default_factory=dict)

    def endpoints(self) -> dict[str, Any]:
        return self._endpoints

    def is_bootstrapped(self) -> bool:
        return True

    def reload(self) -> None:
        pass

    def mine(self, blocks: int) -> int:
        return 0

    def close(self) -> None:
        pass


def build_primary_chains(context: Callable[[bytes], ChainContext]) -> list[Chain]:
    g = context(ZERO_ID).genesis
    p = PendingChain(ZERO_ID, "P-Chain", PLATFORM_VM_ID, ("P", "platform"), _endpoints={"": GorillaService()})
    x = PendingChain(g.x_chain_id, "X-Chain", AVM_VM_ID, ("X", "avm"),
                     _endpoints={"": GorillaService(), "/wallet": GorillaService()})
    c = PendingChain(g.c_chain_id, "C-Chain", EVM_VM_ID, ("C", "evm"),
                     _endpoints={"/rpc": EthService(), "/avax": GorillaService(), "/admin": GorillaService()})
    return [p, x, c]
