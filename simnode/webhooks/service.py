"""WebhookService: the webhooks as the node holds them, in three calls from the composition root
(open with the store, start, stop) and what the routes and the explorer use: the engine
(records, secret, matcher), the block feed the chains get, the delivery worker (on its own
thread's event loop)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Protocol

from ..formats.ids import ZERO_ID
from ..store import Store
from .delivery import Deliverer, Policy
from .engine import BlockFeed, BlockIndexer, Webhooks

AVAX_TOKEN = ("Avalanche", "AVAX", 18)


class NodeParts(Protocol):
    """What the service reads of the node (simnode.node.Node satisfies it)."""

    store: Store | None
    indexer: Any
    clock: Any
    config: Any
    genesis: Any
    snapshots: Any
    chains: dict[bytes, Any]


def network_token(chain: Any) -> tuple[str, str, int] | None:
    """The C-Chain's native token, AVAX (an L1's token has no metadata the webhook could state)."""
    return AVAX_TOKEN if chain.subnet_id == ZERO_ID else None


class WebhookService:
    def __init__(self, node: NodeParts, policy: Policy | None = None) -> None:
        self.node = node
        self.policy = policy or Policy()
        self.engine: Webhooks | None = None
        self.feed: BlockFeed | None = None
        self.delivery: Deliverer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def open(self) -> BlockIndexer:
        """(Re)open on the node's store; returns what the chains feed their accepted blocks to."""
        node = self.node
        assert node.store is not None
        self.engine = Webhooks(node.store, node.clock.now_ms, node.config.network_id, node.genesis.avax_asset_id,
                               network_token, lambda chain_id: node.chains.get(chain_id))
        self.feed = BlockFeed(node.indexer, self.engine)
        if node.snapshots is not None:
            node.snapshots.on_revert.append(self._reverted)
        if self.delivery is not None:
            self.delivery.attach(self.engine)
        return self.feed

    def _reverted(self) -> None:
        if self.delivery is not None:
            self.delivery.resync()  # the revert may have taken undelivered messages away with their blocks

    def start(self) -> None:
        """Start delivering, on an event loop of its own thread."""
        engine = self.engine
        assert engine is not None
        loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=loop.run_forever, name="simnode-webhooks", daemon=True)
        self._thread.start()
        self._loop = loop

        async def make() -> Deliverer:
            delivery = Deliverer(engine, self.policy)
            delivery.start()
            return delivery
        self.delivery = asyncio.run_coroutine_threadsafe(make(), loop).result(30)

    async def stop(self) -> None:
        if self.delivery is None or self._loop is None:
            return
        loop, thread = self._loop, self._thread
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self.delivery.stop(), loop))
        self.delivery = self._loop = self._thread = None
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(10)
        loop.close()
