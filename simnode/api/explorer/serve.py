"""The routes of the explorer, the OpenAPI documents and the docs page.

    /explorer/...             the explorer's pages: one HTML shell for every page route of
                              static/routes.json (the browser renders the page from the public
                              APIs); any other path under /explorer/ gets the same shell with a 404
                              status, which renders the explorer's not-found page
    /explorer/static/...      its scripts, styles and vendored libraries (static/vendor/)
    /openapi/data-api.json    the Data API and Metrics API documents, as GET /api-json serves them:
    /openapi/metrics-api.json the real documents with `servers` pointing at this node
    /docs                     a docs page for both documents, with "try it" against this node

Nothing here reads chain state: the pages fetch it in the browser, as any client would.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import orjson
from aiohttp import web

STATIC = Path(__file__).resolve().parent / "static"
HTML = "text/html"
# Own files are revalidated on every load (a 304 when unchanged), so an upgrade shows at once.
REVALIDATE = {"Cache-Control": "no-cache"}
DOCUMENTS = {"data-api": "data", "metrics-api": "metrics"}


@cache
def page_patterns() -> dict[str, re.Pattern[str]]:
    """The page routes of static/routes.json (templates with {param} parts) as regular expressions."""
    routes = json.loads((STATIC / "routes.json").read_text())
    return {name: re.compile("^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(template)) + "$")
            for name, template in routes.items()}


def page_of(path: str) -> str | None:
    for name, pattern in page_patterns().items():
        if pattern.match(path):
            return name
    return None


@cache
def shell() -> bytes:
    """index.html with the route table inlined (the browser's router reads it; no extra request)."""
    routes = (STATIC / "routes.json").read_text().strip()
    return (STATIC / "index.html").read_text().replace("{{ROUTES}}", routes).encode()


async def explorer_page(request: web.Request) -> web.Response:
    status = 200 if page_of(request.path) else 404
    return web.Response(status=status, body=shell(), content_type=HTML, charset="utf-8", headers=REVALIDATE)


async def explorer_root(_: web.Request) -> web.Response:
    return web.Response(status=301, headers={"Location": "/explorer/"})


async def static_file(request: web.Request) -> web.StreamResponse:
    rel = request.match_info["path"]
    path = (STATIC / rel).resolve()
    if STATIC not in path.parents or not path.is_file() or rel == "index.html":
        return web.Response(status=404, text="404 page not found\n")
    return web.FileResponse(path, headers=REVALIDATE)


async def docs_page(_: web.Request) -> web.Response:
    return web.Response(body=(STATIC / "docs.html").read_bytes(), content_type=HTML, charset="utf-8",
                        headers=REVALIDATE)


@cache
def _document(name: str) -> dict[str, Any]:
    from ..data.app import served_document  # the Data API's own code; imported on the first request
    return served_document(DOCUMENTS[name])


async def openapi_document(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in DOCUMENTS:
        return web.Response(status=404, text="404 page not found\n")
    body = orjson.dumps({**_document(name), "servers": [{"url": f"{request.scheme}://{request.host}"}]})
    return web.Response(body=body, content_type="application/json", charset="utf-8")


def add_routes(app: web.Application) -> None:
    """Register the explorer's routes; call before the node's catch-all route."""
    app.router.add_get("/explorer", explorer_root)
    app.router.add_get("/explorer/static/{path:.+}", static_file)
    app.router.add_get("/explorer/{tail:.*}", explorer_page)
    app.router.add_get("/openapi/{name}.json", openapi_document)
    app.router.add_get("/docs", docs_page)
