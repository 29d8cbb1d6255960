"""Every change simnode makes to code outside simnode: made when a node starts, never on import.

`install()` is called by the CLI (before it imports the node), by `Node.start_in_thread` and
`Node.create`, and by the pytest plugin's fixtures; it makes every change below once per process.
`uninstall()` undoes them. A program that imports simnode (or a pytest session that loads the
plugin and uses none of its fixtures) and starts no node runs on its libraries as they are.

* the import system: with SIMNODE_PURE=1, or a build older than its .py, simnode's compiled
  modules are found as their .py (compiled.py; a finder for those names only, first in
  sys.meta_path).
* dataclasses (stdlib): its module global `exec` runs the kept code of simnode's own dataclass
  methods (dataclass_code.py; an exit hook writes new ones under simnode/__pycache__). Installed
  before simnode's modules are imported, start-up compiles none of them.
* eth-hash: py-evm hashes through `eth_hash.auto.keccak`, which would pick pycryptodome (about 5x
  slower than safe-pysha3). That object is given the pysha3 backend; ETH_HASH_BACKEND is not set
  in os.environ, which every child process would inherit. A backend the user chose there stays.
* py-evm's elliptic-curve precompile modules: stand-ins in sys.modules until their first call
  (deferred_precompiles.py), and of its Ethash module (deferred_ethash.py: pycryptodome, cffi and
  pycparser behind it), when py-evm is not imported yet.
* py-trie's node helpers and HexaryTrie reads (speedups.py), py-evm's interpreter loop, stack and
  memory helpers (fast_interpreter.py).

The library changes are written against the releases pyproject.toml pins (read from simnode's
installed metadata and checked against the installed distributions); with another release
installed they are left out, with a warning, and the node runs on the library's own code.
"""

from __future__ import annotations

import atexit
import dataclasses
import importlib.metadata
import os
import re
import sys
import threading
import warnings
from types import ModuleType
from typing import Any

from . import compiled, dataclass_code

PATCHED = ("py-evm", "trie", "eth-hash")  # the distributions whose code is replaced

_MISSING = object()
_lock = threading.Lock()
# how far install() went: nothing, all but py-evm's and py-trie's, all; or other releases than
# the pinned ones installed (only the dataclasses change is made)
_NONE, _PROCESS, _ALL, _UNPINNED = range(4)
_installed = _NONE
_saved: list[tuple[Any, str, Any]] = []  # (owner, attribute, what it held before, or _MISSING)
_stand_ins: dict[str, ModuleType] = {}  # the sys.modules entries put in place of py-evm's


def installed() -> bool:
    """Whether install() made its changes (py-evm's and py-trie's included)."""
    return _installed == _ALL


def pinned_releases_installed() -> bool:
    """Whether the installed py-evm, trie and eth-hash are the releases simnode pins (its
    installed metadata: pyproject.toml's dependencies)."""
    try:
        pins = dict(pin for pin in map(_pin, importlib.metadata.requires("simnode") or ()) if pin)
        return all(importlib.metadata.version(name) == pins.get(name) for name in PATCHED)
    except importlib.metadata.PackageNotFoundError:
        return False


_EXACT_PIN = re.compile(r"\s*([A-Za-z0-9._-]+)\s*(?:\[[^\]]*\])?\s*==\s*([^\s;,]+)\s*(?:;.*)?")


def _pin(requirement: str) -> tuple[str, str] | None:
    """"py-evm==0.12.1b1" -> ("py-evm", "0.12.1b1"), "eth-hash[pysha3]==0.8.0" -> ("eth-hash",
    "0.8.0"); None for a requirement that is not an exact pin."""
    match = _EXACT_PIN.fullmatch(requirement)
    return (match.group(1).lower(), match.group(2)) if match else None


