"""The EVM's failures in geth's words: revert reasons (Error(string), Panic(uint256)) and the
errors of a halted run, as eth_call, eth_estimateGas and the tracers report them."""

from __future__ import annotations

from eth.exceptions import InvalidInstruction, OutOfGas, Revert

from ...rpc.jsonrpc import RPCError

PANIC_REASONS = {
    0x00: "generic panic", 0x01: "assert(false)", 0x11: "arithmetic underflow or overflow",
    0x12: "division or modulo by zero", 0x21: "enum overflow", 0x22: "invalid encoded storage byte array accessed",
    0x31: "out-of-bounds array access; popping on an empty array", 0x32: "out-of-bounds access of an array or bytesslice",
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


def vm_error_text(err: Exception) -> str:
    """The error of a halted run as geth's ExecutionResult.Err prints it."""
    if isinstance(err, Revert):
        return "execution reverted"
    if isinstance(err, OutOfGas):
        return "out of gas"
    if isinstance(err, InvalidInstruction):
        return "invalid opcode: " + (str(err).split()[-1] if str(err) else "INVALID")
    text = str(err) or type(err).__name__
    return text
