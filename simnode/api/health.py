"""`/ext/health` (GET, and POST health.health/readiness/liveness): the node's own checks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiohttp import web

from ..formats.ids import id_to_str
from ..formats.jsonnum import format_rfc3339
from ..rpc.jsonrpc import GorillaService
from .server import serve_gorilla

if TYPE_CHECKING:
    from .node_services import NodeServices


def report(node: NodeServices) -> dict[str, Any]:
    ts = format_rfc3339(node.clock.now())
    checks = {}
    for chain in node.chains.values():
        alias = (chain.default_aliases or (id_to_str(chain.chain_id),))[0]  # an L1 chain's alias is its ID
        checks[alias] = {"message": {"bootstrapped": chain.is_bootstrapped()}, "timestamp": ts,
                         "duration": 0, "contiguousFailures": 0, "timeOfFirstFailure": None}
    healthy = all(c["message"]["bootstrapped"] for c in checks.values())
    # chains that failed to start (AvalancheGo registers a failing check under the chain's alias)
    for alias, error in node.chain_manager.health_checks().items():
        checks[alias] = {"error": error, "timestamp": ts, "duration": 0, "contiguousFailures": 1,
                         "timeOfFirstFailure": ts}
        healthy = False
    return {"checks": checks, "healthy": healthy}


def health_endpoints(node: NodeServices) -> dict[str, Any]:
    def health(_: dict[str, Any]) -> dict[str, Any]:
        return report(node)

    service = GorillaService({"health": {"health": health, "readiness": health, "liveness": health}})

    async def endpoint(request: web.Request) -> web.StreamResponse:
        if request.method == "GET":
            body = report(node)
            return web.json_response(body, status=200 if body["healthy"] else 503)
        return await serve_gorilla(service, request)

    return {"health": endpoint, "health/readiness": endpoint, "health/liveness": endpoint}
