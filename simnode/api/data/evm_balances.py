"""An address's token balances from the index: ERC-20 (`blockNumber`, `contractAddresses`),
ERC-721 (`contractAddress`), ERC-1155 (`blockNumber`, `contractAddress`) and the collectibles
(ERC-721 and ERC-1155 together), each by token address (and ID), with the native balance at the
same block where the document asks for one (balances.py reads it from the EVM state, as
balances:getNative does).

The index derives balances from the tokens' Transfer logs, which for a standard token is exactly
what balanceOf answers. A token that moves balances without logging them can drive a derived
balance below zero; for such an entry the token's own balanceOf (at the same block) is answered
instead, and the entry is left out when that is zero or the token does not answer one. No token
is judged spam locally (`filterSpamTokens` filters nothing), there is no market (`currency` is
validated, price fields are left out) and tokenReputation is null (unknown).
"""

from __future__ import annotations

from typing import Any

from ...index.evm.query import NftBalance
from ...index.evm.tokens import abi_uint, selector
from .balances import block_number, native_token_balance
from .context import RequestContext
from .evm_json import ERC721, EvmJson, checksum
from .evm_reads import IndexedChain, address_list, address_param, evm_request, json_of, optional_address, page_of

BALANCE_OF = selector("balanceOf(address)")
BALANCE_OF_ID = selector("balanceOf(address,uint256)")


def own_balance(ev: IndexedChain, number: int | None, token: bytes, call_data: bytes) -> int:
    """What the token's balanceOf answers after block `number` (None: the head); 0 if nothing."""
    row = ev.chain.block_row(ev.chain.head_number if number is None else number)
    return abi_uint(ev.chain.static_call(row, token, call_data)) or 0


def _held(ev: IndexedChain, number: int | None, owner: bytes, b: NftBalance) -> int:
    if b.balance > 0:
        return b.balance
    return own_balance(ev, number, b.token, BALANCE_OF_ID + owner.rjust(32, b"\x00") + b.token_id.to_bytes(32, "big"))


def list_erc20_balances(ctx: RequestContext) -> dict[str, Any]:
    ev = evm_request(ctx)
    owner = address_param(ctx)
    number = block_number(ctx.params.get("blockNumber"))
    native = native_token_balance(ctx, ev.chain, owner, number)
    tokens = address_list(ctx, "contractAddresses")
    page = page_of(ctx, lambda cursor: ev.ix.erc20_balances(owner, ctx.params["pageSize"], cursor, number, tokens))
    js = json_of(ctx, ev)
    items = []
    for b in page.items:
        balance = b.balance if b.balance > 0 else own_balance(ev, number, b.token,
                                                              BALANCE_OF + owner.rjust(32, b"\x00"))
        if balance:
            items.append({**js.erc20_token(b.token, b.meta, v2=True), "chainId": ev.evm_id, "balance": str(balance)})
    return ctx.paged({"nativeTokenBalance": native, "erc20TokenBalances": items}, page.next)


def _erc721(js: EvmJson, ev: IndexedChain, owner: bytes, b: NftBalance) -> dict[str, Any]:
    return {**js.nft_token(b.token, b.token_id, ERC721, b.uri, b.meta), "ownerAddress": checksum(owner),
            "chainId": ev.evm_id}


def _erc1155(js: EvmJson, ev: IndexedChain, b: NftBalance, balance: int) -> dict[str, Any]:
    return {**js.nft_token(b.token, b.token_id, b.standard, b.uri, b.meta), "chainId": ev.evm_id,
            "balance": str(balance)}


def list_erc721_balances(ctx: RequestContext) -> dict[str, Any]:
    ev = evm_request(ctx)
    owner = address_param(ctx)
    native = native_token_balance(ctx, ev.chain, owner, None)
    token = optional_address(ctx, "contractAddress")
    page = page_of(ctx, lambda cursor: ev.ix.erc721_holdings(owner, ctx.params["pageSize"], cursor, token))
    js = json_of(ctx, ev)
    return ctx.paged({"nativeTokenBalance": native, "erc721TokenBalances": [_erc721(js, ev, owner, b)
                                                                             for b in page.items]}, page.next)


def list_erc1155_balances(ctx: RequestContext) -> dict[str, Any]:
    ev = evm_request(ctx)
    owner = address_param(ctx)
    number = block_number(ctx.params.get("blockNumber"))
    native = native_token_balance(ctx, ev.chain, owner, number)
    token = optional_address(ctx, "contractAddress")
    page = page_of(ctx, lambda cursor: ev.ix.erc1155_balances(owner, ctx.params["pageSize"], cursor, number, token))
    js = json_of(ctx, ev)
    items = []
    for b in page.items:
        balance = _held(ev, number, owner, b)
        if balance:
            items.append(_erc1155(js, ev, b, balance))
    return ctx.paged({"nativeTokenBalance": native, "erc1155TokenBalances": items}, page.next)


def list_collectible_balances(ctx: RequestContext) -> dict[str, Any]:
    ev = evm_request(ctx)
    owner = address_param(ctx)
    token = optional_address(ctx, "contractAddress")
    page = page_of(ctx, lambda cursor: ev.ix.collectibles(owner, ctx.params["pageSize"], cursor, token))
    js = json_of(ctx, ev)
    items = []
    for b in page.items:
        if b.standard == ERC721:
            items.append(_erc721(js, ev, owner, b))
        else:
            balance = _held(ev, None, owner, b)
            if balance:
                items.append(_erc1155(js, ev, b, balance))
    return ctx.paged({"collectibleBalances": items}, page.next)
