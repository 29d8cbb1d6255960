"""py-evm's Ethash module, imported on its first use instead of with py-evm.

py-evm's VM base class imports its proof-of-work checks (eth.consensus.pow), which import
eth.consensus.ethash, which imports pycryptodome's keccak; pycryptodome loads its C code through
cffi, and cffi parses the C declarations with pycparser (its lexer compiles a few dozen regexes):
about 30 ms of a node's start. simnode's chains never mine or check a proof of work.

`stand_in_module()` makes a stand-in for eth.consensus.ethash, which simnode/patches.py puts into
`sys.modules` before anything imports py-evm. It holds the three functions eth.consensus.pow takes
from it (each runs the real module's function on its first call) and gives any other name from
the real module, which it runs, under the same name, on the first such use. Only the standard
library is imported here.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

NAME = "eth.consensus.ethash"
POW_IMPORTS = ("get_dataset_full_size", "hashimoto_light", "mkcache")  # what eth.consensus.pow imports

_real: list[ModuleType] = []


def real_module() -> ModuleType:
    """py-evm's own eth.consensus.ethash (run once, under that name; the stand-in stays in sys.modules)."""
    if not _real:
        spec = importlib.util.find_spec("eth")  # a top-level name: found without importing py-evm
        assert spec is not None and spec.submodule_search_locations
        path = Path(next(iter(spec.submodule_search_locations))) / "consensus" / "ethash.py"
        real = importlib.util.spec_from_file_location(NAME, path)
        assert real is not None and real.loader is not None
        module = importlib.util.module_from_spec(real)
        real.loader.exec_module(module)
        _real.append(module)
    return _real[0]


def _stand_in(function: str) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(real_module(), function)(*args, **kwargs)

    call.__name__ = call.__qualname__ = function
    return call


def _module_getattr(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(f"module {NAME!r} has no attribute {name!r}")
    return getattr(real_module(), name)


def stand_in_module() -> ModuleType:
    module = ModuleType(NAME, f"Stand-in for py-evm's {NAME}: see simnode.vms.evm.deferred_ethash.")
    for function in POW_IMPORTS:
        setattr(module, function, _stand_in(function))
    module.__getattr__ = _module_getattr  # type: ignore[method-assign]
    return module
