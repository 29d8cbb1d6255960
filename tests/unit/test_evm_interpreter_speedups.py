"""The interpreter speed-ups (fast_interpreter.py, and speedups.py's trie node helpers) against
py-evm's originals: the same code, calls and transactions run with the patches on and off must
give the same gas, output, logs, errors (type and message), state roots and debug traces."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from eth.vm.code_stream import CodeStream
from eth.vm.spoof import SpoofTransaction
from eth_abi import encode
from eth_account import Account
from eth_utils import keccak, to_checksum_address
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simnode import patches
from simnode.vms.evm import fast_interpreter
from simnode.vms.evm.tracing import hooks
from simnode.vms.evm.evm_chain import EVMChain
from simnode.vms.evm.execution import CallArgs, Executor
from simnode.vms.evm.rules import AvalancheVM

from .test_evm_engine import EWOQ, EWOQ_ADDR, make_chain

TOKEN = json.loads((Path(__file__).parents[1] / "contracts" / "Token.json").read_text())
TARGET = bytes.fromhex("c0" * 20)
CALLEE = bytes.fromhex("c1" * 20)  # returns 32 bytes of CALLVALUE-independent data, logs once
REVERTER = bytes.fromhex("c2" * 20)  # reverts with "no"
GAS = 1_000_000


@contextmanager
def speedups_on(on: bool) -> Iterator[None]:
    """Run with every interpreter/trie speed-up on (as a node runs, patches.install) or with
    py-evm's and py-trie's originals."""
    if on:
        yield
        return
    patches.uninstall()
    try:
        yield
    finally:
        patches.install()


def both(fn: Any, *args: Any) -> Any:
    with speedups_on(False):
        reference = fn(*args)
    with speedups_on(True):
        fast = fn(*args)
    assert fast == reference
    return fast


# ------------------------------------------------------------------ direct code execution


def asm(*parts: str | int) -> bytes:
    """Hex strings are raw bytes; ints become the shortest PUSH of that value."""
    out = b""
    for p in parts:
        if isinstance(p, int):
            n = max(1, (p.bit_length() + 7) // 8)
            out += bytes([0x5F + n]) + p.to_bytes(n, "big")
        else:
            out += bytes.fromhex(p)
    return out


@cache
def _chain() -> EVMChain:
    c = make_chain()
    c.automine = False
    callee = asm(0xAA, 0, "52", 0, 32, "a0", 32, 0, "f3")  # MSTORE, LOG0, RETURN 32 bytes
    reverter = asm("6c", "6e6f" + "00" * 11, 0, "52", 2, 13, "fd")  # REVERT with memory[13:15] = "no"

    def setup(s: Any) -> None:
        s.set_code(CALLEE, callee)
        s.set_code(REVERTER, reverter)
        s.set_storage(TARGET, 1, 7)
    c.edit_state(setup)
    return c


def run_code(code: bytes, gas: int = GAS, data: bytes = b"", value: int = 0, tracer: str | None = None) -> tuple:
    chain = _chain()
    ex = Executor(chain)
    vm_class = hooks.tracing_vm(chain.vm_class) if tracer else None
    state = ex.build_state(None, True, vm_class=vm_class)
    state.set_code(TARGET, code)
    utx = AvalancheVM.create_unsigned_transaction(nonce=state.get_nonce(EWOQ_ADDR), gas_price=0, gas=gas, to=TARGET,
                                                  value=value, data=data)
    tr = hooks.Tracer(tracer) if tracer else None
    if tr:
        with hooks.tracing(tr):
            comp = state.apply_transaction(SpoofTransaction(utx, from_=EWOQ_ADDR))
    else:
        comp = state.apply_transaction(SpoofTransaction(utx, from_=EWOQ_ADDR))
    return (comp.is_error, repr(getattr(comp, "_error", None)), comp.output, comp.get_gas_remaining(), comp.get_gas_refund(),
            comp.get_log_entries(), state.make_state_root(), tr and (tr.logs, tr.root))


CASES = {
    "jump to JUMPDEST": asm(4, "56", "fe", "5b", 1, 0, "55", "00"),
    "jumpi taken / not taken": asm(0, 9, "57", 1, 9, "57", "fe", "5b", 0, "55"),
    "jumpdest inside push data": asm("605b", 1, "56"),
    "jumpi into push data": asm("605b", 1, 1, "57"),
    "jumpdest 32 bytes into PUSH32": asm("7f" + "5b" * 32, 16, "56"),
    "jumpdest right after PUSH32 data": asm(35, "56", "7f" + "00" * 32, "5b", "00"),
    "jump to non-JUMPDEST": asm(0, "56"),
    "jump past the end": asm(0xFFFF, "56"),
    "jump to 2**255": asm(1 << 255, "56"),
    "jumpi past the end": asm(1, 1 << 64, "57"),
    "truncated push at the end": asm("7f0102"),
    "out of gas in a loop": asm("5b", 0, "56"),
    "stack underflow add": asm("01"),
    "stack underflow jump": asm("56"),
    "stack underflow jumpi": asm(1, "57"),
    "stack underflow dup": asm(1, "81"),
    "stack underflow swap": asm(1, "90"),
    "stack underflow pop": asm("50"),
    "stack overflow push": asm("5f" * 1025),
    "stack overflow dup": asm("5f" + "80" * 1024),
    "invalid opcode": asm(1, "0c"),
    "designated invalid": asm("fe"),
    "arithmetic": asm(5, 7, "03", 3, "01", 2, "0a", 1, 200, "1b", 3, "1c", "10", "11", "15", 1, "16", 0, "14", 0, "55"),
    "memory expansion": asm(1, 0x2000, "52", 0x10, "51", 0x3000, "53", 0x20, 0, 0x4000, "37", "59", 0, "55",
                            64, 0x1FF0, "f3"),
    "memory expansion out of gas": asm(1, 1 << 32, "52"),
    "sload sstore refund": asm(1, "54", 0, 1, "55", 0, "55"),
    "call and return data": asm(32, 0, 0, 0, 0, int.from_bytes(CALLEE, "big"), 50_000, "f1", 0, "51", 0, "55",
                                "3d", 0, "55"),
    "call a reverting contract": asm(32, 0, 0, 0, 0, int.from_bytes(REVERTER, "big"), "5a", "f1", 0, "55",
                                     "3d", 0, 0, "3e", 32, 0, "f3"),
    "staticcall and delegatecall": asm(32, 0, 0, 0, int.from_bytes(CALLEE, "big"), "5a", "fa",
                                       32, 0, 0, 0, int.from_bytes(CALLEE, "big"), "5a", "f4", "01", 0, "55"),
    "create then call": asm("7f" + asm(0x2A, 0, "52", 32, 0, "f3").hex().ljust(64, "0"), 0, "52",
                            32, 0, 0, "f0", "80", 0, "55", 32, 0, 0, 0, 0, "85", "5a", "f1", 0, "51", 1, "55"),
    "create with failing init code": asm("60fe", 0, "53", 1, 0, 0, "f0", 0, "55"),
    "deep recursion out of gas": asm(0, 0, 0, 0, 0, "30", "5a", "f1", 0, "55"),
    "revert with data": asm(0xBEEF, 0, "52", 32, 0, "fd"),
    "selfdestruct": asm(int.from_bytes(CALLEE, "big"), "ff"),
}


EDGES = (0, 1, 2, 31, 32, 255, 256, 257, (1 << 255) - 1, 1 << 255, (1 << 256) - 1)
BINARY = ("01", "02", "03", "10", "11", "12", "13", "14", "16", "17", "18", "1a", "1b", "1c")


def results_in_memory(ops: list[tuple]) -> bytes:
    """Each op's operands pushed, the op, its result MSTOREd to the next word; then RETURN all."""
    code = b""
    for i, (op, *operands) in enumerate(ops):
        code += asm(*reversed(operands), op, i * 32, "52")
    return code + asm(len(ops) * 32, 0, "f3")


