"""The call path (execution.Executor): a head's state prepared when its block is accepted, and
eth_createAccessList's runs on a shared state, answer as a state built for the one call; a call's
lean run (AvalancheState.apply_call) answers as py-evm's whole tx path, refusals included."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from eth_abi import encode
from eth_utils import keccak, to_checksum_address
from rlp import encode as rlp_encode

from simnode.vms.evm import execution
from simnode.vms.evm.execution import SHARED_STATE_RUNS, CallArgs, Executor, MessageRefused
from simnode.vms.evm.rpcjson import AccountOverride
from simnode.vms.evm.vmerrors import ChainError

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


# ------------------------------------------------------------------ the lean path against py-evm's

PROBE = b"\x33" * 20  # code installed by a state override in the cases below
ORIGIN_BALANCE = bytes.fromhex("3231600052602060" + "00f3")  # BALANCE(ORIGIN): the gas bought shows
GAS_PRICE = bytes.fromhex("3a600052602060" + "00f3")  # GASPRICE
REVERTS = bytes.fromhex("60aa600052600160" + "1ffd")  # REVERT with one byte of data
SPINS = bytes.fromhex("5b600056")  # JUMPDEST PUSH1 0 JUMP: out of gas
WARP = bytes.fromhex("0200000000000000000000000000000000000005")


def _msg(to: bytes | None, data: bytes = b"", gas: int | None = None, value: int = 0,
         access_list: list | None = None, **fees: int) -> CallArgs:
    return CallArgs(EWOQ_ADDR, to, gas, fees.get("gas_price"), fees.get("max_fee"), fees.get("tip"), value, data,
                    None, access_list)


class FullPathExecutor(Executor):
    """Every message through py-evm's whole tx path (validation, the settlement), as every call
    ran before AvalancheState.apply_call."""

    def run(self, *args: Any, **kwargs: Any) -> Any:
        return super().run(*args, **{**kwargs, "settle": True})


def _outcome(ex: Executor, args: CallArgs, overrides: dict | None = None, base_fee: int | None = None) -> tuple:
    """The lean run's outcome, asserted equal to the whole path's (`base_fee`: a block override)."""
    block = None if base_fee is None else {"base_fee_per_gas": base_fee}

    def outcome(settle: bool) -> tuple:
        try:
            comp = ex.run(args, None, overrides=overrides, block_overrides=block, settle=settle)
        except MessageRefused as exc:
            return ("refused", exc.text, exc.intrinsic)
        return (comp.output, comp.is_error, repr(comp.error) if comp.is_error else None, comp.get_gas_remaining())

    lean = outcome(False)
    assert lean == outcome(True)
    return lean


def _probe(code: bytes) -> dict:
    return {PROBE: AccountOverride(None, code, None, None, None)}


def _deployed_token() -> tuple[Any, bytes]:
    chain = make_chain()
    ctor = bytes.fromhex(TOKEN["bytecode"][2:]) + encode(["string", "string", "uint256"], ["T", "T", 10**24])
    chain.submit_raw(_tx(0, None, ctor))
    return chain, keccak(rlp_encode([EWOQ_ADDR, 0]))[12:]


def test_lean_runs_answer_as_py_evms_whole_tx_path() -> None:
    chain, token = _deployed_token()
    ex = Executor(chain)
    base_fee = chain.next_base_fee()
    ctor = bytes.fromhex(TOKEN["bytecode"][2:]) + encode(["string", "string", "uint256"], ["T", "T", 5])
    paid = {"max_fee": base_fee + 10, "tip": 3}
    balance = int.from_bytes(_outcome(ex, _msg(PROBE, **paid), _probe(ORIGIN_BALANCE))[0], "big")
    free = int.from_bytes(_outcome(ex, _msg(PROBE), _probe(ORIGIN_BALANCE))[0], "big")
    assert free - balance == 50_000_000 * (base_fee + 3)  # the gas bought at the effective price
    assert int.from_bytes(_outcome(ex, _msg(PROBE, gas_price=base_fee + 5), _probe(GAS_PRICE))[0], "big") \
        == base_fee + 5
    assert _outcome(ex, _msg(PROBE), _probe(REVERTS))[:2] == (b"\xaa", True)
    assert "OutOfGas" in _outcome(ex, _msg(PROBE, gas=100_000), _probe(SPINS))[2]
    assert _outcome(ex, _msg(token, BALANCE_OF + encode(["address"], [EWOQ_ADDR])))[0] \
        == (10**24).to_bytes(32, "big")
    assert not _outcome(ex, _msg(None, ctor))[1]  # a creation
    assert _outcome(ex, _msg(OTHER, value=5, gas=21000)) == (b"", False, None, 0)  # a plain transfer
    assert _outcome(ex, _msg(b"\x00" * 19 + b"\x04", b"echo"))[:2] == (b"echo", False)  # a precompile
    assert _outcome(ex, _msg(WARP, keccak(text="getBlockchainID()")[:4]))[0] == chain.warp_identity.blockchain_id
    listed = [(token, [0, 1]), (OTHER, [])]
    assert not _outcome(ex, _msg(token, TRANSFER + encode(["address", "uint256"], [OTHER, 7]),
                                 access_list=listed, gas_price=base_fee))[1]


def test_lean_refusals_are_cores_texts() -> None:
    chain, token = _deployed_token()
    ex = Executor(chain)
    base_fee = 25 * 10**9
    sender = to_checksum_address(EWOQ_ADDR)
    assert _outcome(ex, _msg(token, max_fee=base_fee - 1), base_fee=base_fee) == (
        "refused", f"max fee per gas less than block base fee: address {sender}, maxFeePerGas: {base_fee - 1}, "
                   f"baseFee: {base_fee}", False)
    assert _outcome(ex, _msg(token, max_fee=base_fee, tip=base_fee + 1), base_fee=base_fee)[1].startswith(
        "max priority fee per gas higher than max fee per gas")
    assert _outcome(ex, _msg(token, gas=21000, data=b"\x01")) == (
        "refused", "intrinsic gas too low: have 21000, want 21016", True)
    assert _outcome(ex, _msg(token, gas=25000, access_list=[(token, [1])])) == (
        "refused", "intrinsic gas too low: have 25000, want 25300", True)
    assert _outcome(ex, _msg(None, b"\x00" * 49153))[1] == "max initcode size exceeded: code size 49153 limit 49152"
    too_much = _outcome(ex, _msg(OTHER, gas_price=base_fee, value=10**40))[1]
    assert too_much.startswith(f"insufficient funds for gas * price + value: address {sender} have ")
    assert _outcome(ex, _msg(OTHER, gas_price=base_fee, value=(1 << 256) - 1))[1] == (
        f"insufficient funds for gas * price + value: address {sender} required balance exceeds 256 bits")
    # a Warp predicate that does not parse: the precompile's refusal before the message runs
    refused = _outcome(ex, _msg(token, access_list=[(WARP, [1])]))
    assert refused[0] == "refused" and refused[1].startswith("invalid predicate: ")
    with pytest.raises(ChainError, match=r"^err: intrinsic gas too low: have 21000, want 21016 \(supplied gas 21000\)$"):
        ex.call(_msg(token, gas=21000, data=b"\x01"), None)


def test_estimates_and_access_lists_answer_as_py_evms_whole_tx_path() -> None:
    chain, token = _deployed_token()
    for profiled in (True, False):
        execution.PROFILED_ESTIMATES = profiled
        try:
            lean, full = _answers(Executor(chain), token), _answers(FullPathExecutor(chain), token)
        finally:
            execution.PROFILED_ESTIMATES = True
        assert lean == full
    base_fee = chain.next_base_fee()
    create = _msg(None, bytes.fromhex(TOKEN["bytecode"][2:]) + encode(["string", "string", "uint256"], ["T", "T", 5]),
                  max_fee=2 * base_fee, tip=1)
    send = _msg(OTHER, value=10**18, max_fee=2 * base_fee, tip=1)
    for args in (create, send):
        assert Executor(chain).estimate(args, None) == FullPathExecutor(chain).estimate(args, None)
        assert Executor(chain).access_list(replace(args, nonce=1), None) \
            == FullPathExecutor(chain).access_list(replace(args, nonce=1), None)
