"""P256VERIFY (EIP-7951) as coreth and subnet-evm run it from Granite: go-ethereum's vectors
(tests/vectors/p256verify.json), its gas, a 160-byte input only, and no precompile before Granite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simnode.vms.evm.execution import CallArgs, Executor
from simnode.vms.evm.fork_vms import vm_before_granite, with_granite
from simnode.vms.evm.rules import P256_VERIFY, CorethVM

from .test_evm_engine import EWOQ_ADDR, make_chain

VECTORS = json.loads((Path(__file__).parents[1] / "vectors" / "p256verify.json").read_text())


@pytest.fixture(scope="module")
def executor() -> Executor:
    return Executor(make_chain())


def run(executor: Executor, data: bytes) -> dict:
    return executor.call_detailed(CallArgs(EWOQ_ADDR, P256_VERIFY, 100_000, None, None, None, 0, data, None, None), None)


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"][-60:] for v in VECTORS])
def test_vectors(executor: Executor, vector: dict) -> None:
    data = bytes.fromhex(vector["input"])
    out = run(executor, data)
    assert out["err"] == ""
    assert out["returnData"] == ("0x" + "00" * 31 + "01" if vector["valid"] else "0x")
    calldata = sum(16 if b else 4 for b in data)
    assert out["gas"] == 21000 + calldata + 6900  # paid whether or not the signature holds


def test_only_160_bytes_are_read(executor: Executor) -> None:
    valid = bytes.fromhex(next(v for v in VECTORS if v["valid"])["input"])
    assert run(executor, valid)["returnData"].endswith("01")
    assert run(executor, valid + b"\x00")["returnData"] == "0x"
    assert run(executor, valid[:-1])["returnData"] == "0x"


def test_granite_brings_it() -> None:
    steps = with_granite((), CorethVM, 1000)
    assert steps == ((0, vm_before_granite(CorethVM)), (1000, CorethVM))
    before = steps[0][1].get_state_class().computation_class.get_precompiles()
    assert P256_VERIFY not in before and P256_VERIFY in CorethVM.get_state_class().computation_class.get_precompiles()
    assert with_granite((), CorethVM, None) == ((0, vm_before_granite(CorethVM)),)
