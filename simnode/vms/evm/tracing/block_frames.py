"""Call frames recorded while a block executes (not by re-executing it afterwards).

The block builder calls `start()` before each transaction and `stop()` after the last one;
the list `start()` returns receives the frames the transaction's execution produces, in the
order they are entered (pre-order), each

    [kind, from, to, value, gas, gas_used, depth, failed]

* kind: an index into KINDS (CALL, CALLCODE, DELEGATECALL, STATICCALL, CREATE, CREATE2,
  SELFDESTRUCT);
* from: the caller (msg.sender); to: the callee, the code address for DELEGATECALL/CALLCODE (as
  geth's callTracer), the created address for CREATE/CREATE2, the beneficiary for SELFDESTRUCT;
* value: the wei moved (minimal big-endian bytes; 0 for DELEGATECALL/STATICCALL, which move
  none), for SELFDESTRUCT the balance handed to the beneficiary;
* gas: the gas the frame was given; gas_used: what it consumed (a CREATE's includes its code
  deposit, as geth counts it); depth: 0 for the transaction's own call or create;
* failed: the frame ended in an error (revert included); its effects were undone. A frame that
  succeeded inside a failed one was undone too: walk the depths to see it.

Plain value transfers never reach py-evm's executor (transfer.py) and record nothing; nor does
anything executed while no recording is running (eth_call, estimateGas, tracing).

The recording is per context (a ContextVar): two nodes building blocks on two threads each
record their own transaction's frames.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from eth.exceptions import Halt
from eth.vm.forks.cancun.computation import CancunComputation
from eth.vm.opcode_values import CALL, CALLCODE, CREATE, CREATE2, DELEGATECALL, SELFDESTRUCT, STATICCALL

KINDS = ("CALL", "CALLCODE", "DELEGATECALL", "STATICCALL", "CREATE", "CREATE2", "SELFDESTRUCT")
K_CALL, K_CALLCODE, K_DELEGATECALL, K_STATICCALL, K_CREATE, K_CREATE2, K_SELFDESTRUCT = range(len(KINDS))
_OPCODE_KINDS = {CALL: K_CALL, CALLCODE: K_CALLCODE, DELEGATECALL: K_DELEGATECALL, STATICCALL: K_STATICCALL,
                 CREATE: K_CREATE, CREATE2: K_CREATE2}



class _Recording:
    """The running transaction's frames, and the kind of the call or create opcode executing now
    (its child message is applied from inside the opcode)."""

    __slots__ = ("frames", "opcode_kind")

    def __init__(self) -> None:
        self.frames: list[list] = []
        self.opcode_kind = K_CALL


_recording: ContextVar[_Recording | None] = ContextVar("simnode_calltrace", default=None)


def start() -> list[list]:
    """Record a new transaction's frames, in this context, into the list returned (the previous
    one's end)."""
    recording = _Recording()
    _recording.set(recording)
    return recording.frames


def stop() -> None:
    """Stop recording in this context (eth_call and the like record nothing)."""
    _recording.set(None)


def _big(n: int) -> bytes:
    return n.to_bytes((n.bit_length() + 7) // 8, "big")


def _kind_marking(op: Any, kind: int) -> Any:
    def marked(computation: Any) -> Any:
        recording = _recording.get()
        if recording is not None:
            recording.opcode_kind = kind
        return op(computation=computation)
    marked.mnemonic = KINDS[kind]  # type: ignore[attr-defined]
    return marked


def _recorded_selfdestruct(op: Any) -> Any:
    def selfdestruct(computation: Any) -> Any:
        recording = _recording.get()
        values = computation._stack.values
        if recording is None or not values:
            return op(computation=computation)
        frames = recording.frames
        contract = computation.msg.storage_address
        top = values[-1]
        beneficiary = (top if type(top) is bytes else top.to_bytes(32, "big"))[-20:].rjust(20, b"\x00")
        balance = computation.state.get_balance(contract)
        try:
            return op(computation=computation)
        except Halt:  # how a successful SELFDESTRUCT ends its frame
            frames.append([K_SELFDESTRUCT, contract, beneficiary, _big(balance), 0, 0, computation.msg.depth + 1,
                           False])
            raise
    selfdestruct.mnemonic = "SELFDESTRUCT"  # type: ignore[attr-defined]
    return selfdestruct


def recording_opcodes(opcodes: dict) -> dict:
    """An opcode table (Cancun's, or an earlier fork's) with the recorder's call, create and
    SELFDESTRUCT hooks."""
    table = dict(opcodes)
    for op, kind in _OPCODE_KINDS.items():
        table[op] = _kind_marking(table[op], kind)
    table[SELFDESTRUCT] = _recorded_selfdestruct(table[SELFDESTRUCT])
    return table


def _enter(recording: _Recording, message: Any) -> list:
    if message.depth == 0:
        kind = K_CREATE if message.is_create else K_CALL
    else:
        kind = recording.opcode_kind
    if message.is_create:
        to = message.storage_address
    elif kind == K_DELEGATECALL or kind == K_CALLCODE:
        to = message.code_address
    else:
        to = message.to
    value = message.value if message.should_transfer_value else 0
    frame = [kind, message.sender, to, _big(value), message.gas, message.gas, message.depth, True]
    recording.frames.append(frame)
    return frame


def _exit(frame: list, message: Any, computation: Any) -> None:
    frame[5] = message.gas - computation.get_gas_remaining()
    frame[7] = bool(computation.is_error)


class RecordingComputation(CancunComputation):
    """Cancun's computation with the frame recorder around every message it applies."""

    opcodes = recording_opcodes(CancunComputation.opcodes)

    @classmethod
    def apply_message(cls, state: Any, message: Any, transaction_context: Any,
                      parent_computation: Any = None) -> Any:
        recording = _recording.get()
        # a create message comes here from apply_create_message, which records it
        if recording is None or message.is_create:
            return super().apply_message(state, message, transaction_context, parent_computation)
        frame = _enter(recording, message)
        computation = super().apply_message(state, message, transaction_context, parent_computation)
        _exit(frame, message, computation)
        return computation

    @classmethod
    def apply_create_message(cls, state: Any, message: Any, transaction_context: Any,
                             parent_computation: Any = None) -> Any:
        recording = _recording.get()
        if recording is None:
            return super().apply_create_message(state, message, transaction_context, parent_computation)
        frame = _enter(recording, message)
        computation = super().apply_create_message(state, message, transaction_context, parent_computation)
        _exit(frame, message, computation)
        return computation
