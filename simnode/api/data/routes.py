"""Which handler serves which operation of the two documents, and which routes do not exist locally.

A route of the documents without a handler here answers a JSON 404 saying this node does not
serve it yet; `GET /api-json` lists only the routes that have a handler.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import (aggregator, balances, chains, deprecated_evm, evm_addresses, evm_balances, evm_blocks, evm_contracts,
               evm_metrics, evm_nfts, evm_transactions, export_routes, health, icm, icm_metrics, primary_routes,
               staking_metrics, usage, validator_addresses)
from .context import RequestContext
from .spec import Operation

Handler = Callable[[RequestContext], Any]  # returns the JSON body (or an awaitable of it)

HANDLERS: dict[tuple[str, str], Handler] = {
    ("GET", "/v1/health-check"): health.health_check,
    ("GET", "/v1/live-check"): health.live_check,
    ("GET", "/v1/chains"): chains.list_chains,
    ("GET", "/v1/chains/{chainId}"): chains.get_chain,
    ("GET", "/v1/chains/{chainId}/addresses/{address}/balances:getNative"): balances.get_native,
    # EVM routes on the index
    ("GET", "/v1/chains/{chainId}/blocks"): evm_blocks.list_latest_blocks,
    ("GET", "/v1/chains/{chainId}/blocks/{blockId}"): evm_blocks.get_block,
    ("GET", "/v1/chains/{chainId}/blocks/{blockId}/transactions"): evm_blocks.list_block_transactions,
    ("GET", "/v1/blocks"): evm_blocks.list_latest_blocks_all_chains,
    ("GET", "/v1/chains/{chainId}/transactions"): evm_transactions.list_latest_transactions,
    ("GET", "/v1/chains/{chainId}/transactions/{txHash}"): evm_transactions.get_transaction,
    ("GET", "/v1/transactions"): evm_transactions.list_latest_transactions_all_chains,
    ("GET", "/v1/address/{address}/chains"): evm_addresses.list_address_chains,
    ("GET", "/v1/chains/{chainId}/addresses/{address}/transactions"): evm_addresses.list_transactions,
    ("GET", "/v2/chains/{chainId}/addresses/{address}/transactions"): evm_addresses.list_transactions_v2,
    ("GET", "/v1/chains/{chainId}/addresses/{address}/transactions:listNative"):
        evm_addresses.list_native_transactions,
    ("GET", "/v1/chains/{chainId}/addresses/{address}/transactions:listErc20"): evm_addresses.list_erc20_transactions,
    ("GET", "/v1/chains/{chainId}/addresses/{address}/transactions:listErc721"):
        evm_addresses.list_erc721_transactions,
    ("GET", "/v1/chains/{chainId}/addresses/{address}/transactions:listErc1155"):
        evm_addresses.list_erc1155_transactions,
    ("GET", "/v1/chains/{chainId}/addresses/{address}/transactions:listInternals"):
        evm_addresses.list_internal_transactions,
    ("GET", "/v1/chains/{chainId}/addresses/{address}/balances:listErc20"): evm_balances.list_erc20_balances,
    ("GET", "/v1/chains/{chainId}/addresses/{address}/balances:listErc721"): evm_balances.list_erc721_balances,
    ("GET", "/v1/chains/{chainId}/addresses/{address}/balances:listErc1155"): evm_balances.list_erc1155_balances,
    ("GET", "/v1/chains/{chainId}/addresses/{address}/balances:listCollectibles"):
        evm_balances.list_collectible_balances,
    ("GET", "/v1/chains/{chainId}/addresses/{address}"): evm_contracts.get_contract_metadata,
    ("GET", "/v1/chains/{chainId}/contracts/{address}/deployments"): evm_contracts.list_contract_deployments,
    ("GET", "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment"):
        evm_contracts.get_deployment_transaction,
    ("GET", "/v1/chains/{chainId}/tokens/{address}/transfers"): evm_contracts.list_token_transfers,
    ("GET", "/v1/chains/{chainId}/nfts/collections/{address}/tokens"): evm_nfts.list_tokens,
    ("GET", "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}"): evm_nfts.get_token_details,
    ("POST", "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}:reindex"): evm_nfts.reindex_nft,
    # the signature aggregator
    ("POST", "/v1/signatureAggregator/{network}/aggregateSignatures"): aggregator.aggregate_signatures,
    ("GET", "/v1/signatureAggregator/{network}/aggregateSignatures/{txHash}"): aggregator.get_aggregated_signatures,
    # Metrics API
    ("GET", "/v2/health-check"): health.health_check,
    ("GET", "/v2/live-check"): health.live_check,
    ("GET", "/v2/chains"): evm_metrics.list_chains,
    ("GET", "/v2/chains/{chainId}"): evm_metrics.get_chain,
    ("GET", "/v2/chains/{chainId}/metrics/{metric}"): evm_metrics.chain_metric,
    ("GET", "/v2/chains/{chainId}/rollingWindowMetrics/{metric}"): evm_metrics.rolling_metric,
    ("GET", "/v1/avg_tps/{chainId}"): evm_metrics.legacy_avg_tps,
    ("GET", "/v2/networks/{network}/metrics/{metric}"): staking_metrics.network_metric,
    ("GET", "/v2/validators/metrics/{metric}"): staking_metrics.validators_metric,
    ("GET", "/v2/validation/{l1ValidationId}/metrics/{metric}"): staking_metrics.validation_metric,
    ("GET", "/v2/validator/{nodeId}/metrics/{metric}"): staking_metrics.node_metric,
    ("GET", "/v2/subnet/{subnetId}/metrics/{metric}"): staking_metrics.subnet_metric,
    ("GET", "/v2/icm/timeseries"): icm_metrics.timeseries,
    ("GET", "/v2/icm/summary"): icm_metrics.summary,
    # primary-network routes on the index
    **primary_routes.ROUTES,
    # ICM messages on the index
    ("GET", "/v1/icm/messages/{messageId}"): icm.get_message,
    ("GET", "/v1/icm/messages"): icm.list_messages,
    ("GET", "/v1/icm/addresses/{address}/messages"): icm.list_address_messages,
    ("GET", "/v1/teleporter/messages/{messageId}"): icm.get_teleporter_message,
    ("GET", "/v1/teleporter/messages"): icm.list_teleporter_messages,
    ("GET", "/v1/teleporter/addresses/{address}/messages"): icm.list_teleporter_address_messages,
    ("GET", "/v2/subnets/{subnetId}/validators:getAddresses"): validator_addresses.validator_addresses,
    **deprecated_evm.HANDLERS,
    **usage.ROUTES,
    **export_routes.ROUTES,
}

# Routes of the documents this node does not serve, and why: a 404 saying so.
NOT_SERVED: dict[tuple[str, str], str] = {
    ("GET", "/v2/chains/43114/btcb/bridged:getAddresses"):
        "BTC.b bridge balances exist only on the Avalanche mainnet C-Chain (43114); this node runs no BTC.b bridge",
    ("POST", "/v2/lookingGlass/compositeQuery"):
        "composite holder queries need balance histories of every address by time (native, ERC-20, NFT holders, "
        "Stars Arena), which this node does not index",
}


def extra_operations() -> list[Operation]:
    """Routes served beyond the two documents: the legacy /v1/avg_tps/{chainId} and the deprecated
    /v1/teleporter/*, EVM (/v1/chains/allBlocks, …) and /v1/rpcUsageMetrics routes, and the
    download of an export operation's file."""
    return (evm_metrics.legacy_operations() + icm.deprecated_operations() + deprecated_evm.deprecated_operations()
            + usage.deprecated_operations() + export_routes.download_operations())

# The hosted service's routes that belong to an account (its webhooks, notifications), including
# the deprecated ones the SDKs still call: they have no meaning on a local node.
_ACCOUNT_BOUND = (
    (re.compile(r"/v1/webhooks(:[^/]*|/.*)?\Z", re.IGNORECASE), "webhooks"),
    (re.compile(r"/v1/notifications(/.*)?\Z", re.IGNORECASE), "notifications"),
)


def account_bound(path: str) -> str | None:
    """The feature an account-bound path belongs to, or None."""
    for pattern, feature in _ACCOUNT_BOUND:
        if pattern.match(path):
            return feature
    return None
