"""NFT collections from the index: the token IDs a collection minted (by ID; ERC-721 tokens burned
since are listed without an owner), one token's details, and `:reindex`, which reads the token's
tokenURI (ERC-721) or uri (ERC-1155) again at the head of the chain.

The index keeps the URI read when the ID first appeared, derived from the chain alone so a
reindex of the node gives the same rows; a URI `:reindex` reads is kept beside it in this node's
memory (until it stops) and used while the block it was read at is still on the chain (a revert
below it brings the indexed one back). The hosted service allows one reindex per token per hour;
a local node re-reads on every call. Answers 201 without a body, as the hosted route.
"""

from __future__ import annotations

from typing import Any

from ...index.evm.layout import ERC721 as ERC721_CODE
from ...index.evm.layout import ERC1155 as ERC1155_CODE
from ...index.evm.query import Nft
from ...index.evm.tokens import token_uri
from .context import RequestContext
from .errors import not_found
from .evm_json import ERC721, EvmJson, Reread, checksum
from .evm_reads import IndexedChain, address_param, evm_request, json_of, page_of, rereads, token_id_param


def _token(js: EvmJson, nft: Nft) -> dict[str, Any]:
    out = js.nft_token(nft.token, nft.token_id, nft.standard, nft.uri, nft.meta)
    if nft.owner is not None:
        out["ownerAddress"] = checksum(nft.owner)
    return out


def list_tokens(ctx: RequestContext) -> dict[str, Any]:
    ev = evm_request(ctx)
    collection = address_param(ctx)
    page = page_of(ctx, lambda cursor: ev.ix.nft_tokens(collection, ctx.params["pageSize"], cursor))
    js = json_of(ctx, ev)
    return ctx.paged({"tokens": [_token(js, nft) for nft in page.items]}, page.next)


def _nft(ctx: RequestContext) -> tuple[IndexedChain, Nft]:
    ev = evm_request(ctx)
    collection = address_param(ctx)
    token_id = token_id_param(ctx)
    nft = ev.ix.nft(collection, token_id)
    if nft is None:
        raise not_found(f"token {token_id} of {checksum(collection)} not found on chain {ev.ref} "
                        "(no transfer of it was indexed)")
    return ev, nft


def get_token_details(ctx: RequestContext) -> dict[str, Any]:
    ev, nft = _nft(ctx)
    return _token(json_of(ctx, ev), nft)


def reindex_nft(ctx: RequestContext) -> None:
    ev, nft = _nft(ctx)
    chain = ev.chain
    head = chain.head_number
    row = chain.block_row(head)
    standard = ERC721_CODE if nft.standard == ERC721 else ERC1155_CODE
    uri = token_uri(lambda to, data: chain.static_call(row, to, data), nft.token, standard,
                    nft.token_id.to_bytes(32, "big"))
    rereads(ctx)[(chain.chain_id, nft.token, nft.token_id)] = Reread(uri, head, row["h"], ctx.node.clock.now_ms())
