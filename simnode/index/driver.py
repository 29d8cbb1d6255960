"""The driver: routes each chain's accepted blocks to its family's row producer, keeps a
per-chain "last block indexed" marker, catches a chain up, and rebuilds the whole index.

A family is a module (registered by VM ID in FAMILIES, imported on first use) with
    index_block(chain, row, batch) -> block number   stage the block's rows in `batch` (a later
                                                     family may return None: the first's number counts)
and, for the first family of a VM (the one whose rows the chain's blocks are read back as),
    head_number(chain) -> int                        the chain's last accepted block
    block_row(chain, number) -> dict | None          a stored block row, as index_block takes it
Several families of one VM index the same block row, in their order (metrics after the EVM
tables; the C-Chain's atomic txs, primary/catomic.py, after both). Later families (ICM) register
here the same way.

Every row of an accepted block goes into the block's own batch (with the marker), so the index
is never ahead of or behind its chain; snapshot/revert undoes both together.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

from ..formats.ids import AVM_VM_ID, EVM_VM_ID, PLATFORM_VM_ID, SUBNET_EVM_VM_ID
from ..store import Batch, Store
from .keys import NS, marker, u64

log = logging.getLogger("simnode.index")

FAMILIES: dict[bytes, tuple[str, ...]] = {
    EVM_VM_ID: ("simnode.index.evm", "simnode.index.metrics.evm", "simnode.index.primary.catomic",
                "simnode.index.icm"),
    SUBNET_EVM_VM_ID: ("simnode.index.evm", "simnode.index.metrics.evm", "simnode.index.icm"),
    PLATFORM_VM_ID: ("simnode.index.metrics.platform", "simnode.index.primary.platform"),
    AVM_VM_ID: ("simnode.index.primary.avm",),
}
CHUNK_BLOCKS = 1000  # blocks per batch when catching up or rebuilding

Progress = Callable[[str], None]


class Indexer:
    """The node's BlockIndexer (vms/chain_context.py): chains call it; it knows no chain type."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._families: dict[bytes, tuple[ModuleType, ...]] = {}

    def families(self, chain: Any) -> tuple[ModuleType, ...]:
        vm_id = chain.vm_id
        if vm_id not in self._families:
            self._families[vm_id] = tuple(importlib.import_module(name) for name in FAMILIES.get(vm_id, ()))
        return self._families[vm_id]

    def block_accepted(self, chain: Any, row: dict, batch: Batch) -> None:
        fams = self.families(chain)
        if not fams:
            return
        numbers = [fam.index_block(chain, row, batch) for fam in fams]
        batch.changes[marker(chain.chain_id)] = u64(numbers[0])

    def indexed_head(self, chain: Any) -> int | None:
        raw = self.store.get(marker(chain.chain_id))
        return None if raw is None else int.from_bytes(raw, "big")

    def chain_opened(self, chain: Any, progress: Progress | None = None) -> int:
        """Index the blocks `chain` accepted after the marker (all of them without one); returns
        how many."""
        fams = self.families(chain)
        if not fams:
            return 0
        fam = fams[0]
        done = self.indexed_head(chain)
        start = getattr(chain, "first_indexed_block", 0) if done is None else done + 1
        end = fam.head_number(chain)
        if start > end:
            return 0
        log.info("indexing %s blocks %d..%d", chain.name, start, end)
        batch = self.store.batch()
        for number in range(start, end + 1):
            row = fam.block_row(chain, number)
            if row is None:
                raise LookupError(f"{chain.name} has no block {number} to index")
            self.block_accepted(chain, row, batch)
            if (number - start + 1) % CHUNK_BLOCKS == 0:
                batch.commit()
                if progress is not None:
                    progress(f"{chain.name}: indexed blocks {start}..{number} of {end}")
        batch.commit()
        if progress is not None:
            progress(f"{chain.name}: indexed blocks {start}..{end}")
        return end - start + 1


def count_rows(store: Store) -> int:
    return sum(1 for _ in store.iterate(NS))


def clear(store: Store, chunk: int = 10_000) -> int:
    """Delete the whole index namespace, `chunk` keys per batch; returns how many keys."""
    removed = 0
    while True:
        batch = store.batch()
        for key, _ in store.iterate(NS):
            batch.delete(key)
            if len(batch.changes) == chunk:
                break
        if not batch.changes:
            return removed
        removed += len(batch.changes)
        batch.commit()


def rebuild(store: Store, chains: Iterable[Any], progress: Progress | None = None) -> int:
    """Delete every index row and derive them again from the chains' block rows alone (an
    interrupted rebuild resumes when the node next opens the chains); returns the row count."""
    removed = clear(store)
    if progress is not None:
        progress(f"deleted {removed} index rows")
    indexer = Indexer(store)
    for chain in sorted(chains, key=lambda c: c.chain_id):
        indexer.chain_opened(chain, progress)
    return count_rows(store)
