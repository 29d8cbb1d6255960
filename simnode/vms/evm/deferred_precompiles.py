"""py-evm's elliptic-curve precompiles, imported on their first call instead of with py-evm.

Importing py-evm imports all of its precompiles, and with them py_ecc's pairing modules, which
compute tables at import time: BLS12-381 about 0.2 s (the Prague precompiles 0x0b-0x11; simnode
runs Cancun and never calls them) and alt_bn128 about 20 ms (ECADD, ECMUL and ECPAIRING at
0x06-0x08, which a contract may call). Together that was a quarter of a cold start.

`stand_in_modules()` makes stand-ins for those py-evm modules, which simnode/patches.py puts
into `sys.modules` before anything imports py-evm. A stand-in precompile takes gas options the way
py-evm's curried ones do (forks bind their gas prices at import: `ecadd(gas_cost=...)`); on its first call
it runs the real module and calls the real function, so output, gas and errors are py-evm's own.
The stand-ins' names are those of the pinned py-evm release (tests compare them, and their
results, with the real modules). Only the standard library is imported here.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

# module (under eth.precompiles) -> the precompile functions it provides
BN128_MODULES = {"ecadd": ("ecadd",), "ecmul": ("ecmul",), "ecpairing": ("ecpairing",)}
BLS12_381_PACKAGE = "bls12_381"
BLS12_381_FUNCTIONS = {
    "bls12_381_g1": ("bls12_g1_add", "bls12_g1_msm", "bls12_map_fp_to_g1"),
    "bls12_381_g2": ("bls12_g2_add", "bls12_g2_msm", "bls12_map_fp2_to_g2"),
    "bls12_381_pairing": ("bls12_pairing_check",),
}

_PREFIX = "eth.precompiles."
_real_modules: dict[str, ModuleType] = {}


def _precompiles_dir() -> Path:
    spec = importlib.util.find_spec("eth")  # a top-level name: found without importing py-evm
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations))) / "precompiles"


def real_module(name: str) -> ModuleType:
    """The real py-evm module `eth.precompiles.<name>` (a bn128 module, or a BLS12-381 submodule)."""
    module = _real_modules.get(name)
    if module is None:
        if name in BN128_MODULES:
            # the stand-in holds this name in sys.modules: run the real file under the same name
            spec = importlib.util.spec_from_file_location(_PREFIX + name, _precompiles_dir() / f"{name}.py")
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(f"{_PREFIX}{BLS12_381_PACKAGE}.{name}")
        _real_modules[name] = module
    return module


def _stand_in(module: str, function: str) -> Any:
    def precompile(computation: Any = None, /, **gas: int) -> Any:
        if computation is None:  # gas options only: the precompile at those prices
            return functools.partial(precompile, **gas)
        return getattr(real_module(module), function)(computation, **gas)

    precompile.__name__ = precompile.__qualname__ = function
    return precompile


def _stand_in_module(name: str, functions: dict[str, tuple[str, ...]], path: list[str] | None) -> ModuleType:
    module = ModuleType(name, f"Stand-in for py-evm's {name}: see simnode.vms.evm.deferred_precompiles.")
    if path is not None:
        module.__path__ = path  # its submodules stay importable as they are
    for source, names in functions.items():
        for function in names:
            setattr(module, function, _stand_in(source, function))
    return module


def stand_in_modules() -> dict[str, ModuleType]:
    """The stand-ins by the module names they stand in for."""
    modules = {_PREFIX + name: _stand_in_module(_PREFIX + name, {name: functions}, None)
               for name, functions in BN128_MODULES.items()}
    package = _PREFIX + BLS12_381_PACKAGE
    modules[package] = _stand_in_module(package, BLS12_381_FUNCTIONS, [str(_precompiles_dir() / BLS12_381_PACKAGE)])
    return modules
