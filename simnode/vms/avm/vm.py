"""The X-Chain (AVM): genesis, mempool, linear StandardBlocks, acceptance into the store.

Flow (as AvalancheGo's vms/avm after linearization):
* `issue_tx(bytes)`: parse; a tx already in the mempool is accepted silently; a tx dropped
  before returns its drop reason; otherwise syntactic + semantic verification against the last
  accepted state, then the mempool (which refuses a tx spending a UTXO another mempool tx
  spends). A block build is then scheduled on the running event loop (call_soon), so a burst
  of txs issued together lands in few blocks.
* `build_block()`: takes mempool txs in arrival order up to 128 KiB, re-verifies each against
  the block being built (so a tx spending an earlier tx's output in the same block works, and a
  conflicting one is dropped), writes the block, its txs' effects, shared-memory requests and the
  last-accepted pointer in ONE batch commit.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from simnode.codec import CodecError, VerifyError
from simnode.codec.errors import tx_errors
from simnode.formats.ids import AVM_VM_ID, ZERO_ID, id_from_str, id_to_str
from simnode.network import params_for
from simnode.store import Batch, chain_prefix

from .blocks import StandardBlock, build_block, parse_block, stop_vertex_id
from .execute import execute
from .state import ChainState
from .txs import Tx, TxError, parse_tx
from .verify import Backend, semantic_verify, syntactic_verify

if TYPE_CHECKING:
    from simnode.vms.chain_context import ChainContext

log = logging.getLogger("simnode.avm")

TARGET_BLOCK_SIZE = 128 * 1024
MAX_TX_SIZE = 64 * 1024
MAX_MEMPOOL_SIZE = 64 * 1024 * 1024
DROPPED_CACHE_SIZE = 64


class Mempool:
    """Unissued txs in arrival order, plus the UTXOs they consume (conflict detection)."""

    def __init__(self) -> None:
        self.txs: OrderedDict[bytes, Tx] = OrderedDict()
        self.consumed: dict[bytes, bytes] = {}  # utxo ID -> tx ID
        self.bytes_available = MAX_MEMPOOL_SIZE
        self.dropped: OrderedDict[bytes, str] = OrderedDict()

    def __len__(self) -> int:
        return len(self.txs)

    def has(self, tx_id: bytes) -> bool:
        return tx_id in self.txs

    def add(self, tx: Tx) -> None:
        tx_id = tx.id
        if tx_id in self.txs:
            raise TxError(f"duplicate tx: {id_to_str(tx_id)}")
        size = len(tx.bytes)
        if size > MAX_TX_SIZE:
            raise TxError(f"tx too large: {id_to_str(tx_id)} size ({size}) > max size ({MAX_TX_SIZE})")
        if size > self.bytes_available:
            raise TxError(f"mempool is full: {id_to_str(tx_id)} size ({size}) > "
                          f"available space ({self.bytes_available})")
        inputs = tx.unsigned.input_utxo_ids()
        if any(i in self.consumed for i in inputs):
            raise TxError(f"tx conflicts with other tx: {id_to_str(tx_id)}")
        self.txs[tx_id] = tx
        self.bytes_available -= size
        for i in inputs:
            self.consumed[i] = tx_id
        self.dropped.pop(tx_id, None)

    def remove(self, tx: Tx) -> None:
        if self.txs.pop(tx.id, None) is None:
            return
        self.bytes_available += len(tx.bytes)
        for i in tx.unsigned.input_utxo_ids():
            if self.consumed.get(i) == tx.id:
                del self.consumed[i]

    def mark_dropped(self, tx_id: bytes, reason: str) -> None:
        self.dropped[tx_id] = reason
        self.dropped.move_to_end(tx_id)
        while len(self.dropped) > DROPPED_CACHE_SIZE:
            self.dropped.popitem(last=False)


class XChainVM:
    """The X-Chain as the node sees it (the `Chain` protocol) and as the API drives it."""

    name = "X-Chain"
    vm_id = AVM_VM_ID
    default_aliases = ("X", "avm")

    def __init__(self, ctx: ChainContext) -> None:
        self.ctx = ctx
        self.store = ctx.store
        self.clock = ctx.clock
        self.genesis = ctx.genesis
        self.chain_id: bytes = ctx.chain_id
        self.subnet_id: bytes = ZERO_ID
        self.network_id: int = ctx.network_id
        self.hrp: str = ctx.genesis.hrp
        self.params = params_for(self.network_id)
        self.prefix = chain_prefix("X")
        self.avax_asset_id: bytes = ctx.genesis.avax_asset_id
        self.backend = Backend(
            network_id=self.network_id,
            chain_id=self.chain_id,
            fee_asset_id=self.avax_asset_id,
            tx_fee=self.params.fees.tx_fee,
            create_asset_tx_fee=self.params.fees.create_asset_tx_fee,
            subnet_of=self._subnet_of,
        )
        self.asset_aliases: dict[str, bytes] = {"AVAX": self.avax_asset_id}
        self.mempool = Mempool()
        self._build_scheduled = False
        self._closed = False
        # Called after each accepted block (indexers, websocket, scenario runner).
        self.on_accept: list[Callable[[StandardBlock], None]] = []
        # on a fork of a live network: the upstream's X-Chain, its UTXOs on demand (fork.py)
        self.fork = None
        if ctx.fork is not None:
            from .fork import XChainFork
            self.fork = XChainFork(self, ctx.fork)
        self._init_genesis()
        if ctx.indexer is not None:
            ctx.indexer.chain_opened(self)  # indexes blocks accepted while indexing was off

    # ------------------------------------------------------------------ Chain protocol

    def is_bootstrapped(self) -> bool:
        return True

    def last_accepted(self) -> tuple[bytes, int] | None:
        blk = self.last_accepted_block()
        return blk.id, blk.height

    def reload(self) -> None:
        """After a node-wide revert: state is read from the store on every call, so only the
        mempool (txs that may now be invalid or already reverted) is dropped."""
        self.mempool = Mempool()

    def mine(self, blocks: int) -> int:
        """Build up to `blocks` blocks from the mempool now (the X-Chain builds no empty blocks)."""
        built = 0
        while built < blocks and len(self.mempool):
            if self.build_block() is None:
                break
            built += 1
        return built

    def close(self) -> None:
        self._closed = True

    # ------------------------------------------------------------------ genesis

    def _init_genesis(self) -> None:
        if self.state().last_accepted() is not None:
            return
        if self.fork is not None:
            self.fork.init_state()
            return
        g = self.genesis
        batch = self.store.batch()
        st = ChainState(batch, self.prefix, self.chain_id)
        st.put_tx(g.avax_asset_id, g.avax_asset_tx_bytes)
        st.put_asset(g.avax_asset_id, "Avalanche", "AVAX", 9, [0])
        for utxo in g.x_utxos:
            st.put_utxo(utxo)
        upgrades = self.params.upgrades
        stop_vertex = stop_vertex_id(id_from_str(upgrades.cortina_stop_vertex), self.chain_id)
        blk = build_block(stop_vertex, 0, upgrades.cortina, ())
        st.put_block(blk.id, 0, blk.bytes)
        self._index(blk, batch)
        batch.commit()

    # ------------------------------------------------------------------ state access

    def state(self) -> ChainState:
        return ChainState(self.store, self.prefix, self.chain_id, self.clock.now())

    def _subnet_of(self, chain_id: bytes) -> bytes | None:
        chain = self.ctx.chains.get(chain_id)
        if chain is not None:
            return chain.subnet_id
        g = self.genesis
        if chain_id in (ZERO_ID, g.x_chain_id, g.c_chain_id):
            return ZERO_ID
        return None

    def last_accepted_block(self) -> StandardBlock:
        st = self.state()
        blk_id = st.last_accepted()
        assert blk_id is not None
        raw = st.get_block_bytes(blk_id)
        assert raw is not None
        return parse_block(raw)

    def height(self) -> int:
        return self.last_accepted_block().height

    # ------------------------------------------------------------------ issuance

    def parse_tx(self, tx_bytes: bytes) -> Tx:
        with tx_errors(catch=(CodecError, VerifyError)):
            tx = parse_tx(tx_bytes)
        return tx

    def verify_tx(self, tx: Tx) -> None:
        """What a tx must pass to enter the mempool (manager.VerifyTx), on the last accepted state."""
        syntactic_verify(tx, self.backend)
        st = self.state()
        semantic_verify(tx, self.backend, st)
        execute(tx)

    def issue_tx(self, tx_bytes: bytes) -> bytes:
        """avm.issueTx: returns the txID or raises TxError with AvalancheGo's text."""
        tx = self.parse_tx(tx_bytes)
        return self.issue_parsed(tx)

    @property
    def first_indexed_block(self) -> int:
        """The first block the index derives rows from (on a fork: the first after the upstream's)."""
        if self.fork is None:
            return 0
        from .state import HEIGHT_PREFIX
        first = next(iter(self.store.iterate(self.prefix + HEIGHT_PREFIX)), None)
        return 0 if first is None else int.from_bytes(first[0][len(self.prefix) + 1:], "big") + 1

    def touch_addresses(self, addresses: Any, source: bytes | None = None) -> None:
        """On a fork: bring the upstream UTXOs of `addresses` (own, or exported to the X-Chain by
        `source`) into the fork the first time (vms/fork_utxos.py). Nothing otherwise."""
        if self.fork is not None:
            self.fork.utxos.touch(addresses, source)

    def fund(self, address: bytes, amount: int) -> bytes:
        """simnode.fundAddress: a new AVAX UTXO of `amount` nAVAX owned by `address` (faucet.py);
        returns its UTXO's tx ID (output 0)."""
        from simnode.vms.faucet import fund_utxo
        self.touch_addresses((address,))
        batch = self.store.batch()
        utxo = fund_utxo(batch, self.chain_id, self.avax_asset_id, address, amount)
        ChainState(batch, self.prefix, self.chain_id).put_utxo(utxo)
        batch.commit()
        return utxo.tx_id

    def _touch_inputs(self, tx: Tx) -> None:
        """On a fork: a tx spending UTXOs the fork does not hold brings its signers' upstream UTXOs in."""
        if self.fork is None:
            return
        st = self.state()
        unsigned = tx.unsigned
        source = getattr(unsigned, "source_chain", None)
        imported = {i.utxo_id for i in getattr(unsigned, "imported_ins", ())}
        own_missing = any(st.get_utxo_bytes(u) is None for u in unsigned.input_utxo_ids() if u not in imported)
        imported_missing = any(st.get_atomic_utxo(source, u) is None for u in imported)
        if not own_missing and not imported_missing:
            return
        from simnode.vms.fork_utxos import signer_addresses
        signers = signer_addresses(tx.unsigned_hash, tx.creds)
        if own_missing:
            self.touch_addresses(signers)
        if imported_missing:
            self.touch_addresses(signers, source)

    def issue_parsed(self, tx: Tx, verify: bool = True) -> bytes:
        tx_id = tx.id
        if self.mempool.has(tx_id):
            return tx_id  # ErrDuplicateTx is ignored by issueTxFromRPC
        self._touch_inputs(tx)
        if verify:
            reason = self.mempool.dropped.get(tx_id)
            if reason is not None:
                raise TxError(reason)
            try:
                self.verify_tx(tx)
            except TxError as exc:
                self.mempool.mark_dropped(tx_id, str(exc))
                raise
        try:
            self.mempool.add(tx)
        except TxError as exc:
            self.mempool.mark_dropped(tx_id, str(exc))
            raise
        self.schedule_build()
        return tx_id

    def issue_tx_unverified(self, tx_bytes: bytes) -> bytes:
        """wallet.issueTx: into the mempool without verification (the block builder verifies)."""
        tx = self.parse_tx(tx_bytes)
        return self.issue_parsed(tx, verify=False)

    # ------------------------------------------------------------------ block building

    @property
    def build_requested(self) -> bool:
        """A block build is due at the event loop's next turn (schedule_build)."""
        return self._build_scheduled

    def schedule_build(self) -> None:
        if self._build_scheduled or self._closed or not self.ctx.block_building.automatic:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no event loop (unit tests): the caller builds with build_block()
        self._build_scheduled = True
        loop.call_soon(self._scheduled_build)

    def _scheduled_build(self) -> None:
        self._build_scheduled = False
        if self._closed or self.store is None:
            return
        try:
            self.build_block()
        except Exception:  # noqa: BLE001 - never kill the event loop
            log.exception("X-Chain block building failed")
        if len(self.mempool):
            self.schedule_build()

    def build_pending(self) -> list[StandardBlock]:
        """Build blocks until the mempool is empty (virtual-clock scenarios, tests)."""
        blocks = []
        while len(self.mempool):
            blk = self.build_block()
            if blk is None:
                break
            blocks.append(blk)
        return blocks

    def build_block(self) -> StandardBlock | None:
        """One block from the mempool (BuildBlock + Verify + Accept), or None if nothing fits."""
        if not len(self.mempool):
            return None
        parent = self.last_accepted_block()
        now = self.clock.now()
        timestamp = max(now, parent.time)
        batch = self.store.batch()
        st = ChainState(batch, self.prefix, self.chain_id, now)
        remaining = TARGET_BLOCK_SIZE
        chosen: list[Tx] = []
        while len(self.mempool):
            tx = next(iter(self.mempool.txs.values()))
            if len(tx.bytes) > remaining:
                break
            self.mempool.remove(tx)
            try:
                syntactic_verify(tx, self.backend)
                semantic_verify(tx, self.backend, st)
                effects = execute(tx)
            except TxError as exc:
                self.mempool.mark_dropped(tx.id, str(exc))
                log.debug("dropped X tx %s: %s", id_to_str(tx.id), exc)
                continue
            st.apply(tx.id, tx.bytes, effects)
            remaining -= len(tx.bytes)
            chosen.append(tx)
        if not chosen:
            return None
        blk = build_block(parent.id, parent.height + 1, timestamp, chosen)
        st.put_block(blk.id, blk.height, blk.bytes)
        self._index(blk, batch)
        batch.commit()
        self._notify(blk)
        return blk

    def accept_block(self, blk: StandardBlock) -> None:
        """Verify and accept a block built elsewhere (block.Verify + Accept); all or nothing."""
        blk_id = blk.id
        if blk.merkle_root != ZERO_ID:
            raise TxError(f"unexpected merkle root: {id_to_str(blk.merkle_root)}")
        if not blk.txs:
            raise TxError("block contains no transactions")
        for tx in blk.txs:
            try:
                syntactic_verify(tx, self.backend)
            except TxError as exc:
                raise TxError(f"failed to syntactically verify tx {id_to_str(tx.id)}: {exc}") from None
        parent = self.last_accepted_block()
        if blk.parent_id != parent.id:
            raise TxError(f"failed to get parent {id_to_str(blk.parent_id)}: not found")
        if blk.height != parent.height + 1:
            raise TxError(f"block has incorrect height: expected height {parent.height + 1}, got {blk.height}")
        if blk.time < parent.time:
            raise TxError("proposed timestamp before current chain time")
        batch = self.store.batch()
        st = ChainState(batch, self.prefix, self.chain_id, self.clock.now())
        for tx in blk.txs:
            try:
                semantic_verify(tx, self.backend, st)
            except TxError as exc:
                raise TxError(f"failed to semantically verify tx {id_to_str(tx.id)}: {exc}") from None
            st.apply(tx.id, tx.bytes, execute(tx))
        st.put_block(blk_id, blk.height, blk.bytes)
        self._index(blk, batch)
        batch.commit()
        for tx in blk.txs:
            self.mempool.remove(tx)
        self._notify(blk)

    def _index(self, blk: StandardBlock, batch: Batch) -> None:
        """The block's index rows, in the block's own batch."""
        if self.ctx.indexer is not None:
            self.ctx.indexer.block_accepted(self, {"n": blk.height, "id": blk.id, "b": blk.bytes}, batch)

    def block_row(self, height: int) -> dict | None:
        """The accepted block at `height` as the indexer takes it: height, ID and bytes."""
        st = self.state()
        block_id = st.get_block_id_at(height)
        if block_id is None:
            return None
        return {"n": height, "id": block_id, "b": st.get_block_bytes(block_id)}

    def _notify(self, blk: StandardBlock) -> None:
        for fn in list(self.on_accept):
            try:
                fn(blk)
            except Exception:  # noqa: BLE001
                log.exception("X-Chain accept subscriber failed")
