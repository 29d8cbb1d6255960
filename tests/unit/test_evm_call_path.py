"""The call path's reuse (execution.Executor): a head's state prepared when its block is accepted,
and eth_createAccessList's runs on a shared state, answer as a state built for the one call."""

from __future__ import annotations

from eth_abi import encode
from eth_utils import keccak
from rlp import encode as rlp_encode

from simnode.vms.evm.execution import SHARED_STATE_RUNS, CallArgs, Executor

from .test_evm_engine import EWOQ_ADDR, make_chain
from .test_evm_interpreter_speedups import TOKEN, _tx

OTHER = b"\x22" * 20
BALANCE_OF = keccak(text="balanceOf(address)")[:4]
TRANSFER = keccak(text="transfer(address,uint256)")[:4]


def _args(data: bytes, to: bytes, **fees: int) -> CallArgs:
    return CallArgs(EWOQ_ADDR, to, None, fees.get("gas_price"), None, None, 0, data, 0, None)


def _answers(ex: Executor, token: bytes) -> tuple:
    balance = _args(BALANCE_OF + encode(["address"], [OTHER]), token)
    transfer = _args(TRANSFER + encode(["address", "uint256"], [OTHER, 7]), token)
    too_much = _args(TRANSFER + encode(["address", "uint256"], [OTHER, 10**30]), token)
    paid = _args(TRANSFER + encode(["address", "uint256"], [OTHER, 7]), token, gas_price=10**12)
    return (ex.call(balance, None), ex.call_detailed(too_much, None), ex.estimate(transfer, None),
            ex.estimate(paid, None), ex.access_list(paid, None), ex.access_list(transfer, None))


def test_a_prepared_head_answers_as_a_state_built_for_the_call() -> None:
    chain = make_chain()
    ctor = bytes.fromhex(TOKEN["bytecode"][2:]) + encode(["string", "string", "uint256"], ["T", "T", 10**24])
    chain.submit_raw(_tx(0, None, ctor))
    token = keccak(rlp_encode([EWOQ_ADDR, 0]))[12:]
    prepared = Executor(chain)
    for nonce in range(1, 4):
        chain.submit_raw(_tx(nonce, token, TRANSFER + encode(["address", "uint256"], [OTHER, nonce]), 80_000))
        prepared.prepare_head()
        fresh = _answers(Executor(chain), token)
        assert _answers(prepared, token) == fresh
        assert _answers(prepared, token) == fresh  # and again, on the states the first answers ran on
        assert int(fresh[0].hex(), 16) == sum(range(1, nonce + 1))


def test_preparing_counts_no_run() -> None:
    chain = make_chain()
    ex = Executor(chain)
    ex.prepare_head()
    ex.prepare_head()
    (state, runs), = ex._shared.values()
    assert runs == 0 and runs < SHARED_STATE_RUNS
    assert ex.shared_state(None, True) is state