CASES.update({
    f"binary {op} on edge values": results_in_memory([(op, a, b) for a in EDGES for b in EDGES]) for op in BINARY})
CASES.update({
    "unary ops on edge values": results_in_memory([(op, a) for op in ("15", "19") for a in EDGES]),
    "binary ops on short push data": asm("61ffff", "6101", "03", "60ff", "7f" + "ff" * 32, "1a", "01", 0, "52",
                                         32, 0, "f3"),
    "context ops": asm("33", "34", "36", "30", "01", "01", "01", 0, "52", "33", 32, "52", 64, 0, "f3"),
    "mstore and mload within paid memory": asm(0, 0x100, "52", "61abcd", 0x20, "52", 0x7f, 0x41, "52", 0x21, "51",
                                               0x40, "51", "01", 0x60, "52", 0x120, 0, "f3"),
    "mload past the end expands": asm(0x40, "51", 0xFFFF, "51", "01", 0, "52", 32, 0, "f3"),
    "mload at 2**255 runs out of gas": asm(1 << 255, "51"),
    "stack underflow binary": asm(1, "03"),
    "stack underflow unary": asm("15"),
    "stack underflow mstore": asm(0, "52"),
    "stack underflow mstore within paid memory": asm(0, 0x40, "52", 0, "52"),
    "stack underflow mload": asm("51"),
    "stack underflow calldataload": asm("35"),
    "stack overflow caller": asm("5f" * 1024, "33"),
    # PUSH data read as bytes by py-evm's own ops (addresses, MSTORE8, TSTORE) with leading zeros or none
    "push data into byte-reading ops": asm("5f", "5f", "53", "610007", 1, "53", "5f", 2, "5d", "610009", 3, "5d",
                                           2, "5c", 3, "5c", "01", 32, "52", "5f", "3b", "6100c1", "3f", "01", 64,
                                           "52", 0x60, 0, "f3"),
    "call to an address pushed with leading zeros": asm(32, 0, 0, 0, 0, "7f" + "00" * 12 + "c1" * 20, 50_000, "f1",
                                                        0, "51", "01", 0, "55"),
    "truncated push32 then stop": asm(1, 0, "55", "7f01"),
    "sha3 within paid memory, then expanding it": asm(0xAB, 0x40, "52", 0x40, 0x20, "20", 0, "52", 0x41, 0x30, "20",
                                                      32, "52", 0x60, 0, "f3"),
    "sha3 of nothing at a huge offset": asm(0, 1 << 255, "20", 0, "52", 32, 0, "f3"),
    "sha3 at 2**255 runs out of gas": asm(1, 1 << 255, "20"),
    "sha3 word gas runs out": asm(1, 111968, "52", 112000, 0, "20"),
    "stack underflow sha3": asm(1, "20"),
    "stack underflow sload": asm("54"),
    "sload cold then warm": asm(1, "54", 1, "54", "01", 2, "54", "01", 0, "55"),
    "every push width": results_in_memory([("01", "5f", "5f"), *((("18", f"{0x5f + n:02x}" + "a5" * (n - 1) + "01",
                                                               (1 << 8 * n) - 1)) for n in range(1, 33))]),
    "truncated push1 at the end": asm(1, 0, "55", "60"),
    "truncated push2 at the end": asm(1, 0, "55", "61ab"),
    "jump target from a wide push": asm("7f" + "00" * 31 + "42", "56", "fe" * 32, "5b", 7, 0, "55"),
})


