"""The compiled core: Cython builds the hot modules listed in simnode/compiled.py from the same .py
files (pure-Python mode, C types beside them in .pxd files). Built only when Cython, a C compiler
and Python's headers are there; when any of them fails the package installs, and runs, pure
(simnode/compiled.py tells which core runs). Everything else is in pyproject.toml."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "simnode"))
from compiled import COMPILED_MODULES  # noqa: E402  (the list without importing simnode)

sys.path.pop(0)


def _warn(text: str) -> None:
    print(f"simnode: {text}; the pure-Python core will run", file=sys.stderr)


class OptionalBuildExt(build_ext):
    """A failed compile (no compiler, CC=/bin/false, no headers) leaves the module pure."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001  (any compiler failure means: install pure)
            _warn(f"the compiled core was not built ({exc})")

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            _warn(f"{ext.name} was not compiled ({exc})")


def extensions() -> list:
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file():
        _warn("Python's headers (Python.h) are missing")
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        _warn("Cython is not installed")
        return []
    sources = [str(Path(*name.split(".")).with_suffix(".py")) for name in COMPILED_MODULES]
    extensions = cythonize(sources, build_dir="build/cython", quiet=True,
                           compiler_directives={"language_level": 3, "annotation_typing": False, "binding": True,
                                                "embedsignature": False})
    if sys.platform != "win32":
        # -O1 without debug info: a quarter of the compile time of Python's -O3 -g, about as fast
        for extension in extensions:
            extension.extra_compile_args = ["-O1", "-g0"]
    return extensions


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
