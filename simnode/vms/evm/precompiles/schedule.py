"""Which precompiles apply when, and what a block boundary does to the state (subnet-evm's
GetActivatingPrecompileConfigs, EnabledStatefulPrecompiles and ApplyPrecompileActivations).

A config activates in the first block whose timestamp reaches its `blockTimestamp` (the fork
transition from the parent's timestamp to the block's); the config active at a timestamp is the
last of a precompile's configs (genesis first, then upgrades) that has reached it, and the
precompile is enabled unless that one disables it. The answers are fixed between two config
timestamps, so the `Schedule` works them out once per such interval (the enabled configs, the VM
class, the tx checks); with no configs (the C-Chain, most L1s) every answer is immediate. A
chain whose base VM changes with its network upgrades (an L1 before its Durango or Etna,
fork_vms.py) gives the base VM of each from its time on; those times bound intervals too.

`activate` runs before a block's first tx, for every config activating in it, in module address
order: a config that disables its precompile wipes the precompile's account (balance, code,
storage: SelfDestruct plus Finalise); any other sets the account's nonce to 1 and its code to
0x01 (so Solidity's extcodesize check passes), then runs the module's configure (allow-list
roles, initial mint, fee config, reward address). The block builder, debug tracing's
re-execution and the genesis (with no parent, before the alloc is written, as subnet-evm's
toBlock) all go through it, by the chain's `apply_upgrades` (block_builder.py).

The VM classes are py-evm's: a chain's schedule may take them from a function run on their first
use (`Schedule.deferred`), so the chain writes its genesis (activations need no VM class) and
starts before py-evm is imported.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .registry import MODULES
from .contract import BlockContext, ChainParams
from .upgrades import PrecompileConfig, verify_upgrades

VMSteps = tuple[tuple[int, type], ...]  # (time, VM class), each the base from its time on


def _forked(fork: int | None, ts: int) -> bool:
    return fork is not None and fork <= ts


@dataclass(frozen=True, slots=True)
class _Interval:
    active: tuple[PrecompileConfig, ...]   # enabled configs, in module (address) order
    addresses: frozenset[bytes]
    vm_class: type
    tx_checks: tuple[Callable[[Any, bytes], str | None], ...]


class Schedule:
    """A chain's precompile configs over time, over the chain's base VM class."""

    def __init__(self, base_vm: type, genesis: tuple[PrecompileConfig, ...] = (),
                 upgrades: tuple[PrecompileConfig, ...] = (), chain: ChainParams | None = None,
                 base_vms: VMSteps = ()) -> None:
        """`base_vms`: (time, VM class) in time order, each the base from its time on (`base_vm`
        before the first)."""
        self._set_configs(genesis, upgrades, chain)
        self._set_vms(base_vm, base_vms)

    @classmethod
    def deferred(cls, vms: Callable[[], tuple[type, VMSteps]], genesis: tuple[PrecompileConfig, ...] = (),
                 upgrades: tuple[PrecompileConfig, ...] = (), chain: ChainParams | None = None) -> Schedule:
        """A schedule whose (base_vm, base_vms) `vms()` makes when a VM class is first asked for."""
        schedule = cls.__new__(cls)
        schedule._set_configs(genesis, upgrades, chain)
        schedule._make_vms = vms
        return schedule

    def _set_configs(self, genesis: tuple[PrecompileConfig, ...], upgrades: tuple[PrecompileConfig, ...],
                     chain: ChainParams | None) -> None:
        verify_upgrades(genesis, upgrades)
        self.chain = chain
        self.genesis = tuple(genesis)
        self.upgrades = tuple(upgrades)
        by_module: dict[bytes, list[PrecompileConfig]] = {}
        for c in (*self.genesis, *self.upgrades):
            by_module.setdefault(c.module.address, []).append(c)
        self._ordered = tuple(c for m in MODULES for c in by_module.get(m.address, ()))
        # when the configs change (activating() needs no more); _times adds the base VMs' steps
        self._config_times = sorted({c.timestamp for c in self._ordered if c.timestamp is not None})
        self._make_vms: Callable[[], tuple[type, VMSteps]] | None = None

    def _set_vms(self, base_vm: type, base_vms: VMSteps) -> None:
        self._base_vm = base_vm
        self._base_vms = base_vms
        self._times = sorted(set(self._config_times) | {t for t, _ in base_vms})
        self._intervals: dict[int, _Interval] = {}
        self._none = _Interval((), frozenset(), base_vm, ())

    def _load_vms(self) -> None:
        make = self._make_vms
        if make is not None:
            self._set_vms(*make())
            self._make_vms = None

    @property
    def base_vm(self) -> type:
        if self._make_vms is not None:
            self._load_vms()
        return self._base_vm

    def _interval(self, ts: int) -> _Interval:
        if self._make_vms is not None:
            self._load_vms()
        if not self._times:
            return self._none
        k = bisect_right(self._times, ts)
        hit = self._intervals.get(k)
        if hit is None:
            latest: dict[bytes, PrecompileConfig] = {}
            for c in self._ordered:
                if _forked(c.timestamp, ts):
                    latest[c.module.address] = c
            active = tuple(c for c in latest.values() if not c.disable)
            modules = tuple(c.module for c in active)
            base = self._base_vm
            for t, vm in self._base_vms:
                if t <= ts:
                    base = vm
            from .vmclasses import vm_class_for  # py-evm's classes, made on the first VM asked for

            hit = self._intervals[k] = _Interval(
                active, frozenset(m.address for m in modules), vm_class_for(base, modules),
                tuple(m.check_tx for m in modules if m.check_tx is not None))
        return hit

    def active(self, ts: int) -> tuple[PrecompileConfig, ...]:
        """The enabled configs at `ts` (EnabledStatefulPrecompiles)."""
        return self._interval(ts).active

    def enabled(self, address: bytes, ts: int) -> bool:
        return address in self._interval(ts).addresses

    def vm_class_at(self, ts: int) -> type:
        return self._interval(ts).vm_class

    def check_tx(self, state: Any, sender: bytes, ts: int) -> str | None:
        """Why a tx from `sender` may not run at `ts` (the tx allow list), or None."""
        for check in self._interval(ts).tx_checks:
            reason = check(state, sender)
            if reason is not None:
                return reason
        return None

    def activating(self, parent_ts: int | None, ts: int) -> tuple[PrecompileConfig, ...]:
        """The configs whose fork transition is (parent_ts, ts], in activation order."""
        times = self._config_times
        if not times or (parent_ts is not None and bisect_right(times, parent_ts) == bisect_right(times, ts)):
            return ()
        return tuple(c for c in self._ordered
                     if _forked(c.timestamp, ts) and not (parent_ts is not None and _forked(c.timestamp, parent_ts)))

    def activate(self, state: Any, parent_ts: int | None, block: BlockContext) -> None:
        for config in self.activating(parent_ts, block.timestamp):
            address = config.module.address
            if config.disable:
                state.delete_account(address)
                continue
            state.set_nonce(address, 1)
            state.set_code(address, b"\x01")
            config.module.configure(config.settings, state, block, self.chain)

