"""eth_createAccessList's tracer: geth's logger.AccessListTracer over py-evm's opcode table.

Before an opcode runs, the tracer reads its operands off the stack, as geth's OnOpcode does:
SLOAD and SSTORE list their slot under the account whose storage they use; BALANCE, EXTCODESIZE,
EXTCODECOPY, EXTCODEHASH and SELFDESTRUCT list the account they name, and the CALL family its
target; except the sender, the recipient (or the created contract) and the active precompiles.
Accounts the rules alone warm (the coinbase, EIP-3651) are never listed. Only these opcodes are
wrapped: the others run as plain table entries.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from eth_typing import Address
from eth.vm.opcode_values import (BALANCE, CALL, CALLCODE, DELEGATECALL, EXTCODECOPY, EXTCODEHASH, EXTCODESIZE,
                                  SELFDESTRUCT, SLOAD, SSTORE, STATICCALL)

AccessList = list[tuple[Address, list[int]]]  # (address, storage slots), as py-evm's txs take it

_SLOT_OPS = (SLOAD, SSTORE)
_ACCOUNT_OPS = (BALANCE, EXTCODESIZE, EXTCODECOPY, EXTCODEHASH, SELFDESTRUCT)
_CALL_OPS = (CALL, CALLCODE, DELEGATECALL, STATICCALL)


def _word(item: int | bytes) -> int:
    return item if isinstance(item, int) else int.from_bytes(item, "big")


def _address(item: int | bytes) -> bytes:
    return (_word(item) & ((1 << 160) - 1)).to_bytes(20, "big")


class AccessListTracer:
    """The accounts and slots one run touched, seeded with the list the run was given."""

    kind = "accesslist"

    def __init__(self, seed: Iterable[tuple[bytes, Iterable[int]]], excluded: frozenset[bytes]) -> None:
        self.excluded = excluded
        self.slots: dict[bytes, set[int]] = {}
        self._wrapped: dict[int, Any] = {}
        for address, keys in seed:
            if address not in excluded:
                self.slots.setdefault(address, set())
            for key in keys:
                self.add_slot(address, key)

    def add_slot(self, address: bytes, slot: int) -> None:
        self.slots.setdefault(address, set()).add(slot)

    def add_account(self, address: bytes) -> None:
        if address not in self.excluded:
            self.slots.setdefault(address, set())

    def entries(self) -> AccessList:
        """The list in a stable order: accounts, then each one's slots, ascending."""
        return [(Address(address), sorted(self.slots[address])) for address in sorted(self.slots)]

    def wrap(self, table: dict[int, Any]) -> dict[int, Any]:
        if not self._wrapped:
            wrapped = dict(table)
            for op in (*_SLOT_OPS, *_ACCOUNT_OPS, *_CALL_OPS):
                if op in table:
                    wrapped[op] = self._wrap_one(op, table[op])
            self._wrapped = wrapped
        return self._wrapped

    def _wrap_one(self, op: int, fn: Any) -> Any:
        tracer = self

        def traced(computation: Any) -> Any:
            stack = computation._stack.values
            if op in _SLOT_OPS:
                if stack:
                    tracer.add_slot(computation.msg.storage_address, _word(stack[-1]))
            elif op in _ACCOUNT_OPS:
                if stack:
                    tracer.add_account(_address(stack[-1]))
            elif len(stack) >= 5:
                tracer.add_account(_address(stack[-2]))
            return fn(computation=computation)

        traced.mnemonic = getattr(fn, "mnemonic", "")  # type: ignore[attr-defined]
        return traced
