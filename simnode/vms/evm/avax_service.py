"""The C-Chain atomic API (`/ext/bc/C/avax`, gorilla): avax.getUTXOs, issueTx, getAtomicTxStatus,
getAtomicTx, as coreth's AvaxAPI answers them (node-api.md §9). The same service is also
registered as `native.*` and served at `/ext/bc/C/native` (the seed documents' name).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ...rpc.jsonrpc import GorillaService, RPCError
from ...codec import CodecError
from ...formats import FormatError
from ...formats.hexenc import decode_bytes, encode_bytes
from ...formats.ids import ZERO_ID, id_to_str
from .. import utxo_api
from ..chain_context import lookup_chain
from ...rpc.params import encoding_arg, id_arg, str_arg
from .atomic_txs import AtomicTxError

if TYPE_CHECKING:
    from .evm_chain import EVMChain


class AvaxService:
    def __init__(self, chain: EVMChain) -> None:
        self.pool = chain.atomic
        self.utxo_service = utxo_api.UTXOService(
            chain_id=chain.chain_id, alias="C", hrp=chain.ctx.genesis.hrp,
            lookup_chain=lambda ref: lookup_chain(chain.ctx, ref),
            utxos_from=lambda source: _shared_memory(chain, source),
            source_required=True, encode_error="problem encoding utxo: {error}", evm_mismatch=True,
        )

    def get_utxos(self, params: dict[str, Any]) -> dict[str, Any]:
        return utxo_api.get_utxos(self.utxo_service, params)

    def issue_tx(self, params: dict[str, Any]) -> dict[str, Any]:
        text = str_arg(params, "tx")
        encoding = encoding_arg(params)
        try:
            raw = decode_bytes(text, encoding)
        except FormatError as exc:
            raise RPCError(f"problem decoding transaction: {exc}") from None
        try:
            tx_id = self.pool.issue(raw)
        except CodecError as exc:
            raise RPCError(f"problem parsing transaction: {exc}") from None
        except AtomicTxError as exc:
            raise RPCError(str(exc)) from None
        return {"txID": id_to_str(tx_id)}

    def get_atomic_tx_status(self, params: dict[str, Any]) -> dict[str, Any]:
        tx_id = id_arg(params, "txID")
        if tx_id == ZERO_ID:
            raise RPCError("nil transaction ID")
        status, height = self.pool.status(tx_id)
        out: dict[str, Any] = {"status": status}
        if height is not None:
            out["blockHeight"] = str(height)
        return out

    def get_atomic_tx(self, params: dict[str, Any]) -> dict[str, Any]:
        tx_id = id_arg(params, "txID")
        encoding = encoding_arg(params)
        if tx_id == ZERO_ID:
            raise RPCError("nil transaction ID")
        found = self.pool.get(tx_id)
        if found is None:
            raise RPCError(f"could not find tx {id_to_str(tx_id)}")
        raw, _status, height = found
        try:
            text = encode_bytes(raw, encoding)
        except FormatError as exc:
            raise RPCError(str(exc)) from None
        out: dict[str, Any] = {"tx": text, "encoding": encoding}
        if height is not None:
            out["blockHeight"] = str(height)
        return out


def _shared_memory(chain: EVMChain, source: bytes) -> utxo_api.UTXOSet:
    """What `source` exported to the C-Chain; on a fork, an address's upstream UTXOs are brought
    in when first asked for."""
    utxos = utxo_api.shared_memory_utxos(chain.store, chain.chain_id, source)
    if chain.fork is None:
        return utxos

    def ids_of(address: bytes, after: bytes | None) -> Any:
        chain.fork.atomic_utxos.touch((address,), source)
        return utxos.ids_of(address, after)
    return dataclasses.replace(utxos, ids_of=ids_of)


def build_avax_service(chain: EVMChain) -> GorillaService:
    s = AvaxService(chain)
    methods = {
        "getUTXOs": s.get_utxos,
        "issueTx": s.issue_tx,
        "getAtomicTxStatus": s.get_atomic_tx_status,
        "getAtomicTx": s.get_atomic_tx,
    }
    service = GorillaService({"avax": methods, "native": methods})
    service.settling = lambda: chain.mine_requested  # an acknowledged atomic tx is in a block first
    return service
