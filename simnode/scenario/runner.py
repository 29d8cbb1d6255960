"""The scenario runner: drives a node like a client, one step after the other.

Every step goes through the node's public API (the same endpoints, envelopes and handlers an
HTTP client reaches; see transport.py); txs are built and signed here and sent signed. A step
that fails stops the run with a `StepFailed` naming the step; the node keeps every block
accepted so far (a block is one atomic write), so the data dir stays consistent.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import Any

from .accounts import EWOQ_KEY, Account, derive_key, parse_key
from .errors import ChainUnavailable, ExpectationFailed, ScenarioError, StepError, StepFailed
from .evm import EvmClient, act_call, act_deploy, act_transact, act_transfer_c
from .expect import run_checks
from .model import Scenario, Step, _FieldError, validate_fields
from .schema import CHAINS, Invalid, _KeyInvalid, amount_for_chain, v_amount
from .stats import RunStats, TxRecord
from .templates import PathMissing, TemplateError, get_path, parse_path, substitute
from .transport import RPCError, Transport, TransportError
from .recorded import act_block, act_request

log = logging.getLogger("simnode.scenario")

Action = Callable[["Runner", dict[str, Any]], Any]

_PROBES: dict[str, tuple[str, str, Any]] = {
    "C": ("C", "eth_chainId", []),
    "X": ("X", "avm.getHeight", {}),
    "P": ("P", "platform.getHeight", {}),
}


def is_method_not_found(exc: RPCError) -> bool:
    msg = str(exc)
    return exc.code == -32601 or "can't find service" in msg or "can't find method" in msg


class Progress:
    """A one-line progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, total: int, enabled: bool | None = None, stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = max(total, 1)
        self.done = 0
        self._last = 0.0

    def tick(self, label: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and self.done < self.total:
            return
        self._last = now
        frac = min(self.done / self.total, 1.0)
        width = 30
        bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} step {label[:30]:<30}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * 80 + "\r")
            self.stream.flush()


