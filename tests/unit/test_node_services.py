"""NodeServices (api/node_services.py) is what the API uses of the node, and Node satisfies it;
ChainHost (chain_manager.py) likewise for the chain manager. The API reaches the node only through the
protocol, so these checks are what keeps the two in step."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import types
import typing
from pathlib import Path

import pytest

from simnode import chain_manager
from simnode.api import node_services
from simnode.api.node_services import ChainHealth, NodeServices
from simnode.chain_manager import ChainHost
from simnode.config import NodeConfig
from simnode.node import Node

API_DIR = Path(node_services.__file__).parent


def members(protocol: type) -> dict[str, object]:
    return {name: value for name, value in vars(protocol).items()
            if isinstance(value, property) or (inspect.isfunction(value) and not name.startswith("_"))}


def api_uses_of_the_node() -> dict[str, set[str]]:
    """Every `node.x`, `node_.x` and `<anything>.node.x` in the API's modules: attribute -> modules."""
    uses: dict[str, set[str]] = {}
    for path in sorted(API_DIR.rglob("*.py")):
        for n in ast.walk(ast.parse(path.read_text())):
            if not isinstance(n, ast.Attribute):
                continue
            v = n.value
            if (isinstance(v, ast.Name) and v.id in ("node", "node_")) or (isinstance(v, ast.Attribute) and v.attr == "node"):
                uses.setdefault(n.attr, set()).add(str(path.relative_to(API_DIR)))
    return uses


def type_checking_namespace(module: types.ModuleType) -> dict[str, object]:
    """The module's globals plus the names it imports under `if TYPE_CHECKING:`."""
    ns = dict(vars(module))
    for stmt in ast.parse(inspect.getsource(module)).body:
        if isinstance(stmt, ast.If) and "TYPE_CHECKING" in ast.unparse(stmt.test):
            for imp in stmt.body:
                assert isinstance(imp, ast.ImportFrom)
                source = importlib.import_module("." * imp.level + (imp.module or ""), module.__package__)
                ns.update({a.asname or a.name: getattr(source, a.name) for a in imp.names})
    return ns


def test_the_protocol_is_what_the_api_uses():
    used = api_uses_of_the_node()
    declared = set(members(NodeServices))
    assert not set(used) - declared, {k: used[k] for k in set(used) - declared}
    assert not declared - set(used), f"declared but unused by the API: {sorted(declared - set(used))}"


def test_the_api_does_not_import_the_node():
    """Not even for type hints: the node imports the API."""
    for path in sorted(API_DIR.rglob("*.py")):
        package = ".".join(("simnode", *path.parent.relative_to(API_DIR.parent).parts))
        for n in ast.walk(ast.parse(path.read_text())):
            if isinstance(n, ast.ImportFrom):
                base = importlib.util.resolve_name("." * n.level + (n.module or ""), package) if n.level else n.module
                targets = {base, *(f"{base}.{a.name}" for a in n.names)}
            elif isinstance(n, ast.Import):
                targets = {a.name for a in n.names}
            else:
                continue
            assert not targets & {"simnode.node", "simnode.chain_manager"}, path


@pytest.mark.parametrize("protocol", [NodeServices, ChainHost])
def test_node_methods_match_the_protocols(protocol):
    for name, member in members(protocol).items():
        if isinstance(member, property):
            continue
        assert str(inspect.signature(getattr(Node, name))) == str(inspect.signature(member)), name


@pytest.fixture(scope="module")
def running():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as handle:
        yield handle.node


@pytest.mark.parametrize(("protocol", "module"), [(NodeServices, node_services), (ChainHost, chain_manager)])
def test_a_running_node_satisfies_the_protocols(running, protocol, module):
    assert isinstance(running, protocol)
    assert isinstance(running.chain_manager, ChainHealth)
    ns = type_checking_namespace(module)
    for name, member in members(protocol).items():
        if not isinstance(member, property):
            continue
        hint = typing.get_type_hints(member.fget, ns)["return"]
        options = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
        kinds = tuple(typing.get_origin(t) or t for t in options)
        value = getattr(running, name)
        assert isinstance(value, kinds), f"{name}: {type(value).__name__} is not {hint}"
