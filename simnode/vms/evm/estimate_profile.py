"""What one successful execution says about the gas any other gas limit needs (eth_estimateGas).

geth's estimator (coreth's, execution.py) binary-searches the gas limit, executing the call
once per probe. For most calls one execution is enough to answer every probe: when the code
never reads the gas left (GAS) and never starts a child message (CALL, CALLCODE, DELEGATECALL,
STATICCALL, CREATE, CREATE2, whose gas is a share of what is left), the same steps run at
any gas limit, each costing the same, until one does not fit. A limit then succeeds exactly
when it covers all the gas the run used, and leaves more than 2300 gas at each SSTORE (EIP-2200's
sentry, which fails an SSTORE regardless of its cost). `Profile.needs` answers a probe from
that; a run that did touch a gas-dependent opcode is `gas_dependent`, and the estimator then
executes each probe as before.

Recording runs only in a computation class from `profiling_vm` (the estimator's VM: the chain's
own VM class with the hooks in its opcode table) and while `start()`'s profile is current in
the context (a ContextVar: another thread's estimate never writes into it); blocks, eth_call and
tracing never see it.
"""

from __future__ import annotations

import functools
from contextvars import ContextVar
from typing import Any

from eth.vm.opcode import _FastOpcode
from eth.vm.opcode_values import CALL, CALLCODE, CREATE, CREATE2, DELEGATECALL, GAS, SSTORE, STATICCALL

from .transfer import PLAIN_COMPUTATIONS

SSTORE_SENTRY = 2300  # EIP-2200: an SSTORE with this much gas left, or less, fails


class Profile:
    """One run's gas profile: the least gas left at an SSTORE, and whether a gas-dependent
    opcode ran."""

    __slots__ = ("gas_dependent", "sstore_min_left")

    def __init__(self) -> None:
        self.gas_dependent = False
        self.sstore_min_left: int | None = None

    def needs(self, gas: int, used: int) -> int:
        """The least gas limit that succeeds, given the run at `gas` that succeeded using `used`
        (only for a run that is not gas_dependent)."""
        need = used
        if self.sstore_min_left is not None:
            # at a limit g the SSTORE finds sstore_min_left - (gas - g) left, which must exceed the sentry
            need = max(need, gas - self.sstore_min_left + SSTORE_SENTRY + 1)
        return need


_profile: ContextVar[Profile | None] = ContextVar("simnode_gas_profile", default=None)


def start() -> Profile:
    """Profile the next execution of a profiling_vm computation in this context into the
    Profile returned."""
    profile = Profile()
    _profile.set(profile)
    return profile


def stop() -> None:
    _profile.set(None)


def _gas_dependent(op: Any) -> Any:
    def marked(computation: Any) -> Any:
        profile = _profile.get()
        if profile is not None:
            profile.gas_dependent = True
        return op(computation=computation)
    marked.mnemonic = getattr(op, "mnemonic", "")  # type: ignore[attr-defined]
    return marked


def _sstore(op: _FastOpcode) -> _FastOpcode:
    logic = op.logic_fn

    def sstore(computation: Any) -> Any:
        profile = _profile.get()
        if profile is not None:
            left = computation._gas_meter.gas_remaining
            if profile.sstore_min_left is None or left < profile.sstore_min_left:
                profile.sstore_min_left = left
        return logic(computation)
    return _FastOpcode(sstore, op.mnemonic, op.gas_cost)


@functools.cache
def profiling_vm(vm_class: type) -> type:
    """`vm_class` with its computation class's opcode table recording a Profile."""
    state = vm_class.get_state_class()
    base = state.computation_class
    table = dict(base.opcodes)
    for op in (GAS, CALL, CALLCODE, DELEGATECALL, STATICCALL, CREATE, CREATE2):
        table[op] = _gas_dependent(table[op])
    table[SSTORE] = _sstore(table[SSTORE])
    computation = type(f"Profiling{base.__name__}", (base,), {"opcodes": table})
    PLAIN_COMPUTATIONS.add(computation)  # a message to an account without code runs none
    return vm_class.configure(__name__=f"Profiling{vm_class.__name__}",
                              _state_class=state.configure(__name__=f"Profiling{state.__name__}",
                                                           computation_class=computation))