class Runner:
    def __init__(self, scenario: Scenario, transport: Transport, *, network_id: int = 12345,
                 virtual: bool = True, block_time: float = 0.0, extra_accounts: dict[str, Account] | None = None,
                 progress: bool | None = None, out: Any = None) -> None:
        self.scenario = scenario
        self.transport = transport
        self.network_id = network_id
        self.virtual = virtual
        self.block_time = block_time
        self.out = out
        self.accounts: dict[str, Account] = {"ewoq": Account("ewoq", EWOQ_KEY, network_id)}
        for name, acct in (extra_accounts or {}).items():
            self.accounts[name] = acct
        for spec in scenario.accounts:
            key = parse_key(spec.key) if spec.key else derive_key(scenario.seed, spec.name)
            self.accounts[spec.name] = Account(spec.name, key, network_id)
        self._eoas = {a.eth_address_bytes for a in self.accounts.values()}
        self.saved: dict[str, Any] = {}
        self.contracts: dict[str, Any] = {}
        self.assets: dict[str, str] = {}
        self.snapshots: dict[str, str] = {}
        self.txs: list[TxRecord] = []
        self.evm = EvmClient(self)
        self.l1_evms: dict[str, EvmClient] = {}  # L1 EVM chains steps ran on, by blockchain ID
        self._available: dict[str, bool] = {}
        self._label = "setup"
        self.stats = RunStats()
        self._progress_flag = progress
        self.progress: Progress | None = None
        self._xp: Any = None
        self.session: Any = None  # recorded.SessionReplay, made by the first recorded step
        self.target = False  # a live endpoint not in this process (target.py): its time is the wall clock
        self.skip: dict[str, Any] = {}  # step number -> why the target cannot do it (--skip-unsupported)

    # ------------------------------------------------------------------ lookups used by actions

    def account(self, ref: str) -> Account:
        acct = self.accounts.get(ref)
        if acct is None:
            raise StepError(f"unknown account '{ref}' (accounts: {', '.join(sorted(self.accounts))})")
        return acct

    def eth_address(self, ref: str) -> bytes:
        if not isinstance(ref, str):
            raise StepError(f"expected an account, contract or 0x address, got {ref!r}")
        if ref in self.accounts:
            return self.accounts[ref].eth_address_bytes
        if ref in self.contracts:
            return self.contracts[ref].address
        if ref in self.saved and isinstance(self.saved[ref], str):
            ref = self.saved[ref]
        if ref.startswith("0x") and len(ref) == 42:
            try:
                return bytes.fromhex(ref[2:])
            except ValueError:
                pass
        raise StepError(f"'{ref}' is not an account, a saved contract or a 0x address")

    def is_known_eoa(self, addr: bytes) -> bool:
        return addr in self._eoas

    def evm_for(self, f: dict[str, Any]) -> EvmClient:
        """The EVM chain a step runs on: the C-Chain, or the L1 its `evm_chain` names (a saved
        create_chain name or a blockchain ID)."""
        ref = f.get("evm_chain")
        if ref is None:
            self.require("C")
            return self.evm
        chain_id = self.saved.get(ref, ref)
        if not isinstance(chain_id, str):
            raise StepError(f"evm_chain '{ref}' is not a blockchain ID")
        client = self.l1_evms.get(chain_id)
        if client is None:
            client = self.l1_evms[chain_id] = EvmClient(self, chain_id, f"/ext/bc/{chain_id}/rpc")
        return client

    def record_tx(self, chain: str, tx_id: str) -> None:
        self.txs.append(TxRecord(self._label, chain, tx_id))
        self.stats.txs += 1

    def _lookup(self, ref: str) -> Any:
        parts = parse_path(ref)
        head = parts[0]
        if not isinstance(head, str):
            raise TemplateError(f"invalid reference ${{{ref}}}")
        if head in self.saved:
            base: Any = self.saved[head]
        elif head in self.accounts:
            if len(parts) != 2 or not isinstance(parts[1], str):
                raise TemplateError(f"${{{ref}}}: use ${{{head}.C}}, ${{{head}.X}}, ${{{head}.P}} or ${{{head}.key}}")
            try:
                return self.accounts[head].attr(parts[1])
            except KeyError as exc:
                raise TemplateError(str(exc.args[0])) from None
        elif head in self.contracts:
            from eth_utils import to_checksum_address
            base = to_checksum_address(self.contracts[head].address)
        elif head in self.scenario.vars:
            base = self.scenario.vars[head]
        else:
            known = sorted({*self.saved, *self.accounts, *self.scenario.vars})
            raise TemplateError(f"${{{ref}}}: nothing saved under '{head}' (known: {', '.join(known)})")
        try:
            return get_path(base, parts[1:]) if len(parts) > 1 else base
        except PathMissing as exc:
            raise TemplateError(f"${{{ref}}}: {exc}") from None

    # ------------------------------------------------------------------ chains

    def require(self, chain: str) -> None:
        ok = self._available.get(chain)
        if ok is None:
            endpoint, method, params = _PROBES[chain]
            try:
                self.transport.call(endpoint, method, params)
                ok = True
            except RPCError as exc:
                ok = not is_method_not_found(exc)
            except TransportError:
                ok = False
            self._available[chain] = ok
        if not ok:
            raise ChainUnavailable(chain)

    def available(self, chain: str) -> bool:
        try:
            self.require(chain)
            return True
        except ChainUnavailable:
            return False

    def on_node(self, fn: Callable[[], Any]) -> Any:
        return self.transport.on_node(fn)

    def node_chain(self, alias: str) -> Any:
        node = getattr(self.transport, "node", None)
        chain = node.chain_by_alias(alias) if node is not None else None
        if chain is None:
            raise StepError(f"{alias}-Chain is not reachable in this process")
        return chain

    @property
    def xp(self) -> Any:
        if self._xp is None:
            from .xp import XPClient
            self._xp = XPClient(self)
        return self._xp

    def heights(self) -> dict[str, int]:
        out: dict[str, int] = {}
        if self.available("P"):
            out["P"] = int(self.transport.call("P", "platform.getHeight", {})["height"])
        if self.available("X"):
            out["X"] = int(self.transport.call("X", "avm.getHeight", {})["height"])
        if self.available("C"):
            out["C"] = int(self.transport.call("C", "eth_blockNumber", []), 16)
        for chain_id, client in sorted(self.l1_evms.items()):
            out[chain_id] = int(client.call("eth_blockNumber", []), 16)
        return out

    def now_ms(self) -> int:
        if self.target:
            return time.time_ns() // 1_000_000
        return int(self.transport.call("simnode", "simnode.getTime", {})["timestampMilliseconds"])

    # ------------------------------------------------------------------ running

    def run(self, *, setup: bool = True) -> RunStats:
        started = time.monotonic()
        self.stats.heights_before = self.heights()
        self.stats.start_ms = self.now_ms()
        total = self.scenario.count_steps() + sum(len(a.fund) for a in self.scenario.accounts)
        self.progress = Progress(total, self._progress_flag)
        try:
            if setup:
                self.fund_accounts()
            for step in self.scenario.steps:
                self.run_step(step, dict(self.scenario.vars))
        finally:
            self.progress.close()
            self.stats.wall_s = time.monotonic() - started
            try:
                self.stats.heights_after = self.heights()
                self.stats.end_ms = self.now_ms()
                if self.session is not None:
                    self.session.finish()
            except Exception:  # noqa: BLE001 - the node may be gone; the error above matters more
                pass
        return self.stats

    def fund_accounts(self) -> None:
        """Fund the accounts from ewoq with real txs, in file order (C, X, P per account)."""
        for spec in self.scenario.accounts:
            for chain in CHAINS[::-1]:  # C first: the chain every build has
                if chain not in spec.fund:
                    continue
                label = f"setup (fund {spec.name} on {chain})"
                self._label = label
                try:
                    amount = amount_for_chain(v_amount(spec.fund[chain]), chain)
                    self.require(chain)
                    if chain == "C":
                        self.evm.send(EWOQ_KEY, self.accounts[spec.name].eth_address_bytes, amount)
                    else:
                        self.xp.transfer(chain, self.accounts["ewoq"], self.accounts[spec.name].address(chain), amount)
                except (StepError, ChainUnavailable, RPCError, TransportError, Invalid) as exc:
                    raise StepFailed(label, "fund", str(exc)) from None
                if self.progress:
                    self.progress.tick(label)

    def run_step(self, step: Step, names: dict[str, Any], loops: tuple[tuple[str, int], ...] = ()) -> None:
        label = step.describe() + (" (" + ", ".join(f"{v}={i}" for v, i in loops) + ")" if loops else "")
        if step.kind == "repeat":
            self._run_repeat(step, names, label, loops)
            return
        if step.number in self.skip:
            self.stats.skipped.append(step.number)
            self.emit(f"skipped {self.skip[step.number]}")
            if self.progress:
                self.progress.tick(label)
            return
        self._label = label
        try:
            raw = {k: v for k, v in step.raw.items() if k not in ("kind", "label")}
            resolved = raw if step.spec.literal else substitute(raw, names, self._lookup)
            fields = validate_fields(step.spec, resolved, partial=False)
        except _FieldError as exc:
            raise StepFailed(label, step.kind, f"key '{exc.key}': {exc.message}") from None
        except _KeyInvalid as exc:
            raise StepFailed(label, step.kind, f"key '{exc.key}': {exc}") from None
        except (Invalid, TemplateError) as exc:
            raise StepFailed(label, step.kind, str(exc)) from None
        expect_error = fields.get("expect_error")
        try:
            result = ACTIONS[step.kind](self, fields)
        except (StepError, ChainUnavailable, RPCError, TransportError) as exc:
            message = str(exc)
            if isinstance(exc, RPCError) and exc.method:
                message = f"{exc.method}: {message}"
            if isinstance(exc, (RPCError, StepError)):
                self.evm.reset()
            if expect_error is not None and not isinstance(exc, (ChainUnavailable, ExpectationFailed)) \
                    and expect_error.lower() in message.lower():
                result = message
            else:
                raise StepFailed(label, step.kind, message) from None
        else:
            if expect_error is not None:
                raise StepFailed(label, step.kind, f"expected an error containing {expect_error!r}, "
                                 f"but the step succeeded (result: {str(result)[:120]})")
        if "save" in fields:
            self.saved[fields["save"]] = result
        self.stats.steps += 1
        if self.progress:
            self.progress.tick(label)

    def _run_repeat(self, step: Step, names: dict[str, Any], label: str, loops: tuple[tuple[str, int], ...]) -> None:
        try:
            fields = validate_fields(step.spec, substitute(
                {k: v for k, v in step.raw.items() if k not in ("kind", "label", "steps")}, names, self._lookup)
                | {"steps": step.raw["steps"]}, partial=False)
        except _FieldError as exc:
            raise StepFailed(label, step.kind, f"key '{exc.key}': {exc.message}") from None
        except (Invalid, TemplateError) as exc:
            raise StepFailed(label, step.kind, str(exc)) from None
        var = fields.get("var", "i")
        for i in range(fields["count"]):
            inner = {**names, var: i}
            for child in step.children:
                self.run_step(child, inner, (*loops, (var, i)))

    def emit(self, text: str) -> None:
        if self.out is not None:
            print(text, file=self.out, flush=True)
        else:
            log.info("%s", text)


