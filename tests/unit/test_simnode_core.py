"""Which core runs (simnode/compiled.py): the compiled build of the hot modules or their .py, and
SIMNODE_PURE=1 forcing the .py."""

from __future__ import annotations

import importlib.machinery
import os
import subprocess
import sys
from pathlib import Path

import pytest

from simnode import compiled
from simnode.cli import version_text
from simnode.vms.evm import fast_interpreter

BUILD_SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES)


def _python(code: str, **env: str) -> str:
    full = {**os.environ, **env}
    if "SIMNODE_PURE" not in env:
        full.pop("SIMNODE_PURE", None)
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, check=True,
                          timeout=120).stdout.strip()


def test_the_core_named_is_the_one_loaded() -> None:
    loaded_build = str(fast_interpreter.__file__).endswith(BUILD_SUFFIXES)
    assert compiled.core() == ("compiled" if loaded_build else "pure")
    assert version_text().endswith(f"(core: {compiled.core()})")


def test_simnode_pure_runs_the_py_files() -> None:
    # the choice is made when a node starts (patches.install), before the EVM is imported
    out = _python("from simnode import compiled, patches; patches.install(evm=False);"
                  "from simnode.vms.evm import fast_interpreter as f; print(compiled.core(), f.__file__)",
                  SIMNODE_PURE="1")
    core, path = out.split(" ", 1)
    assert core == "pure" and path.endswith("fast_interpreter.py")


def test_version_names_the_core() -> None:
    pure = _python("from simnode.cli import main; main(['--version'])", SIMNODE_PURE="1")
    assert pure.startswith("simnode ") and pure.endswith("(core: pure)")
    default = _python("from simnode.cli import main; main(['--version'])")
    assert default.endswith("(core: compiled)" if compiled._build(compiled.COMPILED_MODULES[0]) else "(core: pure)")


def test_a_build_older_than_its_edited_py_is_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compiled, "_ROOT", tmp_path)
    monkeypatch.delenv("SIMNODE_PURE", raising=False)
    name = "simnode.vms.evm.fast_interpreter"
    source = tmp_path / "simnode" / "vms" / "evm" / "fast_interpreter.py"
    source.parent.mkdir(parents=True)
    source.write_text("")
    assert compiled._build(name) is None and not compiled._runs_compiled(name)
    build = source.with_suffix(BUILD_SUFFIXES[0])
    build.write_bytes(b"")
    os.utime(source, (1_000_000, 1_000_000))
    os.utime(build, (1_000_000, 1_000_000))
    assert compiled._runs_compiled(name)
    os.utime(source, (1_000_100, 1_000_100))  # edited after the build
    assert not compiled._runs_compiled(name)
    monkeypatch.setenv("SIMNODE_PURE", "1")
    os.utime(build, (1_000_200, 1_000_200))
    assert not compiled._runs_compiled(name)
    monkeypatch.setenv("SIMNODE_PURE", "0")
    assert compiled._runs_compiled(name)
