"""simnode: a single-process simulated Avalanche node."""

import os

from . import compiled, dataclass_code

# before any of simnode's dataclasses is defined (see dataclass_code)
dataclass_code.install()
# before any module of the compiled core is imported: SIMNODE_PURE=1 or a stale build runs its .py
compiled.install()

from .vms.evm import deferred_precompiles  # noqa: E402

# py-evm hashes through eth_hash, which picks pycryptodome (about 5x slower) unless told to use
# safe-pysha3; the choice is made at eth_hash's first import, so it is set here, first.
os.environ.setdefault("ETH_HASH_BACKEND", "pysha3")
# py-evm's elliptic-curve precompiles load py_ecc's tables (~0.2 s) when py-evm is imported;
# the stand-ins load them on their first call instead. Also before py-evm's first import.
deferred_precompiles.install()
