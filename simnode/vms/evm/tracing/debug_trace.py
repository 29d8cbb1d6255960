"""debug_traceTransaction / debug_traceCall / debug_traceBlockByNumber / ByHash.

Tracers: geth's default struct logger (`structLogs`) and `callTracer` (nested call frames).
A tracing VM class re-executes the block on its pre-state: earlier txs untraced, the target
traced. Tracing hooks live in a computation subclass and cost nothing when no trace is running.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....rpc.jsonrpc import EthService, RPCError
from ..block_rows import BlockInfo
from ..headers import evm_header
from ..vmerrors import ChainError
from ..rpcjson import hb, hx, parse_block_overrides, parse_hash, parse_state_overrides

if TYPE_CHECKING:
    from ..service import EthAPI
    from .hooks import Tracer

# py-evm's tracing hooks and the executor are imported by the first trace, not with the endpoints


def _tracer_from(config: Any) -> Tracer:
    from .hooks import Tracer

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
    from eth.vm.chain_context import ChainContext

    from .hooks import tracing_vm

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
    from .hooks import tracing

    vm, prev = _block_vm(api, block)
    out = []
    for i, tx in enumerate(block.txs):
        if only is not None and i > only:
            break
        traced = only is None or i == only
        tracer = _tracer_from(config) if traced else None
        if tracer is None:
            receipt, comp = vm.apply_transaction(prev, tx)
        else:
            with tracing(tracer):
                receipt, comp = vm.apply_transaction(prev, tx)
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
        from ....crypto.hashing import keccak256
        return [{"txHash": hb(keccak256(block.raws[i])), "result": r}
                for i, (_, r) in enumerate(trace_block(api, block, config))]
    svc.register("debug_traceBlockByNumber",
                 lambda tag, config=None: block_traces(api.resolve(tag, 0, True), config), 1, 2)
    svc.register("debug_traceBlockByHash",
                 lambda h, config=None: block_traces(chain.block_by_hash(parse_hash(h)), config), 1, 2)

    def trace_call(obj: Any, tag: Any = None, config: Any = None) -> Any:
        """coreth's TraceCall: the call's message as eth_call makes it (no nonce, the gas capped),
        traced; a refused message is "tracing failed"."""
        from ..execution import MessageRefused, call_gas
        from .hooks import tracing, tracing_vm

        args = api.call_args(obj)
        block = api._latest_or_block(tag)
        tracer = _tracer_from(config)
        cfg = config if isinstance(config, dict) else {}
        block_overrides = parse_block_overrides(cfg.get("blockOverrides"), 2)
        at = block or chain.head
        gas = call_gas(args)
        timestamp = (block_overrides or {}).get("timestamp", at.header.timestamp)
        state = api.exec.build_state(block, not args.paying, parse_state_overrides(cfg.get("stateOverrides"), 2),
                                     vm_class=tracing_vm(chain.precompiles.vm_class_at(timestamp)),
                                     block_overrides=block_overrides)
        try:
            with tracing(tracer):
                comp = api.exec.run(args, block, state=state)
        except MessageRefused as exc:
            raise ChainError(f"tracing failed: {exc.text}") from None
        return _result(tracer, comp, gas - comp.get_gas_remaining())  # no refunds (rules.py)
    svc.register("debug_traceCall", trace_call, 1, 3)
