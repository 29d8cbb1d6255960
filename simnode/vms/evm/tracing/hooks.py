"""The tracing hooks of py-evm computations: a tracer's own opcode table and call frames.

`tracing_vm(vm_class)` is that VM class with TracingComputation over its computation class; while
a tracer is active (`with tracing(tracer)`), its computations run the tracer's table (the
tracer's `wrap` of the plain one) and, for a call tracer, record each message as a frame. With no
tracer active they run as the plain class. Users: debug_trace* (debug_trace.py) and
eth_createAccessList's tracer (access_list.py). The active tracers are per context (a
ContextVar): a trace on one thread never sees another thread's tracer.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from eth.exceptions import Revert
from eth.vm.forks.cancun.computation import CancunComputation
from eth.vm.opcode_values import CALL, CALLCODE, CREATE, CREATE2, DELEGATECALL, STATICCALL

from ..rpcjson import hb, hx
from ..vmerrors import revert_message, vm_error_text

_MNEMONICS: dict[int, str] = {}
for _op, _fn in CancunComputation.opcodes.items():
    _MNEMONICS[_op] = (getattr(_fn, "mnemonic", None)
                       or getattr(getattr(_fn, "__wrapped__", None), "mnemonic", f"0x{_op:02x}"))

_CALL_KINDS = {CALL: "CALL", CALLCODE: "CALLCODE", DELEGATECALL: "DELEGATECALL", STATICCALL: "STATICCALL",
               CREATE: "CREATE", CREATE2: "CREATE2"}


class Tracer:
    def __init__(self, kind: str, config: dict | None = None) -> None:
        self.kind = kind
        cfg = config or {}
        self.disable_stack = bool(cfg.get("disableStack", False))
        self.enable_memory = bool(cfg.get("enableMemory", False))
        self.only_top = bool((cfg.get("tracerConfig") or {}).get("onlyTopCall", False))
        self.logs: list[dict] = []
        self.frames: list[dict] = []
        self.root: dict | None = None
        self.last_op: int | None = None
        self._wrapped: dict[int, Any] = {}

    def wrap(self, table: dict[int, Any]) -> dict[int, Any]:
        if not self._wrapped:
            for op, fn in table.items():
                self._wrapped[op] = self._wrap_one(op, fn)
        return self._wrapped

    def _wrap_one(self, op: int, fn: Any) -> Any:
        name = _MNEMONICS.get(op, f"0x{op:02x}")
        tracer = self

        def traced(computation: Any) -> Any:
            tracer.last_op = op
            if tracer.kind != "struct":
                return fn(computation=computation)
            gas_before = computation._gas_meter.gas_remaining
            entry: dict[str, Any] = {
                "pc": max(0, computation.code.program_counter - 1), "op": name, "gas": gas_before, "gasCost": 0,
                "depth": computation.msg.depth + 1,
            }
            if not tracer.disable_stack:
                entry["stack"] = [hex(v if isinstance(v, int) else int.from_bytes(v, "big"))
                                  for v in computation._stack.values]
            if tracer.enable_memory:
                mem = bytes(computation._memory._bytes)
                entry["memory"] = [mem[i:i + 32].hex() for i in range(0, len(mem), 32)]
            tracer.logs.append(entry)
            try:
                return fn(computation=computation)
            finally:
                entry["gasCost"] = gas_before - computation._gas_meter.gas_remaining
        traced.mnemonic = name  # type: ignore[attr-defined]
        return traced


_active: ContextVar[Any] = ContextVar("simnode_tracer", default=None)  # the innermost tracer running


@contextmanager
def tracing(tracer: Any) -> Iterator[None]:
    """Computations of a tracing_vm run under `tracer` (a Tracer, or any object with its `kind`
    and `wrap(table)`) inside the block, in this context."""
    token = _active.set(tracer)
    try:
        yield
    finally:
        _active.reset(token)


class TracingComputation(CancunComputation):
    @property
    def opcodes(self) -> dict:
        table = type(self)._base_opcodes
        tracer = _active.get()
        if tracer is not None:
            return tracer.wrap(table)
        return table

    @classmethod
    def apply_computation(cls, state: Any, message: Any, transaction_context: Any,
                          parent_computation: Any = None) -> Any:
        tracer = _active.get()
        if tracer is None or tracer.kind != "call":
            return super().apply_computation(state, message, transaction_context, parent_computation)
        if tracer.frames:
            kind = _CALL_KINDS.get(tracer.last_op or CALL, "CALL")
        else:
            kind = "CREATE" if message.is_create else "CALL"
        if message.is_create:
            to = message.storage_address
        elif kind in ("DELEGATECALL", "CALLCODE"):
            to = message.code_address
        else:
            to = message.to
        frame: dict[str, Any] = {"from": hb(message.sender), "gas": hx(message.gas), "gasUsed": "0x0",
                                 "to": hb(to), "input": hb(message.data_as_bytes), "type": kind}
        if kind not in ("STATICCALL", "DELEGATECALL"):
            frame["value"] = hx(message.value)
        parent = tracer.frames[-1] if tracer.frames else None
        tracer.frames.append(frame)
        try:
            comp = super().apply_computation(state, message, transaction_context, parent_computation)
        finally:
            tracer.frames.pop()
        frame["gasUsed"] = hx(message.gas - comp.get_gas_remaining())
        out = comp.output
        if out:
            frame["output"] = hb(out)
        if comp.is_error:
            if isinstance(comp.error, Revert):
                frame["error"] = "execution reverted"
                reason = revert_message(comp.output)
                if reason != "execution reverted":
                    frame["revertReason"] = reason.split(": ", 1)[1]
            else:
                frame["error"] = vm_error_text(comp.error)
        if parent is not None:
            if not tracer.only_top:
                parent.setdefault("calls", []).append(frame)
        else:
            tracer.root = frame
        return comp


TracingComputation._base_opcodes = CancunComputation.opcodes  # type: ignore[attr-defined]


@functools.cache
def tracing_vm(vm_class: type) -> type:
    """`vm_class` (coreth's or subnet-EVM's accounts and rules, the precompiles active in the
    traced block) with the tracing hooks over its own computation class."""
    state = vm_class.get_state_class()
    base = state.computation_class
    # the tracer wraps the base's own table (an L1 before Etna runs Shanghai's, before Durango Paris's)
    computation = TracingComputation if base is CancunComputation else type(
        f"Tracing{base.__name__}", (TracingComputation, base), {"_base_opcodes": base.opcodes})
    return vm_class.configure(__name__=f"Tracing{vm_class.__name__}",
                              _state_class=state.configure(__name__=f"Tracing{state.__name__}",
                                                           computation_class=computation))
