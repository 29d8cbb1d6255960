"""EVM blocks from the index: a chain's latest blocks (newest first), one block by number or hash,
a block's transactions (in block order), and the latest blocks of every EVM chain (`/v1/blocks`,
by block time; `network` names the running network whatever its value).

A block's transaction list takes pageSize 0 to 100 with 0 the default (the document's range):
0 lists the whole block in one page.
"""

from __future__ import annotations

from typing import Any

from ...index.evm.query import all_blocks
from .context import RequestContext
from .evm_reads import block_param, evm_request, every_chain_json, json_of, page_of


def list_latest_blocks(ctx: RequestContext) -> dict[str, Any]:
    ev = evm_request(ctx)
    page = page_of(ctx, lambda cursor: ev.ix.blocks(ctx.params["pageSize"], cursor))
    js = json_of(ctx, ev)
    return ctx.paged({"blocks": [js.block(b) for b in page.items]}, page.next)


def get_block(ctx: RequestContext) -> dict[str, Any]:
    ev = evm_request(ctx)
    return json_of(ctx, ev).block(block_param(ctx, ev))


def list_block_transactions(ctx: RequestContext) -> dict[str, Any]:
    ev = evm_request(ctx)
    block = block_param(ctx, ev)
    size = ctx.params["pageSize"] or max(1, block.tx_count)
    page = page_of(ctx, lambda cursor: ev.ix.block_transactions(block.number, size, cursor))
    js = json_of(ctx, ev)
    return ctx.paged({"transactions": [js.native_tx(tx) for tx in page.items]}, page.next)


def list_latest_blocks_all_chains(ctx: RequestContext) -> dict[str, Any]:
    jsons = every_chain_json(ctx)
    page = page_of(ctx, lambda cursor: all_blocks(ctx.store, ctx.params["pageSize"], cursor))
    return ctx.paged({"blocks": [jsons[b.chain_id].block(b) for b in page.items if b.chain_id in jsons]},
                     page.next)
