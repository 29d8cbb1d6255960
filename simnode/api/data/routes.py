"""Which handler serves which operation of the two documents, and which routes do not exist locally.

A route of the documents without a handler here answers a JSON 404 saying this node does not
serve it yet; `GET /api-json` lists only the routes that have a handler.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import balances, chains, health, primary_routes
from .context import RequestContext

Handler = Callable[[RequestContext], Any]  # returns the JSON body (or an awaitable of it)

HANDLERS: dict[tuple[str, str], Handler] = {
    ("GET", "/v1/health-check"): health.health_check,
    ("GET", "/v1/live-check"): health.live_check,
    ("GET", "/v1/chains"): chains.list_chains,
    ("GET", "/v1/chains/{chainId}"): chains.get_chain,
    ("GET", "/v1/chains/{chainId}/addresses/{address}/balances:getNative"): balances.get_native,
    **primary_routes.ROUTES,
}

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
