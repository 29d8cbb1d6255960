"""Writing the flat TOML tables simnode writes itself (recorded sessions, exported steps):
strings, integers, floats, booleans, lists of those and inline tables of those."""

from __future__ import annotations

import json
import re
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_LITERAL_UNSAFE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f']")


def toml_string(text: str) -> str:
    """A literal string when nothing in it needs escaping (JSON texts read best so), else a basic
    string: JSON's escapes are TOML's, except that TOML wants DEL escaped too."""
    if not _LITERAL_UNSAFE.search(text):
        return f"'{text}'"
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not -(1 << 63) <= value < (1 << 63):
            raise ValueError(f"{value} does not fit a TOML integer")
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def toml_key_values(table: dict[str, Any]) -> str:
    """`key = value` lines (no None values)."""
    return "".join(f"{toml_key(k)} = {toml_value(v)}\n" for k, v in table.items() if v is not None)
