"""Importing simnode changes nothing outside simnode (simnode/patches.py): a pytest session in this
venv, where pytest loads simnode's plugin, finds the standard library, the environment, the module
table and py-evm as they are unless a node starts; install() makes every change, uninstall()
undoes it, and other releases than the pinned ones are left alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from simnode import patches

# what simnode's install() replaces in py-evm and py-trie: (module, owner or "", attribute)
LIBRARY_FUNCTIONS = [
    ("trie.utils.nibbles", "", "bytes_to_nibbles"), ("trie.hexary", "", "bytes_to_nibbles"),
    ("trie.iter", "", "bytes_to_nibbles"), ("trie.hexary", "HexaryTrie", "get_node"),
    ("trie.hexary", "HexaryTrie", "get"), ("trie.utils.nodes", "", "get_node_type"),
    ("trie.hexary", "", "get_node_type"), ("trie.utils.nodes", "", "extract_key"), ("trie.hexary", "", "extract_key"),
    ("eth.vm.code_stream", "CodeStream", "is_valid_opcode"),
    ("eth.vm.computation", "BaseComputation", "apply_computation"),
    ("eth.vm.stack", "Stack", "pop_ints"), ("eth.vm.stack", "Stack", "pop1_int"), ("eth.vm.stack", "Stack", "push_int"),
    ("eth.vm.computation", "BaseComputation", "extend_memory"),
]

# Runs in the child interpreter: which of those functions are not the libraries' own
FOREIGN = textwrap.dedent(f"""
    def foreign():
        import importlib
        out = []
        for module, owner, name in {LIBRARY_FUNCTIONS!r}:
            holder = importlib.import_module(module)
            if owner:
                holder = vars(holder)[owner]
            fn = vars(holder)[name]
            fn = getattr(fn, "__func__", fn)
            if not fn.__module__.startswith(("eth.", "trie.")):
                out.append(f"{{module}}.{{owner}}.{{name}}")
        return out
""")


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ETH_HASH_BACKEND" and not k.startswith("PYTEST")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def test_a_pytest_session_using_no_simnode_fixture_finds_everything_untouched(tmp_path: Path) -> None:
    (tmp_path / "test_plain.py").write_text(FOREIGN + textwrap.dedent("""
        import dataclasses, json, os, sys

        LOADED_AT_COLLECTION = sorted(sys.modules)

        def test_untouched(pytestconfig):
            assert pytestconfig.pluginmanager.hasplugin("simnode")  # pytest loaded the plugin
            simnode_modules = [m for m in LOADED_AT_COLLECTION if m.split(".")[0] == "simnode"]
            heavy = [m for m in LOADED_AT_COLLECTION if m.split(".")[0] in ("eth", "trie", "py_ecc", "aiohttp")]
            assert "exec" not in vars(dataclasses)
            import eth.precompiles, eth.precompiles.ecadd, eth.precompiles.bls12_381
            from eth_hash.auto import keccak
            keccak(b"")
            with open(os.environ["REPORT"], "w") as f:
                json.dump({"simnode_modules": simnode_modules, "heavy": heavy,
                           "env": {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")},
                           "foreign": foreign(),
                           "precompiles": [getattr(sys.modules[m], "__file__", None) for m in
                                           ("eth.precompiles.ecadd", "eth.precompiles.bls12_381")],
                           "keccak_backend": type(keccak._backend).__name__}, f)
    """))
    env = {**child_env(), "REPORT": str(tmp_path / "report.json")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_plain.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert set(report["simnode_modules"]) <= {"simnode", "simnode.testing", "simnode.testing.plugin"}
    assert report["heavy"] == []  # the plugin imports nothing heavy until a fixture is used
    assert report["env"] == env  # ETH_HASH_BACKEND not set, nothing else either
    assert report["foreign"] == []  # py-evm's and py-trie's functions are their own
    assert all(path and Path(path).exists() for path in report["precompiles"])  # the real modules
    assert report["keccak_backend"] == "AutoBackend"  # eth_hash chooses its backend itself


def test_install_makes_every_change_and_uninstall_undoes_it(tmp_path: Path) -> None:
    code = FOREIGN + textwrap.dedent("""
        import dataclasses, json, os, sys
        env, modules = dict(os.environ), set(sys.modules)
        from simnode import dataclass_code, patches
        patches.install()
        from eth_hash.auto import keccak
        installed = {"exec": vars(dataclasses).get("exec") is dataclass_code.kept_exec,
                     "stand_ins": sorted(m for m in sys.modules if m.startswith("eth.precompiles.")
                                 and (sys.modules[m].__doc__ or "").startswith("Stand-in")),
                     "foreign": len(foreign()), "keccak": type(keccak._backend).__name__,
                     "installed": patches.installed(), "env": dict(os.environ) == env}
        patches.uninstall()
        import eth.precompiles.ecadd
        after = {"exec": "exec" in vars(dataclasses), "foreign": foreign(), "keccak": type(keccak._backend).__name__,
                 "installed": patches.installed(), "env": dict(os.environ) == env,
                 "ecadd": getattr(sys.modules["eth.precompiles.ecadd"], "__file__", None)}
        print(json.dumps({"installed": installed, "after": after}))
    """)
    out = subprocess.run([sys.executable, "-c", code], env=child_env(), capture_output=True, text=True, timeout=300,
                         check=True).stdout
    report = json.loads(out)
    installed, after = report["installed"], report["after"]
    assert installed["exec"] and installed["installed"] and installed["env"]
    assert installed["stand_ins"] == ["eth.precompiles.bls12_381", "eth.precompiles.ecadd", "eth.precompiles.ecmul",
                                      "eth.precompiles.ecpairing"]
    assert installed["foreign"] == len(LIBRARY_FUNCTIONS) and installed["keccak"] != "AutoBackend"
    assert after == {"exec": False, "foreign": [], "keccak": "AutoBackend", "installed": False,
                     "ecadd": after["ecadd"], "env": True}
    assert after["ecadd"] and Path(after["ecadd"]).exists()


def test_other_releases_than_the_pinned_ones_are_left_alone() -> None:
    code = FOREIGN + textwrap.dedent("""
        import importlib.metadata, json, sys, warnings
        real = importlib.metadata.version
        importlib.metadata.version = lambda name: "0.0.1" if name == "py-evm" else real(name)
        from simnode import patches
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            patches.install()
        replaced = foreign()  # imports py-evm
        print(json.dumps({"warned": [str(w.message) for w in caught], "foreign": replaced,
                          "stand_ins": (sys.modules["eth.precompiles.ecadd"].__doc__ or "").startswith("Stand-in"),
                          "pinned": patches.pinned_releases_installed()}))
    """)
    out = subprocess.run([sys.executable, "-c", code], env=child_env(), capture_output=True, text=True, timeout=300,
                         check=True).stdout
    report = json.loads(out)
    assert len(report["warned"]) == 1 and "not the releases simnode pins" in report["warned"][0]
    assert report["foreign"] == [] and not report["stand_ins"] and not report["pinned"]


def test_the_pins_are_pyprojects() -> None:
    assert patches.pinned_releases_installed()  # this venv holds the pinned releases
    assert patches._pin("py-evm==0.12.1b1") == ("py-evm", "0.12.1b1")
    assert patches._pin("eth-hash[pysha3]==0.8.0") == ("eth-hash", "0.8.0")
    assert patches._pin("hypothesis>=6; extra == 'test'") is None