@pytest.mark.parametrize("data", [b"", bytes(range(1, 40)), b"\x00" * 31 + b"\x07"])
def test_calldataload_matches_py_evm(data: bytes) -> None:
    offsets = (0, 1, 7, 31, 32, 39, 40, 1 << 64, 1 << 255, (1 << 256) - 1)
    both(run_code, results_in_memory([("35", o) for o in offsets]), GAS, data)


def test_loaded_words_read_as_bytes_match_py_evm() -> None:
    """CALLDATALOAD, MLOAD and SHA3 results consumed by py-evm ops that read stack items as bytes."""
    data = b"\x00" * 12 + CALLEE + b"\x00" * 31 + b"\x07"
    code = asm(0, "35", "3f", 32, "35", 0, "53", 32, "35", 5, "5d", 5, "5c", 1, "52", 0, "51", "80", "3b", "01",
               0x40, "52", 0x20, 0, "20", 0x60, "53", 0x80, 0, "f3")
    both(run_code, code, GAS, data)


@pytest.mark.filterwarnings("ignore:SELFDESTRUCT opcode:DeprecationWarning")
@pytest.mark.parametrize("name", sorted(CASES))
def test_code_cases_match_py_evm(name: str) -> None:
    code = CASES[name]
    for gas in (GAS, 60_000, 21_100):
        both(run_code, code, gas)


@pytest.mark.parametrize("name", ["memory expansion", "sha3 within paid memory, then expanding it",
                                  "mstore and mload within paid memory", "sload cold then warm"])
def test_out_of_gas_at_every_step_matches_py_evm(name: str) -> None:
    code = CASES[name]
    used = GAS - run_code(code)[3]
    for gas in range(max(used - 200, 21_000), used + 1):
        both(run_code, code, gas)


def test_debug_traces_unaffected() -> None:
    for code in (CASES["call and return data"], CASES["memory expansion"], CASES["jumpdest inside push data"],
                 CASES["arithmetic"], CASES["truncated push32 then stop"], CASES["push data into byte-reading ops"]):
        for kind in ("struct", "call"):
            result = both(run_code, code, GAS, b"", 0, kind)
            assert result[-1] is not None


OPS = [bytes([b]) for b in range(256)]
# weighted towards what exercises the patched paths: pushes, jumps, stack and memory ops
FAVOURED = st.sampled_from([b"\x5b", b"\x56", b"\x57", b"\x50", b"\x80", b"\x81", b"\x90", b"\x91", b"\x5f", b"\x01",
                            b"\x03", b"\x15", b"\x52", b"\x51", b"\x10", b"\x14", b"\x16", b"\x1b", b"\x1c",
                            b"\x19", b"\x1a", b"\x12", b"\x33", b"\x34", b"\x35", b"\x36", b"\x53", b"\x54",
                            b"\x55", b"\x5a", b"\x58", b"\xf3", b"\x5c", b"\x5d", b"\x20", b"\x3b",
                            b"\xfd", b"\x00", b"\x60\x00", b"\x60\x05", b"\x60\x5b", b"\x61\x00\x08", b"\x7f",
                            b"\x60", b"\x61"])
