"""The three deprecated EVM routes the hosted Data API still answers and chainkit 0.3.13 still
calls (its `listAllLatestBlocks`, `listAllLatestTransactions` and `getAddressChains`):

    GET /v1/chains/allBlocks             = GET /v1/blocks                  (ListEvmBlocksResponse)
    GET /v1/chains/allTransactions       = GET /v1/transactions            (ListNativeTransactionsResponse)
    GET /v1/chains/address/{address}     = GET /v1/address/{address}/chains (ListAddressChainsResponse)

The current document dropped them (its publisher removes deprecated operations), so each takes the
parameters, answer and handler of the route that replaced it, under its old operationId. NestJS
registers static segments first, so `/v1/chains/allBlocks` is this route, not chain "allBlocks".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import evm_addresses, evm_blocks, evm_transactions
from .context import RequestContext
from .spec import DATA, Operation, document, make_operation

Handler = Callable[[RequestContext], Any]

# deprecated route -> (the current route it answers as, its operationId, the handler)
DEPRECATED_ROUTES: dict[str, tuple[str, str, Handler]] = {
    "/v1/chains/allBlocks": ("/v1/blocks", "listAllLatestBlocks", evm_blocks.list_latest_blocks_all_chains),
    "/v1/chains/allTransactions": ("/v1/transactions", "listAllLatestTransactions",
                                   evm_transactions.list_latest_transactions_all_chains),
    "/v1/chains/address/{address}": ("/v1/address/{address}/chains", "getAddressChains",
                                      evm_addresses.list_address_chains),
}


def deprecated_operations() -> list[Operation]:
    doc = document(DATA)
    return [make_operation(DATA, "get", route, {**doc["paths"][current]["get"], "operationId": operation_id,
                                                "deprecated": True}, doc)
            for route, (current, operation_id, _) in DEPRECATED_ROUTES.items()]


HANDLERS: dict[tuple[str, str], Handler] = {("GET", route): handler
                                            for route, (_, _, handler) in DEPRECATED_ROUTES.items()}
