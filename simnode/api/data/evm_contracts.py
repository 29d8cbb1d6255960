"""EVM contracts from the index: a contract's metadata (its token standard, name, symbol,
decimals and how it was deployed), the contracts an address deployed (by its txs or by running
CREATE/CREATE2 itself; newest first), the tx that deployed a contract, and every transfer a token
contract logged (`startBlock` inclusive .. `endBlock` exclusive, newest first).

An address with neither a creation, nor token rows, nor code at the head is no contract: 404. A
contract of the genesis alloc has code but no creation: UnknownContract (or its token standard)
without deploymentDetails, and its deployment tx is a 404.
"""

from __future__ import annotations

from typing import Any

from .context import RequestContext
from .errors import not_found
from .evm_json import checksum
from .evm_reads import address_param, block_range, empty_page, evm_request, json_of, page_of
from .evm_transactions import transaction_response


def get_contract_metadata(ctx: RequestContext) -> dict[str, Any]:
    ev = evm_request(ctx)
    address = address_param(ctx)
    creation = ev.ix.contract(address)
    js = json_of(ctx, ev)
    if creation is None and js.token(address) is None and not ev.chain.view().get_code(address):
        raise not_found(f"{checksum(address)} is not a contract on chain {ev.ref}")
    return js.contract(address, creation)


def list_contract_deployments(ctx: RequestContext) -> dict[str, Any]:
    ev = evm_request(ctx)
    deployer = address_param(ctx)
    page = page_of(ctx, lambda cursor: ev.ix.deployments(deployer, ctx.params["pageSize"], cursor))
    js = json_of(ctx, ev)
    return ctx.paged({"contracts": [js.contract(c.address, c) for c in page.items]}, page.next)


def get_deployment_transaction(ctx: RequestContext) -> dict[str, Any]:
    ev = evm_request(ctx)
    address = address_param(ctx)
    creation = ev.ix.contract(address)
    details = None if creation is None else ev.ix.tx_details(creation.tx_hash)
    if details is None:
        raise not_found(f"no deployment of {checksum(address)} on chain {ev.ref}: no tx of the chain created it "
                        "(a contract of the genesis, or no contract)")
    return transaction_response(ev, json_of(ctx, ev), details)


def list_token_transfers(ctx: RequestContext) -> dict[str, Any]:
    ev = evm_request(ctx)
    token = address_param(ctx)
    bounds = block_range(ctx)
    page = empty_page() if bounds is None else page_of(ctx, lambda cursor: ev.ix.token_transfers(
        token, ctx.params["pageSize"], cursor, True, *bounds))
    js = json_of(ctx, ev)
    return ctx.paged({"transfers": [js.transfer(t) for t in page.items]}, page.next)
