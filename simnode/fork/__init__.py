"""A forked network's upstream: the HTTP client (client.py), the read-through cache in the node's
LevelDB (cache.py) and the fork's identity (identity.py).

It knows no chain rules: each VM asks it for raw upstream answers (JSON-RPC results, tx and
block bytes) and converts them itself (vms/evm/fork_state.py, vms/platform/fork.py,
vms/avm/fork.py). Layers point down: the VMs import this package, never the reverse.

    fork = open_fork(store, url, block_number)   # identity fetched once, then read from the cache
    fork.cached(b"some/key", lambda: fork.upstream.eth("eth_getCode", [...]))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..store import Store
from .cache import ForkCache
from .client import Upstream, UpstreamAnswerError, base_url
from .errors import ForkError
from .identity import ForkIdentity, forked_genesis, open_identity

__all__ = ["Fork", "ForkCache", "ForkError", "ForkIdentity", "Upstream", "UpstreamAnswerError", "base_url",
           "forked_genesis", "open_fork"]


@dataclass(slots=True)
class Fork:
    upstream: Upstream
    cache: ForkCache
    identity: ForkIdentity

    @property
    def url(self) -> str:
        return self.upstream.url

    def cached(self, key: bytes, fetch: Callable[[], Any]) -> Any:
        """The kept answer under `key`, fetched from the upstream (and kept) the first time."""
        return self.cache.get_or_fetch(key, fetch)


def open_fork(store: Store, url: str, block_number: int | None, *, timeout: float = 30.0,
              retries: int = 5) -> Fork:
    upstream = Upstream(url, timeout=timeout, retries=retries)
    cache = ForkCache(store)
    return Fork(upstream, cache, open_identity(upstream, cache, block_number))
