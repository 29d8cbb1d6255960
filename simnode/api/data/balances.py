"""`GET /v1/chains/{chainId}/addresses/{address}/balances:getNative`: an address's native balance.

Read from the EVM state at the block asked for (`blockNumber`, else the latest), exactly what
`eth_getBalance` answers at that block (the latest state includes dev edits such as
`anvil_setBalance`, as there). There is no market locally: `currency` is validated and the price
fields are omitted.
"""

from __future__ import annotations

from typing import Any

from .chains import network_token
from .context import RequestContext
from .errors import bad_request, not_found
from .params import MAX_U64, decimal
from .resolve import evm_address, evm_chain_id_of, ready_evm_chain


def block_number(text: str | None) -> int | None:
    """`blockNumber` as an int (None when absent): decimal digits only."""
    if text is None:
        return None
    if not (text.isascii() and text.isdigit()):
        raise bad_request("blockNumber must be a block number (a non-negative integer)")
    number = decimal(text, MAX_U64)
    if number is None:
        raise bad_request(f"blockNumber must not be greater than {MAX_U64}")
    return number


def block_at(chain: Any, chain_ref: str, number: int | None) -> Any | None:
    """The block numbered `number`; None for the latest state (no number, or the head's)."""
    head = chain.head_number
    if number is None or number == head:
        return None
    block = chain.block(number) if number < head else None
    if block is None:
        raise not_found(f"block {number} not found on chain {chain_ref} (the latest is {head})")
    return block


def native_token_balance(ctx: RequestContext, chain: Any, address: bytes, number: int | None) -> dict[str, Any]:
    """NativeTokenBalance of `address` after block `number` (None: the latest state)."""
    balance = chain.view(block_at(chain, ctx.params["chainId"], number)).get_balance(address)
    return {**network_token(chain), "chainId": str(evm_chain_id_of(ctx.node, chain)), "balance": str(balance)}


def get_native(ctx: RequestContext) -> dict[str, Any]:
    address = evm_address("address", ctx.params["address"])
    number = block_number(ctx.params.get("blockNumber"))
    chain = ready_evm_chain(ctx.node, ctx.params["chainId"])
    return {"nativeTokenBalance": native_token_balance(ctx, chain, address, number)}
