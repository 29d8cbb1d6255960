"""Loading a scenario: TOML → a validated `Scenario` (network, accounts, vars, steps)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from .errors import ScenarioLoadError
from .schema import (
    ACCOUNT_KEYS,
    NETWORK_KEYS,
    STEP_SPECS,
    TOP_KEYS,
    Invalid,
    StepSpec,
    _KeyInvalid,
    amount_for_chain,
    v_amount,
    v_chain,
    v_name,
)
from .templates import TemplateError, has_template

MAX_NESTING = 8


@dataclass(slots=True)
class Step:
    number: str  # "3", "4.2" (2nd step inside the repeat at step 4)
    kind: str
    raw: dict[str, Any]  # the keys as written (templates unresolved)
    label: str | None = None
    children: list[Step] = field(default_factory=list)

    @property
    def spec(self) -> StepSpec:
        return STEP_SPECS[self.kind]

    def describe(self) -> str:
        return f"{self.number}" + (f" '{self.label}'" if self.label else "")


@dataclass(slots=True)
class AccountSpec:
    name: str
    key: str | None = None  # "PrivateKey-…" or "0x…"; None = derived from the seed and the name
    fund: dict[str, Any] = field(default_factory=dict)  # chain -> amount as written


@dataclass(slots=True)
class Scenario:
    source: str  # file path or "<steps>"
    name: str = ""
    description: str = ""
    network: dict[str, Any] = field(default_factory=dict)  # validated values (start_time in ms)
    accounts: list[AccountSpec] = field(default_factory=list)
    vars: dict[str, Any] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    base_dir: Path = field(default_factory=Path.cwd)

    @property
    def seed(self) -> int:
        return int(self.network.get("seed", 0))

    def count_steps(self, var_values: dict[str, Any] | None = None) -> int:
        """Leaf steps to run, repeats expanded (an estimate when a count is a template)."""
        names = {**self.vars, **(var_values or {})}
        return _count(self.steps, names)


def _count(steps: list[Step], names: dict[str, Any]) -> int:
    from .templates import substitute

    total = 0
    for step in steps:
        if step.kind == "repeat":
            try:
                count = int(substitute(step.raw["count"], names, lambda _k: 0))
            except (TemplateError, ValueError, TypeError):
                count = 1
            total += count * _count(step.children, names)
        else:
            total += 1
    return total


def load_scenario(path: str | Path, vars: dict[str, Any] | None = None) -> Scenario:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioLoadError(str(path), "", None, f"cannot read: {exc.strerror}") from None
    return load_scenario_text(text, str(path), base_dir=path.parent, vars=vars)


def load_scenario_text(text: str, source: str = "<scenario>", base_dir: Path | None = None,
                       vars: dict[str, Any] | None = None) -> Scenario:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioLoadError(source, "", None, f"invalid TOML: {exc}") from None
    return scenario_from_dict(doc, source, base_dir=base_dir, vars=vars)


def scenario_from_dict(doc: dict[str, Any], source: str = "<scenario>", base_dir: Path | None = None,
                       vars: dict[str, Any] | None = None) -> Scenario:
    def fail(where: str, key: str | None, message: str) -> ScenarioLoadError:
        return ScenarioLoadError(source, where, key, message)

    unknown = set(doc) - TOP_KEYS
    if unknown:
        key = sorted(unknown)[0]
        raise fail("top level", key, f"unknown table or key (known: {', '.join(sorted(TOP_KEYS))})")
    sc = Scenario(source=source, base_dir=base_dir or Path.cwd())
    for key in ("name", "description"):
        if key in doc:
            if not isinstance(doc[key], str):
                raise fail("top level", key, "expected a string")
            setattr(sc, key, doc[key])

    network = doc.get("network", {})
    if not isinstance(network, dict):
        raise fail("[network]", None, "expected a table")
    for key, value in network.items():
        check = NETWORK_KEYS.get(key)
        if check is None:
            raise fail("[network]", key, f"unknown key (known: {', '.join(NETWORK_KEYS)})")
        try:
            sc.network[key] = check(value)
        except Invalid as exc:
            raise fail("[network]", key, str(exc)) from None

    raw_vars = doc.get("vars", {})
    if not isinstance(raw_vars, dict):
        raise fail("[vars]", None, "expected a table")
    for key in raw_vars:
        try:
            v_name(key)
        except Invalid as exc:
            raise fail("[vars]", key, str(exc)) from None
    sc.vars = dict(raw_vars)
    for key, value in (vars or {}).items():
        if key not in sc.vars:
            raise fail("[vars]", key, f"override of a var the scenario does not declare (declared: "
                       f"{', '.join(sorted(sc.vars)) or 'none'})")
        sc.vars[key] = _coerce_like(sc.vars[key], value)

    accounts = doc.get("accounts", {})
    if not isinstance(accounts, dict):
        raise fail("[accounts]", None, "expected a table of [accounts.<name>] tables")
    seen: set[str] = {"ewoq"}
    for name, table in accounts.items():
        where = f"[accounts.{name}]"
        try:
            v_name(name)
        except Invalid as exc:
            raise fail(where, None, str(exc)) from None
        if not isinstance(table, dict):
            raise fail(where, None, "expected a table")
        for key, value in table.items():
            check = ACCOUNT_KEYS.get(key)
            if check is None:
                raise fail(where, key, f"unknown key (known: {', '.join(ACCOUNT_KEYS)})")
            try:
                check(value)
            except Invalid as exc:
                raise fail(where, key, str(exc)) from None
        fund = table.get("fund", {})
        norm_fund: dict[str, Any] = {}
        for chain, amount in fund.items():
            try:
                c = v_chain(chain)
            except Invalid as exc:
                raise fail(where, f"fund.{chain}", str(exc)) from None
            try:
                amount_for_chain(v_amount(amount), c)
            except Invalid as exc:
                raise fail(where, f"fund.{chain}", str(exc)) from None
            norm_fund[c] = amount
        if "key" in table:
            if "count" in table:
                raise fail(where, "key", "an account with 'count' derives its keys; it cannot take one 'key'")
            _check_key(table["key"], partial(fail, where, "key"))
        names = [f"{name}{i}" for i in range(table["count"])] if "count" in table else [name]
        for n in names:
            if n in seen:
                raise fail(where, None, f"account name '{n}' is defined twice (ewoq is built in)")
            seen.add(n)
            sc.accounts.append(AccountSpec(n, table.get("key"), dict(norm_fund)))

    steps = doc.get("steps", [])
    if not isinstance(steps, list):
        raise fail("[[steps]]", None, "expected an array of tables ([[steps]])")
    sc.steps = parse_steps(steps, source, prefix="")
    return sc


def _check_key(text: Any, fail: Any) -> None:
    from ..formats.errors import FormatError
    from ..formats.ids import private_key_from_str

    if not isinstance(text, str):
        raise fail("expected \"PrivateKey-…\" or \"0x…\" (64 hex digits)")
    try:
        if text.startswith("PrivateKey-"):
            private_key_from_str(text)
        elif len(text) == 66 and text.startswith("0x"):
            bytes.fromhex(text[2:])
        else:
            raise FormatError("expected \"PrivateKey-…\" or \"0x\" and 64 hex digits")
    except (FormatError, ValueError) as exc:
        raise fail(f"invalid key: {exc}") from None


def _coerce_like(example: Any, value: Any) -> Any:
    if isinstance(value, str) and isinstance(example, int) and not isinstance(example, bool):
        try:
            return int(value)
        except ValueError:
            return value
    return value


def parse_steps(steps: list[Any], source: str, prefix: str = "", depth: int = 0) -> list[Step]:
    if depth > MAX_NESTING:
        raise ScenarioLoadError(source, f"step {prefix.rstrip('.')}", None, f"repeats nested deeper than {MAX_NESTING}")
    out: list[Step] = []
    for index, raw in enumerate(steps, start=1):
        number = f"{prefix}{index}"
        out.append(parse_step(raw, source, number, depth))
    return out


def parse_step(raw: Any, source: str, number: str, depth: int = 0) -> Step:
    where = f"step {number}"
    if not isinstance(raw, dict):
        raise ScenarioLoadError(source, where, None, "expected a table")
    kind = raw.get("kind")
    if kind is None:
        raise ScenarioLoadError(source, where, "kind", f"missing (one of: {', '.join(sorted(STEP_SPECS))})")
    spec = STEP_SPECS.get(kind) if isinstance(kind, str) else None
    if spec is None:
        raise ScenarioLoadError(source, where, "kind",
                                f"unknown step kind {kind!r} (known: {', '.join(sorted(STEP_SPECS))})")
    where = f"step {number} ({kind})"
    label = raw.get("label")
    if label is not None and not isinstance(label, str):
        raise ScenarioLoadError(source, where, "label", "expected a string")
    try:
        validate_fields(spec, raw, partial=True)
    except _KeyInvalid as exc:
        raise ScenarioLoadError(source, where, exc.key, str(exc)) from None
    except _FieldError as exc:
        raise ScenarioLoadError(source, where, exc.key, exc.message) from None
    except Invalid as exc:
        raise ScenarioLoadError(source, where, None, str(exc)) from None
    step = Step(number=number, kind=kind, raw=dict(raw), label=label)
    if kind == "repeat":
        step.children = parse_steps(raw["steps"], source, prefix=f"{number}.", depth=depth + 1)
    return step


class _FieldError(Exception):
    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


def validate_fields(spec: StepSpec, raw: dict[str, Any], partial: bool) -> dict[str, Any]:
    """Check keys and values. partial=True (load time) skips values that still hold templates."""
    for key in raw:
        if key not in spec.keys:
            raise _FieldError(key, f"unknown key for a {spec.kind} step (known: "
                              f"{', '.join(sorted(spec.keys - {'kind'}))})")
    for key in spec.required:
        if key not in raw:
            raise _FieldError(key, f"missing (a {spec.kind} step needs: {', '.join(spec.required)})")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key in ("kind", "label"):
            continue
        if key == "steps" and spec.kind == "repeat":
            if not isinstance(value, list):
                raise _FieldError(key, "expected an array of step tables")
            out[key] = value
            continue
        if partial and not spec.literal and has_template(value):
            out[key] = value  # checked once resolved; present for the cross-key checks
            continue
        check = spec.required.get(key) or spec.optional[key]
        try:
            out[key] = check(value)
        except Invalid as exc:
            raise _FieldError(key, str(exc)) from None
        except TemplateError as exc:
            raise _FieldError(key, str(exc)) from None
    if spec.check is not None:
        spec.check(out)
    return out
