"""A halted run's error in geth's words (core/vm/errors.go), as eth_call, eth_callDetailed, the
tracers and eth_createAccessList report it: one program per error."""

from __future__ import annotations

import pytest

from simnode.vms.evm.execution import CallArgs, Executor
from simnode.vms.evm.rpcjson import AccountOverride

from .test_evm_engine import EWOQ_ADDR, make_chain

TARGET = bytes.fromhex("e0" * 20)
# init code returning 24,577 zero bytes: one past EIP-170's limit
TOO_BIG = bytes.fromhex("616001" "6000" "f3")


@pytest.mark.parametrize("code, error", [
    ("0c", "invalid opcode: opcode 0xc not defined"),
    ("fe", "invalid opcode: INVALID"),
    ("600356", "invalid jump destination"),  # JUMP to 3: past the code
    ("600456605b", "invalid jump destination"),  # JUMP to 4: a 0x5b inside PUSH1's data
    ("5b600056", "out of gas"),
    ("60006000fd", "execution reverted"),
    ("01", "stack underflow (0 <=> 2)"),
    ("80", "stack underflow"),
    ("5f" * 1025, "stack limit reached 1024 (1023)"),
])
def test_error_texts(code: str, error: str) -> None:
    chain = make_chain()
    out = Executor(chain).call_detailed(CallArgs(EWOQ_ADDR, TARGET, 100_000, None, None, None, 0, b"", None, None),
                                        None, {TARGET: AccountOverride(None, bytes.fromhex(code), None, None, None)})
    assert out["err"] == error


def test_code_past_eip170_is_max_code_size_exceeded() -> None:
    chain = make_chain()
    out = Executor(chain).call_detailed(CallArgs(EWOQ_ADDR, None, 10_000_000, None, None, None, 0, TOO_BIG, None, None),
                                        None)
    assert out["err"] == "max code size exceeded"
