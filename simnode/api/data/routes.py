"""Which handler serves which operation of the two documents, and which routes do not exist locally.

A route of the documents without a handler here answers a JSON 404 saying this node does not
serve it yet; `GET /api-json` lists only the routes that have a handler.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import balances, chains, evm_metrics, health, staking_metrics
from .context import RequestContext
from .spec import Operation

Handler = Callable[[RequestContext], Any]  # returns the JSON body (or an awaitable of it)

HANDLERS: dict[tuple[str, str], Handler] = {
    ("GET", "/v1/health-check"): health.health_check,
    ("GET", "/v1/live-check"): health.live_check,
    ("GET", "/v1/chains"): chains.list_chains,
    ("GET", "/v1/chains/{chainId}"): chains.get_chain,
    ("GET", "/v1/chains/{chainId}/addresses/{address}/balances:getNative"): balances.get_native,
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
}

_NO_ICM_INDEX = "ICM message counts need the index of ICM messages, which this simnode does not keep yet"

# Routes of the documents this node does not serve, and why: a 404 saying so.
NOT_SERVED: dict[tuple[str, str], str] = {
    ("GET", "/v2/icm/timeseries"): _NO_ICM_INDEX,
    ("GET", "/v2/icm/summary"): _NO_ICM_INDEX,
    ("GET", "/v2/chains/43114/btcb/bridged:getAddresses"):
        "BTC.b bridge balances exist only on the Avalanche mainnet C-Chain (43114); this node runs no BTC.b bridge",
    ("POST", "/v2/lookingGlass/compositeQuery"):
        "composite holder queries need balance histories of every address by time (native, ERC-20, NFT holders, "
        "Stars Arena), which this node does not index",
}


def extra_operations() -> list[Operation]:
    """Routes served beyond the two documents (the legacy /v1/avg_tps/{chainId})."""
    return evm_metrics.legacy_operations()

# The hosted service's routes that belong to an account (its API keys, webhooks, usage and export
# jobs), including the deprecated ones the SDKs still call: they have no meaning on a local node.
_ACCOUNT_BOUND = (
    (re.compile(r"/v1/webhooks(:[^/]*|/.*)?\Z", re.IGNORECASE), "webhooks"),
    (re.compile(r"/v1/(apiLogs|apiUsageMetrics)\Z", re.IGNORECASE), "Data API usage metrics"),
    (re.compile(r"/v1/(rpc|subnetRpc|primaryNetworkRpc)UsageMetrics\Z", re.IGNORECASE), "RPC usage metrics"),
    (re.compile(r"/v1/operations/.+\Z", re.IGNORECASE), "export operations"),
    (re.compile(r"/v1/notifications(/.*)?\Z", re.IGNORECASE), "notifications"),
)


def account_bound(path: str) -> str | None:
    """The feature an account-bound path belongs to, or None."""
    for pattern, feature in _ACCOUNT_BOUND:
        if pattern.match(path):
            return feature
    return None