# -------------------------------------------------------------------------------------- actions


def act_transfer(r: Runner, f: dict[str, Any]) -> Any:
    chain = f["chain"]
    r.require(chain)
    if chain == "C":
        return act_transfer_c(r, f)
    return r.xp.transfer(chain, r.account(f["from"]), r.xp.address(chain, f["to"]),
                         amount_for_chain(f["amount"], chain), asset=f.get("asset"), memo=f.get("memo", ""))


def act_export(r: Runner, f: dict[str, Any]) -> Any:
    r.require(f["from_chain"])
    r.require(f["to_chain"])
    return r.xp.export(f)


def act_import(r: Runner, f: dict[str, Any]) -> Any:
    r.require(f["from_chain"])
    r.require(f["chain"])
    return r.xp.import_(f["chain"], f["from_chain"], r.account(f["to"]))


def _xp_action(chain: str, method: str) -> Action:
    def act(r: Runner, f: dict[str, Any]) -> Any:
        r.require(chain)
        return getattr(r.xp, method)(f)
    return act


def act_advance_time(r: Runner, f: dict[str, Any]) -> Any:
    return r.transport.call("simnode", "simnode.advanceTime", {"seconds": str(f["by"])})


def act_set_time(r: Runner, f: dict[str, Any]) -> Any:
    return r.transport.call("simnode", "simnode.setTime", {"timestamp": str(f["to"] // 1000)})


def act_mine(r: Runner, f: dict[str, Any]) -> Any:
    return r.transport.call("simnode", "simnode.mine", {"blocks": str(f.get("blocks", 1))})


def act_rpc(r: Runner, f: dict[str, Any]) -> Any:
    r.evm.reset()  # a raw call may send txs: cached nonces are no longer trusted
    return r.transport.call(f["endpoint"], f["method"], f.get("params"))


def act_snapshot(r: Runner, f: dict[str, Any]) -> Any:
    sid = r.transport.call("simnode", "simnode.snapshot", {})["id"]
    r.snapshots[f["name"]] = sid
    return sid


def act_revert(r: Runner, f: dict[str, Any]) -> Any:
    name = f["name"]
    sid = r.snapshots.get(name)
    if sid is None:
        raise StepError(f"no snapshot named '{name}' (taken: {', '.join(r.snapshots) or 'none'}; "
                        "a revert consumes its snapshot and every later one)")
    r.transport.call("simnode", "simnode.revert", {"id": sid})
    # the node consumed this snapshot and every later one
    order = list(r.snapshots)
    for later in order[order.index(name):]:
        r.snapshots.pop(later, None)
    r.evm.reset()
    if r._xp is not None:
        r._xp.reset()
    return True


def act_expect(r: Runner, f: dict[str, Any]) -> Any:
    wei = False
    if "method" in f:
        endpoint = f["endpoint"]
        wei = endpoint.upper() == "C" or endpoint.endswith("/C/rpc")
        try:
            doc: Any = {"result": r.transport.call(endpoint, f["method"], f.get("params"))}
        except RPCError as exc:
            if "error" in f:
                if f["error"].lower() not in str(exc).lower():
                    raise ExpectationFailed(f"expected an error containing {f['error']!r}, got {str(exc)!r}") from None
                return str(exc)
            raise ExpectationFailed(f"{f['method']} failed: {exc}") from None
        if "error" in f:
            raise ExpectationFailed(f"expected an error containing {f['error']!r}, got a result: "
                                    f"{str(doc['result'])[:160]}")
    elif "get" in f:
        status, body = r.transport.get(f["get"])
        doc = {"status": status, "body": body} if not isinstance(body, dict) else {**body, "status": status}
    else:
        doc = f["value"]
    run_checks(doc, f, wei=wei)
    return doc


def act_expect_balance(r: Runner, f: dict[str, Any]) -> Any:
    chain = f["chain"]
    r.require(chain)
    if chain == "C":
        addr = r.eth_address(f["account"])
        balance = int(r.transport.call("C", "eth_getBalance", ["0x" + addr.hex(), "latest"]), 16)
    else:
        balance = r.xp.balance(chain, f["account"], f.get("asset"))
    for key, ok, text in (("equals", lambda a, b: a == b, "=="), ("min", lambda a, b: a >= b, ">="),
                          ("max", lambda a, b: a <= b, "<=")):
        if key in f:
            want = amount_for_chain(f[key], chain)
            if not ok(balance, want):
                unit = "wei" if chain == "C" else "nAVAX"
                raise ExpectationFailed(f"{f['account']} on {chain}: expected balance {text} {want} {unit} "
                                        f"({_fmt_amount(f[key])}), got {balance} "
                                        f"(off by {balance - want:+d})")
    return balance


def _fmt_amount(parsed: tuple[int, str]) -> str:
    from decimal import Decimal

    value, family = parsed
    if family == "avax":
        return f"{Decimal(value) / Decimal(10**9):f}".rstrip("0").rstrip(".") + " AVAX"
    return f"{value} {'wei' if family == 'wei' else '(smallest unit)'}"


def act_echo(r: Runner, f: dict[str, Any]) -> Any:
    r.emit(f["message"])
    return f["message"]


ACTIONS: dict[str, Action] = {
    "transfer": act_transfer,
    "export": act_export,
    "import": act_import,
    "create_asset": _xp_action("X", "create_asset"),
    "deploy": act_deploy,
    "call": act_call,
    "transact": act_transact,
    "add_validator": _xp_action("P", "add_validator"),
    "add_delegator": _xp_action("P", "add_delegator"),
    "create_subnet": _xp_action("P", "create_subnet"),
    "create_chain": _xp_action("P", "create_chain"),
    "convert_to_l1": _xp_action("P", "convert_to_l1"),
    "register_l1_validator": _xp_action("P", "register_l1_validator"),
    "l1_acknowledgement": _xp_action("P", "l1_acknowledgement"),
    "advance_time": act_advance_time,
    "set_time": act_set_time,
    "mine": act_mine,
    "rpc": act_rpc,
    "snapshot": act_snapshot,
    "revert": act_revert,
    "expect": act_expect,
    "expect_balance": act_expect_balance,
    "echo": act_echo,
    "request": act_request,
    "block": act_block,
}

__all__ = ["ACTIONS", "Runner", "RunStats", "ScenarioError", "StepFailed", "TxRecord"]
