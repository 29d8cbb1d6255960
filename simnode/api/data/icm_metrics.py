"""The Metrics API's ICM routes, from the index's ICM counts (simnode/index/icm): messages sent,
by the chain pair that sent and received them.

    GET /v2/icm/timeseries   count per bucket (hour, day, week or month; day by default) in
                             [startTimestamp, endTimestamp), newest first, paged (UUID tokens)
    GET /v2/icm/summary      count over each rolling window ending at the node's clock

A message counts when its source chain accepts it (its SendCrossChainMessage), so only messages
sent by the node's own chains are counted. `srcBlockchainId`/`destBlockchainId` (CB58, or
0x-hex) keep one source or destination; `groupBy` keeps the pair's sides it names apart and adds
up the others; a side summed over (not grouped and not filtered) is the empty string in a point.
The summary is one result (a value per window), the filters' selection summed: `groupBy` cannot
split it. Blockchain IDs in answers are CB58. `network` names the running network.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ...formats.ids import id_to_str
from ...index.icm.query import counts, sent_between
from ...index.metrics import buckets
from ...index.metrics.query import WINDOWS
from .context import RequestContext
from .errors import bad_request
from .icm import blockchain_id
from .metric_common import index_store, time_bounds

FOREVER = 2**63


def _selection(ctx: RequestContext) -> tuple[bytes | None, bytes | None, bool, bool]:
    """(source filter, destination filter, group by source, group by destination)."""
    p = ctx.params
    source = blockchain_id("srcBlockchainId", p["srcBlockchainId"]) if p.get("srcBlockchainId") else None
    destination = blockchain_id("destBlockchainId", p["destBlockchainId"]) if p.get("destBlockchainId") else None
    group = (p.get("groupBy") or "").split(",")
    return source, destination, "srcBlockchainId" in group, "destBlockchainId" in group


def _side(chain: bytes, fixed: bytes | None, grouped: bool) -> str:
    return id_to_str(chain) if grouped or fixed is not None else ""


def _grouped(rows: list[tuple[Any, bytes, bytes, int]], source: bytes | None, destination: bytes | None,
             by_source: bool, by_destination: bool) -> dict[tuple[Any, str, str], int]:
    out: dict[tuple[Any, str, str], int] = defaultdict(int)
    for key, src, dst, count in rows:
        if (source is None or src == source) and (destination is None or dst == destination):
            out[(key, _side(src, source, by_source), _side(dst, destination, by_destination))] += count
    return out


def timeseries(ctx: RequestContext) -> dict[str, Any]:
    store = index_store(ctx)
    p = ctx.params
    interval = buckets.INTERVAL_NAMES[p.get("timeInterval") or "day"]
    start, end = time_bounds(ctx)
    source, destination, by_source, by_destination = _selection(ctx)
    rows = counts(store, interval, start or 0, FOREVER if end is None else end)
    points = sorted(_grouped(rows, source, destination, by_source, by_destination).items(), key=_order)
    cursor = ctx.cursor  # the order key of the last point of the previous page
    if cursor is not None:
        if not (isinstance(cursor, tuple) and len(cursor) == 3):
            raise bad_request("Invalid page token")
        points = [kv for kv in points if _order(kv) > cursor]
    size = p["pageSize"]
    page = points[:size]
    results = [{"value": count, "timestamp": t, "srcBlockchainId": src, "destBlockchainId": dst}
               for (t, src, dst), count in page]
    return ctx.paged({"results": results}, _order(page[-1]) if len(points) > size else None)


def _order(point: tuple[tuple[int, str, str], int]) -> tuple[int, str, str]:
    """Newest bucket first, then by source and destination."""
    (t, src, dst), _ = point
    return -t, src, dst


def summary(ctx: RequestContext) -> dict[str, Any]:
    store = index_store(ctx)
    source, destination, _, _ = _selection(ctx)
    now_ms = ctx.node.clock.now_ms()
    result = {}
    for name, seconds in WINDOWS:
        since = None if seconds is None else now_ms - seconds * 1000
        result[name] = sum(n for (src, dst), n in sent_between(store, since, now_ms + 1).items()
                           if (source is None or src == source) and (destination is None or dst == destination))
    return {"result": {**result, "srcBlockchainId": id_to_str(source) if source else "",
                       "destBlockchainId": id_to_str(destination) if destination else ""}}
