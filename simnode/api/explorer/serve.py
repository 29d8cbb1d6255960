"""The routes of the explorer, the OpenAPI documents and the docs page.

    /explorer/...             the explorer's pages: one HTML shell for every page route of
                              static/routes.json (the browser renders the page from the public
                              APIs); any other path under /explorer/ gets the same shell with a 404
                              status, which renders the explorer's not-found page
    /explorer/static/...      its scripts, styles and vendored libraries (static/vendor/); the pages
                              ask for them under /explorer/static/v-<version>/..., the version a
                              digest of the files, so a browser keeps them without asking again
    /openapi/data-api.json    the Data API and Metrics API documents, as GET /api-json serves them:
    /openapi/metrics-api.json the real documents with `servers` pointing at this node
    /docs                     a docs page for both documents, with "try it" against this node

Nothing here reads chain state: the pages fetch it in the browser, as any client would.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import orjson
from aiohttp import web

STATIC = Path(__file__).resolve().parent / "static"
HTML = "text/html"
# The shell is asked for again on every load; the files it names carry the version in their path,
# so they are kept for good (a new version is a new path). Unversioned paths are revalidated.
REVALIDATE = {"Cache-Control": "no-cache"}
IMMUTABLE = {"Cache-Control": "public, max-age=31536000, immutable"}
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
def version() -> str:
    """A digest of every static file's path, size and modification time."""
    digest = hashlib.sha256()
    for path in sorted(STATIC.rglob("*")):
        if path.is_file():
            st = path.stat()
            digest.update(f"{path.relative_to(STATIC)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return "v-" + digest.hexdigest()[:12]


def static_page(name: str, **fields: str) -> bytes:
    """An HTML page of static/ with its {{STATIC}} (the versioned prefix) and other fields filled in."""
    text = (STATIC / name).read_text().replace("{{STATIC}}", f"/explorer/static/{version()}/")
    for key, value in fields.items():
        text = text.replace("{{" + key + "}}", value)
    return text.encode()


@cache
def shell() -> bytes:
    """index.html with the route table inlined (the browser's router reads it; no extra request)."""
    return static_page("index.html", ROUTES=(STATIC / "routes.json").read_text().strip())


async def explorer_page(request: web.Request) -> web.Response:
    status = 200 if page_of(request.path) else 404
    return web.Response(status=status, body=shell(), content_type=HTML, charset="utf-8", headers=REVALIDATE)


async def explorer_root(_: web.Request) -> web.Response:
    return web.Response(status=301, headers={"Location": "/explorer/"})


async def static_file(request: web.Request) -> web.StreamResponse:
    rel = request.match_info["path"]
    first, _, rest = rel.partition("/")
    versioned = re.fullmatch(r"v-[0-9a-f]{12}", first) is not None
    if versioned:
        rel = rest
    path = (STATIC / rel).resolve()
    if STATIC not in path.parents or not path.is_file() or path.suffix == ".html":
        return web.Response(status=404, text="404 page not found\n")
    return web.FileResponse(path, headers=IMMUTABLE if versioned and first == version() else REVALIDATE)


async def docs_page(_: web.Request) -> web.Response:
    return web.Response(body=static_page("docs.html"), content_type=HTML, charset="utf-8", headers=REVALIDATE)


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
