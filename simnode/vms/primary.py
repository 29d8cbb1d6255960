"""The primary network's chains: P, X and C, built in dependency order (P first: it holds
the chain records; X and C use shared memory through it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..formats.ids import EVM_VM_ID, ZERO_ID
from .avm.vm import XChainVM
from .chain_context import Chain, ChainContext
from .platform.vm import PlatformVM
from . import utxo_order_migration

ChainFactory = Callable[[ChainContext], Chain]


@dataclass(frozen=True, slots=True)
class DeferredChain:
    """A chain whose VM is slow to import (the EVM chain's modules; py-evm itself waits for the
    chain's first execution, load_evm_engine): the node serves HTTP first, answers
    503 "not done bootstrapping" for it meanwhile (as AvalancheGo does), runs `load` on a worker
    thread (it imports the VM and returns its factory) and then builds the chain with it."""

    chain_id: bytes
    name: str
    vm_id: bytes
    default_aliases: tuple[str, ...]
    load: Callable[[], ChainFactory]


@dataclass(slots=True)
class BootstrappingChain:
    """Stands in for a DeferredChain until it is built: known IDs and aliases, not bootstrapped."""

    spec: DeferredChain
    subnet_id: bytes = ZERO_ID

    @property
    def chain_id(self) -> bytes:
        return self.spec.chain_id

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def vm_id(self) -> bytes:
        return self.spec.vm_id

    @property
    def default_aliases(self) -> tuple[str, ...]:
        return self.spec.default_aliases

    def is_bootstrapped(self) -> bool:
        return False

    def last_accepted(self) -> tuple[bytes, int] | None:
        return None

    def reload(self) -> None:
        pass

    def mine(self, blocks: int) -> int:
        return 0

    def close(self) -> None:
        pass


def load_evm_chain() -> ChainFactory:
    """The EVM chain and the modules of its endpoints (the node builds those before the chain
    counts as bootstrapped, so its first request does not pay for them); none imports py-evm."""
    from .evm import endpoints  # noqa: F401
    from .evm.evm_chain import EVMChain

    return EVMChain


def load_evm_engine() -> None:
    """py-evm and the modules EVM chains run on it (any thread, after patches.install): what an
    EVM chain's first execution would import, the chain itself imports none of it."""
    from .evm import execution, fork_vms, raw_tx  # noqa: F401
    from .evm.precompiles import vmclasses  # noqa: F401


def build_primary_chains(context: Callable[[bytes], ChainContext]) -> list[Chain | DeferredChain]:
    g = context(ZERO_ID).genesis
    p = PlatformVM(context(ZERO_ID))
    x = XChainVM(context(g.x_chain_id))
    utxo_order_migration.migrate(x.store, x.prefix, g.x_chain_id, g.c_chain_id)
    c = DeferredChain(g.c_chain_id, "C-Chain", EVM_VM_ID, ("C", "evm"), load_evm_chain)
    return [p, x, c]
