"""What every chain gives the node: identity, aliases, reload/mine/close.

A chain is built from a `ChainContext` (store, clock, genesis, config, the other chains). Its
HTTP endpoints come from its VM's service module (the node wires them: see Node.chain_endpoints),
so a VM never imports its own API.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..formats.ids import ZERO_ID, id_to_str
from ..store import Batch, Snapshots, Store

if TYPE_CHECKING:
    from ..clock import Clock
    from ..config import NodeConfig
    from ..genesis import Genesis


class BlockIndexer(Protocol):
    """Derives index rows from a chain's accepted blocks (the node wires simnode.index in; a VM
    only calls these two methods)."""

    def block_accepted(self, chain: Any, row: dict, batch: Batch) -> None:
        """Stage the index rows of `chain`'s block `row` (as stored) in the block's own `batch`."""
        ...

    def chain_opened(self, chain: Any) -> None:
        """`chain` has loaded its head: index whatever blocks it accepted while indexing was off."""
        ...


@dataclass(slots=True)
class BlockBuilding:
    """Whether the chains build blocks on their own: automine, X- and P-Chain blocks as txs arrive,
    interval blocks, the P-Chain's retries. Off while a recorded session replays: its steps say
    when each block is built (scenario/recorded.py). The P-Chain's time-driven blocks (stakers
    leaving) come from the clock either way."""

    automatic: bool = True


def _nothing() -> None:
    pass


@dataclass(slots=True)
class ChainContext:
    config: NodeConfig
    genesis: Genesis
    store: Store
    clock: Clock
    chain_id: bytes
    # Other chains by ID, filled as the node builds them (for shared memory, Warp, L1 starts).
    chains: dict[bytes, Chain] = field(default_factory=dict)
    # The P-Chain genesis timestamp (unix seconds), fixed when the data dir was created.
    genesis_time: int = 0
    # This node's ID (platform.getBlockchainStatus: "Validating" when it validates the subnet).
    node_id: bytes = b""
    # Node-wide snapshots (evm_snapshot/evm_revert use them, so a revert reloads every chain).
    snapshots: Snapshots | None = None
    # Fed every accepted block in its batch, genesis included (None: the node runs without an index).
    indexer: BlockIndexer | None = None
    # The P-Chain's validator sets that verify Warp predicates (precompiles/warp.ValidatorView;
    # None: no P-Chain, every predicate fails).
    warp_validators: Any = None
    # Balances an EVM chain credits at the start of its block 1 (the ICM relayer's funds): (address, wei).
    first_block_credits: tuple[tuple[bytes, int], ...] = ()
    # The forked network's upstream (simnode.fork.Fork) when the node forks a live network, else None.
    fork: Any = None
    # Shared by the node's chains (Node.block_building).
    block_building: BlockBuilding = field(default_factory=BlockBuilding)
    # Run before a chain first imports its engine (py-evm, on an EVM chain's first execution):
    # the node makes simnode's changes to py-evm there (patches.install).
    prepare_engine: Callable[[], None] = _nothing

    def __post_init__(self) -> None:
        if self.snapshots is None:
            self.snapshots = Snapshots(self.store)

    @property
    def network_id(self) -> int:
        return self.config.network_id

    def logger(self, name: str) -> logging.Logger:
        return logging.getLogger(f"simnode.{name}")


def lookup_chain(ctx: ChainContext, ref: str) -> bytes | None:
    """BCLookup.Lookup: a chain alias ("P", "X", "C", "avm", …) or chain ID in cb58 → the chain ID.

    The primary chains answer even before the node has registered them in `ctx.chains`.
    """
    for chain in ctx.chains.values():
        if ref in chain.default_aliases or ref == id_to_str(chain.chain_id):
            return chain.chain_id
    g = ctx.genesis
    primary = {"P": ZERO_ID, "platform": ZERO_ID, "X": g.x_chain_id, "avm": g.x_chain_id,
               "C": g.c_chain_id, "evm": g.c_chain_id}
    if ref in primary:
        return primary[ref]
    for cid in (ZERO_ID, g.x_chain_id, g.c_chain_id):
        if ref == id_to_str(cid):
            return cid
    return None


class Chain(Protocol):
    # read-only: a chain may hold these as attributes or compute them
    @property
    def chain_id(self) -> bytes: ...

    @property
    def subnet_id(self) -> bytes: ...

    @property
    def name(self) -> str: ...

    @property
    def vm_id(self) -> bytes: ...

    @property
    def default_aliases(self) -> tuple[str, ...]: ...

    def is_bootstrapped(self) -> bool: ...

    def last_accepted(self) -> tuple[bytes, int] | None:
        """The last accepted block's ID and height (None while the chain is still loading)."""
        ...

    def reload(self) -> None:
        """Re-read all state from the store after a node-wide revert (drop caches, mempool,
        reschedule timed events; events scheduled before the revert may still fire and must
        be ignored if the state no longer calls for them)."""
        ...

    def mine(self, blocks: int) -> int:
        """Build up to `blocks` blocks now (empty ones where the chain allows it, as the
        C-Chain does); returns how many were built."""
        ...

    def close(self) -> None: ...
