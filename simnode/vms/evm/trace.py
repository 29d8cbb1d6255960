"""debug_traceTransaction / debug_traceCall / debug_traceBlockByNumber / ByHash.

Tracers: geth's default struct logger (`structLogs`) and `callTracer` (nested call frames).
A tracing VM class re-executes the block on its pre-state: earlier txs untraced, the target
traced. Tracing hooks live in a computation subclass and cost nothing when no trace is running.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from eth.exceptions import Revert
from eth.vm.chain_context import ChainContext
from eth.vm.forks.cancun.computation import CancunComputation
from eth.vm.opcode_values import CALL, CALLCODE, CREATE, CREATE2, DELEGATECALL, STATICCALL

from ...rpc.jsonrpc import EthService, RPCError
from .chain import BlockInfo, ChainError, evm_header
from .execution import revert_message, vm_error_text
from .rpcjson import hb, hx, parse_hash

if TYPE_CHECKING:
    from .service import EthAPI

_MNEMONICS: dict[int, str] = {}
for _op, _fn in CancunComputation.opcodes.items():
    _MNEMONICS[_op] = getattr(_fn, "mnemonic", None) or getattr(getattr(_fn, "__wrapped__", None), "mnemonic", f"0x{_op:02x}")

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


_ACTIVE: list[Tracer] = []


class TracingComputation(CancunComputation):
    @property  # type: ignore[override]
    def opcodes(self) -> dict:
        table = type(self)._base_opcodes
        if _ACTIVE:
            return _ACTIVE[-1].wrap(table)
        return table

    @classmethod
    def apply_computation(cls, state: Any, message: Any, transaction_context: Any, parent_computation: Any = None) -> Any:
        tracer = _ACTIVE[-1] if _ACTIVE else None
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
    computation = TracingComputation if base is CancunComputation else type(
        f"Tracing{base.__name__}", (TracingComputation, base), {})
    return vm_class.configure(__name__=f"Tracing{vm_class.__name__}",
                              _state_class=state.configure(__name__=f"Tracing{state.__name__}",
                                                           computation_class=computation))


def _tracer_from(config: Any) -> Tracer:
    cfg = config if isinstance(config, dict) else {}
    name = cfg.get("tracer")
    if name in (None, "", "structLogger"):
        return Tracer("struct", cfg)
    if name == "callTracer":
        return Tracer("call", cfg)
    raise RPCError(f"tracer {name!r} is not supported; use the struct logger or callTracer", -32000)


def _result(tracer: Tracer, comp: Any, gas_used: int) -> Any:
    if tracer.kind == "call":
        root = tracer.root or {}
        root["gasUsed"] = hx(gas_used)
        return root
    return {"gas": gas_used, "failed": bool(comp.is_error), "returnValue": comp.output.hex(),
            "structLogs": tracer.logs}


def _block_vm(api: EthAPI, block: BlockInfo) -> tuple[Any, Any]:
    chain = api.chain
    pre = chain.pre_state_root(block)
    hdr = evm_header(block.header, state_root=pre, gas_used=0, bloom=0)
    vm = tracing_vm(chain.precompiles.vm_class_at(hdr.timestamp))(
        header=hdr, chaindb=chain.evm.chaindb, chain_context=ChainContext(chain.evm_chain_id),
        consensus_context=chain.evm.consensus_context)
    vm.state.warp_identity = chain.warp_identity
    vm.state.warp_failed = chain.warp_failed_of(block)  # as the builder found the block's predicates
    parent = chain.block(block.number - 1) if block.number else None
    if parent is not None:
        # the block's upgrades (precompile activations) happened before its first tx, as the builder did them
        chain.apply_upgrades(vm.state, parent.header.timestamp, hdr.block_number, hdr.timestamp)
    return vm, hdr


def trace_block(api: EthAPI, block: BlockInfo, config: Any, only: int | None = None) -> list:
    vm, prev = _block_vm(api, block)
    out = []
    for i, tx in enumerate(block.txs):
        if only is not None and i > only:
            break
        traced = only is None or i == only
        tracer = _tracer_from(config) if traced else None
        if tracer is not None:
            _ACTIVE.append(tracer)
        try:
            receipt, comp = vm.apply_transaction(prev, tx)
        finally:
            if tracer is not None:
                _ACTIVE.pop()
        used = receipt.gas_used - prev.gas_used
        prev = vm.add_receipt_to_header(prev, receipt)
        if tracer is not None:
            out.append((tx, _result(tracer, comp, used)))
    return out


def register_trace(svc: EthService, api: EthAPI) -> None:
    chain = api.chain

    def trace_tx(h: Any, config: Any = None) -> Any:
        loc = chain.tx_location(parse_hash(h))
        if loc is None:
            raise ChainError(f"transaction {h} not found")
        block, idx = loc
        return trace_block(api, block, config, only=idx)[0][1]
    svc.register("debug_traceTransaction", trace_tx, 1, 2)

    def block_traces(block: BlockInfo | None, config: Any) -> list:
        if block is None:
            raise ChainError("block not found")
        from ...crypto.hashing import keccak256
        return [{"txHash": hb(keccak256(block.raws[i])), "result": r}
                for i, (_, r) in enumerate(trace_block(api, block, config))]
    svc.register("debug_traceBlockByNumber", lambda tag, config=None: block_traces(api.resolve(tag, 0, True), config), 1, 2)
    svc.register("debug_traceBlockByHash",
                 lambda h, config=None: block_traces(chain.block_by_hash(parse_hash(h)), config), 1, 2)

    def trace_call(obj: Any, tag: Any = None, config: Any = None) -> Any:
        args = api.call_args(obj)
        block = api._latest_or_block(tag)
        tracer = _tracer_from(config)
        overrides = (config or {}).get("stateOverrides") if isinstance(config, dict) else None
        at = block or chain.head
        state = api.exec.build_state(block, not bool(args.gas_price or args.max_fee or args.tip),
                                     args.gas or 50_000_000, overrides,
                                     vm_class=tracing_vm(chain.precompiles.vm_class_at(at.header.timestamp)))
        _ACTIVE.append(tracer)
        try:
            comp = api.exec.run(args, block, state=state)
        finally:
            _ACTIVE.pop()
        gas = args.gas or 50_000_000
        return _result(tracer, comp, gas - comp.get_gas_remaining())  # no refunds (rules.py)
    svc.register("debug_traceCall", trace_call, 1, 3)
