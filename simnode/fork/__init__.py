"""A forked network's upstream: the HTTP client (client.py), the read-through cache in the node's
LevelDB (cache.py), the fork's identity (identity.py), all three held by session.py.

It knows no chain rules: each VM asks it for raw upstream answers (JSON-RPC results, tx and
block bytes) and converts them itself (vms/evm/fork_state.py, vms/platform/fork.py,
vms/avm/fork.py). Layers point down: the VMs import this package, never the reverse.

    fork = session.open_fork(store, url, block_number)   # identity fetched once, then cached
    fork.cached(b"some/key", lambda: fork.upstream.eth("eth_getCode", [...]))

Only errors.py and cache.py are imported by code that runs on every node; the rest when a node
forks.
"""
