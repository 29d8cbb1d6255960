"""Which core runs: compiled (the modules below, built by Cython from these same .py files when
simnode is installed: setup.py) or pure Python (the .py files themselves, same results).

A listed module runs pure when SIMNODE_PURE=1 is set (CI runs the EVM tests both ways), when it
was not built (no C compiler), or when its .py was edited after the build (the build would run
the old rules; ./simnode.sh builds it again). patches.install() calls `install()` when a node
starts (simnode's own suite, first thing), before any listed module is imported. This module
imports nothing of simnode: setup.py reads the list.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

COMPILED_MODULES = ("simnode.vms.evm.fast_interpreter",)

_ROOT = Path(__file__).resolve().parent.parent
# a wheel's install writes the .py and its build within moments of each other, in any order
_EDIT_SLACK_S = 2.0


def _source(name: str) -> Path:
    return _ROOT.joinpath(*name.split(".")).with_suffix(".py")


def _build(name: str) -> Path | None:
    source = _source(name)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = source.with_suffix(suffix)
        if path.is_file():
            return path
    return None


def pure_forced() -> bool:
    return os.environ.get("SIMNODE_PURE", "") not in ("", "0")


def _runs_compiled(name: str) -> bool:
    build = _build(name)
    if build is None or pure_forced():
        return False
    return _source(name).stat().st_mtime <= build.stat().st_mtime + _EDIT_SLACK_S


class _SourceFinder:
    """Finds the given modules' .py ahead of their build."""

    def __init__(self, names: list[str]) -> None:
        self.names = frozenset(names)

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if name not in self.names:
            return None
        return importlib.util.spec_from_file_location(name, _source(name))


def install() -> None:
    pure = [name for name in COMPILED_MODULES if _build(name) is not None and not _runs_compiled(name)]
    if pure and not any(isinstance(finder, _SourceFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder(pure))


def uninstall() -> None:
    sys.meta_path[:] = [finder for finder in sys.meta_path if not isinstance(finder, _SourceFinder)]


def core() -> str:
    """'compiled' when every listed module runs from its build, else 'pure'."""
    for name in COMPILED_MODULES:
        module = sys.modules.get(name)
        if module is not None:
            if not str(module.__file__).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
                return "pure"
        elif not _runs_compiled(name):
            return "pure"
    return "compiled"
