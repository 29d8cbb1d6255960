"""eth_estimateGas answered from one run's gas profile (estimate_profile.py) against executing every
probe of the search: random straight-line programs (storage writes and clears near the
EIP-2200 sentry, memory, logs, sometimes GAS or a CALL), the Token contract, deployments and
reverts must give the same estimate or the same error; and a profile's `needs` must be exactly
the least gas limit that succeeds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eth_abi import encode
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simnode.vms.evm import execution, estimate_profile
from simnode.vms.evm.evm_chain import EVMChain
from simnode.vms.evm.vmerrors import ChainError
from simnode.rpc.jsonrpc import RPCError
from simnode.vms.evm.execution import CallArgs, Executor

from .test_evm_engine import EWOQ_ADDR, make_chain

TOKEN = json.loads((Path(__file__).parents[1] / "contracts" / "Token.json").read_text())
PROGRAM = bytes.fromhex("c0" * 20)
CALLEE = bytes.fromhex("c1" * 20)  # SSTORE(0, 1)


@pytest.fixture(scope="module")
def chain() -> EVMChain:
    c = make_chain()
    c.edit_state(lambda st: st.set_code(CALLEE, bytes.fromhex("600160005500")))
    return c


def estimate(chain: EVMChain, args: CallArgs, profiled: bool) -> int | str:
    saved = execution.PROFILED_ESTIMATES
    execution.PROFILED_ESTIMATES = profiled
    try:
        return Executor(chain).estimate(args, None)
    except (ChainError, RPCError) as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        execution.PROFILED_ESTIMATES = saved


def call(to: bytes | None, data: bytes = b"", gas: int | None = None, value: int = 0) -> CallArgs:
    return CallArgs(EWOQ_ADDR, to, gas, None, None, None, value, data, None, None)


# A straight-line program: (opcode bytes, items popped, items pushed). Storage keys and values
# are small, so writes hit fresh, set and cleared slots, warm and cold.
_PUSH_SMALL = st.integers(0, 3).map(lambda v: (bytes([0x60, v]), 0, 1))
_OPS = st.one_of(
    _PUSH_SMALL, _PUSH_SMALL, _PUSH_SMALL,
    st.just((b"\x55", 2, 0)),  # SSTORE
    st.just((b"\x55", 2, 0)),
    st.just((b"\x54", 1, 1)),  # SLOAD
    st.just((b"\x01", 2, 1)),  # ADD
    st.just((b"\x50", 1, 0)),  # POP
    st.just((b"\x52", 2, 0)),  # MSTORE (offsets < 4: no big memory)
    st.just((b"\x51", 1, 1)),  # MLOAD
    st.just((b"\xa0", 2, 0)),  # LOG0
    st.just((b"\x35", 1, 1)),  # CALLDATALOAD
    st.just((b"\x5b", 0, 0)),  # JUMPDEST
)
_RARE = st.one_of(
    st.just((b"\x5a\x50", 0, 0)),  # GAS; POP: reads the gas left
    # CALL(gas=GAS, CALLEE, 0, 0, 0, 0, 0); POP: a child message
    st.just((b"\x60\x00\x80\x80\x80\x80\x73" + CALLEE + b"\x5a\xf1\x50", 0, 0)),
)


@st.composite
def programs(draw: st.DrawFn) -> bytes:
    code, depth = b"", 0
    for _ in range(draw(st.integers(1, 40))):
        op, pops, pushes = draw(st.one_of(_OPS, _RARE) if draw(st.integers(0, 9)) == 0 else _OPS)
        if depth < pops:
            op, pops, pushes = bytes([0x60, draw(st.integers(0, 3))]), 0, 1
        code += op
        depth += pushes - pops
    return code + draw(st.sampled_from([b"\x00", b"\x60\x00\x60\x00\xfd"]))  # STOP or REVERT(0, 0)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(code=programs(), slots=st.dictionaries(st.integers(0, 3), st.integers(0, 3), max_size=4),
       calldata=st.binary(max_size=40))
def test_profiled_estimate_equals_executing_every_probe(chain, code, slots, calldata):
    def install(state) -> None:
        state.set_code(PROGRAM, code)
        state.delete_storage(PROGRAM)
        for slot, value in slots.items():
            state.set_storage(PROGRAM, slot, value)
    chain.edit_state(install)
    args = call(PROGRAM, calldata)
    assert estimate(chain, args, True) == estimate(chain, args, False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(code=programs(), slots=st.dictionaries(st.integers(0, 3), st.integers(0, 3), max_size=4))
def test_profile_needs_is_the_least_gas_that_succeeds(chain, code, slots):
    def install(state) -> None:
        state.set_code(PROGRAM, code)
        state.delete_storage(PROGRAM)
        for slot, value in slots.items():
            state.set_storage(PROGRAM, slot, value)
    chain.edit_state(install)
    ex = Executor(chain)
    hi = 1_000_000
    state = ex.build_state(None, True, profiling=True)
    profile = estimate_profile.start()
    try:
        comp = ex.run(call(PROGRAM), None, gas=hi, state=state)
    finally:
        estimate_profile.stop()
    if comp.is_error or profile.gas_dependent:
        return
    need = profile.needs(hi, hi - comp.get_gas_remaining())
    for gas in (need - 1, need, need + 1):
        assert ex.run(call(PROGRAM), None, gas=gas, state=state).is_error == (gas < need)


def test_token_deploy_and_calls(chain):
    ctor = bytes.fromhex(TOKEN["bytecode"][2:]) + encode(["string", "string", "uint256"], ["T", "T", 10**24])
    deploy = call(None, ctor)
    assert isinstance(estimate(chain, deploy, True), int)
    assert estimate(chain, deploy, True) == estimate(chain, deploy, False)
    nonce = chain.view().get_nonce(EWOQ_ADDR)
    from eth_account import Account
    raw = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027").sign_transaction({
        "chainId": 43112, "nonce": nonce, "data": ctor, "gas": 3_000_000, "value": 0, "maxFeePerGas": 10**11,
        "maxPriorityFeePerGas": 1})
    chain.submit_raw(bytes(raw.raw_transaction))
    chain.mine_pending()
    token = chain.block(chain.head.number).receipts[0][4]
    for data in (
        bytes.fromhex("a9059cbb") + encode(["address", "uint256"], [b"\x42" * 20, 10]),  # transfer
        bytes.fromhex("a9059cbb") + encode(["address", "uint256"], [b"\x42" * 20, 0]),  # zero transfer
        bytes.fromhex("a9059cbb") + encode(["address", "uint256"], [b"\x42" * 20, 10**30]),  # reverts
        bytes.fromhex("095ea7b3") + encode(["address", "uint256"], [b"\x43" * 20, 5]),  # approve
        bytes.fromhex("70a08231") + encode(["address"], [EWOQ_ADDR]),  # balanceOf (a view)
    ):
        assert estimate(chain, call(token, data), True) == estimate(chain, call(token, data), False)


GAS_LIMIT_READER = bytes.fromhex("c2" * 20)  # returns GASLIMIT


def test_calls_see_the_blocks_gas_limit_whatever_their_gas(chain: EVMChain) -> None:
    """GASLIMIT reads the block's limit, also in a call with more gas than that (coreth's doCall
    keeps the header's GasLimit in the block context); the calls and the estimator share one state."""
    chain.edit_state(lambda st: st.set_code(GAS_LIMIT_READER, bytes.fromhex("4560005260206000f3")))
    ex = Executor(chain)
    limit = chain.head.header.gas_limit

    def gas_limit_seen(gas: int | None) -> int:
        return int.from_bytes(ex.call(call(GAS_LIMIT_READER, gas=gas), None), "big")

    assert gas_limit_seen(limit + 1000) == limit
    assert gas_limit_seen(30_000) == limit
    assert ex.estimate(call(GAS_LIMIT_READER), None) < 30_000
    assert gas_limit_seen(None) == limit
    assert len(ex._shared) == 1
