"""simnode's dataclass methods compiled once and kept, as a .pyc keeps a module's code.

`@dataclass` writes the methods it generates (`__init__`, `__repr__`, `__eq__`, `__hash__`, a
frozen class's `__setattr__`/`__delattr__`) as source text and compiles that text with `exec`, one
compile per method on Python 3.11: about 70 us each, some 75 ms of the node's 0.5 s start over the
~150 frozen records it imports. `kept_exec` is the dataclasses module's `exec` while simnode's
changes are installed (simnode/patches.py, which also registers `save` to run at exit): for text
executed in simnode's own modules, it runs the code object that text compiles to, taken from a
marshal file under `simnode/__pycache__` (keyed by the exact text, in a file named by the
interpreter's cache tag and checked against its bytecode magic number, like a .pyc). Text not
found there is compiled as before and the file is rewritten by `save`, unless the interpreter writes
no bytecode (`-B`, PYTHONDONTWRITEBYTECODE) or the folder is read-only. Other modules' dataclasses
go through the builtin `exec` untouched.
"""

from __future__ import annotations

import builtins
import importlib.util
import marshal
import os
import sys
from types import CodeType
from typing import Any

MAX_KEPT = 4096  # more than that: the file keeps only what this process used (old texts drop out)

_PATH = os.path.join(os.path.dirname(__file__), "__pycache__",
                     f"dataclass-code.{sys.implementation.cache_tag}.marshal")
_kept: dict[str, bytes] = {}  # text -> marshalled code: one code object is unmarshalled when used
_codes: dict[str, CodeType] = {}  # compiled or unmarshalled in this process
_used: set[str] = set()
_new = False


def load() -> None:
    """Read the kept code (patches.install calls it before simnode's modules are imported)."""
    try:
        with open(_PATH, "rb") as f:
            magic, kept = marshal.load(f)
    except (OSError, EOFError, ValueError, TypeError):
        return
    if magic == importlib.util.MAGIC_NUMBER and isinstance(kept, dict):
        _kept.update(kept)


def kept_exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    if type(source) is not str or not isinstance(globals, dict) or not str(
            globals.get("__name__", "")).startswith("simnode."):
        return builtins.exec(source, globals, locals)
    global _new
    code = _codes.get(source)
    if code is None:
        raw = _kept.get(source)
        if raw is not None:
            code = marshal.loads(raw)
        else:
            code = compile(source, "<string>", "exec")  # what exec(source) compiles
            _new = True
        _codes[source] = code
    _used.add(source)
    return builtins.exec(code, globals, locals)


def save() -> None:
    """Write the code compiled in this process that the file does not keep yet."""
    if not _new or sys.dont_write_bytecode:
        return
    kept = {**_kept, **{t: marshal.dumps(c) for t, c in _codes.items() if t not in _kept}}
    if len(kept) > MAX_KEPT:
        kept = {t: raw for t, raw in kept.items() if t in _used}
    tmp = f"{_PATH}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(_PATH), exist_ok=True)
        with open(tmp, "wb") as f:
            marshal.dump((importlib.util.MAGIC_NUMBER, kept), f)
        os.replace(tmp, _PATH)  # atomic: a node starting meanwhile reads the old file or the new one
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
