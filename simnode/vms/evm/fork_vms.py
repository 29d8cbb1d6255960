"""An EVM chain before its Granite, Etna and Durango: earlier rules on the chain's own VM class.

subnet-evm's EVM follows its network upgrades (SetEthUpgrades): Shanghai from Durango, Cancun
from Etna, and before Durango London after the Merge (IsMergeTODO). rules.SubnetEVMVM runs
Cancun; for a block before Etna the same VM (accounts, fees, coinbase, the call-frame recorder,
the transfer fast path) runs Shanghai's opcode table and precompiles: no TLOAD, TSTORE, MCOPY,
BLOBHASH or BLOBBASEFEE, no point-evaluation precompile, SELFDESTRUCT deleting the account as
before EIP-6780. Before Durango it runs Paris's table (no PUSH0; CREATE and CREATE2 without
EIP-3860's initcode gas) and leaves out Shanghai's other rules: the coinbase is not warm from a
tx's start (EIP-3651) and initcode has no size limit (EIP-3860).
"""

from __future__ import annotations

import functools
from typing import Any

from eth._utils.address import force_bytes_to_address
from eth.abc import ComputationAPI, MessageAPI, StateAPI, TransactionContextAPI
from eth.vm.forks.paris.computation import ParisComputation
from eth.vm.base import VM
from eth.vm.forks.shanghai.computation import ShanghaiComputation

from .tracing.block_frames import recording_opcodes
from .rules import P256_VERIFY
from .transfer import PLAIN_COMPUTATIONS

SHANGHAI, PARIS = "Shanghai", "Paris"
POINT_EVALUATION = force_bytes_to_address(b"\x0a")  # EIP-4844's precompile, from Cancun


def _before_durango() -> dict[str, Any]:
    """Paris's rules where Shanghai's computation adds its own (class attributes of the computation)."""

    def __init__(self: ParisComputation, state: StateAPI, message: MessageAPI,
                 transaction_context: TransactionContextAPI) -> None:
        ParisComputation.__init__(self, state, message, transaction_context)  # no warm coinbase

    def validate_create_message(_cls: type[ComputationAPI], _message: MessageAPI) -> None:
        return None  # no initcode size limit

    def consume_initcode_gas_cost(_cls: type[ComputationAPI], _computation: ComputationAPI) -> None:
        return None  # no initcode gas

    return {"__init__": __init__, "validate_create_message": classmethod(validate_create_message),
            "consume_initcode_gas_cost": classmethod(consume_initcode_gas_cost)}


@functools.cache
def vm_before(base_vm: type[VM], fork: str) -> type[VM]:
    """`base_vm` (a Cancun VM class of rules.py) running `fork`'s rules (SHANGHAI or PARIS)."""
    state = base_vm.get_state_class()
    base = state.computation_class
    table = (ShanghaiComputation if fork == SHANGHAI else ParisComputation).opcodes
    precompiles = {a: fn for a, fn in base._precompiles.items() if a != POINT_EVALUATION}
    computation = type(f"{base.__name__}{fork}", (base,), {"opcodes": recording_opcodes(table),
                                                            "_precompiles": precompiles,
                                                            **(_before_durango() if fork == PARIS else {})})
    PLAIN_COMPUTATIONS.add(computation)  # a message to an account without code runs none
    return base_vm.configure(__name__=f"{base_vm.__name__}{fork}",
                             _state_class=state.configure(__name__=f"{state.__name__}{fork}",
                                                          computation_class=computation))


@functools.cache
def vm_before_granite(base_vm: type[VM]) -> type[VM]:
    """`base_vm` without Granite's P256VERIFY precompile (coreth's and subnet-evm's Granite adds it)."""
    state = base_vm.get_state_class()
    base = state.computation_class
    precompiles = {a: fn for a, fn in base._precompiles.items() if a != P256_VERIFY}
    computation = type(f"{base.__name__}BeforeGranite", (base,), {"_precompiles": precompiles})
    PLAIN_COMPUTATIONS.add(computation)
    return base_vm.configure(__name__=f"{base_vm.__name__}BeforeGranite",
                             _state_class=state.configure(__name__=f"{state.__name__}BeforeGranite",
                                                          computation_class=computation))


def with_granite(forks: tuple[tuple[int, type], ...], base_vm: type,
                 granite: int | None) -> tuple[tuple[int, type], ...]:
    """The (time, VM class) steps of `forks` (over `base_vm` before the first) split at `granite`:
    each VM before it without P256VERIFY. None: Granite never comes."""
    steps = forks if forks and forks[0][0] == 0 else ((0, base_vm), *forks)
    times = sorted({t for t, _ in steps} | ({granite} if granite is not None else set()))
    out = []
    for t in times:
        vm = [v for start, v in steps if start <= t][-1]
        if not issubclass(vm, VM):
            raise TypeError(f"{vm.__name__} is not a py-evm VM class")
        out.append((t, vm if granite is not None and t >= granite else vm_before_granite(vm)))
    return tuple(out)
