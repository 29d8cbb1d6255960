"""The EVM's failures in geth's words: revert reasons (Error(string), Panic(uint256)), the
errors of a halted run, as eth_call, eth_estimateGas and the tracers report them, and ChainError,
a chain's refusal."""

from __future__ import annotations

import re

from ...rpc.jsonrpc import RPCError
from simnode.errors import Refused


class ChainError(Refused):
    """A refusal with geth's wording (becomes a -32000 error)."""


PANIC_REASONS = {
    0x00: "generic panic", 0x01: "assert(false)", 0x11: "arithmetic underflow or overflow",
    0x12: "division or modulo by zero", 0x21: "enum overflow", 0x22: "invalid encoded storage byte array accessed",
    0x31: "out-of-bounds array access; popping on an empty array",
    0x32: "out-of-bounds access of an array or bytesslice",
    0x41: "out of memory", 0x51: "uninitialized function",
}


def revert_message(data: bytes) -> str:
    """newRevertError's message: the reason an Error(string) or Panic(uint256) carries."""
    if data[:4] == bytes.fromhex("08c379a0"):
        from eth_abi import decode as abi_decode  # ~25 ms to import: paid by the first revert, not at start

        try:
            (reason,) = abi_decode(["string"], data[4:])
        except Exception:  # noqa: BLE001 - malformed Error(string): plain "execution reverted"
            reason = None
        if reason is not None:
            return f"execution reverted: {reason}"
    if data[:4] == bytes.fromhex("4e487b71") and len(data) >= 36:
        code = int.from_bytes(data[4:36], "big")
        reason = PANIC_REASONS.get(code, f"unknown panic code: {code:#x}")
        return f"execution reverted: {reason}"
    return "execution reverted"


def revert_error(data: bytes) -> RPCError:
    return RPCError(revert_message(data), 3, "0x" + data.hex())


# geth's names of the opcodes an EVM of an earlier fork does not define (and INVALID itself)
_OPCODE_NAMES = {0x49: "BLOBHASH", 0x4A: "BLOBBASEFEE", 0x5C: "TLOAD", 0x5D: "TSTORE", 0x5E: "MCOPY", 0x5F: "PUSH0",
                 0xFE: "INVALID"}
_INVALID_OPCODE = re.compile(r"Invalid opcode 0x([0-9a-f]+)")
_UNDERFLOW = re.compile(r"Wanted (\d+) stack items?, (?:only had (\d+)|had none)")


def vm_error_text(err: Exception) -> str:
    """The error of a halted run as geth's ExecutionResult.Err prints it (core/vm/errors.go)."""
    from eth.exceptions import (ContractCreationCollision, FullStack, InsufficientStack, InvalidInstruction,
                                InvalidJumpDestination, OutOfBoundsRead, OutOfGas, ReservedBytesInCode, Revert,
                                StackDepthLimit, WriteProtection)

    if isinstance(err, Revert):
        return "execution reverted"
    text = str(err)
    if isinstance(err, OutOfGas):
        if "EIP170" in text:
            return "max code size exceeded"
        if "EIP-3860" in text:
            return "max initcode size exceeded"
        return "out of gas"
    if isinstance(err, InvalidJumpDestination):
        return "invalid jump destination"
    if isinstance(err, InvalidInstruction):
        match = _INVALID_OPCODE.match(text)
        if match is None:  # py-evm's jump into PUSH data
            return "invalid jump destination"
        op = int(match.group(1), 16)
        name = _OPCODE_NAMES.get(op)
        return f"invalid opcode: {name}" if name else f"invalid opcode: opcode {op:#x} not defined"
    if isinstance(err, InsufficientStack):
        match = _UNDERFLOW.match(text)  # py-evm names the counts for most ops, not for DUP/SWAP
        return f"stack underflow ({match.group(2) or 0} <=> {match.group(1)})" if match else "stack underflow"
    known = {StackDepthLimit: "max call depth exceeded", WriteProtection: "write protection",
             OutOfBoundsRead: "return data out of bounds", ContractCreationCollision: "contract address collision",
             ReservedBytesInCode: "invalid code: must not begin with 0xef",
             FullStack: "stack limit reached 1024 (1023)"}
    for kind, message in known.items():
        if isinstance(err, kind):
            return message
    return text or type(err).__name__
