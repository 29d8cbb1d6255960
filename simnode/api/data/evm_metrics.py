"""Metrics API routes of the EVM chains, read from the index's metric rows (simnode/index/metrics):

    GET /v2/chains                                        the node's EVM chains (Chain)
    GET /v2/chains/{chainId}
    GET /v2/chains/{chainId}/metrics/{metric}             a time series (MetricsApiResponse)
    GET /v2/chains/{chainId}/rollingWindowMetrics/{metric}
    GET /v1/avg_tps/{chainId}                             the legacy daily avgTps series

`{chainId}` is an EVM chain of this node (its EVM chain ID, 43112 for the local C-Chain, or its
blockchain ID) or `total`, `mainnet`, `testnet`: all three name every EVM chain of the node
together (a local network answers to each name its clients may send). `timeInterval` defaults
to day; a day-only metric with another one is a 400. Points are bucket starts with
startTimestamp <= t < endTimestamp, newest first, `pageSize` a page (UUID page tokens, valid 24
hours). Rolling windows end at the node's clock (its virtual time, if it runs on one).

The legacy route (deprecated on the hosted service; its shape from the seed: `results`, `status`,
`lastRun`, `nextPageToken`) takes `from`/`to` (Unix seconds, as in its deprecated document) and
`pageToken`, and pages by LEGACY_PAGE points; `lastRun` is the time of the last indexed block.
"""

from __future__ import annotations

from typing import Any

from ...formats.ids import ZERO_ID, id_to_str
from ...index.metrics import buckets
from ...index.metrics.query import DAY_ONLY, latest_block_ms, metric_chains, rolling, series, union_series
from .context import RequestContext
from .errors import bad_request
from .metric_common import index_store, json_number, points_json, time_bounds
from .params import MAX_SAFE_INTEGER, decimal
from .resolve import evm_chain, evm_chain_id_of, evm_chains
from .spec import METRICS, Operation, document, make_operation

AGGREGATES = ("total", "mainnet", "testnet")
LEGACY_PAGE = 100
MAINNET_ID = 1


def metric_scope(ctx: RequestContext, ref: str) -> tuple[Any, list[bytes], bool]:
    """(store, the chains `{chainId}` names, whether they are taken together)."""
    store = index_store(ctx)
    if ref in AGGREGATES:
        return store, metric_chains(store), True
    return store, [evm_chain(ctx.node, ref).chain_id], False


# ------------------------------------------------------------------------------ chains


def _chain(ctx: RequestContext, chain: Any) -> dict[str, Any]:
    primary = chain.subnet_id == ZERO_ID
    return {
        "evmChainId": evm_chain_id_of(ctx.node, chain),
        "chainName": "c_chain" if primary else chain.name,
        "blockchainId": id_to_str(chain.chain_id),
        "subnetId": id_to_str(chain.subnet_id),
        "network": "mainnet" if ctx.node.config.network_id == MAINNET_ID else "testnet",
    }


def list_chains(ctx: RequestContext) -> dict[str, Any]:
    # `network` (mainnet, fuji or testnet) names the running network whatever its value
    return {"chains": [_chain(ctx, c) for c in evm_chains(ctx.node)]}


def get_chain(ctx: RequestContext) -> dict[str, Any]:
    return _chain(ctx, evm_chain(ctx.node, ctx.params["chainId"]))


# ------------------------------------------------------------------------------ series


def chain_metric(ctx: RequestContext) -> dict[str, Any]:
    p = ctx.params
    metric = p["metric"]
    interval = p.get("timeInterval") or "day"
    if metric in DAY_ONLY and interval != "day":
        raise bad_request(f"{metric} supports only timeInterval=day (metrics named cumulative*, avg* or max*, and "
                          f"contracts, deployers and feesPaid are daily)")
    start, end = time_bounds(ctx)
    store, chains, together = metric_scope(ctx, p["chainId"])
    code = buckets.INTERVAL_NAMES[interval]
    cursor = ctx.cursor
    if together:
        found = union_series(store, chains, metric, code, start, end, p["pageSize"], cursor)
    else:
        found = series(store, chains[0], metric, code, start, end, p["pageSize"], cursor)
    return ctx.paged({"results": points_json(found.points)}, found.next)


def rolling_metric(ctx: RequestContext) -> dict[str, Any]:
    store, chains, _ = metric_scope(ctx, ctx.params["chainId"])
    values = rolling(store, chains, ctx.params["metric"], ctx.node.clock.now_ms())
    return {"result": {name: json_number(v) for name, v in values.items()}}


# ------------------------------------------------------------------------------ legacy /v1/avg_tps


def _unix(ctx: RequestContext, name: str) -> int | None:
    text = ctx.params.get(name)
    if text is None or text == "":
        return None
    if not text.isascii() or not text.isdigit():
        raise bad_request(f"{name} must be a UNIX timestamp (seconds)")
    value = decimal(text, MAX_SAFE_INTEGER)  # the bound of the current routes' timestamps
    if value is None:
        raise bad_request(f"{name} must not be greater than {MAX_SAFE_INTEGER}")
    return value


def legacy_avg_tps(ctx: RequestContext) -> dict[str, Any]:
    start, end = _unix(ctx, "from"), _unix(ctx, "to")
    if start is not None and end is not None and start > end:
        raise bad_request("from must not be greater than to")
    ref = ctx.params["chainId"]
    if ref not in AGGREGATES and not (ref.isascii() and ref.isdigit()):
        raise bad_request("chainId must be a numeric EVM chain ID, 'testnet', 'mainnet' or 'total'")
    store, chains, together = metric_scope(ctx, ref)
    code = buckets.DAY
    if together:
        found = union_series(store, chains, "avgTps", code, start, end, LEGACY_PAGE, ctx.cursor)
    else:
        found = series(store, chains[0], "avgTps", code, start, end, LEGACY_PAGE, ctx.cursor)
    body: dict[str, Any] = {"results": points_json(found.points), "status": 200}
    last = latest_block_ms(store, chains)
    if last is not None:
        body["lastRun"] = last // 1000
    return ctx.paged(body, found.next)


_LEGACY_OPERATION = {
    "operationId": "getAvgTps",
    "deprecated": True,
    "parameters": [
        {"name": "chainId", "in": "path", "required": True, "schema": {"type": "string"}},
        {"name": "from", "in": "query", "required": False, "schema": {"type": "string"}},
        {"name": "to", "in": "query", "required": False, "schema": {"type": "string"}},
        {"name": "pageToken", "in": "query", "required": False, "schema": {"type": "string"}},
    ],
    "responses": {"200": {"description": "Successful response"}},
}


def legacy_operations() -> list[Operation]:
    """The legacy route, which the current Metrics API document no longer lists."""
    return [make_operation(METRICS, "get", "/v1/avg_tps/{chainId}", _LEGACY_OPERATION, document(METRICS))]

