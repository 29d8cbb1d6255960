"""The Data API's usage routes, from the node's own request log (simnode/api/request_log.py):

    GET /v1/apiLogs                          the logged calls, newest first, paged
    GET /v1/apiUsageMetrics                  Data API requests and JSON-RPC calls per time bucket
    GET /v1/subnetRpcUsageMetrics            JSON-RPC calls to the L1 chains (not P, X or C)
    GET /v1/rpcUsageMetrics                  (deprecated, chainkit's getRpcUsageMetrics) every JSON-RPC call
    GET /v1/primaryNetworkRpcUsageMetrics    JSON-RPC calls to the P-, X- and C-Chain and node APIs

Whose calls: the organisation is this node (`orgId` is its node ID; another is a 404). A request
made with an API key sees the calls made with that key; one without a key sees every call (the
node's operator). `apiKeyId` narrows to one key (its ID, a UUID derived from the key; the
anonymous key has one too). The log keeps the newest request_log.MAX_ENTRIES calls.

Time: `startTimestamp` is rounded down to 0:00 UTC of its day and the range runs to the end of
`endTimestamp`'s day, as the document says; without them it is everything the log holds. A bucket
(`timeInterval`, `daily` by default; weeks start on Monday, months on the 1st, UTC) is listed when
it holds a call, oldest first; with `groupBy`, a bucket has one value per group, ordered by group
value, else one value grouped by "None". Per value: totalRequests, requestsPerSecond (over the
bucket's length), successRatePercent (answers below 400), medianResponseTimeMsecs, invalidRequests
(4xx answers), apiCreditsUsed and apiCreditsWasted (credits of the 4xx answers): a Data/Metrics API
call costs its route's compute units (the document's `x-execution-weight`, at the hosted APIs'
published unit values); this node knows no unit values for JSON-RPC methods, so an RPC call costs 0.
Nothing here has a rate-limit bypass token: grouping by `rlBypassToken` gives one group "", and the
`rlBypassApiToken` filter matches nothing. Clients here have no known country or continent: "XX".
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from ...formats.ids import ZERO_ID, id_to_str
from ..request_log import RPC, LoggedCall, key_alias, key_id, request_log
from .context import RequestContext
from .errors import bad_request, not_found
from .resolve import evm_chain_id_of
from .spec import DATA as DATA_API
from .spec import METRICS, Operation, document, make_operation

DAY = 86_400
# the hosted APIs' compute units per execution weight (developers.avacloud.io, rate limits)
_UNITS = {DATA_API: {"free": 1, "small": 10, "medium": 20, "large": 50, "xl": 100, "xxl": 200},
          METRICS: {"free": 1, "small": 20, "medium": 100, "large": 500, "xl": 1000, "xxl": 3000}}
UNKNOWN_PLACE = "XX"
_INTERVALS = {"minute": 60, "hourly": 3600, "daily": DAY, "weekly": 7 * DAY}


def api_credits(op: Operation) -> int:
    """The compute units a call of the operation costs (0 for one the documents weigh not)."""
    return _UNITS[op.api].get(op.weight, 0)


# ------------------------------------------------------------------------------ whose calls


def _org(ctx: RequestContext) -> str:
    org = ctx.node.node_id_str
    wanted = ctx.params.get("orgId")
    if wanted is not None and wanted != org:
        raise not_found(f"organization {wanted} is not this node's (its organization ID is {org})")
    return org


def _field_is(field: str, value: Any) -> Callable[[LoggedCall], bool]:
    return lambda c: getattr(c, field) == value


def _place_is_unknown(place: Any) -> Callable[[LoggedCall], bool]:
    """Where a call came from is not known here (no GeoIP): only the unknown place matches."""
    return lambda c: place.upper() == UNKNOWN_PLACE


def _calls(ctx: RequestContext, keep: Callable[[LoggedCall], bool]) -> list[LoggedCall]:
    """The caller's calls in the time range that `keep` accepts and the filters match, oldest first."""
    p = ctx.params
    lo, hi = _range(ctx)
    own = ctx.caller_key
    filters: list[Callable[[LoggedCall], bool]] = []
    if own is not None:
        filters.append(lambda c: c.key == own)
    if p.get("apiKeyId") is not None:
        api_key_id = p["apiKeyId"]
        filters.append(lambda c: key_id(c.key) == api_key_id)
    for name, field in (("chainId", "chain_id"), ("requestPath", "path"), ("rpcMethod", "rpc_method"),
                        ("requestType", "request_type")):
        if p.get(name) is not None:
            filters.append(_field_is(field, p[name]))
    if p.get("responseCode") is not None:
        code = p["responseCode"]
        filters.append(lambda c: str(c.status) == code)
    if p.get("rlBypassApiToken") is not None:
        filters.append(lambda c: False)
    for name in ("country", "continent"):
        if p.get(name) is not None:
            filters.append(_place_is_unknown(p[name]))
    if p.get("userAgent") is not None:
        agent = p["userAgent"]
        filters.append(lambda c: c.user_agent == agent)
    return [c for c in request_log(ctx.node).calls()
            if (lo is None or c.time_ms >= lo) and (hi is None or c.time_ms < hi)
            and keep(c) and all(f(c) for f in filters)]


