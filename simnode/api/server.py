"""The HTTP server: one aiohttp app, routes resolved per request so aliases apply at once.

Paths (node-api.md §1.1): /ext/info, /ext/admin, /ext/health, /ext/simnode,
/ext/bc/<chain ID or alias>[/rpc|/ws|/avax|/admin|...], and endpoint aliases such as
/ext/X, /ext/P, /ext/platform, /ext/avm plus any added by admin.alias. The Data and Metrics
APIs (/v1/..., /v2/..., /api-json) go to api/data, imported on the first such request; the
explorer, /openapi/*.json and /docs to api/explorer.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web

from ..rpc.jsonrpc import GETH_MEDIA_TYPES, EthService, GorillaService
from .explorer import add_routes as add_explorer_routes
from .request_log import log_middleware

if TYPE_CHECKING:
    from .node_services import NodeServices

log = logging.getLogger("simnode.http")

NOT_FOUND = b"404 page not found\n"
NODE_KEY: web.AppKey[NodeServices] = web.AppKey("node")
DATA_API_PREFIXES = ("/v1/", "/v2/", "/api-json")


def is_data_api_path(path: str) -> bool:
    return path.startswith(DATA_API_PREFIXES) or path in ("/v1", "/v2")


def _text(status: int, body: str | bytes) -> web.Response:
    return web.Response(status=status, body=body if isinstance(body, bytes) else body.encode(),
                        content_type="text/plain", charset="utf-8")


async def serve_gorilla(service: GorillaService, request: web.Request) -> web.Response:
    body = await request.read() if request.method == "POST" else b""
    reply = await service.handle(request.method, request.headers.get("Content-Type"), body)
    resp = web.Response(status=reply.status, body=reply.body)
    if reply.content_type:
        resp.headers["Content-Type"] = reply.content_type
    if reply.status == 200:
        resp.headers["X-Content-Type-Options"] = "nosniff"
    return resp


async def serve_eth_http(service: EthService, request: web.Request, body_limit: int) -> web.StreamResponse:
    if request.method == "GET":
        if not request.query_string and not request.can_read_body:
            return web.Response(status=200)
        return _text(405, "method not allowed\n")
    if request.method in ("PUT", "DELETE"):
        return _text(405, "method not allowed\n")
    if request.content_length is not None and request.content_length > body_limit:
        return _text(413, f"content length too large ({request.content_length}>{body_limit})\n")
    media = (request.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
    if media not in GETH_MEDIA_TYPES:
        return _text(415, "invalid content type, only application/json is supported\n")
    body = await request.read()
    if len(body) > body_limit:
        return _text(413, f"content length too large ({len(body)}>{body_limit})\n")
    out = await service.handle_body(body)
    return web.Response(status=200, body=out or b"", content_type="application/json")


Endpoint = GorillaService | EthService | Callable[[web.Request], Awaitable[web.StreamResponse]]


class Router:
    """Maps a request path to an endpoint, consulting the node's live alias tables."""

    def __init__(self, node: NodeServices) -> None:
        self.node = node

    def resolve(self, path: str) -> Endpoint | None:
        if not path.startswith("/ext/"):
            return None
        rest = path[len("/ext/"):].rstrip("/")
        node = self.node
        # endpoint aliases: /ext/X -> bc/X, plus admin.alias ones
        head, _, tail = rest.partition("/")
        target = node.endpoint_aliases.get(head)
        if target is not None:
            rest = target + ("/" + tail if tail else "")
        if rest in node.node_endpoints:
            return node.node_endpoints[rest]
        if rest.startswith("bc/"):
            chain_ref, _, sub = rest[3:].partition("/")
            chain = node.chain_by_alias(chain_ref)
            if chain is None:
                return None
            if not chain.is_bootstrapped():
                return _not_bootstrapped
            return node.chain_endpoints(chain).get("/" + sub if sub else "")
        return None


async def _not_bootstrapped(_: web.Request) -> web.Response:
    return _text(503, "API call rejected because chain is not done bootstrapping\n")


@web.middleware
async def _common_headers(request: web.Request,
                          handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    origin = request.headers.get("Origin")
    if request.method == "OPTIONS":
        resp: web.StreamResponse = web.Response(status=204)
        if origin:
            resp.headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
            resp.headers["Access-Control-Allow-Headers"] = request.headers.get(
                "Access-Control-Request-Headers", "Content-Type")
            resp.headers["Access-Control-Max-Age"] = "600"
    else:
        try:
            resp = await handler(request)
        except web.HTTPException as exc:
            resp = exc
    node = request.app[NODE_KEY]
    if origin and not resp.prepared:
        resp.headers["Access-Control-Allow-Origin"] = origin
        resp.headers["Access-Control-Allow-Credentials"] = "true"
        resp.headers["Vary"] = "Origin"
    if not resp.prepared:
        resp.headers["node-id"] = node.node_id_str
    return resp


def build_app(node: NodeServices) -> web.Application:
    router = Router(node)
    # aiohttp's own cap is set high; the node applies its body limit per request.
    app = web.Application(middlewares=[_common_headers, log_middleware(node)],
                          client_max_size=max(node.config.http_body_limit, 1 << 20) * 8)
    app[NODE_KEY] = node
    data_api: list[Any] = []  # the DataAPI, made on the first Data/Metrics API request

    async def dispatch(request: web.Request) -> web.StreamResponse:
        if is_data_api_path(request.path):
            if not data_api:
                from .data.app import DataAPI
                data_api.append(DataAPI(node))
            return await data_api[0].handle(request)
        if request.path == "/aggregate-signatures":  # the self-hosted icm-services aggregator's route
            from .data.aggregator import icm_services_aggregate
            return await icm_services_aggregate(node, request)
        endpoint = router.resolve(request.path)
        if endpoint is None:
            return _text(404, NOT_FOUND)
        if isinstance(endpoint, GorillaService):
            if request.content_length is not None and request.content_length > node.config.http_body_limit:
                return _text(413, f"content length too large "
                                  f"({request.content_length}>{node.config.http_body_limit})\n")
            return await serve_gorilla(endpoint, request)
        if isinstance(endpoint, EthService):
            return await serve_eth_http(endpoint, request, node.config.http_body_limit)
        return await endpoint(request)

    add_explorer_routes(app)
    app.router.add_route("*", "/{tail:.*}", dispatch)
    return app


def disabled_endpoint(what: str, flag: str) -> Callable[[web.Request], Awaitable[web.Response]]:
    """An endpoint that is off: 404 with the flag that turns it on."""

    async def handler(_: web.Request) -> web.Response:
        return _text(404, f"404 page not found: the {what} is disabled; start the node with {flag}\n")

    return handler