def install(evm: bool = True) -> None:
    """Make every change not made yet. With `evm=False`, py-evm and py-trie are left alone (and
    unimported) until a later install(): a node starts serving before it loads py-evm, on a
    worker thread that calls install() first."""
    global _installed
    with _lock:
        if _installed == _NONE:
            compiled.install()
            dataclass_code.load()
            _set(dataclasses, "exec", dataclass_code.kept_exec)
            atexit.register(dataclass_code.save)
            pinned = pinned_releases_installed()
            if pinned:
                _install_stand_ins()
                _install_keccak_backend()
            else:
                warnings.warn(f"simnode: {', '.join(PATCHED)} are not the releases simnode pins: they run "
                              "without simnode's speed-ups", RuntimeWarning, stacklevel=2)
            _installed = _PROCESS if pinned else _UNPINNED
        if evm and _installed == _PROCESS:
            for owner, name, replacement in _library_replacements():
                _set(owner, name, replacement)
            _installed = _ALL


def uninstall() -> None:
    """Undo every change: the libraries' own functions back in place, the stand-ins out of
    sys.modules (py-evm classes made meanwhile keep them: they run py-evm's own functions), new
    kept dataclass code written now instead of at exit."""
    global _installed
    with _lock:
        if _installed == _NONE:
            return
        while _saved:
            owner, name, before = _saved.pop()
            if before is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, before)
        for name, module in _stand_ins.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]
        _stand_ins.clear()
        atexit.unregister(dataclass_code.save)
        dataclass_code.save()
        compiled.uninstall()
        _installed = _NONE


def _set(owner: Any, name: str, value: Any) -> None:
    # vars(): a class's own entry as stored (a classmethod object, not the bound method)
    _saved.append((owner, name, vars(owner).get(name, _MISSING)))
    setattr(owner, name, value)


def _install_stand_ins() -> None:
    from .vms.evm import deferred_ethash, deferred_precompiles

    if deferred_ethash.NAME not in sys.modules:
        sys.modules[deferred_ethash.NAME] = _stand_ins[deferred_ethash.NAME] = deferred_ethash.stand_in_module()
    if any(name.startswith("eth.precompiles") for name in sys.modules):
        return  # py-evm's precompiles are imported: nothing left to defer
    for name, module in deferred_precompiles.stand_in_modules().items():
        sys.modules[name] = _stand_ins[name] = module


def _install_keccak_backend() -> None:
    if os.environ.get("ETH_HASH_BACKEND"):
        return  # the user's choice, which eth_hash reads itself
    from eth_hash.auto import keccak
    from eth_hash.utils import load_backend

    backend = load_backend("pysha3")
    for name, value in (("_backend", backend), ("hasher", backend.keccak256), ("preimage", backend.preimage)):
        _set(keccak, name, value)


def _library_replacements() -> list[tuple[Any, str, Any]]:
    """(owner, attribute, replacement) of every py-trie and py-evm function simnode replaces."""
    import trie.hexary
    import trie.iter
    import trie.utils.nibbles
    import trie.utils.nodes
    from eth.vm.code_stream import CodeStream
    from eth.vm.computation import BaseComputation
    from eth.vm.stack import Stack

    from .vms.evm import fast_interpreter as fi
    from .vms.evm import speedups as sp

    hexary = trie.hexary
    return [
        (trie.utils.nibbles, "bytes_to_nibbles", sp.fast_bytes_to_nibbles),
        (hexary, "bytes_to_nibbles", sp.fast_bytes_to_nibbles),
        (trie.iter, "bytes_to_nibbles", sp.fast_bytes_to_nibbles),
        (hexary.HexaryTrie, "get_node", sp.cached_get_node),
        (hexary.HexaryTrie, "get", sp.fast_get),
        (trie.utils.nodes, "get_node_type", sp.fast_get_node_type),
        (hexary, "get_node_type", sp.fast_get_node_type),
        (trie.utils.nodes, "extract_key", sp.fast_extract_key),
        (hexary, "extract_key", sp.fast_extract_key),
        (CodeStream, "is_valid_opcode", fi.is_valid_opcode),
        (BaseComputation, "apply_computation", classmethod(fi.apply_computation)),
        (Stack, "pop_ints", fi.pop_ints),
        (Stack, "pop1_int", fi.pop1_int),
        (Stack, "push_int", fi.push_int),
        (BaseComputation, "extend_memory", fi.extend_memory),
    ]
