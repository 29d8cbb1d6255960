"""simnode: a single-process simulated Avalanche node."""

import os

# py-evm hashes through eth_hash, which picks pycryptodome (about 5x slower) unless told to use
# safe-pysha3; the choice is made at eth_hash's first import, so it is set here, first.
os.environ.setdefault("ETH_HASH_BACKEND", "pysha3")
