"""The C-Chain's atomic side: mempool of import/export txs, their verification at the tip, their
place in blocks (extra data) and their effects on shared memory and the tx index.

Only the C-Chain has one (coreth); an L1 EVM chain's `EVMChain.atomic` is None.

Mempool rules (coreth atomic mempool): a tx already in the pool is accepted again silently; txs
conflict when they spend the same UTXO (imports) or the same account nonce (exports); a newcomer
replaces its conflicts only with a strictly higher gas price (burned nAVAX / gas), otherwise it is
refused. Block building takes txs by gas price (then arrival) while the block's atomic gas stays
≤ 100,000 and its atomic bytes ≤ 40 KiB; a tx that no longer verifies is dropped ("Dropped").

Storage (under the chain prefix): ``at/<txID 32>`` → u64 height ‖ signed tx bytes, written in the
block's batch together with the shared-memory removals (imports) and additions (exports).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Protocol

from ...codec import CodecError
from ...formats.ids import ZERO_ID, id_to_str
from .. import atomic as shared
from ..chain_context import ChainContext
from .atomic_txs import (
    ATOMIC_GAS_LIMIT,
    TARGET_ATOMIC_TXS_SIZE,
    AtomicContext,
    AtomicTx,
    AtomicTxError,
    StateOverlay,
    atomic_effects,
    encode_block_txs,
    owners_of,
    parse_tx,
    semantic_verify,
    state_transfer,
    utxo_bytes,
)

log = logging.getLogger("simnode.evm.atomic")

MAX_DROPPED = 1024
MAX_SIZE = 4096  # coreth's atomic mempool size: past it a new tx is refused ("too many atomic tx")


class PoolChain(Protocol):
    """What the pool uses of its chain (chain.EVMChain)."""

    ctx: ChainContext
    store: Any
    clock: Any
    prefix: bytes
    chain_id: bytes
    fork: Any
    automine: bool

    def next_base_fee(self) -> int: ...

    def view(self) -> Any: ...

    def request_mine(self) -> None: ...

    def _emit(self, kind: str, payload: Any) -> None: ...


@dataclass(slots=True)
class _Entry:
    tx: AtomicTx
    gas_price: int
    seq: int


@dataclass(slots=True)
class BuiltAtomic:
    """What a block took from the pool."""

    txs: list[AtomicTx]
    ext: bytes
    gas: int
    dropped: list[tuple[bytes, str]]


class AtomicPool:
    def __init__(self, chain: PoolChain, ctx: AtomicContext) -> None:
        self.chain = chain
        self.ctx = ctx
        self.store = chain.store
        self.entries: dict[bytes, _Entry] = {}
        self.spenders: dict[bytes, bytes] = {}  # input UTXO (or export nonce key) -> tx ID
        self.dropped: OrderedDict[bytes, str] = OrderedDict()
        self._seq = 0

    # ------------------------------------------------------------------ reads

    def get_utxo(self, source: bytes, utxo_id: bytes) -> bytes | None:
        return shared.get_utxo(self.store, self.ctx.chain_id, source, utxo_id)

    def _index_key(self, tx_id: bytes) -> bytes:
        return self.chain.prefix + b"at/" + tx_id

    def accepted(self, tx_id: bytes) -> tuple[int, bytes] | None:
        raw = self.store.get(self._index_key(tx_id))
        if raw is None:
            return None
        return int.from_bytes(raw[:8], "big"), raw[8:]

    def status(self, tx_id: bytes) -> tuple[str, int | None]:
        acc = self.accepted(tx_id)
        if acc is not None:
            return "Accepted", acc[0]
        if tx_id in self.entries:
            return "Processing", None
        if tx_id in self.dropped:
            return "Dropped", None
        return "Unknown", None

    def get(self, tx_id: bytes) -> tuple[bytes, str, int | None] | None:
        """(signed bytes, status, height) of a known tx."""
        acc = self.accepted(tx_id)
        if acc is not None:
            return acc[1], "Accepted", acc[0]
        e = self.entries.get(tx_id)
        if e is not None:
            return e.tx.bytes, "Processing", None
        return None

    def has_pending(self) -> bool:
        return bool(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    # ------------------------------------------------------------------ issuance

    def verify_at_tip(self, tx: AtomicTx) -> None:
        """coreth verifyTxAtTip: size and gas caps, then semantic verification at the next base fee
        and the state transfer on the tip state (thrown away)."""
        size = len(tx.bytes)
        if size > TARGET_ATOMIC_TXS_SIZE:
            raise AtomicTxError(f"tx size ({size}) exceeds total atomic txs size target ({TARGET_ATOMIC_TXS_SIZE})")
        gas = tx.gas_used()
        if gas > ATOMIC_GAS_LIMIT:
            raise AtomicTxError(f"tx gas usage ({gas}) exceeds atomic gas limit ({ATOMIC_GAS_LIMIT})")
        chain = self.chain
        base_fee = chain.next_base_fee()
        semantic_verify(tx, self.ctx, base_fee, self.get_utxo, chain.clock.now_ms() // 1000)
        state_transfer(tx, self.ctx, StateOverlay(chain.view()))

    def issue(self, tx_bytes: bytes) -> bytes:
        """Parse, verify at the tip and add to the pool; returns the tx ID. Raises CodecError
        (parse) or AtomicTxError (refused)."""
        tx = parse_tx(tx_bytes)
        return self.issue_parsed(tx)

    def issue_parsed(self, tx: AtomicTx) -> bytes:
        if tx.id in self.entries:
            return tx.id  # already known: accepted silently
        # an already accepted tx is re-verified like any other and fails (UTXOs spent / nonce used)
        self._touch_imports(tx)
        self.verify_at_tip(tx)
        self.add(tx)
        self.dropped.pop(tx.id, None)
        if self.chain.automine:
            self.chain.request_mine()
        return tx.id

    def _touch_imports(self, tx: AtomicTx) -> None:
        """On a fork: an import of UTXOs the fork does not hold brings its signers' upstream
        shared-memory UTXOs in (vms/fork_utxos.py)."""
        fork = self.chain.fork
        if fork is None or not tx.is_import:
            return
        source = tx.unsigned.source_chain
        if all(self.get_utxo(source, i.utxo_id) is not None for i in tx.unsigned.imported_inputs):
            return
        from ..fork_utxos import signer_addresses
        fork.atomic_utxos.touch(signer_addresses(tx.unsigned_hash, tx.creds), source)

    def _gas_price(self, tx: AtomicTx) -> int:
        gas = tx.gas_used()
        return tx.burned(self.ctx.avax_asset_id) // gas if gas else 0

    def add(self, tx: AtomicTx) -> None:
        price = self._gas_price(tx)
        conflicts = sorted({self.spenders[u] for u in tx.input_utxos() if u in self.spenders})
        if conflicts:
            best = max(conflicts, key=lambda h: self.entries[h].gas_price)
            best_price = self.entries[best].gas_price
            if price <= best_price:
                raise AtomicTxError(
                    f"conflicting atomic tx: issued tx ({id_to_str(tx.id)}) gas price {price} <= conflict tx "
                    f"({id_to_str(best)}) gas price {best_price} ({len(conflicts)} total conflicts in mempool)")
            for h in conflicts:
                self._remove(h)
                self._drop(h, "replaced by a conflicting tx with a higher gas price")
        elif len(self.entries) >= MAX_SIZE:
            raise AtomicTxError("too many atomic tx")
        self._seq += 1
        self.entries[tx.id] = _Entry(tx, price, self._seq)
        for u in tx.input_utxos():
            self.spenders[u] = tx.id
        self.chain._emit("atomic_pending", tx)

    def _remove(self, tx_id: bytes) -> None:
        e = self.entries.pop(tx_id, None)
        if e is None:
            return
        for u in e.tx.input_utxos():
            if self.spenders.get(u) == tx_id:
                del self.spenders[u]

    def _drop(self, tx_id: bytes, reason: str) -> None:
        self.dropped[tx_id] = reason
        while len(self.dropped) > MAX_DROPPED:
            self.dropped.popitem(last=False)

    def clear(self) -> None:
        """After a node-wide revert: pending txs may spend what no longer exists."""
        self.entries.clear()
        self.spenders.clear()

    # ------------------------------------------------------------------ blocks

    def build(self, state: Any, base_fee: int, now_s: int) -> BuiltAtomic:
        """Pick, verify and apply (on py-evm's block `state`) the txs of the block being built."""
        order = sorted(self.entries.values(), key=lambda e: (-e.gas_price, e.seq))
        txs: list[AtomicTx] = []
        dropped: list[tuple[bytes, str]] = []
        used: set[bytes] = set()
        gas_total = 0
        size = 0
        for e in order:
            tx = e.tx
            tx_size = len(tx.bytes)
            if size + tx_size > TARGET_ATOMIC_TXS_SIZE:
                break
            gas = tx.gas_used()
            if gas_total + gas > ATOMIC_GAS_LIMIT:
                break
            inputs = tx.input_utxos()
            if used & inputs:
                dropped.append((tx.id, "invalid block due to conflicting atomic inputs"))
                continue
            overlay = StateOverlay(state)
            try:
                semantic_verify(tx, self.ctx, base_fee, self.get_utxo, now_s)
                state_transfer(tx, self.ctx, overlay)
            except (AtomicTxError, CodecError) as exc:
                log.debug("atomic tx %s dropped: %s", id_to_str(tx.id), exc)
                dropped.append((tx.id, str(exc)))
                continue
            for addr, bal in overlay.balances.items():
                state.set_balance(addr, bal)
            for addr, nonce in overlay.nonces.items():
                state.set_nonce(addr, nonce)
            txs.append(tx)
            used |= inputs
            gas_total += gas
            size += tx_size
        return BuiltAtomic(txs, encode_block_txs(txs), gas_total, dropped)

    def write_accepted(self, batch: Any, built: BuiltAtomic, height: int) -> None:
        """Shared-memory effects and index rows of the block's atomic txs, into its batch."""
        c = self.ctx.chain_id
        for tx in built.txs:
            fx = atomic_effects(tx, self.get_utxo)
            for source, uid, addrs in fx.removes:
                shared.remove_utxo(batch, c, source, uid, addrs)
            for dest, utxo in fx.puts:
                raw = utxo_bytes(utxo)
                shared.put_utxo(batch, dest, c, shared.AtomicUTXO(utxo.id, raw, owners_of(raw)))
            batch.put(self._index_key(tx.id), height.to_bytes(8, "big") + tx.bytes)

    def after_accept(self, built: BuiltAtomic) -> None:
        for tx in built.txs:
            self._remove(tx.id)
        for tx_id, reason in built.dropped:
            self._remove(tx_id)
            self._drop(tx_id, reason)


def make_pool(chain: PoolChain) -> AtomicPool | None:
    """The C-Chain's pool, or None for a chain without atomic txs (an L1 EVM chain)."""
    genesis = chain.ctx.genesis
    c_id = genesis.c_chain_id
    if chain.chain_id != c_id:
        return None
    ctx = AtomicContext(
        network_id=int(chain.ctx.config.network_id),
        chain_id=c_id,
        avax_asset_id=genesis.avax_asset_id,
        peers=frozenset({genesis.x_chain_id, ZERO_ID}),
    )
    return AtomicPool(chain, ctx)
