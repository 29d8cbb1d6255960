"""The Webhooks API's engine: webhook records and the shared secret in LevelDB (records.py), the
matcher every accepted block goes through, which stages each message in the block's own batch
(engine.py, evm_events.py, primary_events.py), and the delivery worker (delivery.py). Its routes
are in api/data/webhooks.py; the node wires it between its chains and the index."""

from .delivery import Deliverer, Policy, signature
from .engine import BlockFeed, Webhooks

__all__ = ["BlockFeed", "Deliverer", "Policy", "Webhooks", "signature"]
