"""The scenario file format: tables, step kinds, their keys, and load-time validation.

Every key of every table and step is checked when the file is loaded; an unknown key, a missing
one or a bad value is a `ScenarioLoadError` naming the file, the step number and the key. Values
that hold a template (``{i}``, ``${name}``) are checked again once resolved, at run time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from ..formats.amounts import AVAX_FAMILY, WEI_FAMILY, parse_amount, parse_duration
from ..formats.errors import FormatError
from .templates import TemplateError, has_template, parse_path

Validator = Callable[[Any], Any]
CHAINS = ("X", "P", "C")


class Invalid(ValueError):
    """A bad value; the loader adds file, step and key."""


# ------------------------------------------------------------------------------- value checkers


def v_any(value: Any) -> Any:
    return value


def v_str(value: Any) -> str:
    if not isinstance(value, str):
        raise Invalid(f"expected a string, got {_tname(value)}")
    return value


def v_nonempty(value: Any) -> str:
    if not v_str(value):
        raise Invalid("must not be empty")
    return value


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")


def v_name(value: Any) -> str:
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise Invalid(f"expected a name (letters, digits, _ and -, not starting with a digit), got {value!r}")
    return value


def v_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise Invalid(f"expected true or false, got {_tname(value)}")
    return value


def v_int(minimum: int | None = 0, maximum: int | None = None) -> Validator:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, str) and value.strip().lstrip("-").isdigit():
                value = int(value)
            else:
                raise Invalid(f"expected an integer, got {_tname(value)} {value!r}")
        if minimum is not None and value < minimum:
            raise Invalid(f"must be at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise Invalid(f"must be at most {maximum}, got {value}")
        return value
    return check


def v_number(minimum: float = 0.0) -> Validator:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise Invalid(f"expected a number, got {_tname(value)}")
        if value < minimum:
            raise Invalid(f"must be at least {minimum}")
        return float(value)
    return check


def v_choice(*choices: str, upper: bool = False) -> Validator:
    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise Invalid(f"expected one of {', '.join(choices)}, got {_tname(value)}")
        norm = value.upper() if upper else value
        if norm not in choices:
            raise Invalid(f"expected one of {', '.join(choices)}, got {value!r}")
        return norm
    return check


v_chain = v_choice(*CHAINS, upper=True)


def v_amount(value: Any) -> tuple[int, str]:
    """An amount with an optional unit; (value in the family's smallest unit, family)."""
    if isinstance(value, bool):
        raise Invalid("expected an amount like \"1.5 AVAX\", \"3 gwei\" or an integer")
    if isinstance(value, int):
        if value < 0:
            raise Invalid("amount must not be negative")
        return value, ""
    try:
        return parse_amount(value)
    except FormatError as exc:
        raise Invalid(str(exc)) from None


def amount_for_chain(parsed: tuple[int, str], chain: str) -> int:
    """An amount in the chain's smallest unit: wei on C (1 AVAX = 10^18 wei), nAVAX on X and P."""
    value, family = parsed
    if chain == "C":
        return value * 10**9 if family == AVAX_FAMILY else value
    if family == WEI_FAMILY:
        if value % 10**9:
            raise Invalid(f"{value} wei is not a whole number of nAVAX ({chain}-Chain amounts are in nAVAX)")
        return value // 10**9
    return value


def v_duration(value: Any) -> int:
    if isinstance(value, bool):
        raise Invalid("expected a duration like \"14d\", \"90m\", \"1h30m\"")
    if isinstance(value, int):
        if value < 0:
            raise Invalid("duration must not be negative")
        return value
    try:
        return parse_duration(value)
    except FormatError as exc:
        raise Invalid(str(exc)) from None


def v_time(value: Any) -> int:
    """RFC 3339 (``2026-01-01T00:00:00Z``), a TOML datetime, or unix seconds → unix milliseconds."""
    if isinstance(value, bool):
        raise Invalid("expected a time")
    if isinstance(value, int):
        if value < 0:
            raise Invalid("time must not be negative")
        return value * 1000
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return int(text) * 1000
        try:
            dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise Invalid(
                f"invalid time {value!r}: expected RFC 3339 like 2026-01-01T00:00:00Z or unix seconds") from None
    else:
        raise Invalid(f"expected a time, got {_tname(value)}")
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return (dt - _EPOCH) // timedelta(milliseconds=1)  # exact: recorded times carry milliseconds


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def v_hex(value: Any) -> bytes:
    if not isinstance(value, str):
        raise Invalid(f"expected 0x-prefixed hex, got {_tname(value)}")
    text = value[2:] if value.startswith(("0x", "0X")) else value
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise Invalid("invalid hex") from None


def v_json_text(value: Any) -> Any:
    """JSON text (a recorded request's params or result) → the value."""
    if not isinstance(value, str):
        raise Invalid(f"expected JSON text in a string, got {_tname(value)}")
    try:
        return json.loads(value)
    except ValueError as exc:
        raise Invalid(f"invalid JSON: {exc}") from None


def v_list(item: Validator = v_any) -> Validator:
    def check(value: Any) -> list[Any]:
        if not isinstance(value, list):
            raise Invalid(f"expected a list, got {_tname(value)}")
        return [item(v) for v in value]
    return check


def v_table(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Invalid(f"expected a table, got {_tname(value)}")
    return value


def v_path_expr(value: Any) -> str:
    v_str(value)
    try:
        parse_path(value)
    except TemplateError as exc:
        raise Invalid(str(exc)) from None
    return value


def v_percent(value: Any) -> int:
    """Delegation fee: "2%" or "2.5 %" → parts per million (AvalancheGo's unit)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value <= 1_000_000:
            raise Invalid("must be 0..1000000 (parts per million)")
        return value
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            from fractions import Fraction
            ppm = Fraction(value.strip()[:-1].strip()) * 10_000
        except (ValueError, ZeroDivisionError):
            raise Invalid(f"invalid percentage {value!r}") from None
        if ppm.denominator != 1 or not 0 <= ppm <= 1_000_000:
            raise Invalid(f"invalid percentage {value!r}")
        return int(ppm)
    raise Invalid(f"expected a percentage like \"2%\", got {value!r}")


def _tname(value: Any) -> str:
    return {str: "a string", int: "an integer", float: "a number", bool: "a boolean", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


# ------------------------------------------------------------------------------- step kinds


@dataclass(frozen=True, slots=True)
class StepSpec:
    kind: str
    doc: str
    required: dict[str, Validator] = field(default_factory=dict)
    optional: dict[str, Validator] = field(default_factory=dict)
    # Cross-key checks on the validated fields (only the keys without templates are present).
    check: Callable[[dict[str, Any]], None] | None = None
    # Values are taken as written, never as templates (recorded steps hold JSON and client data).
    literal: bool = False

    @property
    def keys(self) -> set[str]:
        return {"kind", "label", *self.required, *self.optional}


_TX_COMMON: dict[str, Validator] = {"save": v_name, "expect_error": v_str, "wait": v_bool}
_C_TX: dict[str, Validator] = {"gas": v_int(21000), "max_fee": v_amount, "tip": v_amount}


def _check_transfer(step: dict[str, Any]) -> None:
    chain = step.get("chain")
    if chain not in CHAINS:
        return
    if chain != "X" and "asset" in step:
        raise _KeyInvalid("asset", "only X-Chain transfers take an asset")
    if chain != "C":
        for k in ("gas", "max_fee", "tip", "data"):
            if k in step:
                raise _KeyInvalid(k, f"only C-Chain transfers take '{k}'")
    if isinstance(step.get("amount"), tuple):
        try:
            amount_for_chain(step["amount"], chain)
        except Invalid as exc:
            raise _KeyInvalid("amount", str(exc)) from None


def _check_export(step: dict[str, Any]) -> None:
    a, b = step.get("from_chain"), step.get("to_chain")
    if a in CHAINS and a == b:
        raise _KeyInvalid("to_chain", "must differ from from_chain")


def _check_expect(step: dict[str, Any]) -> None:
    sources = [k for k in ("method", "get", "value") if k in step]
    if len(sources) != 1:
        raise Invalid("an expect step needs exactly one of: method (a JSON-RPC call, with endpoint), "
                      "get (a REST path), value (a saved value)")
    if "method" in step and "endpoint" not in step:
        raise _KeyInvalid("endpoint", "required with 'method' (C, X, P, info, or a path like /ext/bc/C/rpc)")
    checks = [k for k in CHECK_KEYS if k in step]
    if not checks and "checks" not in step and "error" not in step:
        raise Invalid(f"an expect step needs a check: one of {', '.join(CHECK_KEYS)}, 'error', or a 'checks' list")


def _check_deploy(step: dict[str, Any]) -> None:
    given = [k for k in ("bytecode", "artifact") if k in step]
    if len(given) != 1:
        raise Invalid("a deploy step needs exactly one of 'bytecode' (hex) or 'artifact' "
                      "(a JSON file with abi and bytecode)")


def _check_balance(step: dict[str, Any]) -> None:
    if not any(k in step for k in ("equals", "min", "max")):
        raise Invalid("an expect_balance step needs one of equals, min, max")


CHECK_KEYS = ("equals", "not_equals", "min", "max", "contains", "length", "exists")


def v_check(value: Any) -> dict[str, Any]:
    v_table(value)
    unknown = set(value) - {"path", *CHECK_KEYS}
    if unknown:
        raise Invalid(f"unknown key(s) in a check: {', '.join(sorted(unknown))} (known: path, {', '.join(CHECK_KEYS)})")
    if "path" in value and not has_template(value["path"]):
        v_path_expr(value["path"])
    if not any(k in value for k in CHECK_KEYS):
        raise Invalid(f"a check needs one of {', '.join(CHECK_KEYS)}")
    return value


def v_endpoint(value: Any) -> str:
    v_nonempty(value)
    if value.upper() in CHAINS or value in ("info", "health", "simnode", "admin") or value.startswith("/"):
        return value
    raise Invalid(f"expected C, X, P, info, health, simnode, admin or a path starting with '/', got {value!r}")


def v_validator_entry(value: Any) -> dict[str, Any]:
    v_table(value)
    known = ("node_id", "weight", "balance", "public_key", "proof_of_possession")
    unknown = set(value) - set(known)
    if unknown:
        raise Invalid(f"unknown key(s) in a validator: {', '.join(sorted(unknown))} (known: {', '.join(known)})")
    if "node_id" not in value:
        raise Invalid("a validator needs node_id")
    if ("public_key" in value) != ("proof_of_possession" in value):
        raise Invalid("a validator's BLS key needs both public_key and proof_of_possession")
    for key in ("public_key", "proof_of_possession"):
        if key in value and not has_template(value[key]):
            v_hex(value[key])
    return value


STEP_SPECS: dict[str, StepSpec] = {}


def _spec(kind: str, doc: str, required: dict[str, Validator] | None = None,
          optional: dict[str, Validator] | None = None, check: Callable[[dict[str, Any]], None] | None = None,
          literal: bool = False) -> None:
    STEP_SPECS[kind] = StepSpec(kind, doc, required or {}, optional or {}, check, literal)


_spec("transfer", "send AVAX (or an X-Chain asset) from an account to an account or address on X, P or C",
      {"chain": v_chain, "from": v_nonempty, "to": v_nonempty, "amount": v_amount},
      {"asset": v_nonempty, "memo": v_str, "data": v_hex, **_C_TX, **_TX_COMMON}, _check_transfer)
_spec("export", "export AVAX from one chain and (unless import = false) import it on another",
      {"from_chain": v_chain, "to_chain": v_chain, "from": v_nonempty, "amount": v_amount},
      {"to": v_nonempty, "import": v_bool, **_TX_COMMON}, _check_export)
_spec("import", "import what was exported to an account from another chain",
      {"chain": v_chain, "from_chain": v_chain, "to": v_nonempty}, {**_TX_COMMON},
      lambda s: _check_export({"from_chain": s.get("from_chain"), "to_chain": s.get("chain")}))
_spec("create_asset", "create an X-Chain asset; save = its name for later steps",
      {"from": v_nonempty, "name": v_nonempty, "symbol": v_nonempty, "supply": v_int(1)},
      {"denomination": v_int(0, 32), "to": v_nonempty, **_TX_COMMON})
_spec("deploy", "deploy a contract on the C-Chain from bytecode or an artifact JSON; save = its name",
      {"from": v_nonempty},
      {"bytecode": v_hex, "artifact": v_nonempty, "abi": v_any, "args": v_list(), "value": v_amount, **_C_TX,
       "evm_chain": v_nonempty, **_TX_COMMON}, _check_deploy)
_spec("call", "eth_call a contract function (read only); save = the decoded result",
      {"contract": v_nonempty, "function": v_nonempty},
      {"args": v_list(), "from": v_nonempty, "save": v_name, "expect_error": v_str, "abi": v_any, "block": v_any,
       "evm_chain": v_nonempty})
_spec("transact", "send a transaction calling a contract function",
      {"contract": v_nonempty, "function": v_nonempty, "from": v_nonempty},
      {"args": v_list(), "value": v_amount, "abi": v_any, "evm_chain": v_nonempty, "predicate": v_hex, **_C_TX,
       **_TX_COMMON})
_spec("add_validator", "add a primary-network validator (AddPermissionlessValidatorTx with a BLS key)",
      {"from": v_nonempty, "node": v_nonempty, "amount": v_amount, "duration": v_duration},
      {"delegation_fee": v_percent, "reward_to": v_nonempty, "start_delay": v_duration, **_TX_COMMON})
_spec("add_delegator", "delegate stake to a validator (AddPermissionlessDelegatorTx)",
      {"from": v_nonempty, "node": v_nonempty, "amount": v_amount, "duration": v_duration},
      {"reward_to": v_nonempty, **_TX_COMMON})
_spec("create_subnet", "create a subnet owned by accounts; save = its name",
      {"from": v_nonempty}, {"owners": v_list(v_nonempty), "threshold": v_int(1), **_TX_COMMON})
_spec("create_chain", "create a chain in a subnet; save = its name",
      {"from": v_nonempty, "subnet": v_nonempty, "name": v_nonempty},
      {"vm": v_nonempty, "genesis": v_any, **_TX_COMMON})
_spec("convert_to_l1", "convert a subnet to an L1 (ConvertSubnetToL1Tx)",
      {"from": v_nonempty, "subnet": v_nonempty, "chain": v_nonempty},
      {"manager": v_nonempty, "validators": v_list(v_validator_entry), **_TX_COMMON})
_spec("register_l1_validator", "register an L1 validator: the manager account sends the RegisterL1Validator "
      "message on the manager chain, the L1's validators sign it, `from` issues the RegisterL1ValidatorTx",
      {"from": v_nonempty, "subnet": v_nonempty, "chain": v_nonempty, "manager": v_nonempty, "node": v_nonempty},
      {"weight": v_int(1), "balance": v_amount, "expiry": v_int(1), **_TX_COMMON})
_spec("l1_acknowledgement", "the signed Warp message of an L1-related P-Chain tx, from the aggregator (save it)",
      {"tx": v_nonempty}, {"save": v_name})
_spec("advance_time", "move the node's clock forward; every event due on the way fires in order",
      {"by": v_duration})
_spec("set_time", "set the node's clock (forward only)", {"to": v_time})
_spec("mine", "build blocks now (every chain with something to build; the C-Chain builds empty ones too)",
      {}, {"blocks": v_int(1, 100_000)})
_spec("rpc", "a raw JSON-RPC call to any endpoint; save = its result",
      {"endpoint": v_endpoint, "method": v_nonempty}, {"params": v_any, "save": v_name, "expect_error": v_str})
_spec("snapshot", "remember the state of every chain under a name", {"name": v_name})
_spec("revert", "go back to a named snapshot (it and every later one are consumed)", {"name": v_name})
_spec("repeat", "run nested steps `count` times; {i} (or {<var>}) is the iteration number from 0",
      {"count": v_int(0, 10_000_000), "steps": v_list()}, {"var": v_name})
_spec("expect", "check the result of a JSON-RPC call, a REST GET or a saved value",
      {}, {"endpoint": v_endpoint, "method": v_nonempty, "params": v_any, "get": v_nonempty, "value": v_any,
           "path": v_path_expr, "checks": v_list(v_check), "error": v_str, "save": v_name,
           **{k: v_any for k in CHECK_KEYS}}, _check_expect)
_spec("expect_balance", "check an account's balance on a chain (amounts with units)",
      {"chain": v_chain, "account": v_nonempty},
      {"equals": v_amount, "min": v_amount, "max": v_amount, "asset": v_nonempty}, _check_balance)
_spec("echo", "print a message (templates resolved) to the run log", {"message": v_str})
_spec("request", "a state-changing request of a recorded session, sent again as it was (at its time on a "
      "virtual clock); a recorded result (a tx or snapshot ID) must come back the same",
      {"endpoint": v_endpoint, "method": v_nonempty}, {"at": v_time, "params": v_json_text, "result": v_json_text},
      literal=True)
_spec("block", "a block of a recorded session: built here at its time (or, on a live target, waited for), its "
      "ID and txs checked", {"chain": v_nonempty, "height": v_int(0)},
      {"id": v_nonempty, "at": v_time, "txs": v_list(v_nonempty)}, literal=True)


class _KeyInvalid(Invalid):
    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


NETWORK_KEYS: dict[str, Validator] = {
    "genesis": v_nonempty, "network_id": v_int(1, 2**32 - 1), "seed": v_int(0, 2**63 - 1), "start_time": v_time,
    "clock": v_choice("virtual", "wall"), "block_time": v_number(0.0),
    # a recorded session (scenario/recorder.py, scenario/proxy.py) and the node it ran on
    "recorded_by": v_choice("node", "proxy"), "chain_config_dir": v_nonempty, "relayer": v_bool, "admin_api": v_bool,
}
ACCOUNT_KEYS: dict[str, Validator] = {"key": v_nonempty, "fund": v_table, "count": v_int(1, 100_000)}
TOP_KEYS = {"name", "description", "network", "accounts", "vars", "steps"}
