"""What the EVM routes share: the chain and index a request names, the parameters that name
blocks, transactions, tokens and block ranges, and keyset paging over the index.

* The index (simnode/index) serves every EVM list; a node started with `--no-index` has none, so
  those routes answer 503 saying so (balances:getNative reads VM state and still answers).
* `{blockId}` is a block number (decimal) or a block hash; `{txHash}` a 32-byte hash; `{tokenId}`
  a decimal token ID below 2**256. Each is a 400 when malformed and the route's 404 when the chain
  has no such thing.
* `startBlock` (inclusive) and `endBlock` (exclusive) are block numbers: a negative or fractional
  one is a 400; either may lie beyond the head (nothing is there yet).
* A page token carries the index's cursor (bytes); the core (pages.py) already ties it to its route
  and filters, so a cursor the index rejects means a token this node did not issue for this list.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ...index.evm.query import CursorError, EvmIndex, Page
from .context import RequestContext
from .errors import ApiError, bad_request, not_found, unavailable
from .evm_json import EvmJson, RereadUris
from .pages import INVALID
from .params import MAX_U64, decimal
from .resolve import evm_address, evm_chain_id_of, evm_chains, ready_evm_chain

T = TypeVar("T")

_HASH = re.compile(r"0[xX][0-9a-fA-F]{64}\Z")
_ADDRESS = re.compile(r"0[xX][0-9a-fA-F]{40}\Z")
MAX_TOKEN_ID = 2**256 - 1


def index_off() -> ApiError:
    return ApiError(503, "this node keeps no Data API index (it was started with --no-index): "
                         "start it without --no-index to serve the EVM lists")


@dataclass(slots=True)
class IndexedChain:
    """The EVM chain a request names and its index."""

    chain: Any
    ix: EvmIndex
    ref: str  # the {chainId} as sent, for messages
    evm_id: str  # the EVM chain ID in decimal, as the responses carry it


def evm_request(ctx: RequestContext) -> IndexedChain:
    """The chain `{chainId}` names (404 if none, 503 while it loads) and its index (503 without one)."""
    ref = ctx.params["chainId"]
    chain = ready_evm_chain(ctx.node, ref)
    store = ctx.store
    if ctx.node.indexer is None or store is None:
        raise index_off()
    return IndexedChain(chain, EvmIndex(store, chain.chain_id), ref, str(evm_chain_id_of(ctx.node, chain)))


def rereads(ctx: RequestContext) -> RereadUris:
    """The token URIs `:reindex` read, kept for the node's lifetime."""
    return ctx.memo.setdefault("nft_rereads", {})


def json_of(ctx: RequestContext, ev: IndexedChain) -> EvmJson:
    return EvmJson(ev.ix, ev.evm_id, ev.chain.header_rules.granite, rereads(ctx))


def every_chain_json(ctx: RequestContext) -> dict[bytes, EvmJson]:
    """A formatter for each EVM chain of the node, by blockchain ID (the lists across chains)."""
    store = ctx.store
    if ctx.node.indexer is None or store is None:
        raise index_off()
    out = {}
    for chain in evm_chains(ctx.node):
        if not chain.is_bootstrapped():
            raise unavailable(f"chain {evm_chain_id_of(ctx.node, chain)} is not done bootstrapping")
        ix = EvmIndex(store, chain.chain_id)
        out[chain.chain_id] = EvmJson(ix, str(evm_chain_id_of(ctx.node, chain)), chain.header_rules.granite,
                                      rereads(ctx))
    return out


def address_param(ctx: RequestContext, name: str = "address") -> bytes:
    return evm_address(name, ctx.params[name])


def optional_address(ctx: RequestContext, name: str) -> bytes | None:
    value = ctx.params.get(name)
    return None if value is None else evm_address(name, value)


def address_list(ctx: RequestContext, name: str) -> list[bytes] | None:
    """A comma-separated list of addresses (None when the parameter is absent)."""
    value = ctx.params.get(name)
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items or any(_ADDRESS.match(v) is None for v in items):
        raise bad_request(f"{name} must be a comma separated list of Ethereum addresses")
    return [bytes.fromhex(v[2:]) for v in items]


def tx_hash_param(ctx: RequestContext) -> bytes:
    value = ctx.params["txHash"]
    if _HASH.match(value) is None:
        raise bad_request("txHash must be a transaction hash (0x and 64 hex digits)")
    return bytes.fromhex(value[2:])


def block_param(ctx: RequestContext, ev: IndexedChain) -> Any:
    """The index's block `{blockId}` names, by number or hash."""
    value = ctx.params["blockId"]
    if value.isascii() and value.isdigit():
        number = decimal(value, MAX_U64)
        block = None if number is None else ev.ix.block(number)
    elif _HASH.match(value) is not None:
        block = ev.ix.block_by_hash(bytes.fromhex(value[2:]))
    else:
        raise bad_request("blockId must be a block number or a block hash (0x and 64 hex digits)")
    if block is None:
        raise not_found(f"block {value} not found on chain {ev.ref} (the latest is {ev.ix.head()})")
    return block


def token_id_param(ctx: RequestContext) -> int:
    value = ctx.params["tokenId"]
    token_id = decimal(value, MAX_TOKEN_ID)
    if token_id is None:
        raise bad_request("tokenId must be a token ID (a non-negative integer below 2^256)")
    return token_id


def block_range(ctx: RequestContext) -> tuple[int | None, int | None] | None:
    """(startBlock, endBlock) as the index takes them; None when the range holds no block an
    index can have (it starts beyond the last u64)."""
    out = []
    for name in ("startBlock", "endBlock"):
        value = ctx.params.get(name)
        if value is not None and (isinstance(value, float) or value < 0):
            raise bad_request(f"{name} must be a block number (a non-negative integer)")
        out.append(value)
    start, end = out
    if start is not None and start > MAX_U64:
        return None
    return start, None if end is None else min(end, MAX_U64)


def sort_newest_first(ctx: RequestContext) -> bool:
    return ctx.params.get("sortOrder", "desc") != "asc"


def page_of(ctx: RequestContext, read: Callable[[bytes | None], Page[T]]) -> Page[T]:
    """One page of an index list, from the cursor the request's page token carried."""
    cursor = ctx.cursor
    if cursor is not None and not isinstance(cursor, bytes):
        raise bad_request(INVALID)
    try:
        return read(cursor)
    except CursorError:
        raise bad_request(INVALID) from None


def empty_page() -> Page[Any]:
    return Page((), None)
