"""The X-Chain on a fork: the upstream's last block as the fork's base, the rest on demand.

At the first start the fork's X-Chain holds the upstream's last accepted block (the parent of the
fork's first block) and the AVAX asset. The UTXOs of an address come from the upstream when the
address is first touched (a balance or UTXO query, a tx spending them: vms/fork_utxos.py), the
shared-memory UTXOs another chain exported to it likewise, and with a UTXO its asset (name,
symbol, denomination and fxs from the asset's CreateAssetTx). From then on the fork owns them.
"""

from __future__ import annotations

import logging
from typing import Any

from simnode.codec import CodecError
from simnode.formats import decode_bytes, id_to_str

from .state import ChainState, addresses_of, decode_utxo_cached
from .txs import CreateAssetTx, parse_tx

log = logging.getLogger("simnode.fork")

X = "/ext/bc/X"
TX_KEY = b"X/tx/"  # (fork cache) upstream X tx bytes by ID


class XChainFork:
    def __init__(self, vm: Any, fork: Any) -> None:
        self.vm = vm
        self.fork = fork
        self.upstream = fork.upstream
        from simnode.vms.fork_utxos import UTXOFork
        self.utxos = UTXOFork(fork, vm.store, vm.chain_id, X, "avm", "X", vm.hrp, self._owners, self._put_own)

    def call(self, method: str, params: dict | None = None) -> Any:
        return self.upstream.avax(X, method, params or {})

    def tx_bytes(self, tx_id: bytes) -> bytes | None:
        """An upstream X tx, kept in the fork cache once fetched."""
        return self.fork.tx_bytes(X, "avm.getTx", TX_KEY, tx_id)

    def history(self, method: str, params: dict) -> Any:
        """The upstream's answer about its history (a block or tx the fork does not hold), kept."""
        return self.fork.history(X, b"X/q/", method, params)

    def init_state(self) -> None:
        """The upstream's last accepted X block as the fork's base, and the AVAX asset."""
        vm = self.vm
        height = int(self.call("avm.getHeight")["height"])
        raw = decode_bytes(self.call("avm.getBlockByHeight", {"height": str(height), "encoding": "hex"})["block"],
                           "hex")
        from .blocks import parse_block
        blk = parse_block(raw)
        batch = vm.store.batch()
        st = ChainState(batch, vm.prefix, vm.chain_id)
        self._put_asset(st, vm.avax_asset_id)
        st.put_block(blk.id, height, raw)
        batch.commit()
        log.info("X-Chain forked at height %d (%s)", height, id_to_str(blk.id))

    def take_asset(self, asset_id: bytes) -> None:
        """An upstream asset into the fork's state (its description and CreateAssetTx)."""
        vm = self.vm
        batch = vm.store.batch()
        self._put_asset(ChainState(batch, vm.prefix, vm.chain_id), asset_id)
        batch.commit()

    def _put_asset(self, st: ChainState, asset_id: bytes) -> None:
        if st.get_asset(asset_id) is not None:
            return
        raw = self.tx_bytes(asset_id)
        if raw is None:
            return
        try:
            tx = parse_tx(raw)
        except CodecError:
            return
        if not isinstance(tx.unsigned, CreateAssetTx):
            return
        a = tx.unsigned
        st.put_asset(asset_id, a.name, a.symbol, a.denomination, [s.fx_index for s in a.states])
        st.put_tx(asset_id, raw)

    def _owners(self, raw: bytes) -> tuple[bytes, ...]:
        return addresses_of(decode_utxo_cached(raw).out)

    def _put_own(self, batch: Any, uid: bytes, raw: bytes, owners: tuple[bytes, ...]) -> None:
        vm = self.vm
        st = ChainState(batch, vm.prefix, vm.chain_id)
        utxo = decode_utxo_cached(raw)
        st.put_utxo(utxo)
        self._put_asset(st, utxo.asset_id)
