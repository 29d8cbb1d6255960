"""One forked network as the node holds it: the upstream client, the cache and the identity."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from ..formats import decode_bytes, id_to_str
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

    def tx_bytes(self, endpoint: str, get_tx: str, key: bytes, tx_id: bytes) -> bytes | None:
        """An upstream chain's tx by ID (`get_tx`: its getTx method), kept under `key` + the ID;
        None where the upstream has no such tx."""
        def fetch() -> bytes | None:
            try:
                reply = self.upstream.avax(endpoint, get_tx, {"txID": id_to_str(tx_id), "encoding": "hex"})
            except Exception as exc:  # noqa: BLE001 - "not found" is an answer; anything else is raised
                if "not found" in str(exc):
                    return None
                raise
            return decode_bytes(reply["tx"], "hex")
        return self.cached(key + tx_id, fetch)

    def history(self, endpoint: str, key: bytes, method: str, params: dict) -> Any:
        """The upstream's answer about its history (a block or tx the fork does not hold), kept
        under `key` and the call."""
        return self.cached(key + method.encode() + orjson.dumps(params, option=orjson.OPT_SORT_KEYS),
                           lambda: self.upstream.avax(endpoint, method, params))


def open_fork(store: Store, url: str, block_number: int | None, *, timeout: float = 30.0,
              retries: int = 5) -> Fork:
    upstream = Upstream(url, timeout=timeout, retries=retries)
    cache = ForkCache(store)
    return Fork(upstream, cache, open_identity(upstream, cache, block_number))
