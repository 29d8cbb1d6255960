"""The stand-ins for py-evm's elliptic-curve precompiles: the same names as the pinned py-evm,
the same output, gas and errors as the real functions, and py_ecc left unimported at start-up."""

from __future__ import annotations

import ast
import subprocess
import sys
from types import SimpleNamespace

import pytest
from eth.exceptions import VMError

from simnode.vms.evm import deferred_precompiles as dp

G1 = (1).to_bytes(32, "big") + (2).to_bytes(32, "big")
# 2·G1 on alt_bn128 (EIP-196 test values)
G1_DOUBLE = bytes.fromhex(
    "030644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd3"
    "15ed738c0e0a7c92e7845f96b2ae9c0a68a6a449e3538fc7ff3ebf7a5a18a2c4")


class Computation:
    """What a precompile touches of py-evm's computation: the message data, gas and output."""

    def __init__(self, data: bytes) -> None:
        self.msg = SimpleNamespace(data_as_bytes=data, data=data)
        self.gas: list[int] = []
        self.output = b""

    def consume_gas(self, amount: int, reason: str) -> None:
        self.gas.append(amount)


def imported_names(source_path) -> dict[str, set[str]]:
    """`from .x import a, b` lines of a package __init__ -> {"x": {"a", "b"}}."""
    tree = ast.parse(source_path.read_text())
    out: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            out.setdefault(node.module, set()).update(alias.name for alias in node.names)
    return out


def test_stand_ins_are_in_place_of_py_evm_modules():
    import eth.precompiles

    assert sys.modules["eth.precompiles.ecadd"].__doc__.startswith("Stand-in")
    assert sys.modules["eth.precompiles.bls12_381"].__doc__.startswith("Stand-in")
    assert eth.precompiles.ecadd.__name__ == "ecadd"


def test_stand_in_names_match_the_pinned_py_evm():
    precompiles = dp._precompiles_dir()
    top = imported_names(precompiles / "__init__.py")
    for module, functions in dp.BN128_MODULES.items():
        assert top[module] == set(functions)
        for function in functions:
            assert callable(getattr(dp.real_module(module), function))
    assert top[dp.BLS12_381_PACKAGE] == {f for names in dp.BLS12_381_FUNCTIONS.values() for f in names}
    assert imported_names(precompiles / dp.BLS12_381_PACKAGE / "__init__.py") == {
        source: set(names) for source, names in dp.BLS12_381_FUNCTIONS.items()}


@pytest.mark.parametrize(("name", "data", "options"), [
    ("ecadd", G1 + G1, {}),
    ("ecadd", G1 + G1, {"gas_cost": 150}),
    ("ecmul", G1 + (2).to_bytes(32, "big"), {"gas_cost": 6000}),
    ("ecpairing", b"", {"gas_cost_base": 45000, "gas_cost_per_point": 34000}),
    ("ecpairing", G1 + bytes(128), {"gas_cost_base": 45000, "gas_cost_per_point": 34000}),
])
def test_bn128_stand_ins_give_py_evm_results(name, data, options):
    import eth.precompiles

    stand_in = getattr(eth.precompiles, name)(**options) if options else getattr(eth.precompiles, name)
    real = getattr(dp.real_module(name), name)
    real = real(**options) if options else real
    ours, theirs = Computation(data), Computation(data)
    stand_in(ours)
    real(theirs)
    assert (ours.output, ours.gas) == (theirs.output, theirs.gas)
    if name != "ecpairing":
        assert ours.output == G1_DOUBLE


def test_bn128_stand_in_raises_py_evm_error():
    import eth.precompiles

    with pytest.raises(VMError, match="Invalid ECADD parameters"):
        eth.precompiles.ecadd(Computation(G1[:63] + b"\x03" + G1))


def test_bls12_381_stand_in_gives_py_evm_result():
    import eth.precompiles
    from eth.precompiles.bls12_381.bls12_381_g1 import bls12_g1_add

    # the G1 generator, as EIP-2537 encodes it (64-byte padded coordinates), added to itself
    x = bytes.fromhex("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb")
    y = bytes.fromhex("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1")
    point = bytes(16) + x + bytes(16) + y
    ours, theirs = Computation(point + point), Computation(point + point)
    eth.precompiles.bls12_g1_add(ours)
    bls12_g1_add(theirs)
    assert ours.output == theirs.output and len(ours.output) == 128 and ours.gas == theirs.gas


def test_importing_the_evm_chain_leaves_py_ecc_unimported():
    code = ("import sys; from simnode import patches; patches.install(); import simnode.vms.evm.evm_chain; "
            "print(sorted(m for m in sys.modules if m.startswith('py_ecc')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_cancun_execution_runs_the_stand_ins():
    """ECADD and ECMUL through a C-Chain eth_call: py-evm's output and Istanbul gas prices."""
    from simnode.clock import VirtualClock
    from simnode.config import NodeConfig
    from simnode.genesis import load_network_genesis
    from simnode.store import Store
    from simnode.vms.chain_context import ChainContext
    from simnode.vms.evm.evm_chain import EVMChain
    from simnode.vms.evm.execution import CallArgs, Executor

    ctx = ChainContext(NodeConfig(), load_network_genesis(12345), Store.memory(), VirtualClock(1_767_225_600_000),
                       b"\x01" * 32)
    executor = Executor(EVMChain(ctx))
    for address, data, gas in ((6, G1 + G1, 150), (7, G1 + (2).to_bytes(32, "big"), 6000)):
        args = CallArgs(sender=b"\x22" * 20, to=address.to_bytes(20, "big"), gas=100_000, gas_price=None,
                        max_fee=None, tip=None, value=0, data=data, nonce=None, access_list=None)
        comp = executor.run(args, None)
        assert not comp.is_error
        assert comp.output == G1_DOUBLE
        assert comp.get_gas_used() == gas
