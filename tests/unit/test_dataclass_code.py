"""simnode/dataclass_code.py: dataclass methods of simnode's modules run from kept code objects,
with the same behaviour as freshly compiled ones; other modules' dataclasses are untouched."""

from __future__ import annotations

import dataclasses
import importlib.util
import marshal
import sys
import types

import pytest

from simnode import dataclass_code

RECORD = """
from dataclasses import dataclass, field

@dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: bytes = b""
    tags: tuple = field(default_factory=tuple)
"""


@pytest.fixture
def kept(tmp_path, monkeypatch):
    """dataclass_code with an empty store of its own, written to a temporary file."""
    monkeypatch.setattr(dataclass_code, "_PATH", str(tmp_path / "__pycache__" / "dataclass-code.marshal"))
    for name in ("_kept", "_codes"):
        monkeypatch.setattr(dataclass_code, name, {})
    monkeypatch.setattr(dataclass_code, "_used", set())
    monkeypatch.setattr(dataclass_code, "_new", False)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert dataclasses.exec is dataclass_code.kept_exec  # installed by tests/conftest.py (patches.install)
    return dataclass_code


def define(monkeypatch, module_name: str) -> type:
    module = types.ModuleType(module_name)
    monkeypatch.setitem(sys.modules, module_name, module)
    exec(RECORD, module.__dict__)
    return module.Point


def check_behaviour(point: type) -> None:
    p = point(1, b"\x01")
    assert p == point(1, b"\x01") and p != point(2)
    assert hash(p) == hash(point(1, b"\x01"))
    assert repr(p) == "Point(x=1, y=b'\\x01', tags=())"
    assert point(3).tags == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 5
    with pytest.raises(TypeError):
        point()


def test_simnode_records_compile_once_then_run_from_the_kept_file(kept, monkeypatch):
    check_behaviour(define(monkeypatch, "simnode.kept_records_a"))
    assert kept._new and kept._codes
    kept.save()
    # a later process: the file is loaded, and nothing is compiled again
    monkeypatch.setattr(kept, "_kept", {})
    monkeypatch.setattr(kept, "_codes", {})
    monkeypatch.setattr(kept, "_new", False)
    kept.load()
    assert kept._kept

    def no_compile(*args, **kwargs):
        raise AssertionError("compiled although kept")

    monkeypatch.setattr(kept, "compile", no_compile, raising=False)
    check_behaviour(define(monkeypatch, "simnode.kept_records_b"))
    assert not kept._new


def test_other_modules_dataclasses_are_not_kept(kept, monkeypatch):
    check_behaviour(define(monkeypatch, "not_simnode_records"))
    assert not kept._codes and not kept._new


def test_a_file_of_another_interpreter_is_ignored(kept, monkeypatch, tmp_path):
    path = tmp_path / "__pycache__" / "dataclass-code.marshal"
    path.parent.mkdir()
    path.write_bytes(marshal.dumps((b"\x00\x00\r\n", {"def f(): pass": b"junk"})))
    kept.load()
    assert not kept._kept
    path.write_bytes(b"not marshal data")
    kept.load()
    assert not kept._kept
    path.write_bytes(marshal.dumps((importlib.util.MAGIC_NUMBER, {})))
    kept.load()
    check_behaviour(define(monkeypatch, "simnode.kept_records_c"))


def test_nothing_is_written_without_bytecode_writing(kept, monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    define(monkeypatch, "simnode.kept_records_d")
    kept.save()
    assert not (tmp_path / "__pycache__").exists()
