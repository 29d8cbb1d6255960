"""Value substitution inside step fields.

* ``{expr}``: a small integer expression over loop variables and ``[vars]``, e.g. ``{i}``,
  ``{i % 50}``, ``{(i + 7) % n}``. Only names, integers, + - * // % and parentheses.
* ``${name}`` / ``${name.path[0].x}``: a value saved by an earlier step (``save = "name"``), an
  account's attribute (``${alice.C}``, ``${alice.X}``, ``${alice.P}``, ``${alice.key}``) or a var.
  A field that is exactly one ``${…}`` keeps the saved value's type.
* ``{{`` and ``}}`` are literal braces.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from typing import Any

_REF = re.compile(r"\$\{([^{}]+)\}")
_EXPR = re.compile(r"(?<!\$)\{([^{}$]+)\}")
_ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load,
            ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.USub, ast.UAdd, ast.Pow)


class TemplateError(ValueError):
    pass


def has_template(value: Any) -> bool:
    """True when a value (or anything inside it) still has substitutions to make."""
    if isinstance(value, str):
        return "{" in value.replace("{{", "").replace("}}", "")
    if isinstance(value, list):
        return any(has_template(v) for v in value)
    if isinstance(value, dict):
        return any(has_template(v) for v in value.values())
    return False


def eval_expr(text: str, names: Mapping[str, Any]) -> int:
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise TemplateError(f"invalid expression {{{text}}}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise TemplateError(f"invalid expression {{{text}}}: only integers, names and + - * // % allowed")
        if isinstance(node, ast.Constant) and not isinstance(node.value, int):
            raise TemplateError(f"invalid expression {{{text}}}: only integers allowed")

    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant):
            return int(node.value)
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise TemplateError(f"unknown name '{node.id}' in {{{text}}}")
            value = names[node.id]
            if isinstance(value, bool) or not isinstance(value, int):
                try:
                    return int(value)
                except (TypeError, ValueError):
                    raise TemplateError(f"'{node.id}' is not an integer in {{{text}}}") from None
            return value
        if isinstance(node, ast.UnaryOp):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            op = node.op
            if isinstance(op, ast.Add):
                return a + b
            if isinstance(op, ast.Sub):
                return a - b
            if isinstance(op, ast.Mult):
                return a * b
            if isinstance(op, ast.Pow):
                return a ** b
            if b == 0:
                raise TemplateError(f"division by zero in {{{text}}}")
            return a // b if isinstance(op, ast.FloorDiv) else a % b
        raise TemplateError(f"invalid expression {{{text}}}")

    return ev(tree)


def substitute(value: Any, names: Mapping[str, Any], lookup: Callable[[str], Any]) -> Any:
    """Resolve every template in `value` (recursively for lists and tables)."""
    if isinstance(value, list):
        return [substitute(v, names, lookup) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, names, lookup) for k, v in value.items()}
    if not isinstance(value, str) or "{" not in value:
        return value.replace("}}", "}") if isinstance(value, str) else value
    text = value.replace("{{", "\0").replace("}}", "\1")
    text = _EXPR.sub(lambda m: str(eval_expr(m.group(1), names)), text)
    whole = _REF.fullmatch(text)
    if whole:
        return lookup(whole.group(1).strip())

    def ref(m: re.Match[str]) -> str:
        v = lookup(m.group(1).strip())
        return v if isinstance(v, str) else str(v)

    out = _REF.sub(ref, text)
    if "{" in out or "}" in out:
        raise TemplateError(f"unbalanced braces in {value!r} (write {{{{ and }}}} for literal ones)")
    return out.replace("\0", "{").replace("\1", "}")


_PATH_TOKEN = re.compile(r"\.?([A-Za-z_][A-Za-z0-9_\-]*)|\[(-?[0-9]+)\]|\[\"([^\"]*)\"\]|\['([^']*)'\]")


def parse_path(path: str) -> list[str | int]:
    """``result.balances[0].balance`` → ["result", "balances", 0, "balance"]."""
    parts: list[str | int] = []
    pos = 0
    path = path.strip()
    while pos < len(path):
        m = _PATH_TOKEN.match(path, pos)
        if m is None or m.end() == pos:
            raise TemplateError(f"invalid path {path!r} at {path[pos:]!r}")
        if m.group(1) is not None:
            parts.append(m.group(1))
        elif m.group(2) is not None:
            parts.append(int(m.group(2)))
        else:
            parts.append(m.group(3) if m.group(3) is not None else m.group(4))
        pos = m.end()
    return parts


class PathMissing(LookupError):
    pass


def get_path(value: Any, path: str | list[str | int]) -> Any:
    parts = parse_path(path) if isinstance(path, str) else path
    cur = value
    walked = ""
    for p in parts:
        if isinstance(p, int):
            if not isinstance(cur, list) or not -len(cur) <= p < len(cur):
                size = len(cur) if isinstance(cur, list) else None
                raise PathMissing(f"{walked or '(value)'}[{p}] does not exist"
                                  + (f" (list has {size} items)" if size is not None
                                     else f" (not a list: {_short(cur)})"))
            cur = cur[p]
            walked += f"[{p}]"
        else:
            if not isinstance(cur, dict) or p not in cur:
                keys = (f" (keys: {', '.join(sorted(cur)[:12])})" if isinstance(cur, dict)
                        else f" (not an object: {_short(cur)})")
                raise PathMissing(f"{(walked + '.' if walked else '') + p} does not exist{keys}")
            cur = cur[p]
            walked = f"{walked}.{p}" if walked else p
    return cur


def _short(v: Any, limit: int = 80) -> str:
    text = repr(v)
    return text if len(text) <= limit else text[: limit - 3] + "..."
