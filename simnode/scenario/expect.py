"""Checks for `expect` steps: equals, not_equals, min, max, contains, length, exists on a JSON path.

Numbers compare as integers whatever their JSON spelling: 5, "5" and "0x5" are equal, so a
check works on both AvalancheGo's quoted numbers and Ethereum's hex quantities. An expected
amount with a unit ("100 AVAX") is taken in nAVAX, or in wei when the value comes from the
C-Chain (`wei = True`).
"""

from __future__ import annotations

from typing import Any

from ..formats.amounts import AVAX_FAMILY, parse_amount
from ..formats.errors import FormatError
from .errors import ExpectationFailed
from .templates import PathMissing, get_path

_MISSING = object()


def _as_int(value: Any, wei: bool = False) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.startswith(("0x", "0X")):
            try:
                return int(text, 16)
            except ValueError:
                return None
        if text.lstrip("-").isdigit():
            return int(text)
        try:
            amount, family = parse_amount(text)
        except FormatError:
            return None
        return amount * 10**9 if (family == AVAX_FAMILY and wei) else amount
    return None


def _eq(actual: Any, expected: Any, wei: bool) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, dict) and set(actual) == set(expected) and all(
            _eq(actual[k], expected[k], wei) for k in expected)
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(
            _eq(a, e, wei) for a, e in zip(actual, expected, strict=True))
    if actual == expected and type(actual) is type(expected):
        return True
    if isinstance(actual, str) and isinstance(expected, str) and actual.lower().startswith("0x") \
            and expected.lower().startswith("0x") and len(actual) == len(expected):
        return actual.lower() == expected.lower()  # addresses and hashes: checksum case ignored
    a, e = _as_int(actual, wei), _as_int(expected, wei)
    return a is not None and e is not None and a == e


def _subset(actual: Any, needle: Any, wei: bool) -> bool:
    """A table matches when every key of `needle` is in it with an equal value."""
    return isinstance(actual, dict) and isinstance(needle, dict) and all(
        k in actual and _eq(actual[k], v, wei) for k, v in needle.items())


def _show(value: Any, limit: int = 160) -> str:
    import json
    try:
        text = json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_one(doc: Any, check: dict[str, Any], wei: bool = False) -> None:
    path = check.get("path")
    where = path or "(value)"
    try:
        actual = get_path(doc, path) if path else doc
    except PathMissing as exc:
        if check.get("exists") is False:
            return
        raise ExpectationFailed(f"{where}: {exc}") from None
    if "exists" in check:
        if check["exists"] is False:
            raise ExpectationFailed(f"{where}: expected not to exist, got {_show(actual)}")
    if "equals" in check and not _eq(actual, check["equals"], wei):
        raise ExpectationFailed(f"{where}: expected {_show(check['equals'])}, got {_show(actual)}")
    if "not_equals" in check and _eq(actual, check["not_equals"], wei):
        raise ExpectationFailed(f"{where}: expected anything but {_show(check['not_equals'])}, got {_show(actual)}")
    for key, op, text in (("min", lambda a, b: a >= b, ">="), ("max", lambda a, b: a <= b, "<=")):
        if key not in check:
            continue
        bound = _as_int(check[key], wei)
        value = _as_int(actual, wei)
        if bound is None:
            raise ExpectationFailed(f"{where}: '{key}' {_show(check[key])} is not a number")
        if value is None:
            raise ExpectationFailed(f"{where}: expected a number {text} {bound}, got {_show(actual)}")
        if not op(value, bound):
            raise ExpectationFailed(f"{where}: expected {text} {bound}"
                                    + (f" ({check[key]})" if isinstance(check[key], str) else "")
                                    + f", got {value} (off by {value - bound:+d})")
    if "contains" in check:
        needle = check["contains"]
        if isinstance(actual, str):
            ok = isinstance(needle, str) and needle in actual
        elif isinstance(actual, list):
            ok = any(_eq(item, needle, wei) or _subset(item, needle, wei) for item in actual)
        elif isinstance(actual, dict):
            ok = (isinstance(needle, str) and needle in actual) or (
                isinstance(needle, dict) and all(k in actual and _eq(actual[k], v, wei) for k, v in needle.items()))
        else:
            ok = False
        if not ok:
            raise ExpectationFailed(f"{where}: expected to contain {_show(needle)}, got {_show(actual)}")
    if "length" in check:
        try:
            n = len(actual)
        except TypeError:
            raise ExpectationFailed(
                f"{where}: expected a length of {check['length']}, got {_show(actual)} (no length)") from None
        if n != _as_int(check["length"]):
            raise ExpectationFailed(f"{where}: expected a length of {check['length']}, got {n}")


def run_checks(doc: Any, fields: dict[str, Any], wei: bool = False) -> None:
    from .schema import CHECK_KEYS

    inline = {k: fields[k] for k in CHECK_KEYS if k in fields}
    checks: list[dict[str, Any]] = []
    if inline:
        checks.append({"path": fields.get("path"), **inline} if fields.get("path") else inline)
    for c in fields.get("checks", []):
        if "path" not in c and fields.get("path"):
            c = {**c, "path": fields["path"]}
        checks.append(c)
    for check in checks:
        check_one(doc, check, wei)