CODE = st.lists(st.one_of(FAVOURED, st.sampled_from(OPS)), max_size=48).map(b"".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# gas from 21,700 covers the intrinsic gas of any data drawn
@given(code=CODE, gas=st.integers(21_700, 120_000), data=st.binary(max_size=40))
def test_random_bytecode_matches_py_evm(code: bytes, gas: int, data: bytes) -> None:
    both(run_code, code, gas, data)


@settings(max_examples=300, deadline=None)
@given(code=st.lists(st.one_of(st.sampled_from([b"\x5b", b"\x60", b"\x7f", b"\x70"]), st.sampled_from(OPS)),
                     max_size=120).map(b"".join))
def test_valid_opcode_positions_match_py_evm(code: bytes) -> None:
    original = fast_interpreter._ORIGINAL["is_valid_opcode"]
    for pos in range(len(code) + 3):
        assert fast_interpreter.is_valid_opcode(CodeStream(code), pos) == original(CodeStream(code), pos)


# ------------------------------------------------------------------ ERC-20 transactions


def _tx(nonce: int, to: bytes | None, data: bytes, gas: int = 3_000_000) -> bytes:
    tx = {"chainId": 43112, "nonce": nonce, "value": 0, "gas": gas, "maxFeePerGas": 10**12,
          "maxPriorityFeePerGas": 1, "type": 2, "data": data}
    if to is not None:
        tx["to"] = to_checksum_address(to)
    return bytes(EWOQ.sign_transaction(tx).raw_transaction)


def _erc20_run() -> tuple:
    c = make_chain()
    other = Account.from_key(b"\x07" * 32)
    other_addr = bytes.fromhex(other.address[2:])
    token = keccak(bytes([0xD6, 0x94]) + EWOQ_ADDR + b"\x80")[12:]
    ctor = bytes.fromhex(TOKEN["bytecode"][2:]) + encode(["string", "string", "uint256"], ["T", "T", 10**24])
    sel = {name: keccak(text=sig)[:4] for name, sig in (
        ("transfer", "transfer(address,uint256)"), ("approve", "approve(address,uint256)"),
        ("transferFrom", "transferFrom(address,address,uint256)"), ("balanceOf", "balanceOf(address)"))}
    raws = [
        _tx(0, None, ctor),
        _tx(1, token, sel["transfer"] + encode(["address", "uint256"], [other.address, 10**20]), 100_000),
        _tx(2, token, sel["approve"] + encode(["address", "uint256"], [other.address, 5 * 10**18]), 100_000),
        # transferFrom by the owner itself without allowance for itself: reverts
        _tx(3, token, sel["transferFrom"] + encode(["address", "address", "uint256"],
                                                   [other.address, EWOQ.address, 1]), 100_000),
        # more than the balance: reverts with a reason
        _tx(4, token, sel["transfer"] + encode(["address", "uint256"], [other.address, 10**30]), 100_000),
        # out of gas in the middle of a transfer
        _tx(5, token, sel["transfer"] + encode(["address", "uint256"], [other.address, 1]), 30_000),
    ]
    for raw in raws:
        c.submit_raw(raw)
    # other spends its allowance with transferFrom (funded with gas money first)
    c.edit_state(lambda s: s.set_balance(other_addr, 10**18))
    spend = other.sign_transaction({
        "chainId": 43112, "nonce": 0, "to": to_checksum_address(token), "value": 0, "gas": 100_000, "maxFeePerGas": 10**12,
        "maxPriorityFeePerGas": 1, "type": 2,
        "data": sel["transferFrom"] + encode(["address", "address", "uint256"], [EWOQ.address, other.address, 10**18])})
    c.submit_raw(bytes(spend.raw_transaction))
    ex = Executor(c)

    def call(data: bytes) -> dict:
        return ex.call_detailed(CallArgs(EWOQ_ADDR, token, None, None, None, None, 0, data, None, None), None)
    failing = call(sel["transfer"] + encode(["address", "uint256"], [other.address, 10**30]))
    balance = call(sel["balanceOf"] + encode(["address"], [other.address]))
    blocks = [c.block(n) for n in range(1, c.head.number + 1)]
    return ([(b.hash, b.header.state_root, b.header.receipt_root, b.header.gas_used, b.header.bloom) for b in blocks],
            c.state_root, failing, balance)


def test_erc20_transactions_match_py_evm() -> None:
    blocks, _root, failing, balance = both(_erc20_run)
    assert len(blocks) == 7
    assert failing["errCode"] == 3 and failing["err"].startswith("execution reverted")
    assert int(balance["returnData"], 16) == 10**20 + 10**18
