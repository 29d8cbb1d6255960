"""Order the address rows of a data dir written before simnode kept AvalancheGo's UTXO order.

Such a dir has the X-, P-Chain and shared-memory address rows (utxo_order.py's `a` rows) with empty
values and no `o` rows. On open, once, every UTXO they name is ranked by when its chain made it,
from the chains' own history, and given its seq in that order:

    X-Chain        the block (height, position) of the tx that made it (UTXO.txID), then its index;
                   the genesis UTXOs (of the AVAX asset's tx) first
    P-Chain        the block of its tx (P/t rows keep the height); a stake returned or a reward paid
                   (UTXO.txID is the staker's tx, index past the tx's outputs) at the block whose
                   facts list the staker as ended; genesis UTXOs (zero tx ID) first
    shared memory  the block of the export on its source chain (X and P as above; the C-Chain's
                   atomic tx index C/at/<tx> keeps the height)

A UTXO whose tx no chain recorded (a faucet payment, a fork's copy of an upstream UTXO) ranks with
the genesis UTXOs. A dir written by this code has every row ordered and is only marked.
"""

from __future__ import annotations

from collections.abc import Callable
from simnode.codec import CodecError
from simnode.store import Store, chain_prefix, unpack

from . import atomic, utxo_order
from .avm.blocks import parse_block
from .platform import state as pstate
from .platform.blocks import decode_block
from .platform.txs import parse_tx

Rank = tuple[int, int, int]
_FIRST = (0, 0)
_ATOMIC_MARK = atomic.PREFIX + utxo_order.ORDERED
_C_ATOMIC_TX = chain_prefix("C") + b"at/"  # the C-Chain's accepted atomic txs (evm/atomic_pool.py)


def _utxo_ref(raw: bytes | None) -> tuple[bytes, int] | None:
    """(tx ID, output index) of stored UTXO bytes (u16 codec version | 32 tx ID | u32 index | ...)."""
    if raw is None or len(raw) < 38:
        return None
    return raw[2:34], int.from_bytes(raw[34:38], "big")


class _History:
    """Where each tx of the X- and P-Chain (and the C-Chain's atomic txs) sits, read on demand."""

    def __init__(self, store: Store, x_prefix: bytes) -> None:
        self.store = store
        self.x_prefix = x_prefix
        self._x: dict[bytes, tuple[int, int]] | None = None
        self._ended: dict[bytes, int] | None = None
        self._p_blocks: dict[int, tuple[bytes, ...]] = {}

    def x_position(self, tx_id: bytes) -> tuple[int, int]:
        if self._x is None:
            self._x = {}
            height = 1
            while (block_id := self.store.get(self.x_prefix + b"h" + height.to_bytes(8, "big"))) is not None:
                raw = self.store.get(self.x_prefix + b"b" + block_id)
                if raw is not None:
                    for i, tx in enumerate(parse_block(raw).txs):
                        self._x[tx.id] = (height, i)
                height += 1
        return self._x.get(tx_id, _FIRST)

    def _p_block_txs(self, height: int) -> tuple[bytes, ...]:
        if height not in self._p_blocks:
            block_id = self.store.get(pstate.K_HEIGHT + height.to_bytes(8, "big"))
            raw = self.store.get(pstate.K_BLOCK + block_id) if block_id is not None else None
            txs: tuple[bytes, ...] = ()
            if raw is not None:
                block = decode_block(raw)
                signed = block.txs + ((block.proposal_tx,) if block.proposal_tx is not None else ())
                txs = tuple(tx.tx_id for tx in signed)
            self._p_blocks[height] = txs
        return self._p_blocks[height]

    def _p_outs(self, tx_bytes: bytes) -> int:
        try:
            return len(parse_tx(tx_bytes).unsigned.base.outs)
        except (CodecError, ValueError, AttributeError):
            return 0

    def p_position(self, tx_id: bytes, index: int) -> tuple[int, int]:
        rec = self.store.get(pstate.K_TX + tx_id)
        if rec is None:
            return _FIRST
        tx_bytes, _status, height = unpack(rec)[:3]
        ended = self._ended_at().get(tx_id)
        if ended is not None and index >= self._p_outs(tx_bytes):
            return ended, 0
        txs = self._p_block_txs(height)
        return height, txs.index(tx_id) if tx_id in txs else 0

    def _ended_at(self) -> dict[bytes, int]:
        if self._ended is None:
            self._ended = {}
            for key, value in self.store.iterate(pstate.K_FACTS):
                height = int.from_bytes(key[len(pstate.K_FACTS):], "big")
                for staker in unpack(value)[3]:
                    self._ended[staker] = height
        return self._ended

    def c_position(self, tx_id: bytes) -> tuple[int, int]:
        raw = self.store.get(_C_ATOMIC_TX + tx_id)
        return (int.from_bytes(raw[:8], "big"), 0) if raw is not None else _FIRST


def migrate(store: Store, x_prefix: bytes, x_chain_id: bytes, c_chain_id: bytes) -> int:
    """Order the X-, P-Chain and shared-memory rows of an old data dir (a no-op once done)."""
    history = _History(store, x_prefix)

    def own(base: bytes, position: Callable[[bytes, int], tuple[int, int]]) -> Callable[[bytes], Rank]:
        def rank(utxo_id: bytes) -> Rank:
            ref = _utxo_ref(store.get(base + b"u" + utxo_id))
            return (0, 0, 0) if ref is None else (*position(*ref), ref[1])
        return rank

    by_source: dict[bytes, Callable[[bytes, int], tuple[int, int]]] = {
        x_chain_id: lambda tx_id, _i: history.x_position(tx_id),
        pstate.PLATFORM_CHAIN_ID: history.p_position,
        c_chain_id: lambda tx_id, _i: history.c_position(tx_id),
    }
    ranks: dict[bytes, Callable[[bytes], Rank]] = {
        x_prefix: own(x_prefix, lambda tx_id, _i: history.x_position(tx_id)),
        pstate.PREFIX: own(pstate.PREFIX, history.p_position),
    }
    if store.get(_ATOMIC_MARK) is None:
        for base in _atomic_pairs(store):
            source = base[-32:]
            ranks[base] = own(base, by_source.get(source, lambda _t, _i: _FIRST))
    count = utxo_order.migrate(store, list(ranks), lambda base, uid: ranks[base](uid))
    if store.get(_ATOMIC_MARK) is None:
        batch = store.batch()
        batch.put(_ATOMIC_MARK, b"")
        batch.commit()
    return count


def _atomic_pairs(store: Store) -> list[bytes]:
    """The `atomic/<dest><source>` prefixes that hold rows."""
    pairs: list[bytes] = []
    cut = len(atomic.PREFIX) + 64
    for key, _ in store.iterate(atomic.PREFIX):
        if len(key) > cut and (not pairs or key[:cut] != pairs[-1]):
            pairs.append(key[:cut])
    return pairs
