"""DataAPI: answers every request under /v1 and /v2 and the two OpenAPI documents.

One request, in NestJS's order: an account-bound route is a 404 saying it does not exist locally;
route matching (an unknown path or method: 404 `Cannot GET /v1/foo`); the rate-limit guard (when
`--data-api-rate-limit` is set); parameter validation (path, query, the JSON body, the page
token); then the handler, whose result is sent as JSON with the operation's success status and
without `null` members (an optional field is omitted, never null; context.NULL is kept as null),
or, when it returns None, with an empty body (an operation whose answer has no content). A route of
the documents that this node does not serve yet validates its parameters, then answers a 404
saying so; one that routes.NOT_SERVED names answers its 404 saying why before any validation.
Every 4xx/5xx is a NestJS error body; an unexpected exception is logged and answered 500 without
details.

Documents: `GET /api-json` is the Data API document and `GET /api-json/metrics` the Metrics API
document, each the real one with `servers` pointing at this node and only the routes this node
serves under `paths`.
"""

from __future__ import annotations

import copy
import inspect
import logging
from typing import TYPE_CHECKING, Any

import orjson
from aiohttp import web

from ..request_log import CREDITS, api_key
from .context import NULL, RequestContext
from .errors import ApiError, error_body
from .health import HealthDown
from .pages import SignedPageTokens, UuidPageTokens
from .params import validate_body, validate_params
from .ratelimit import THROTTLED, RateLimiter
from .resolve import blockchain_param
from .routes import HANDLERS, NOT_SERVED, account_bound, extra_operations
from .spec import DATA, METRICS, RouteTable, document, document_operations, split_path
from .usage import api_credits

if TYPE_CHECKING:
    from ..node_services import NodeServices

log = logging.getLogger("simnode.dataapi")

JSON_TYPE = "application/json"
DOCUMENT_PATHS = {"/api-json": DATA, "/api-json/metrics": METRICS}
API_KEY_HEADERS = ("x-glacier-api-key", "x-data-api-key")


def drop_none(value: Any) -> Any:
    """A copy of a JSON value without the object keys whose value is None (NULL becomes null)."""
    if isinstance(value, dict):
        return {k: drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_none(v) for v in value]
    return None if value is NULL else value


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> web.Response:
    resp = web.Response(status=status, body=orjson.dumps(body), content_type=JSON_TYPE, charset="utf-8")
    if headers:
        resp.headers.update(headers)
    return resp


class DataAPI:
    def __init__(self, node: NodeServices) -> None:
        self.node = node
        secret = node.config.seed.to_bytes(8, "big") + node.config.network_id.to_bytes(4, "big")
        self.signed_tokens = SignedPageTokens(secret)
        self.uuid_tokens = UuidPageTokens(node.clock.now_ms, secret)
        limit = node.config.data_api_rate_limit
        self.limiter = RateLimiter(limit) if limit else None
        self._routes: RouteTable | None = None
        self._special = {"blockchainId": blockchain_param(node)}
        self._served_documents: dict[str, dict[str, Any]] = {}
        self.memo: dict[str, Any] = {}

    @property
    def routes(self) -> RouteTable:
        if self._routes is None:
            self._routes = RouteTable(document_operations(DATA) + document_operations(METRICS) + extra_operations())
        return self._routes

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.rel_url.raw_path
        if path in DOCUMENT_PATHS and request.method in ("GET", "HEAD"):
            return self._document(DOCUMENT_PATHS[path], request)
        array_messages = False
        headers: dict[str, str] = {}
        operation = "-"
        try:
            feature = account_bound(path.rstrip("/"))
            if feature is not None:
                raise ApiError(404, f"{request.method} {path} is an account-bound route of the hosted Data API "
                                    f"({feature}): it does not exist on a local node")
            method = "GET" if request.method == "HEAD" else request.method
            found = self.routes.match(method, split_path(path))
            if found is None:
                raise ApiError(404, f"Cannot {request.method} {request.raw_path}")
            op, path_params = found
            array_messages, operation = op.api == METRICS, op.operation_id
            request[CREDITS] = api_credits(op)
            if self.limiter is not None:
                verdict = self.limiter.hit(self._tracker(request))
                headers = verdict.headers
                if not verdict.allowed:
                    raise ApiError(429, THROTTLED)
            if op.key in NOT_SERVED:  # whatever its parameters say
                raise ApiError(404, f"{op.method} {op.template}: {NOT_SERVED[op.key]}")
            params = validate_params(op.params, path_params, request.query, self._special)
            body = validate_body(op.body, await self._json_body(request)) if op.body is not None else None
            tokens = self.uuid_tokens if op.api == METRICS else self.signed_tokens
            ctx = RequestContext.read(self.node, op, params, body, self._base_url(request), tokens, self.memo)
            ctx.caller_key = api_key(request.headers)
            handler = HANDLERS.get(op.key)
            if handler is None:
                raise ApiError(404, f"{op.method} {op.template} is a route of the {op.api.title()} API that "
                                    "this simnode does not serve yet")
            result = handler(ctx)
            if inspect.isawaitable(result):
                result = await result
            if isinstance(result, web.StreamResponse):  # a file (an export's CSV)
                return result
            if result is None:  # an operation without a response body (NestJS's void handler)
                return web.Response(status=op.success_status, headers=headers)
            return json_response(op.success_status, drop_none(result), headers)
        except HealthDown as down:
            return json_response(503, down.result, headers)
        except ApiError as exc:
            return json_response(exc.status, error_body(exc.status, exc.message, array_messages), headers)
        except Exception:
            log.exception("Data API request failed: %s %s (%s)", request.method, request.raw_path, operation)
            return json_response(500, error_body(500, "Internal server error", array_messages), headers)

    # ----------------------------------------------------------------------------- request parts

    @staticmethod
    def _tracker(request: web.Request) -> str:
        for name in API_KEY_HEADERS:
            key = request.headers.get(name)
            if key:
                return "key:" + key
        return "ip:" + (request.remote or "")

    @staticmethod
    def _base_url(request: web.Request) -> str:
        return f"{request.scheme}://{request.host}"

    async def _json_body(self, request: web.Request) -> Any:
        """The JSON body; `{}` when the request is not JSON (as express's JSON parser leaves it)."""
        limit = self.node.config.http_body_limit
        if request.content_length is not None and request.content_length > limit:
            raise ApiError(413, "request entity too large")
        media = (request.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        if media != JSON_TYPE and not media.endswith("+json"):
            return {}
        raw = await request.read()
        if len(raw) > limit:
            raise ApiError(413, "request entity too large")
        if not raw.strip():
            return {}
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise ApiError(400, f"the request body is not valid JSON: {exc}") from None

    # ----------------------------------------------------------------------------- documents

    def _document(self, api: str, request: web.Request) -> web.Response:
        doc = self._served_documents.get(api)
        if doc is None:
            doc = self._served_documents[api] = served_document(api)
        body = orjson.dumps({**doc, "servers": [{"url": self._base_url(request)}]})
        return web.Response(status=200, body=body, content_type=JSON_TYPE, charset="utf-8")


def served_document(api: str) -> dict[str, Any]:
    """The real document with only the routes this node serves (its `servers` is set per request:
    the address the client reached the node at)."""
    doc = copy.copy(document(api))
    paths: dict[str, Any] = {}
    for template, item in document(api)["paths"].items():
        ops = {m: op for m, op in item.items() if (m.upper(), template) in HANDLERS}
        if ops:
            paths[template] = ops
    doc["paths"] = paths
    return doc
