"""An address's EVM activity from the index: its transactions (v1 and v2, each with only the
transfers and internal txs the address is part of), native transactions, ERC-20/721/1155 transfers
and internal transactions, all newest first (`sortOrder=asc` where the document has it) within
`startBlock` (inclusive) .. `endBlock` (exclusive); and the chains it has activity on.

v2's `filterSpamTokens` has nothing to filter locally (no token is judged spam), and its ERC-20
tokens carry `tokenReputation: null` (unknown).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...index.evm.query import EvmIndex, Page, address_chains
from .chains import chain_info
from .context import NO_INDEX_EVM, RequestContext
from .evm_json import EvmJson
from .evm_reads import (address_param, block_range, empty_page, evm_request, json_of, page_of,
                        sort_newest_first)
from .resolve import evm_address, evm_chains


def _address_page(ctx: RequestContext, lister: Callable[..., Page[Any]],
                  ordered: bool = False) -> tuple[EvmJson, Page[Any]]:
    """(formatter, page) of one of the index's per-address lists (an EvmIndex method)."""
    ev = evm_request(ctx)
    address = address_param(ctx)
    bounds = block_range(ctx)
    reverse = sort_newest_first(ctx) if ordered else True
    page = empty_page() if bounds is None else page_of(ctx, lambda cursor: lister(
        ev.ix, address, ctx.params["pageSize"], cursor, reverse, *bounds))
    return json_of(ctx, ev), page


def _transactions(ctx: RequestContext, v2: bool) -> dict[str, Any]:
    js, page = _address_page(ctx, EvmIndex.address_transactions, ordered=True)
    items = [{"nativeTransaction": js.native_tx(item.tx), **js.tx_parts(item.transfers, item.internals, v2)}
             for item in page.items]
    return ctx.paged({"transactions": items}, page.next)


def list_transactions(ctx: RequestContext) -> dict[str, Any]:
    return _transactions(ctx, v2=False)


def list_transactions_v2(ctx: RequestContext) -> dict[str, Any]:
    return _transactions(ctx, v2=True)


def list_native_transactions(ctx: RequestContext) -> dict[str, Any]:
    js, page = _address_page(ctx, EvmIndex.native_transactions)
    return ctx.paged({"transactions": [js.native_tx(tx) for tx in page.items]}, page.next)


def _transfers(ctx: RequestContext, lister: Callable[..., Page[Any]]) -> dict[str, Any]:
    js, page = _address_page(ctx, lister)
    return ctx.paged({"transactions": [js.transfer(t) for t in page.items]}, page.next)


def list_erc20_transactions(ctx: RequestContext) -> dict[str, Any]:
    return _transfers(ctx, EvmIndex.erc20_transfers)


def list_erc721_transactions(ctx: RequestContext) -> dict[str, Any]:
    return _transfers(ctx, EvmIndex.erc721_transfers)


def list_erc1155_transactions(ctx: RequestContext) -> dict[str, Any]:
    return _transfers(ctx, EvmIndex.erc1155_transfers)


def list_internal_transactions(ctx: RequestContext) -> dict[str, Any]:
    js, page = _address_page(ctx, EvmIndex.internal_transactions)
    return ctx.paged({"transactions": [js.internal(f) for f in page.items]}, page.next)


def list_address_chains(ctx: RequestContext) -> dict[str, Any]:
    """The EVM chains of this node where the address sent or received a tx, a token transfer or
    an internal tx (ChainInfo, C-Chain first)."""
    address = evm_address("address", ctx.params["address"])
    node = ctx.node
    active = set(address_chains(ctx.indexed_store(NO_INDEX_EVM), address))
    return {"indexedChains": [chain_info(ctx, c) for c in evm_chains(node) if c.chain_id in active]}
