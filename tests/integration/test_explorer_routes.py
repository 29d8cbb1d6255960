"""The explorer's routes over plain HTTP (no browser): every page route answers the HTML shell with
200, any other path under /explorer/ the same shell with 404; its static files and vendored
libraries (with their licenses) are served and nothing outside static/ is; the OpenAPI documents
are the Data API's own (as /api-json serves them) with `servers` pointing at this node."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

import pytest

from simnode.testing import Simnode

from ..openapi_contract import raw_document


@pytest.fixture(scope="module")
def base():
    node = Simnode.start(seed=3)
    try:
        yield node.url
    finally:
        node.stop()


def fetch(url: str) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url)
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(req, timeout=30) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # noqa: ANN002, ANN003
        return None


PAGES = ["/explorer/", "/explorer/chain/C", "/explorer/block/C/0", "/explorer/block/P/0", "/explorer/tx/0x" + "ab" * 32,
         "/explorer/address/0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC", "/explorer/address/X-local1abc",
         "/explorer/validators", "/explorer/validators/NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg", "/explorer/subnets",
         "/explorer/subnets/11111111111111111111111111111111LpoYY", "/explorer/icm", "/explorer/icm/" + "cd" * 32,
         "/explorer/metrics", "/explorer/search?q=1"]


@pytest.mark.parametrize("path", PAGES)
def test_page_routes_answer_the_shell(base, path):
    status, headers, body = fetch(base + path)
    assert status == 200
    assert headers["Content-Type"].startswith("text/html")
    assert b'<main id="app"' in body and b'"overview": "/explorer/"' in body  # the route table is inlined


@pytest.mark.parametrize("path", ["/explorer/nope", "/explorer/tx", "/explorer/tx/a/b", "/explorer/block/C",
                                  "/explorer/validators/a/b", "/explorer/static"])
def test_unknown_paths_get_the_shell_with_404(base, path):
    status, headers, body = fetch(base + path)
    assert status == 404
    assert headers["Content-Type"].startswith("text/html")
    assert b'<main id="app"' in body


def test_explorer_without_slash_redirects(base):
    status, headers, _ = fetch(base + "/explorer")
    assert status == 301
    assert headers["Location"] == "/explorer/"


@pytest.mark.parametrize("path, kind", [
    ("/explorer/static/js/app.js", "javascript"), ("/explorer/static/css/explorer.css", "text/css"),
    ("/explorer/static/vendor/uplot/uPlot.iife.min.js", "javascript"),
    ("/explorer/static/vendor/swagger-ui/swagger-ui-bundle.js", "javascript"),
    ("/explorer/static/vendor/uplot/LICENSE", ""), ("/explorer/static/vendor/swagger-ui/LICENSE", ""),
])
def test_static_files_and_vendored_libraries(base, path, kind):
    status, headers, body = fetch(base + path)
    assert status == 200
    assert kind in headers["Content-Type"]
    assert headers["Cache-Control"] == "no-cache"
    assert body and b"sourceMappingURL" not in body


@pytest.mark.parametrize("path", ["/explorer/static/../serve.py", "/explorer/static/%2e%2e/serve.py",
                                  "/explorer/static/index.html", "/explorer/static/nope.js", "/explorer/static/js"])
def test_nothing_outside_static_files(base, path):
    status, _, body = fetch(base + path)
    assert status == 404
    assert b"add_routes" not in body


@pytest.mark.parametrize("name, api, json_path", [("data-api", "data", "/api-json"),
                                                  ("metrics-api", "metrics", "/api-json/metrics")])
def test_openapi_documents(base, name, api, json_path):
    status, headers, body = fetch(f"{base}/openapi/{name}.json")
    assert status == 200
    assert headers["Content-Type"].startswith("application/json")
    doc = json.loads(body)
    real = raw_document(api)
    assert doc["servers"] == [{"url": base}]
    assert doc["info"] == real["info"] and doc["openapi"] == real["openapi"]
    assert doc["components"] == real["components"]
    assert set(doc["paths"]) <= set(real["paths"]) and len(doc["paths"]) > 10
    for template, item in doc["paths"].items():
        for method, op in item.items():
            assert op == real["paths"][template][method]
    assert doc == json.loads(fetch(base + json_path)[2])


def test_unknown_openapi_document_and_docs_page(base):
    assert fetch(base + "/openapi/nope.json")[0] == 404
    status, headers, body = fetch(base + "/docs")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert re.search(rb'src="/explorer/static/v-[0-9a-f]{12}/vendor/swagger-ui/swagger-ui-bundle.js"', body)
    assert re.search(rb'src="/explorer/static/v-[0-9a-f]{12}/js/docs.js"', body)


def test_the_shell_names_versioned_files_kept_for_good(base):
    body = fetch(base + "/explorer/")[2]
    src = re.search(rb'<script type="module" src="(/explorer/static/v-[0-9a-f]{12}/js/app.js)"', body).group(1).decode()
    status, headers, js = fetch(base + src)
    assert status == 200 and headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert js == fetch(base + "/explorer/static/js/app.js")[2]
    # another version's path is served, but not kept
    status, headers, _ = fetch(base + "/explorer/static/v-000000000000/js/app.js")
    assert status == 200 and headers["Cache-Control"] == "no-cache"
