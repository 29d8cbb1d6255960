"""lazy_package: aiohttp's server half imports without its client, and the client still works
(its `__init__` runs on the first use of one of its names). Each case runs in a fresh
interpreter, since this one has imported aiohttp already."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from simnode import lazy_package


def run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_server_half_imports_without_the_client():
    out = run("""
        import sys
        from simnode.lazy_package import defer_init
        assert defer_init("aiohttp")
        from aiohttp import web
        import aiohttp.http, importlib.metadata
        assert aiohttp.__version__ == importlib.metadata.version("aiohttp")
        assert aiohttp.http.SERVER_SOFTWARE.endswith("aiohttp/" + aiohttp.__version__)
        print(sorted(m for m in ("aiohttp.client", "aiohttp.connector") if m in sys.modules))
    """)
    assert out == "[]"


def test_a_name_of_the_package_runs_its_init_in_the_same_module():
    out = run("""
        import sys
        from simnode.lazy_package import defer_init
        defer_init("aiohttp")
        import aiohttp
        from aiohttp import web
        module = sys.modules["aiohttp"]
        from aiohttp import ClientError, WSMsgType
        from aiohttp.client_exceptions import ClientError as Original
        assert ClientError is Original and sys.modules["aiohttp"] is module and aiohttp.web is web
        assert aiohttp.ClientSession.__module__ == "aiohttp.client"
        try:
            aiohttp.no_such_name
        except AttributeError:
            print("ok")
    """)
    assert out == "ok"


def test_the_node_serves_with_the_server_half_only():
    """What `simnode run` imports up to ready (the EVM chain and its endpoints included) leaves
    aiohttp's client unloaded: a server module asking the package root for a name would load it."""
    out = run("""
        import sys
        from simnode.lazy_package import defer_init
        defer_init("aiohttp")
        import simnode.node
        from simnode.vms.primary import load_evm_chain
        load_evm_chain()
        print("aiohttp.client" in sys.modules)
    """)
    assert out == "False"


def test_nothing_is_deferred_once_imported_or_when_not_a_package():
    import aiohttp  # noqa: F401 - imported as usual in this interpreter

    assert lazy_package.defer_init("aiohttp") is False
    assert lazy_package.defer_init("textwrap") is False
    assert lazy_package.defer_init("no_such_package_here") is False
