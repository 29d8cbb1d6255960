"""Run a package's `__init__` on the first use of a name it defines, instead of at import.

aiohttp's `__init__` imports its whole HTTP client to re-export it (connector, cookie jar, and two
TLS contexts that load the system's CA store): about 0.1 s of a node's 0.5 s start, for a client
a node never uses. Its server half (`aiohttp.web` and the modules under it) does not need it.

`defer_init(name)` registers the package in `sys.modules` as the import system would (real spec,
path and file), so `import aiohttp.web` imports the submodule as usual, with a module
`__getattr__` (PEP 562) for everything else: the first time anyone asks the package for a name
that is not one of its submodules (`aiohttp.ClientSession`, `from aiohttp import ClientError`),
the real `__init__` runs in that same module object and the name is looked up again. Nothing
changes for code that uses the client; it pays the client's import on first use.

The one name aiohttp's own submodules take from the package (`__version__`, for the Server
header) is read from the `__init__` source, so it is always the installed release's.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import threading
from pathlib import Path
from typing import Any

_VERSION = re.compile(r'^__version__ = "([^"]+)"$', re.M)


def defer_init(name: str) -> bool:
    """Defer the `__init__` of the top-level package `name`; False (nothing done) when it is
    already imported or does not look as expected (then it imports as usual)."""
    if name in sys.modules:
        return False
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None or spec.loader is None or not spec.submodule_search_locations:
        return False
    version = _VERSION.search(Path(spec.origin).read_text(encoding="utf-8"))
    if version is None:
        return False
    module = importlib.util.module_from_spec(spec)
    module.__version__ = version.group(1)  # type: ignore[attr-defined]
    lock = threading.Lock()

    def run_init() -> None:
        with lock:
            if module.__dict__.get("__getattr__") is not package_getattr:
                return  # another thread ran it meanwhile
            del module.__dict__["__getattr__"]  # the real __init__ may define its own
            spec.loader.exec_module(module)  # type: ignore[union-attr]

    def package_getattr(attr: str) -> Any:
        if not attr.startswith("__") and importlib.util.find_spec(f"{name}.{attr}") is not None:
            return importlib.import_module(f"{name}.{attr}")  # a submodule: just that
        run_init()
        try:
            return module.__dict__[attr]
        except KeyError:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}") from None

    module.__getattr__ = package_getattr  # type: ignore[method-assign]
    sys.modules[name] = module
    return True

