"""`GET /v1/health-check` and `GET /v1/live-check`, as the hosted service's @nestjs/terminus checks.

Indicators: `database` (the node's LevelDB is open) and, for the health check, `chains` (every
chain bootstrapped and none failed to start, as /ext/health judges). All up: 200
`{status: "ok", info, error: {}, details}`. One down: terminus answers 503 with the same shape,
`status: "error"` and the failing indicator under `error`.
"""

from __future__ import annotations

from typing import Any

from .context import RequestContext
from .errors import ApiError


class HealthDown(ApiError):
    """A failed check: 503 whose body is the terminus result, not an error body."""

    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__(503, "Service Unavailable")
        self.result = result


def _result(indicators: dict[str, bool]) -> dict[str, Any]:
    details = {name: {"status": "up" if up else "down"} for name, up in indicators.items()}
    info = {k: v for k, v in details.items() if v["status"] == "up"}
    error = {k: v for k, v in details.items() if v["status"] == "down"}
    result = {"status": "error" if error else "ok", "info": info, "error": error, "details": details}
    if error:
        raise HealthDown(result)
    return result


def health_check(ctx: RequestContext) -> dict[str, Any]:
    node = ctx.node
    chains_up = all(c.is_bootstrapped() for c in node.chains.values()) and not node.chain_manager.health_checks()
    return _result({"database": node.store is not None, "chains": chains_up})


def live_check(ctx: RequestContext) -> dict[str, Any]:
    return _result({"database": ctx.node.store is not None})
