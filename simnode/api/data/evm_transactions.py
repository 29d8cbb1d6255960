"""EVM transactions from the index: a chain's latest (newest first, `status` success or failed),
one by hash with all its token transfers and internal transactions (GetTransactionResponse), and
the latest of every EVM chain (`/v1/transactions`, by block time)."""

from __future__ import annotations

from typing import Any

from ...index.evm.query import TxDetails, all_transactions
from .chains import network_token
from .context import RequestContext
from .errors import not_found
from .evm_json import EvmJson, hex0x
from .evm_reads import IndexedChain, evm_request, every_chain_json, json_of, page_of, tx_hash_param

STATUS = {"success": 1, "failed": 0}


def transaction_response(ev: IndexedChain, js: EvmJson, details: TxDetails) -> dict[str, Any]:
    """GetTransactionResponse: the tx, every transfer it made, its listed internal txs."""
    return {**js.tx_parts(details.transfers, details.frames),
            "networkTokenDetails": {"networkToken": network_token(ev.chain)},
            "nativeTransaction": js.full_native_tx(details)}


def list_latest_transactions(ctx: RequestContext) -> dict[str, Any]:
    ev = evm_request(ctx)
    status = STATUS.get(ctx.params.get("status", ""))
    page = page_of(ctx, lambda cursor: ev.ix.transactions(ctx.params["pageSize"], cursor, status))
    js = json_of(ctx, ev)
    return ctx.paged({"transactions": [js.native_tx(tx) for tx in page.items]}, page.next)


def get_transaction(ctx: RequestContext) -> dict[str, Any]:
    ev = evm_request(ctx)
    tx_hash = tx_hash_param(ctx)
    details = ev.ix.tx_details(tx_hash)
    if details is None:
        raise not_found(f"transaction {hex0x(tx_hash)} not found on chain {ev.ref}")
    return transaction_response(ev, json_of(ctx, ev), details)


def list_latest_transactions_all_chains(ctx: RequestContext) -> dict[str, Any]:
    jsons = every_chain_json(ctx)
    status = STATUS.get(ctx.params.get("status", ""))
    page = page_of(ctx, lambda cursor: all_transactions(ctx.store, ctx.params["pageSize"], cursor, status))
    return ctx.paged({"transactions": [jsons[tx.chain_id].native_tx(tx) for tx in page.items
                                       if tx.chain_id in jsons]}, page.next)
