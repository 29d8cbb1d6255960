"""pytest plugin: a simulated Avalanche node per test (or per module), funded accounts, clients.

Fixtures
    simnode_node       a running node (`simnode.testing.Simnode`): .url, .urls, .rpc(), .advance_time(),
                       .mine(), .snapshot()/.revert(), .run_scenario()
    simnode_urls       {"base", "info", "X", "P", "C", "C_ws", "C_avax"}
    simnode_accounts   alice, bob, carol, dave (derived from the seed) funded from ewoq on C, X and P;
                       each has .private_key, .key_hex, .c_address, .x_address, .p_address; plus ewoq
    simnode_web3       a web3.py Web3 connected to the C-Chain
    simnode_scenario   run(source, vars=None): run a scenario file or a list of step tables

Options (command line or ini)
    --simnode-scope=function|module   (ini simnode_scope)   function: a fresh node per test (default);
                                      module: one node per test module, reverted to a snapshot after
                                      each test (much faster; the clock is not rewound)
    --simnode-clock=virtual|wall      (ini simnode_clock)   default virtual
    --simnode-seed=N                  (ini simnode_seed)    default 0
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("simnode", "simulated Avalanche node")
    group.addoption("--simnode-scope", choices=("function", "module"), default=None,
                    help="one node per test (function, default) or per module with snapshot/revert")
    group.addoption("--simnode-clock", choices=("virtual", "wall"), default=None, help="the nodes' clock")
    group.addoption("--simnode-seed", type=int, default=None, help="seed of the nodes and the test accounts")
    parser.addini("simnode_scope", "function or module", default="function")
    parser.addini("simnode_clock", "virtual or wall", default="virtual")
    parser.addini("simnode_seed", "seed of the nodes and test accounts", default="0")


def _opt(config: pytest.Config, name: str) -> str:
    value = config.getoption(f"--simnode-{name}")
    return str(value) if value is not None else str(config.getini(f"simnode_{name}"))


def _start(config: pytest.Config, base_dir: Path) -> Any:
    from simnode.testing import Simnode
    return Simnode.start(seed=int(_opt(config, "seed")), clock=_opt(config, "clock"), base_dir=base_dir)


@pytest.fixture(scope="module")
def _simnode_module_node(request: pytest.FixtureRequest) -> Iterator[Any]:
    if _opt(request.config, "scope") != "module":
        yield None
        return
    node = _start(request.config, Path(str(request.path)).parent)
    try:
        yield node
    finally:
        node.stop()


@pytest.fixture()
def simnode_node(request: pytest.FixtureRequest, _simnode_module_node: Any) -> Iterator[Any]:
    """A running simulated node: fresh per test, or the module's reverted after each test."""
    if _simnode_module_node is None:
        node = _start(request.config, Path(str(request.path)).parent)
        try:
            yield node
        finally:
            node.stop()
        return
    node = _simnode_module_node
    node.base_dir = Path(str(request.path)).parent
    snap = node.snapshot()
    try:
        yield node
    finally:
        node.accounts = None
        node.revert(snap)


@pytest.fixture()
def simnode_urls(simnode_node: Any) -> dict[str, str]:
    return simnode_node.urls


@pytest.fixture()
def simnode_accounts(request: pytest.FixtureRequest, simnode_node: Any) -> Any:
    """Accounts alice, bob, carol, dave funded from ewoq with real txs (C 1000, X 1000, P 5000 AVAX)."""
    return simnode_node.fund_accounts(seed=int(_opt(request.config, "seed")))


@pytest.fixture()
def simnode_web3(simnode_node: Any) -> Any:
    try:
        from web3 import Web3
    except ImportError:  # pragma: no cover - web3 is a test extra
        pytest.fail("simnode_web3 needs web3.py: pip install web3")
    return Web3(Web3.HTTPProvider(simnode_node.urls["C"], request_kwargs={"timeout": 60}))


@pytest.fixture()
def simnode_scenario(simnode_node: Any) -> Any:
    """run(source, vars=None, setup=True) -> ReplayResult. source: a scenario file (relative to the
    test file's folder or the cwd), a parsed document or a list of step tables. Steps can name the
    simnode_accounts accounts if that fixture is used too."""
    def run(source: Any, vars: dict[str, Any] | None = None, setup: bool = True) -> Any:
        return simnode_node.run_scenario(source, vars=vars, setup=setup)
    return run
