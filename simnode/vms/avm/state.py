"""X-Chain state in the node's store, under the chain's prefix (b"X/"):

    u<utxoID 32>                 -> UTXO bytes (u16 0 | UTXO, node-api.md §4.2)
    a<address 20><utxoID 32>     -> u64 seq  address index (one row per owner address), and its
    o<address 20><~seq><utxoID>, N, O   order: newest first, as AvalancheGo lists them (utxo_order.py)
    t<txID 32>                   -> signed tx bytes (accepted txs, genesis asset tx included)
    s<assetID 32>                -> msgpack [name, symbol, denomination, [fx indices]]
    b<blockID 32>                -> block bytes
    h<u64 height>                -> blockID
    L                            -> last accepted blockID

`ChainState` reads through a `Store` (committed state) or a `Batch` (a block being built: its
reads see the writes of the txs already placed in it), and writes into a `Batch`.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from simnode.codec import UTXO
from simnode.store import Batch, Store, pack, unpack
from simnode.vms import atomic, utxo_order

from .execute import Effects, owners_of
from .txs import X_REGISTRY, CreateAssetTx, TxError, utxo_bytes

UTXO_PREFIX = b"u"
TX_PREFIX = b"t"
ASSET_PREFIX = b"s"
BLOCK_PREFIX = b"b"
HEIGHT_PREFIX = b"h"
LAST_ACCEPTED = b"L"


# ~700 bytes a decoded UTXO with its key: 8,192 of them ~6 MB (docs/memory.md)
@lru_cache(maxsize=8192)
def decode_utxo_cached(raw: bytes) -> UTXO:
    return X_REGISTRY.unmarshal(raw, UTXO)


def addresses_of(out: Any) -> tuple[bytes, ...]:
    owners = owners_of(out)
    return owners.addresses if owners is not None else ()


class ChainState:
    """Reads (and, over a Batch, writes) the X-Chain's UTXOs, txs, assets and blocks."""

    __slots__ = ("db", "prefix", "chain_id", "_now")

    def __init__(self, db: Store | Batch, prefix: bytes, chain_id: bytes, now: int = 0) -> None:
        self.db = db
        self.prefix = prefix
        self.chain_id = chain_id
        self._now = now

    # -------------------------------------------------------------------- StateReader protocol

    def now(self) -> int:
        return self._now

    def get_utxo_bytes(self, utxo_id: bytes) -> bytes | None:
        return self.db.get(self.prefix + UTXO_PREFIX + utxo_id)

    def get_utxo(self, utxo_id: bytes) -> UTXO | None:
        raw = self.get_utxo_bytes(utxo_id)
        return None if raw is None else decode_utxo_cached(raw)

    def get_asset(self, asset_id: bytes) -> tuple[str, str, int, tuple[int, ...]] | None:
        raw = self.db.get(self.prefix + ASSET_PREFIX + asset_id)
        if raw is None:
            return None
        name, symbol, denomination, fxs = unpack(raw)
        return name, symbol, denomination, tuple(fxs)

    def get_asset_fxs(self, asset_id: bytes) -> tuple[int, ...] | None:
        asset = self.get_asset(asset_id)
        if asset is not None:
            return asset[3]
        if self.get_tx_bytes(asset_id) is not None:
            raise TxError("not an asset")
        return None

    def get_atomic_utxo(self, source_chain: bytes, utxo_id: bytes) -> bytes | None:
        return atomic.get_utxo(self.db, self.chain_id, source_chain, utxo_id)

    # -------------------------------------------------------------------- reads

    def get_tx_bytes(self, tx_id: bytes) -> bytes | None:
        return self.db.get(self.prefix + TX_PREFIX + tx_id)

    def get_block_bytes(self, block_id: bytes) -> bytes | None:
        return self.db.get(self.prefix + BLOCK_PREFIX + block_id)

    def get_block_id_at(self, height: int) -> bytes | None:
        if not 0 <= height < 1 << 64:
            return None
        return self.db.get(self.prefix + HEIGHT_PREFIX + height.to_bytes(8, "big"))

    def last_accepted(self) -> bytes | None:
        return self.db.get(self.prefix + LAST_ACCEPTED)

    def utxo_ids_of(self, address: bytes, after: bytes | None = None) -> Iterator[bytes]:
        """UTXO IDs owned (in part) by `address`, newest first, after `after` if it is one (utxo_order.py)."""
        return utxo_order.ids_of(self.db, self.prefix, address, after)

    # -------------------------------------------------------------------- writes (Batch only)

    def put_utxo(self, utxo: UTXO) -> None:
        uid = utxo.id
        db = self.db
        assert isinstance(db, Batch), "writes go to a block's batch"
        db.put(self.prefix + UTXO_PREFIX + uid, utxo_bytes(utxo))
        utxo_order.add(db, self.prefix, addresses_of(utxo.out), uid)

    def delete_utxo(self, utxo_id: bytes) -> None:
        utxo = self.get_utxo(utxo_id)
        if utxo is None:
            return
        db = self.db
        assert isinstance(db, Batch), "writes go to a block's batch"
        db.delete(self.prefix + UTXO_PREFIX + utxo_id)
        utxo_order.remove(db, self.prefix, addresses_of(utxo.out), utxo_id)

    def put_tx(self, tx_id: bytes, tx_bytes: bytes) -> None:
        self.db.put(self.prefix + TX_PREFIX + tx_id, tx_bytes)

    def put_asset(self, asset_id: bytes, name: str, symbol: str, denomination: int, fxs: list[int]) -> None:
        self.db.put(self.prefix + ASSET_PREFIX + asset_id, pack([name, symbol, denomination, sorted(set(fxs))]))

    def put_block(self, block_id: bytes, height: int, raw: bytes) -> None:
        self.db.put(self.prefix + BLOCK_PREFIX + block_id, raw)
        self.db.put(self.prefix + HEIGHT_PREFIX + height.to_bytes(8, "big"), block_id)
        self.db.put(self.prefix + LAST_ACCEPTED, block_id)

    def apply(self, tx_id: bytes, tx_bytes: bytes, fx: Effects) -> None:
        """Write one accepted tx's effects (consumed/produced UTXOs, asset, shared memory)."""
        for uid in fx.consumed:
            self.delete_utxo(uid)
        for utxo in fx.produced:
            self.put_utxo(utxo)
        for source, uid in fx.atomic_removes:
            raw = atomic.get_utxo(self.db, self.chain_id, source, uid)
            addrs: tuple[bytes, ...] = ()
            if raw is not None:
                addrs = addresses_of(decode_utxo_cached(raw).out)
            atomic.remove_utxo(self.db, self.chain_id, source, uid, addrs)  # type: ignore[arg-type]
        for dest, utxo in fx.atomic_puts:
            atomic.put_utxo(self.db, dest, self.chain_id,  # type: ignore[arg-type]
                            atomic.AtomicUTXO(utxo.id, utxo_bytes(utxo), addresses_of(utxo.out)))
        if fx.new_asset is not None:
            a: CreateAssetTx = fx.new_asset
            self.put_asset(tx_id, a.name, a.symbol, a.denomination, [s.fx_index for s in a.states])
        self.put_tx(tx_id, tx_bytes)
