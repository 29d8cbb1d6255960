"""The stand-in for py-evm's Ethash module: the names eth.consensus.pow takes from the pinned
py-evm, the real module's results, and pycryptodome (with cffi and pycparser) left unimported
until then."""

from __future__ import annotations

import ast
import subprocess
import sys

from simnode.vms.evm import deferred_ethash as de


def test_the_stand_in_holds_what_eth_consensus_pow_imports():
    import eth.consensus.pow

    tree = ast.parse(open(eth.consensus.pow.__file__).read())
    imported = {alias.name for node in tree.body if isinstance(node, ast.ImportFrom) and node.module == de.NAME
                for alias in node.names}
    assert imported == set(de.POW_IMPORTS)
    assert sys.modules[de.NAME].__doc__.startswith("Stand-in")
    assert eth.consensus.pow.mkcache is sys.modules[de.NAME].mkcache


def test_the_stand_in_gives_the_real_functions_results():
    stand_in = de.stand_in_module()
    real = de.real_module()
    assert real.__file__.endswith("ethash.py") and not (real.__doc__ or "").startswith("Stand-in")
    size = stand_in.get_dataset_full_size(30_000)
    assert size == real.get_dataset_full_size(30_000)
    cache = stand_in.mkcache(0)
    assert cache == real.mkcache(0)
    header, nonce = bytes(range(32)), (42).to_bytes(8, "big")
    assert stand_in.hashimoto_light(size, cache, header, nonce) == real.hashimoto_light(size, cache, header, nonce)
    assert stand_in.get_cache_size(0) == real.get_cache_size(0)  # any other name: the real module's


def test_loading_the_evm_leaves_pycryptodome_unimported():
    code = ("import sys; from simnode import patches; patches.install(); import simnode.vms.primary as p; "
            "p.load_evm_chain(); print(sorted(m for m in sys.modules if m.split('.')[0] in ('Crypto', 'cffi', 'pycparser')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True).stdout
    assert out.strip() == "[]"
