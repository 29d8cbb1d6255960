"""What the Metrics API's series routes share: the index they read, their timestamp bounds and
their points as JSON."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...index.metrics.query import Point
from .context import RequestContext
from .errors import bad_request, unavailable

MAX_JSON_INT = 2**64 - 1  # orjson's widest integer; a larger wei sum goes out as the nearest double


def index_store(ctx: RequestContext) -> Any:
    """The store holding the metric rows (503 when the node runs without an index)."""
    if ctx.node.indexer is None:
        raise unavailable("this node runs with --no-index: the Metrics API has no data (run `simnode reindex` "
                          "with the node stopped, then start it without --no-index)")
    return ctx.store


def time_bounds(ctx: RequestContext, start_name: str = "startTimestamp",
                end_name: str = "endTimestamp") -> tuple[int | None, int | None]:
    start, end = ctx.params.get(start_name), ctx.params.get(end_name)
    if start is not None and end is not None and start > end:
        raise bad_request(f"{start_name} must not be greater than {end_name}")
    return start, end


def json_number(value: int | float) -> int | float:
    return float(value) if isinstance(value, int) and value > MAX_JSON_INT else value


def points_json(points: Iterable[Point]) -> list[dict[str, Any]]:
    return [{"value": value if type(value) is not int or value <= MAX_JSON_INT else float(value), "timestamp": t}
            for t, value in points]
