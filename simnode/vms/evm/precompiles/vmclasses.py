"""py-evm VM classes for a set of active stateful precompiles, built once per set and cached.

Over a chain's base VM (AvalancheVM, or SubnetEVMVM on an L1) a set of modules gives:
* a computation class whose precompile table holds the modules' callables (a message to one
  never reaches the transfer fast path), while `get_precompiles`, which py-evm keeps warm from a
  tx's start (EIP-2929), stays the base's: subnet-evm's ActivePrecompiles leaves stateful
  precompiles out, so a contract's first call to one is a cold access (and eth_createAccessList
  lists them). With a `check_create` module, CREATE and CREATE2 are refused for an origin it
  rejects (all the creation's gas used, as libevm's CanCreateContract hook, before the new
  account, its nonce or any value move);
* a state class whose `apply_transaction` and `apply_call` (rules.py) first let `prepare_tx`
  modules read the tx (`prepare_transaction`: Warp's predicates and their intrinsic gas), and
  whose `validate_transaction` refuses a tx whose sender a `check_tx` module rejects (a
  ValidationError: the block builder leaves the tx out). Calls skip it, as subnet-evm's calls
  skip account checks: spoofed txs (debug_traceCall) here, and `apply_call` validates nothing.
An empty set is the base class itself: nothing added, nothing to pay.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, cast

from eth.abc import ComputationAPI
from eth.exceptions import Revert, VMError
from eth.vm.base import VM
from eth.vm.spoof import SpoofTransaction
from eth_typing import Address
from eth_utils import ValidationError

from ..transfer import PLAIN_COMPUTATIONS
from .contract import Env, Module, PrecompileError


class PrecompileVMError(PrecompileError, VMError):
    """A precompile's error as py-evm sees it: a VMError (all the call's gas used, no output)."""


def make_runner(module: Module) -> Callable[[Any], None]:
    """The py-evm precompile callable for `module` (libevm's makePrecompile and
    statefulPrecompileWithFunctionSelectors.Run, no fallback function)."""
    functions, address = module.functions, module.address

    def run(computation: Any) -> None:
        msg = computation.msg
        if msg.code_address != msg.storage_address:
            # DELEGATECALL or CALLCODE: ErrExecutionReverted with no gas left (Granite)
            computation.consume_gas(computation.get_gas_remaining(), reason="stateful precompile delegated")
            raise Revert(b"")
        data = msg.data_as_bytes
        if len(data) < 4:
            raise PrecompileVMError(f"missing function selector to precompile - input length ({len(data)})")
        fn = functions.get(data[:4])
        if fn is None:
            raise PrecompileVMError(f"invalid function selector: 0x{data[:4].hex()}")
        try:
            computation.output = fn(Env(computation, address), data[4:])
        except PrecompileError as e:
            if isinstance(e, VMError):
                raise
            raise PrecompileVMError(*e.args) from None

    return run


class _SuppressesVMError(Protocol):
    def __enter__(self) -> object: ...

    def __exit__(self, *exc_info: object) -> bool: ...


_CACHE: dict[tuple[type, tuple[Module, ...]], type] = {}


def vm_class_for(base_vm: type, modules: tuple[Module, ...]) -> type:
    if not modules:
        return base_vm
    key = (base_vm, modules)
    hit = _CACHE.get(key)
    if hit is None:
        hit = _CACHE[key] = _build(base_vm, modules)
    return hit


def _build(base_vm: type, modules: tuple[Module, ...]) -> type:
    if not issubclass(base_vm, VM):
        raise TypeError(f"{base_vm.__name__} is not a py-evm VM class")
    base_state = base_vm._state_class
    computation = _computation_class(base_state.computation_class, modules)
    tx_checks = tuple(m.check_tx for m in modules if m.check_tx is not None)
    preparers = tuple(m.prepare_tx for m in modules if m.prepare_tx is not None)
    name = "".join(m.key[0].upper() + m.key[1:].removesuffix("Config") for m in modules)
    namespace: dict[str, Any] = {"computation_class": computation}
    if tx_checks:
        def validate_transaction(self: Any, transaction: Any) -> None:
            if not isinstance(transaction, SpoofTransaction):
                for check in tx_checks:
                    reason = check(self, transaction.sender)
                    if reason is not None:
                        raise ValidationError(reason)
            base_state.validate_transaction(self, transaction)
        namespace["validate_transaction"] = validate_transaction
    if preparers:
        def prepare_transaction(self: Any, transaction: Any) -> Any:
            for prepare in preparers:
                transaction = prepare(self, transaction)
            return transaction

        def apply_transaction(self: Any, transaction: Any) -> Any:
            return base_state.apply_transaction(self, prepare_transaction(self, transaction))
        namespace["prepare_transaction"] = prepare_transaction
        namespace["apply_transaction"] = apply_transaction
    state = type(f"{base_state.__name__}With{name}", (base_state,), namespace)
    return type(f"{base_vm.__name__}With{name}", (base_vm,), {"_state_class": state})


def _computation_class(base: type[ComputationAPI], modules: tuple[Module, ...]) -> type:
    precompiles: dict[Address, Callable[[ComputationAPI], object]] = {
        **base.get_precompiles(), **{Address(m.address): make_runner(m) for m in modules}}
    create_checks = tuple(m.check_create for m in modules if m.check_create is not None)

    dynamic_base: type = base  # a class built at run time: mypy takes it as a base only as a plain type

    class PrecompileComputation(dynamic_base):  # type: ignore[misc]
        _precompiles = precompiles  # what a message runs

        @classmethod
        def get_precompiles(cls) -> dict:
            # what py-evm keeps warm from a tx's start: subnet-evm's ActivePrecompiles leave the
            # stateful ones out, so a contract's first call to one is a cold account access
            return base.get_precompiles()

        if create_checks:
            @classmethod
            def apply_create_message(cls, state: Any, message: Any, transaction_context: Any,
                                     parent_computation: Any = None) -> Any:
                for check in create_checks:
                    reason = check(state, transaction_context.origin)
                    if reason is not None:
                        computation = cls(state, message, transaction_context)
                        # py-evm declares __exit__ -> None | bool, which mypy reads as never
                        # suppressing; it returns True for a VMError such as this one
                        with cast(_SuppressesVMError, computation):  # records the error and uses all the gas
                            raise PrecompileVMError(reason)
                        return computation
                return super().apply_create_message(state, message, transaction_context, parent_computation)

    PrecompileComputation.__name__ = PrecompileComputation.__qualname__ = f"{base.__name__}WithPrecompiles"
    PLAIN_COMPUTATIONS.add(PrecompileComputation)
    return PrecompileComputation
