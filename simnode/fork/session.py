"""One forked network as the node holds it: the upstream client, the cache and the identity."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..store import Store
from .cache import ForkCache
from .client import Upstream
from .identity import ForkIdentity, open_identity


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