def _range(ctx: RequestContext) -> tuple[int | None, int | None]:
    """[start of startTimestamp's day, end of endTimestamp's day) in milliseconds."""
    start, end = ctx.params.get("startTimestamp"), ctx.params.get("endTimestamp")
    if start is not None and end is not None and start > end:
        raise bad_request("startTimestamp must not be greater than endTimestamp")
    lo = None if start is None else start // DAY * DAY * 1000
    hi = None if end is None else (end // DAY + 1) * DAY * 1000
    return lo, hi


# ------------------------------------------------------------------------------ buckets


def _bucket(seconds: int, interval: str) -> tuple[int, int]:
    """(start, length) in seconds of the bucket holding `seconds`."""
    if interval in ("minute", "hourly", "daily"):
        size = _INTERVALS[interval]
        return seconds // size * size, size
    day = datetime.fromtimestamp(seconds // DAY * DAY, UTC)
    if interval == "weekly":
        monday = day - timedelta(days=day.weekday())
        return int(monday.timestamp()), 7 * DAY
    first = day.replace(day=1)
    following = (first + timedelta(days=32)).replace(day=1)
    return int(first.timestamp()), int((following - first).total_seconds())


def _value(calls: list[LoggedCall], length: int, grouped_by: str, group: Any) -> dict[str, Any]:
    total = len(calls)
    invalid = [c for c in calls if 400 <= c.status < 500]
    body: dict[str, Any] = {
        "groupedBy": grouped_by, "totalRequests": total, "requestsPerSecond": total / length,
        "successRatePercent": 100 * sum(1 for c in calls if c.status < 400) / total,
        "medianResponseTimeMsecs": round(statistics.median(c.duration_ms for c in calls), 3),
        "invalidRequests": len(invalid), "apiCreditsUsed": sum(c.credits for c in calls),
        "apiCreditsWasted": sum(c.credits for c in invalid)}
    if group is not None:
        body["groupValue"] = group
    return body


def _series(calls: Iterable[LoggedCall], interval: str, group_by: str | None,
            group_of: Callable[[LoggedCall, str], Any]) -> list[dict[str, Any]]:
    buckets: dict[tuple[int, int], dict[Any, list[LoggedCall]]] = {}
    for c in calls:
        groups = buckets.setdefault(_bucket(c.time_ms // 1000, interval), {})
        groups.setdefault(None if group_by is None else group_of(c, group_by), []).append(c)
    return [{"timestamp": start, "values": [_value(groups[g], length, group_by or "None", g)
                                            for g in sorted(groups, key=lambda g: (str(type(g)), g))]}
            for (start, length), groups in sorted(buckets.items())]


def _group_of(c: LoggedCall, by: str) -> Any:
    if by == "responseCode":
        return c.status
    if by == "apiKeyId":
        return key_id(c.key)
    if by == "requestType":
        return c.request_type
    if by == "requestPath":
        return c.path
    if by in ("country", "continent"):
        return UNKNOWN_PLACE
    if by == "userAgent":
        return c.user_agent
    if by == "rlBypassToken":
        return ""
    return getattr(c, {"chainId": "chain_id", "rpcMethod": "rpc_method"}[by]) or ""


# ------------------------------------------------------------------------------ routes


def api_usage_metrics(ctx: RequestContext) -> dict[str, Any]:
    org = _org(ctx)
    interval = ctx.params.get("timeInterval") or "daily"
    calls = _calls(ctx, lambda c: True)
    return {"aggregateDuration": interval, "orgId": org,
            "metrics": _series(calls, interval, ctx.params.get("groupBy"), _group_of)}


def api_logs(ctx: RequestContext) -> dict[str, Any]:
    org = _org(ctx)
    after = ctx.cursor  # (seq, part) of the last call of the previous page
    if after is not None and not (isinstance(after, list) and len(after) == 2 and all(type(v) is int for v in after)):
        raise bad_request("pageToken is not a page token of this list")
    calls = [c for c in reversed(_calls(ctx, lambda c: True)) if after is None or [c.seq, c.part] < after]
    size = ctx.params["pageSize"]
    page = calls[:size]
    more = [page[-1].seq, page[-1].part] if len(calls) > size else None
    return ctx.paged({"orgId": org, "logs": [_log_json(c, org) for c in page]}, more)


def _log_json(c: LoggedCall, org: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "orgId": org, "logId": f"{c.seq:016x}-{c.part:04x}-{c.time_ms:x}", "eventTimestamp": c.time_ms // 1000,
        "apiKeyId": key_id(c.key), "apiKeyAlias": key_alias(c.key), "hostRegion": "local",
        "requestType": c.request_type, "requestPath": c.path, "apiCreditsConsumed": c.credits,
        "requestDurationMsecs": round(c.duration_ms, 3), "responseCode": c.status,
        "metadata": {"ipAddress": c.ip, "host": c.host, "userAgent": c.user_agent}}
    if c.chain_id is not None:
        body["chainId"] = c.chain_id
    if c.rpc_method is not None:
        body["rpcMethod"] = c.rpc_method
    return body


def _primary_chain_ids(ctx: RequestContext) -> set[str]:
    """How the request log names the primary network's chains (and no chain: the node APIs)."""
    names: set[str] = set()
    for chain in ctx.node.chains.values():
        if getattr(chain, "subnet_id", ZERO_ID) == ZERO_ID:
            names.add(id_to_str(chain.chain_id))
            if getattr(chain, "evm_chain_id", None) is not None:
                names.add(str(evm_chain_id_of(ctx.node, chain)))
    return names


def _rpc_metrics(ctx: RequestContext, keep: Callable[[LoggedCall], bool]) -> tuple[str, list[dict[str, Any]]]:
    interval = ctx.params.get("timeInterval") or "daily"
    calls = _calls(ctx, lambda c: c.request_type == RPC and keep(c))
    return interval, _series(calls, interval, ctx.params.get("groupBy"), _group_of)


def subnet_rpc_usage_metrics(ctx: RequestContext) -> dict[str, Any]:
    primary = _primary_chain_ids(ctx)
    interval, metrics = _rpc_metrics(ctx, lambda c: c.chain_id is not None and c.chain_id not in primary)
    return {"aggregateDuration": interval, "metrics": metrics, "chainId": ctx.params.get("chainId", "")}


def rpc_usage_metrics(ctx: RequestContext) -> dict[str, Any]:
    interval, metrics = _rpc_metrics(ctx, lambda c: True)
    return {"aggregateDuration": interval, "metrics": metrics, "chainId": ctx.params.get("chainId", "")}


def primary_network_rpc_usage_metrics(ctx: RequestContext) -> dict[str, Any]:
    primary = _primary_chain_ids(ctx)
    interval, metrics = _rpc_metrics(ctx, lambda c: c.chain_id is None or c.chain_id in primary)
    network = "mainnet" if ctx.params["network"] == "mainnet" else "testnet"
    return {"aggregateDuration": interval, "metrics": metrics, "network": network}


# deprecated route -> (the current route whose parameters it has, its operationId)
DEPRECATED_ROUTES = {"/v1/rpcUsageMetrics": ("/v1/subnetRpcUsageMetrics", "getRpcUsageMetrics")}


def deprecated_operations() -> list[Operation]:
    """`/v1/rpcUsageMetrics`, which the current document dropped: subnetRpcUsageMetrics's parameters."""
    doc = document(DATA_API)
    return [make_operation(DATA_API, "get", route, {**doc["paths"][current]["get"], "operationId": operation_id,
                                                    "deprecated": True}, doc)
            for route, (current, operation_id) in DEPRECATED_ROUTES.items()]


ROUTES: dict[tuple[str, str], Callable[[RequestContext], Any]] = {
    ("GET", "/v1/apiUsageMetrics"): api_usage_metrics,
    ("GET", "/v1/apiLogs"): api_logs,
    ("GET", "/v1/subnetRpcUsageMetrics"): subnet_rpc_usage_metrics,
    ("GET", "/v1/rpcUsageMetrics"): rpc_usage_metrics,
    ("GET", "/v1/primaryNetworkRpcUsageMetrics"): primary_network_rpc_usage_metrics,
}
